"""Extraction benchmark: sleuth vs trafilatura vs readability-lxml, on AEB or WCXB.

Usage::

    .venv/bin/python bench/extraction.py ../shared/data/article-extraction-benchmark
    .venv/bin/python bench/extraction.py ../shared/data/wcxb-dev

The folder decides the benchmark. AEB (``ground-truth.json`` and ``html/<id>.html.gz``,
the Zyte/Scrapinghub article-extraction benchmark) is scored by its published method:
``\\w+`` tokens, multisets of word 4-gram shingles, per-page true/false positives and
false negatives normalised to sum to one; precision is averaged over pages with predicted
shingles, recall over pages with true shingles, F1 is their harmonic mean, accuracy is
the share of pages whose token sequence is exact. Standard deviations are bootstrapped
over pages.

WCXB (``[dev/]ground-truth/<id>.json`` and ``[dev/]html/<id>.html.gz``, the Web Content
eXtraction Benchmark) is scored by its published method: lower-cased ``\\w+`` tokens as a
bag of words, per-page precision, recall and F1 averaged over pages, overall and per page
type; an empty truth scores 1 only for an empty prediction. Beside that, the share of the
truth's ``with`` snippets found in the text and of its ``without`` (boilerplate) snippets
that leaked into it, both compared case- and whitespace-insensitively.

The contenders run as each benchmark's own runner runs them: on AEB trafilatura with its
default settings except ``include_comments=False`` (the article body is the target), on
WCXB with its defaults; readability-lxml's ``Document(html).summary()`` turned into text
with block elements on their own lines. sleuth runs ``extract(html, url=url)`` with its
defaults (the page's address is known to any real caller).

Pages are read and decoded before timing; only the extraction call is timed. The
extractors run interleaved page by page and each page is timed ``--repeat`` times, its
fastest run kept, so load from other processes skews all extractors alike.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import astuple, dataclass, field, fields
from pathlib import Path

import lxml.html
import trafilatura
from readability import Document

from sleuth.extract import extract

TOKEN_RE = re.compile(r"\w+")
SHINGLE_SIZE = 4
BLOCK_TAGS = frozenset(
    {
        *("p", "div", "br", "li", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre"),
        *("table", "tr", "td", "th", "section", "article", "header", "footer"),
        *("figure", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6"),
    }
)

Counts = tuple[float, float, float, bool]  # normalised tp, fp, fn; exact token match


@dataclass(frozen=True)
class Page:
    page_id: str
    html: str
    truth: str
    url: str | None = None
    page_type: str = "article"
    with_snippets: tuple[str, ...] = field(default=())
    without_snippets: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float
    accuracy: float


def readability_text(html: str, url: str | None) -> str:
    """readability-lxml's summary, with block boundaries kept as line breaks."""
    root = lxml.html.fromstring(Document(html).summary(html_partial=True))
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag in BLOCK_TAGS:
            element.tail = "\n" + (element.tail or "")
    return "".join(str(t) for t in root.itertext())


def sleuth_text(html: str, url: str | None) -> str:
    return extract(html, url=url).text


def trafilatura_article_text(html: str, url: str | None) -> str:
    return trafilatura.extract(html, include_comments=False) or ""


def trafilatura_text(html: str, url: str | None) -> str:
    return trafilatura.extract(html) or ""


Extractor = Callable[[str, str | None], str]


def extractors(wcxb: bool) -> dict[str, Extractor]:
    return {
        "sleuth": sleuth_text,
        "trafilatura": trafilatura_text if wcxb else trafilatura_article_text,
        "readability-lxml": readability_text,
    }


def _read_gzip(path: Path) -> str:
    with gzip.open(path, "rb") as fh:
        return fh.read().decode("utf-8", "replace")


def load_aeb(data_dir: Path) -> list[Page]:
    truth = json.loads((data_dir / "ground-truth.json").read_text(encoding="utf-8"))
    return [
        Page(page_id, _read_gzip(data_dir / "html" / f"{page_id}.html.gz"), item["articleBody"])
        for page_id, item in sorted(truth.items())
    ]


def wcxb_root(data_dir: Path) -> Path | None:
    """The folder holding ``ground-truth/`` and ``html/`` of a WCXB split, if this is one."""
    for candidate in (data_dir, data_dir / "dev"):
        if (candidate / "ground-truth").is_dir() and (candidate / "html").is_dir():
            return candidate
    return None


