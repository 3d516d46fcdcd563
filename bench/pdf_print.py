"""Chromium-printed PDFs of real text, for ``bench/documents.py``: reading order per layout.

Usage::

    .venv/bin/python bench/pdf_print.py ../shared/data/article-extraction-benchmark OUT
    .venv/bin/python bench/documents.py OUT

Each article body of the AEB folder (real news and blog prose) becomes one HTML page,
printed by Chromium's ``--print-to-pdf`` with its own running header (date, title) and
footer (address, page x/y) on every page, in one of three layouts, a folder each:

- ``single``: one column of paragraphs under a heading;
- ``two-column``: CSS columns under a heading that spans them, with subheadings;
- ``table``: an introduction, then a table of the paragraphs' sentences (a short label,
  a number, the sentence), then a closing paragraph.

Fonts, sizes, margins and column gaps vary from page to page. The truth beside each PDF
(``x.txt``) is what a reader reads: the heading, then the text in column order, a table
row by row and cell by cell, without the running header and footer.
"""

from __future__ import annotations

import argparse
import html
import json
import random
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
LAYOUTS = ("single", "two-column", "table")
FONTS = ("serif", "sans-serif", "Georgia, serif", "Helvetica, Arial, sans-serif")


def articles(folder: Path, count: int, rng: random.Random) -> list[list[str]]:
    """Article bodies as paragraphs, long enough to fill a page or more."""
    truth = json.loads((folder / "ground-truth.json").read_text())
    bodies = []
    for key in sorted(truth):
        paragraphs = [p.strip() for p in truth[key]["articleBody"].split("\n") if p.strip()]
        if sum(len(p.split()) for p in paragraphs) >= 350 and len(paragraphs) >= 5:
            bodies.append(paragraphs)
    rng.shuffle(bodies)
    return bodies[:count]


def cut(paragraphs: list[str], words: int) -> list[str]:
    """The first paragraphs, about ``words`` words in all."""
    out: list[str] = []
    total = 0
    for paragraph in paragraphs:
        if total >= words:
            break
        out.append(paragraph)
        total += len(paragraph.split())
    return out


def page(layout: str, paragraphs: list[str], rng: random.Random) -> tuple[str, list[str]]:
    """One HTML page and its truth, block by block."""
    title = " ".join(paragraphs[0].split()[:6]).rstrip(".,;:")
    size = rng.choice((9.5, 10, 10.5, 11, 12))
    style = (
        f"body {{ font: {size}pt {rng.choice(FONTS)}; margin: {rng.choice((0, 8, 20))}px }}"
        f" .cols {{ column-count: 2; column-gap: {rng.choice((1.2, 1.5, 2, 3))}em }}"
        " h1 { font-size: 18pt } h2 { font-size: 13pt }"
        " td, th { border: 1px solid #999; padding: 3px 6px; vertical-align: top }"
        " table { border-collapse: collapse; width: 100% }"
    )
    truth = [title]
    parts = [f"<h1>{html.escape(title)}</h1>"]
    escape = html.escape
    if layout == "single":
        body = cut(paragraphs, rng.randint(400, 1400))
        parts += [f"<p>{escape(p)}</p>" for p in body]
        truth += body
    elif layout == "two-column":
        body = cut(paragraphs, rng.randint(500, 1800))
        inner = []
        for index, paragraph in enumerate(body):
            if index and index % rng.randint(3, 5) == 0:
                heading = " ".join(paragraph.split()[:4]).rstrip(".,;:")
                inner.append(f"<h2>{escape(heading)}</h2>")
                truth.append(heading)
            inner.append(f"<p>{escape(paragraph)}</p>")
            truth.append(paragraph)
        parts.append(f"<div class=cols>{''.join(inner)}</div>")
    else:
        intro, *rest = cut(paragraphs, rng.randint(400, 1000))
        parts.append(f"<p>{escape(intro)}</p>")
        truth.append(intro)
        rows = ["<tr><th>Label</th><th>No.</th><th>Sentence</th></tr>"]
        truth.append("Label No. Sentence")
        sentences = [s.strip() for p in rest[:-1] for s in p.split(". ") if len(s.split()) > 3]
        for number, sentence in enumerate(sentences[:30], start=1):
            label = " ".join(sentence.split()[:2])
            rows.append(
                f"<tr><td>{escape(label)}</td><td>{number}</td><td>{escape(sentence)}</td></tr>"
            )
            truth.append(f"{label} {number} {sentence}")
        parts.append(f"<table>{''.join(rows)}</table>")
        if len(rest) > 1:
            parts.append(f"<p>{escape(rest[-1])}</p>")
            truth.append(rest[-1])
    document = (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)}"
        f"</title><style>{style}</style></head><body>{''.join(parts)}</body></html>"
    )
    return document, truth


def print_pdf(source: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                CHROMIUM,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                f"--user-data-dir={profile}",
                f"--print-to-pdf={out}",
                source.as_uri(),
            ],
            capture_output=True,
            timeout=180,
            check=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("aeb", type=Path, help="the article-extraction-benchmark folder")
    parser.add_argument("out", type=Path, help="where the layouts' folders go")
    parser.add_argument("--per-layout", type=int, default=36)
    args = parser.parse_args()
    rng = random.Random(20260521)
    bodies = articles(args.aeb, args.per_layout * len(LAYOUTS), rng)
    jobs = []
    for index, paragraphs in enumerate(bodies):
        layout = LAYOUTS[index % len(LAYOUTS)]
        folder = args.out / layout
        folder.mkdir(parents=True, exist_ok=True)
        document, truth = page(layout, paragraphs, rng)
        name = folder / f"doc{index:03d}"
        name.with_suffix(".html").write_text(document)
        name.with_suffix(".txt").write_text("\n\n".join(truth) + "\n")
        jobs.append((name.with_suffix(".html"), name.with_suffix(".pdf")))
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda job: print_pdf(*job), jobs))
    print(f"{len(jobs)} PDFs under {args.out}")


if __name__ == "__main__":
    main()
