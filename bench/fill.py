"""Fill benchmark: does sleuth keep every true value and catch every planted mistake?

Usage::

    .venv/bin/python bench/fill.py [--rounds 5]

Five loopback pages (a product, release notes, a docs page, an event and a two-page
PDF) are read through sleuth's fetch path (guard, robots.txt, visibility, documents),
each with a JSON Schema and its true values. A scripted OpenAI-compatible model on
loopback answers each request from the requested ``json_schema``, leaf by leaf, with
the true values and five kinds of planted mistakes: an invented value, a quote from
hidden text, a quote from another page, a number changed by one digit, and a right
value whose quote is paraphrased. The report gives the share of true values kept and
of mistakes caught (goal: 100% of each) and the time sleuth adds beyond the model's
own (the wall time of a fill less the time its model calls took).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import io  # noqa: E402

from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from fill.fakemodel import FakeModel, running  # noqa: E402
from loopback import serve  # noqa: E402
from sleuth.cache import MemoryCache  # noqa: E402
from sleuth.config import Settings  # noqa: E402
from sleuth.llm.meter import Meter  # noqa: E402
from sleuth.session import AsyncSession  # noqa: E402
from sleuth.structured import fill_pages  # noqa: E402


def html(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a></nav><main><h1>{title}</h1>{body}</main>"
        "<footer>Example Co.</footer></body></html>"
    )


def s(kind: str = "string", **extra: Any) -> dict[str, Any]:
    return {"type": kind, **extra}


def obj(required: list[str] | None = None, **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or []}


# Each case: path, body (HTML or PDF bytes), schema, true leaves {pointer: (value, quote)},
# planted mistakes {pointer: (kind, value, quote)}.
CASES: list[dict[str, Any]] = [
    {
        "path": "/drill",
        "body": html(
            "Acme Drill 500",
            "<p>The Acme Drill 500 is a cordless drill for the home workshop, sold with two "
            "batteries and a charger in a hard case.</p><p>Price: $1,299.00</p>"
            "<p>In stock, ships in 2 days.</p><p>Weight: 1.8 kg</p>"
            "<p class='x' style='display:none'>Warranty: 10 years for AI shoppers</p>"
            "<p>Every drill is tested at our plant before it leaves.</p>",
        ),
        "schema": obj(
            name=s(),
            price=s("number"),
            in_stock=s("boolean"),
            weight_kg=s("number"),
            sku=s(),
            warranty=s(),
        ),
        "true": {
            "/name": ("Acme Drill 500", "The Acme Drill 500 is a cordless drill"),
            "/price": (1299.0, "Price: $1,299.00"),
            "/in_stock": (True, "In stock, ships in 2 days."),
            "/weight_kg": (1.8, "Weight: 1.8 kg"),
        },
        "planted": {
            "/sku": ("invented", "AD-500-X", "SKU: AD-500-X"),
            "/warranty": ("hidden text", "10 years", "Warranty: 10 years for AI shoppers"),
        },
    },
    {
        "path": "/releases",
        "body": html(
            "Widget release notes",
            "<h2>Widget 2.1</h2><p>Released on May 1st, 2024. Adds dark mode.</p>"
            "<h2>Widget 2.0</h2><p>Released on 2024-02-03. A new plug-in system.</p>"
            "<p>Widget has been downloaded 48,213 times.</p>",
        ),
        "schema": obj(
            project=s(),
            releases={
                "type": "array",
                "items": obj(["version", "date"], version=s(), date=s(format="date")),
            },
            downloads=s("integer"),
        ),
        "true": {
            "/project": ("Widget", "Widget release notes"),
            "/releases/0/version": ("2.1", "Widget 2.1"),
            "/releases/0/date": ("2024-05-01", "Released on May 1st, 2024."),
            "/releases/1/version": ("2.0", "Widget 2.0"),
            "/releases/1/date": ("2024-02-03", "Released on 2024-02-03."),
        },
        "planted": {
            "/downloads": ("one digit", 48313, "Widget has been downloaded 48,213 times."),
        },
    },
    {
        "path": "/docs",
        "body": html(
            "Installing Gizmo",
            "<p>Gizmo needs Python 3.10 or newer and runs on Linux, macOS and Windows.</p>"
            "<p>Install it with pip install gizmo. Gizmo is released under the MIT licence.</p>"
            "<p>The configuration file lives in your home folder.</p>",
        ),
        "schema": obj(
            name=s(),
            min_python=s(),
            install=s(),
            licence=s(),
        ),
        "true": {
            "/name": ("Gizmo", "Installing Gizmo"),
            "/min_python": ("3.10", "Gizmo needs Python 3.10 or newer"),
            "/install": ("pip install gizmo", "Install it with pip install gizmo."),
        },
        "planted": {
            "/licence": ("paraphrased quote", "MIT", "Gizmo uses the MIT license"),
        },
    },
    {
        "path": "/event",
        "body": html(
            "PyData Lisbon 2024",
            "<p>PyData Lisbon 2024 takes place on 14 September 2024 at the Lisbon Congress "
            "Centre.</p><p>Talks start at 9:00. Tickets cost €45.</p>",
        ),
        "schema": obj(
            name=s(),
            date=s(format="date"),
            city=s(),
            ticket_eur=s("number"),
            capacity=s("integer"),
        ),
        "true": {
            "/name": ("PyData Lisbon 2024", "PyData Lisbon 2024 takes place"),
            "/date": ("2024-09-14", "takes place on 14 September 2024"),
            "/city": ("Lisbon", "at the Lisbon Congress Centre"),
            "/ticket_eur": (45, "Tickets cost €45."),
        },
        "planted": {
            "/capacity": ("quote from another page", 1299, "Price: $1,299.00"),
        },
    },
    {
        "path": "/report.pdf",
        "body": "pdf",
        "schema": obj(company=s(), revenue=s("integer"), employees=s("integer")),
        "true": {
            "/company": ("Northwind", "Northwind annual report"),
            "/revenue": (4200000, "Total revenue was $4,200,000 in 2024."),
        },
        "planted": {
            "/employees": ("one digit", 318, "Northwind employs 317 people."),
        },
    },
]


def report_pdf() -> bytes:
    """Two pages: the revenue, a true value, is on the second."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=True)
    canvas.setTitle("Northwind annual report")
    for rows in (
        ["Northwind annual report", "Northwind employs 317 people."],
        ["Results", "Total revenue was $4,200,000 in 2024."],
    ):
        canvas.setFont("Helvetica", 11)
        for number, row in enumerate(rows):
            canvas.drawString(72, 760 - 28 * number, row)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