def load_wcxb(root: Path) -> list[Page]:
    pages = []
    for truth_file in sorted((root / "ground-truth").glob("*.json")):
        item = json.loads(truth_file.read_text(encoding="utf-8"))
        page_id = truth_file.stem
        truth = item["ground_truth"]
        pages.append(
            Page(
                page_id,
                _read_gzip(root / "html" / f"{page_id}.html.gz"),
                truth.get("main_content") or "",
                item.get("url"),
                item["_internal"]["page_type"]["primary"],
                tuple(truth.get("with") or ()),
                tuple(truth.get("without") or ()),
            )
        )
    return pages


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """Word 4-grams with multiplicity; a text of four words or fewer is one shingle."""
    tokens = TOKEN_RE.findall(text)
    count = max(1, len(tokens) - SHINGLE_SIZE + 1)
    return Counter(tuple(tokens[i : i + SHINGLE_SIZE]) for i in range(count) if tokens[i:])


def page_counts(truth: str, predicted: str) -> Counts:
    true_sh, pred_sh = shingles(truth), shingles(predicted)
    tp = sum((true_sh & pred_sh).values())
    fp = sum((pred_sh - true_sh).values())
    fn = sum((true_sh - pred_sh).values())
    total = tp + fp + fn or 1
    exact = TOKEN_RE.findall(truth) == TOKEN_RE.findall(predicted)
    return tp / total, fp / total, fn / total, exact


