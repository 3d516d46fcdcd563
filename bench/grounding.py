"""Grounding benchmark: are research quotes findable on their page, and from its content?

Usage::

    .venv/bin/python bench/grounding.py [DATA] [--articles 150] [--others 30] [--seed 1]

``DATA`` is the WCXB dev split (default ``../shared/data/wcxb-dev``; see
``../shared/data/README.md``), or the article-extraction benchmark (AEB, news pages
sleuth's digest rules were never tuned on; its truth is the article body, so the
question is the page's ``<title>`` and nothing counts as boilerplate). Pages are
served on loopback by a server in this process, with a SearXNG-style ``/search``
stand-in. For each sampled page the benchmark runs ``research(<the page's title>)``
where the search answers with that page and two other pages of the same type
(distractors), then checks every quote against the page it cites:

* ``in page``: the quote is in the page's *visible text*. The visible text is
  the text of the HTML ``<body>`` with ``script``, ``style``, ``noscript``,
  ``template``, form controls and inline ``display:none``/``visibility:hidden``
  elements removed (the ``hidden`` attribute is not applied: pages streamed
  by a server renderer show such blocks once their script runs), parsed as
  sleuth parses it (markup after ``</body>`` or ``</html>`` belongs to the
  body, where a browser places it), block elements (those a browser's default
  style sheet lays out as blocks; every other element, custom ones included,
  is inline) separated by a space, characters without a glyph (format
  characters such as zero-width spaces, variation selectors) dropped and every
  whitespace run collapsed to one space on both sides (the comparison the
  Chromium test makes on ``document.body.innerText``, without a browser for
  speed; CSS from style sheets is not applied, so a quote from text a style
  sheet hides counts as found).
* ``in main``: the quote's words are inside ``ground_truth.main_content``, in
  the same order with nothing between them. Words are runs of word characters,
  lower-cased, after folding typographic quotes and dashes to ASCII (as the
  data writes them), dropping the data's list markers (``- ``, ``* ``, ``1. ``; a quote's
  leading ``1. `` too, since the data writes a page's own numbering and its
  list marks alike) and repairing UTF-8 read as cp1252 (mojibake the page
  shows and the data writes repaired). Punctuation and spacing do not count:
  the data writes its own ("( Sansevieria )" for "(Sansevieria)"); the words
  must match.
* ``boilerplate``: the quote contains one of the page's ``without`` snippets
  (folded and collapsed, character for character).

Figures are per page type of the quoted page; ``target`` counts runs whose
digest cites the page the question came from. Goals: every quote in its page,
>= 95% in the main content, no boilerplate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import html
import json
import random
import re
import sys
import threading
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from sleuth.api import AsyncSleuth
from sleuth.cache.memory import MemoryCache
from sleuth.config import Settings
from sleuth.digest.compose import estimate_tokens
from sleuth.extract.decode import decode
from sleuth.extract.parse import parse_html

TYPES = (
    *("article", "documentation", "service", "forum", "collection", "listing", "product"),
    "news (AEB)",
)
_SPACE = re.compile(r"\s+")
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u00a0": " ",
    }
)
_WORD = re.compile(r"\w+")
_MOJIBAKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d"
    "\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020"
    "\u2021\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]{1,3}"
)
_MARKER = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|#{1,6})[ \t]+", re.MULTILINE)
_INVISIBLE = ("script", "style", "noscript", "template", "head", "iframe", "svg", "select")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)
# Elements a browser lays out as blocks (the HTML rendering spec's UA style sheet):
# ``innerText`` puts a line break around them. Every other element, custom and
# unknown ones included, is inline: ``<tt>slack.com</tt>,`` reads "slack.com,".
_BLOCK = frozenset(
    (
        *("address", "article", "aside", "blockquote", "body", "caption", "center", "col"),
        *("colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset"),
        *("figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("header", "hgroup", "hr", "html", "legend", "li", "listing", "main", "menu", "nav"),
        *("ol", "optgroup", "option", "p", "plaintext", "pre", "search", "section"),
        *("summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "xmp"),
    )
)


def _glyphless(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char) == "Cf" or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF
    )


# Characters a reader cannot see: format characters (zero-width space and joiners,
# bidi marks, soft hyphens) and variation selectors ("➡️" shows as "➡").
_GLYPHLESS = dict.fromkeys(c for c in range(0x110000) if _glyphless(chr(c)))


def collapse(text: str) -> str:
    return _SPACE.sub(" ", text.translate(_GLYPHLESS)).strip()


def fold(text: str) -> str:
    return collapse(text.translate(_FOLD))


def _repaired(match: re.Match[str]) -> str:
    for codec in ("cp1252", "latin-1"):
        with contextlib.suppress(UnicodeError):
            return match.group().encode(codec).decode("utf-8")
    return match.group()


def words(text: str) -> str:
    """The words of ``text`` in order, lower-cased, as `` w1 w2 ... ``: a quote is in the
    main content when its words are, consecutively. UTF-8 read as cp1252 or Latin-1
    (the page's own mojibake, "itâ\x80\x99s", which the data writes repaired) is
    repaired first."""
    text = _MOJIBAKE.sub(_repaired, _MARKER.sub("", text))
    return f" {' '.join(_WORD.findall(fold(text).lower()))} "


def plain_main(text: str) -> str:
    """The data's main content as plain words: no list or heading marks, no table pipes."""
    return fold(_MARKER.sub("", html.unescape(text)).replace(" | ", " ").replace("|", " "))


def visible_text(html: str) -> str:
    """The body's text a reader sees, whitespace collapsed (see the module docstring)."""
    # sleuth's parser is libxml2's plus a browser's placement of markup after </body>
    # or </html> (painted as part of the page, where libxml2 would drop it)
    parsed = parse_html(html)
    root = parsed if parsed is not None else lxml.html.document_fromstring("<html></html>")
    doomed = [
        e
        for e in root.iter()
        if not isinstance(e.tag, str)
        or e.tag in _INVISIBLE
        or (e.tag == "input")
        or _HIDDEN_STYLE.search(e.get("style") or "")
    ]
    for element in doomed:
        if element.getparent() is not None:
            element.drop_tree()
    body = root.find("body")
    parts: list[str] = []

    def walk(element: etree._Element) -> None:
        block = element.tag in _BLOCK
        if element.tag == "br" or block:
            parts.append(" ")
        parts.append(element.text or "")
        for child in element:
            walk(child)
            parts.append(child.tail or "")
        if block:
            parts.append(" ")

    walk(body if body is not None else root)
    return collapse("".join(parts))


@dataclass
class Page:
    id: str
    kind: str
    title: str
    html: bytes
    visible: str
    main: str
    without: list[str]


def load(data: Path, articles: int, others: int, seed: int) -> dict[str, Page]:
    truth = data / "dev" / "ground-truth"
    by_type: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for path in sorted(truth.glob("*.json")):
        record = json.loads(path.read_text())
        gt = record.get("ground_truth", {})
        if gt.get("main_content") and gt.get("title"):
            by_type[record["_internal"]["page_type"]["primary"]].append((path.stem, record))
    rng = random.Random(seed)
    pages: dict[str, Page] = {}
    for kind in TYPES:
        pool = by_type.get(kind, [])
        wanted = articles if kind == "article" else others
        for stem, record in rng.sample(pool, min(wanted, len(pool))):
            gt = record["ground_truth"]
            raw = gzip.decompress((data / "dev" / "html" / f"{stem}.html.gz").read_bytes())
            pages[stem] = Page(
                stem,
                kind,
                collapse(gt["title"]),
                raw,
                visible_text(decode(raw, "text/html")),
                words(plain_main(gt["main_content"])),
                [fold(html.unescape(s)) for s in gt.get("without") or [] if s.strip()],
            )
    return pages


def load_aeb(data: Path, articles: int, seed: int) -> dict[str, Page]:
    """The article-extraction benchmark's news pages: its truth is the article body,
    with no title and no boilerplate snippets, so the question is the page's own
    ``<title>`` and no quote can count as boilerplate."""
    truth = json.loads((data / "ground-truth.json").read_text())
    rng = random.Random(seed)
    pages: dict[str, Page] = {}
    for stem in rng.sample(sorted(truth), min(articles, len(truth))):
        raw = gzip.decompress((data / "html" / f"{stem}.html.gz").read_bytes())
        root = parse_html(decode(raw, "text/html"))
        title = collapse(root.findtext(".//title") or "") if root is not None else ""
        if not title or not truth[stem].get("articleBody"):
            continue
        pages[stem] = Page(
            stem,
            "news (AEB)",
            title,
            raw,
            visible_text(decode(raw, "text/html")),
            words(plain_main(truth[stem]["articleBody"])),
            [],
        )
    return pages


@contextlib.contextmanager
def loopback(pages: dict[str, Page], state: dict[str, Any]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def reply(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path == "/search":
                self.reply(200, json.dumps({"results": state["results"]}).encode(), "text/json")
            elif path.startswith("/page/") and path[6:] in pages:
                self.reply(200, pages[path[6:]].html, "text/html")
            else:
                self.reply(404, b"not found", "text/plain")

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Tally:
    runs: int = 0
    target: int = 0
    quotes: int = 0
    in_page: int = 0
    in_main: int = 0
    boilerplate: int = 0
    max_bullets: int = 0
    max_tokens: int = 0


async def run(
    pages: dict[str, Page], seed: int, show: int, dump: Path | None = None
) -> dict[str, Tally]:
    state: dict[str, Any] = {"results": []}
    tallies: dict[str, Tally] = defaultdict(Tally)
    rng = random.Random(seed)
    by_type: dict[str, list[str]] = defaultdict(list)
    for page in pages.values():
        by_type[page.kind].append(page.id)
    misses: list[str] = []
    records: list[str] = []
    lengths: dict[str, int] = {}
    with loopback(pages, state) as origin:
        settings = Settings(
            searxng_url=origin,
            search_providers=["searxng"],
            allow_hosts=[urlsplit(origin).netloc],
            cache="memory",
            render="never",
            searches_per_hour=1_000_000,
        )
        cache = MemoryCache(4096)
        url_to_id = {f"{origin}/page/{pid}": pid for pid in pages}
        for page in pages.values():
            others = [p for p in by_type[page.kind] if p != page.id]
            if len(others) < 2:
                others = [p for p in pages if p != page.id]
            chosen = [page.id, *rng.sample(others, min(2, len(others)))]  # a tiny sample has fewer
            rng.shuffle(chosen)
            state["results"] = [
                {"url": f"{origin}/page/{pid}", "title": pages[pid].title, "content": ""}
                for pid in chosen
            ]
            async with AsyncSleuth(settings, cache=cache) as session:
                digest = await session.research(page.title, max_pages=3)
                if show or dump:  # where in its page's text each quote sits
                    for citation in digest.citations:
                        if citation.url in url_to_id:
                            fetched = await session.fetch(citation.url)
                            lengths[url_to_id[citation.url]] = len(fetched.text)
            tally = tallies[page.kind]
            tally.runs += 1
            cited = {c.id: url_to_id.get(c.url, "") for c in digest.citations}
            tally.target += page.id in cited.values()
            tally.max_bullets = max(tally.max_bullets, len(digest.bullets))
            tally.max_tokens = max(tally.max_tokens, estimate_tokens(digest))
            for bullet in digest.bullets:
                source = pages.get(cited.get(bullet.citations[0], ""))
                if source is None:
                    continue
                counted = tallies[source.kind]
                counted.quotes += 1
                plain = collapse(bullet.quote)
                found = plain in source.visible
                # the data cannot tell a page's own "1. " from its list marks: drop both
                inside = words(plain) in source.main
                boiler = any(snippet in fold(plain) for snippet in source.without)
                counted.in_page += found
                counted.in_main += inside
                counted.boilerplate += boiler
                if dump is not None:
                    where = bullet.source_offset / max(1, lengths.get(source.id, 1))
                    record = {
                        "page": source.id,
                        "kind": source.kind,
                        "at": round(where, 3),
                        "quote": plain,
                        "in_page": found,
                        "in_main": inside,
                        "boiler": boiler,
                    }
                    records.append(json.dumps(record, ensure_ascii=False))
                if (not found or not inside or boiler) and len(misses) < show:
                    why = ",".join(
                        w
                        for w, bad in (
                            ("page", not found),
                            ("main", not inside),
                            ("boiler", boiler),
                        )
                        if bad
                    )
                    where = bullet.source_offset / max(1, lengths.get(source.id, 1))
                    misses.append(
                        f"  [{source.kind} {source.id} @{where:.2f} not:{why}] {plain[:150]}"
                    )
    if dump is not None:
        dump.write_text("".join(f"{r}\n" for r in records))
    if misses:
        print("Examples of quotes that miss:")
        print("\n".join(misses))
        print()
    return tallies


def report(tallies: dict[str, Tally], seconds: float) -> None:
    header = (
        f"{'type':<14}{'runs':>5}{'target':>8}{'quotes':>8}{'in page':>10}{'in main':>10}"
        f"{'boiler':>8}{'bullets':>8}{'tokens':>7}"
    )
    print(header)
    print("-" * len(header))
    total = Tally()

    def line(name: str, t: Tally) -> None:
        q = max(1, t.quotes)
        print(
            f"{name:<14}{t.runs:>5}{t.target:>8}{t.quotes:>8}"
            f"{t.in_page / q:>9.1%} {t.in_main / q:>9.1%} {t.boilerplate:>7}"
            f"{t.max_bullets:>8}{t.max_tokens:>7}"
        )

    for kind in TYPES:
        if kind in tallies:
            t = tallies[kind]
            line(kind, t)
            for name in ("runs", "target", "quotes", "in_page", "in_main", "boilerplate"):
                setattr(total, name, getattr(total, name) + getattr(t, name))
            total.max_bullets = max(total.max_bullets, t.max_bullets)
            total.max_tokens = max(total.max_tokens, t.max_tokens)
    print("-" * len(header))
    line("all", total)
    print()
    print(
        "in page / in main: share of quotes; boiler: quotes containing a `without` snippet; "
        "bullets, tokens: the most in one digest (budget 8, 1500)."
    )
    print("Goals: in page 100%, in main >= 95%, boiler 0.")
    print(f"{total.runs} research runs in {seconds:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="?", default="../shared/data/wcxb-dev", type=Path)
    parser.add_argument("--articles", type=int, default=150, help="article pages to sample")
    parser.add_argument("--others", type=int, default=30, help="pages to sample of each other type")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=0, help="print this many failing quotes")
    parser.add_argument("--dump", type=Path, help="write every quote and its checks here (JSONL)")
    args = parser.parse_args()
    aeb = (args.data / "ground-truth.json").is_file()
    if not aeb and not (args.data / "dev" / "ground-truth").is_dir():
        parser.error(
            f"{args.data} holds neither dev/ground-truth (the WCXB dev split) nor "
            "ground-truth.json (the article-extraction benchmark)"
        )
    started = time.perf_counter()
    if aeb:
        pages = load_aeb(args.data, args.articles, args.seed)
    else:
        pages = load(args.data, args.articles, args.others, args.seed)
    counts = Counter(p.kind for p in pages.values())
    print(f"{len(pages)} pages: " + ", ".join(f"{k} {counts[k]}" for k in TYPES if counts[k]))
    tallies = asyncio.run(run(pages, args.seed, args.show, args.dump))
    report(tallies, time.perf_counter() - started)


if __name__ == "__main__":
    main()