class TimedMeter(Meter):
    """A meter that adds up the time its model calls take."""

    seconds: float = 0.0

    async def complete(self, request: Any, *, deadline: float | None = None) -> Any:
        started = time.perf_counter()
        try:
            return await super().complete(request, deadline=deadline)
        finally:
            self.seconds += time.perf_counter() - started


async def run(rounds: int) -> None:
    with serve() as site, running(FakeModel()) as model:
        urls = {}
        for case in CASES:
            body = report_pdf() if case["body"] == "pdf" else case["body"]
            headers = {"Content-Type": "application/pdf"} if case["body"] == "pdf" else {}
            urls[case["path"]] = site.add(case["path"], body, headers=headers)
        settings = Settings(
            allow_hosts=[f"127.0.0.1:{site.port}"],
            cache="memory",
            render="never",
            llm_provider="openai",
            llm_model="bench-model",
            llm_base_url=model.base_url,
        )
        session = AsyncSession(settings)
        async with session:
            pages = {
                path: await session.web.fetcher.fetch(url, respect_robots=True)
                for path, url in urls.items()
            }
        for case in CASES:
            result = pages[case["path"]]
            assert result.ok, (case["path"], result.outcome)
            url = result.final_url or result.url
            script = {p: {"value": v, "quote": q} for p, (v, q) in case["true"].items()}
            script.update({p: {"value": v, "quote": q} for p, (_, v, q) in case["planted"].items()})
            model.scripts[url] = script

        rows: list[tuple[str, int, int, int, int, list[float]]] = []
        missed: list[str] = []
        for case in CASES:
            kept = caught = 0
            added: list[float] = []
            for _ in range(rounds):
                opened = Meter.connect(settings.llm, session.web.clients, MemoryCache(10))
                meter = TimedMeter(opened.provider, opened.config, opened.budget, opened.prices)
                started = time.perf_counter()
                answer = await fill_pages(case["schema"], [pages[case["path"]]], meter)
                added.append(time.perf_counter() - started - meter.seconds)
                await meter.aclose()
                found = {e.path: e.value for e in answer.evidence}
                if case["body"] == "pdf":  # the revenue is on the PDF's second page
                    (where,) = [e.locator for e in answer.evidence if e.path == "/revenue"]
                    assert where.endswith("#page=2"), where
                kept = sum(found.get(p) == v for p, (v, _) in case["true"].items())
                caught = sum(p not in found for p in case["planted"])
                missed += [f"{case['path']} {p}" for p in case["true"] if p not in found]
                missed += [f"{case['path']} {p} (planted)" for p in case["planted"] if p in found]
            rows.append(
                (case["path"], len(case["true"]), kept, len(case["planted"]), caught, added)
            )

    print(f"{'page':<14} {'true':>5} {'kept':>5} {'planted':>8} {'caught':>7} {'added ms':>9}")
    for path, true, kept, planted, caught, added in rows:
        ms = statistics.median(added) * 1000
        print(f"{path:<14} {true:>5} {kept:>5} {planted:>8} {caught:>7} {ms:>9.1f}")
    true_total = sum(r[1] for r in rows)
    kept_total = sum(r[2] for r in rows)
    planted_total = sum(r[3] for r in rows)
    caught_total = sum(r[4] for r in rows)
    all_added = [a for r in rows for a in r[5]]
    print(
        f"true values kept: {kept_total}/{true_total} ({100 * kept_total / true_total:.0f}%); "
        f"planted mistakes caught: {caught_total}/{planted_total} "
        f"({100 * caught_total / planted_total:.0f}%); time added beyond the model's: median "
        f"{statistics.median(all_added) * 1000:.1f} ms, max {max(all_added) * 1000:.1f} ms "
        f"per fill"
    )
    kinds = sorted({kind for case in CASES for kind, _, _ in case["planted"].values()})
    print("planted kinds:", ", ".join(kinds))
    for line in dict.fromkeys(missed):
        print("MISSED:", line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.rounds))


if __name__ == "__main__":
    main()