def score(counts: list[Counts]) -> Scores:
    precisions = [tp / (tp + fp) for tp, fp, _, _ in counts if tp + fp > 0]
    recalls = [tp / (tp + fn) for tp, _, fn, _ in counts if tp + fn > 0]
    precision = statistics.fmean(precisions) if precisions else 0.0
    recall = statistics.fmean(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = sum(exact for *_, exact in counts) / len(counts)
    return Scores(precision, recall, f1, accuracy)


def bootstrap_std(counts: list[Counts], rounds: int, rng: random.Random) -> Scores:
    samples = [astuple(score(rng.choices(counts, k=len(counts)))) for _ in range(rounds)]
    return Scores(*(statistics.stdev(column) for column in zip(*samples, strict=True)))


def bag_scores(truth: str, predicted: str) -> tuple[float, float, float]:
    """WCXB's per-page precision, recall and F1 over lower-cased word bags."""
    true_bag = Counter(TOKEN_RE.findall(truth.lower()))
    pred_bag = Counter(TOKEN_RE.findall(predicted.lower()))
    if not true_bag:
        return (1.0, 1.0, 1.0) if not pred_bag else (0.0, 0.0, 0.0)
    if not pred_bag:
        return 0.0, 0.0, 0.0
    overlap = sum((true_bag & pred_bag).values())
    precision = overlap / sum(pred_bag.values())
    recall = overlap / sum(true_bag.values())
    f1 = 2 * precision * recall / (precision + recall) if overlap else 0.0
    return precision, recall, f1


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def snippet_counts(page: Page, predicted: str) -> tuple[int, int, int, int]:
    """Found ``with`` snippets, their number, leaked ``without`` snippets, their number."""
    text = _squash(predicted)
    found = sum(_squash(s) in text for s in page.with_snippets)
    leaked = sum(_squash(s) in text for s in page.without_snippets)
    return found, len(page.with_snippets), leaked, len(page.without_snippets)


def run(
    pages: list[Page], table: dict[str, Extractor], repeat: int
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Predictions and total seconds per extractor, interleaved page by page."""
    names = list(table)
    predictions: dict[str, list[str]] = {name: [] for name in names}
    seconds = dict.fromkeys(names, 0.0)
    for index, page in enumerate(pages):
        order = names[index % len(names) :] + names[: index % len(names)]
        best = dict.fromkeys(names, float("inf"))
        for attempt in range(repeat):
            for name in order:
                start = time.perf_counter()
                text = table[name](page.html, page.url)
                best[name] = min(best[name], time.perf_counter() - start)
                if attempt == 0:
                    predictions[name].append(text)
        for name in names:
            seconds[name] += best[name]
    return predictions, seconds


def report_aeb(
    pages: list[Page], predictions: dict[str, list[str]], speed: dict[str, float], rounds: int
) -> None:
    rng = random.Random(0)
    columns = [f.name for f in fields(Scores)]
    header = f"{'extractor':<18}" + "".join(f"{c:>17}" for c in columns) + f"{'pages/s':>10}"
    print(header)
    print("-" * len(header))
    for name, texts in predictions.items():
        counts = [page_counts(p.truth, t) for p, t in zip(pages, texts, strict=True)]
        mean, std = score(counts), bootstrap_std(counts, rounds, rng)
        cells = "".join(
            f"{m:>10.3f} ± {s:.3f}" for m, s in zip(astuple(mean), astuple(std), strict=True)
        )
        print(f"{name:<18}{cells}{speed[name]:>10.1f}")


def _wcxb_row(pages: list[Page], texts: list[str]) -> tuple[float, ...]:
    """Precision, recall, F1 (means over pages), with and without snippet rates."""
    bags = [bag_scores(p.truth, t) for p, t in zip(pages, texts, strict=True)]
    snippets = [snippet_counts(p, t) for p, t in zip(pages, texts, strict=True)]
    found, wanted, leaked, unwanted = (sum(column) for column in zip(*snippets, strict=True))
    precision, recall, f1 = (statistics.fmean(column) for column in zip(*bags, strict=True))
    return precision, recall, f1, found / max(wanted, 1), leaked / max(unwanted, 1)


def report_wcxb(
    pages: list[Page], predictions: dict[str, list[str]], speed: dict[str, float]
) -> None:
    types = sorted(
        {p.page_type for p in pages}, key=lambda t: -sum(p.page_type == t for p in pages)
    )
    columns = f"{'precision':>10}{'recall':>8}{'F1':>8}{'with':>8}{'without':>9}"
    header = f"{'extractor':<18}{columns}{'pages/s':>9}"
    print(header)
    print("-" * len(header))
    for name, texts in predictions.items():
        p, r, f1, found, leaked = _wcxb_row(pages, texts)
        print(
            f"{name:<18}{p:>10.3f}{r:>8.3f}{f1:>8.3f}{found:>8.3f}{leaked:>9.3f}{speed[name]:>9.1f}"
        )
    names = list(predictions)
    rows: dict[str, dict[str, tuple[float, ...]]] = defaultdict(dict)
    for page_type in types:
        chosen = [i for i, p in enumerate(pages) if p.page_type == page_type]
        of_type = [pages[i] for i in chosen]
        for name in names:
            texts = [predictions[name][i] for i in chosen]
            rows[page_type][name] = _wcxb_row(of_type, texts)
    print("\nF1 per page type")
    header = f"{'page type':<15}{'pages':>6}" + "".join(f"{n:>18}" for n in names)
    print(header)
    print("-" * len(header))
    for page_type in types:
        count = sum(p.page_type == page_type for p in pages)
        cells = "".join(f"{rows[page_type][n][2]:>18.3f}" for n in names)
        print(f"{page_type:<15}{count:>6}{cells}")
    print("\nPer page type in full")
    header = f"{'page type':<15}{'extractor':<18}{columns}"
    print(header)
    print("-" * len(header))
    for page_type in types:
        for name in names:
            p, r, f1, found, leaked = rows[page_type][name]
            print(
                f"{page_type:<15}{name:<18}{p:>10.3f}{r:>8.3f}{f1:>8.3f}{found:>8.3f}{leaked:>9.3f}"
            )
    print(
        "\nwith: share of the truth's must-have snippets found; without: share of its"
        " boilerplate snippets leaked (lower is better)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="an AEB or a WCXB folder")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per page (best kept)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap rounds for std")
    parser.add_argument("--limit", type=int, help="only the first N pages (a quick look)")
    parser.add_argument(
        "--only",
        action="append",
        choices=("sleuth", "trafilatura", "readability-lxml"),
        help="run only these extractors",
    )
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)  # trafilatura and readability log every discarded page

    root = wcxb_root(args.data_dir)
    if root is None and not (args.data_dir / "ground-truth.json").is_file():
        print(
            f"error: {args.data_dir} is neither an AEB folder (ground-truth.json, html/)"
            " nor a WCXB one ([dev/]ground-truth/, [dev/]html/)",
            file=sys.stderr,
        )
        return 2
    pages = load_wcxb(root) if root is not None else load_aeb(args.data_dir)
    pages = pages[: args.limit] if args.limit else pages
    available = extractors(root is not None)
    table = {name: available[name] for name in args.only or available}
    for function in table.values():  # imports and caches warm up outside the timed loop
        function(pages[0].html, pages[0].url)
    predictions, seconds = run(pages, table, args.repeat)
    speed = {name: len(pages) / seconds[name] for name in table}

    benchmark = "WCXB" if root is not None else "AEB"
    print(
        f"{benchmark}: {len(pages)} pages, best of {args.repeat} timed runs per page"
        + (", mean ± bootstrap std" if root is None else "")
    )
    if root is None:
        report_aeb(pages, predictions, speed, args.bootstrap)
    else:
        report_wcxb(pages, predictions, speed)
    if "sleuth" in speed and "trafilatura" in speed:
        print(f"\nsleuth speed vs trafilatura: {speed['sleuth'] / speed['trafilatura']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
