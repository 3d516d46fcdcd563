"""Article-extraction benchmark: sleuth vs trafilatura vs readability-lxml.

Usage::

    .venv/bin/python bench/extraction.py /work/shared/data/article-extraction-benchmark

DATA_DIR holds ``ground-truth.json`` and ``html/<id>.html.gz`` (the Zyte/Scrapinghub
article-extraction benchmark). Scoring follows the benchmark's published method: ``\\w+``
tokens, multisets of word 4-gram shingles, per-page true/false positives and false
negatives normalised to sum to one; precision is averaged over pages with predicted
shingles, recall over pages with true shingles, F1 is their harmonic mean, accuracy is
the share of pages whose token sequence is exact. Standard deviations are bootstrapped
over pages.

The contenders run as the benchmark's own runners run them: trafilatura with its
default settings except ``include_comments=False`` (the article body is the target),
readability-lxml's ``Document(html).summary()`` turned into text with block elements
on their own lines. sleuth runs ``extract(html)`` with its defaults.

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
from collections import Counter
from collections.abc import Callable
from dataclasses import astuple, dataclass, fields
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


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float
    accuracy: float


def readability_text(html: str) -> str:
    """readability-lxml's summary, with block boundaries kept as line breaks."""
    root = lxml.html.fromstring(Document(html).summary(html_partial=True))
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag in BLOCK_TAGS:
            element.tail = "\n" + (element.tail or "")
    return "".join(str(t) for t in root.itertext())


def sleuth_text(html: str) -> str:
    return extract(html).text


def trafilatura_text(html: str) -> str:
    return trafilatura.extract(html, include_comments=False) or ""


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "sleuth": sleuth_text,
    "trafilatura": trafilatura_text,
    "readability-lxml": readability_text,
}


def load_pages(data_dir: Path) -> list[Page]:
    truth = json.loads((data_dir / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for page_id, item in sorted(truth.items()):
        with gzip.open(data_dir / "html" / f"{page_id}.html.gz", "rt", encoding="utf-8") as fh:
            pages.append(Page(page_id, fh.read(), item["articleBody"]))
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


def run(
    pages: list[Page], names: list[str], repeat: int
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Predictions and total seconds per extractor, interleaved page by page."""
    predictions: dict[str, list[str]] = {name: [] for name in names}
    seconds = dict.fromkeys(names, 0.0)
    for index, page in enumerate(pages):
        order = names[index % len(names) :] + names[: index % len(names)]
        best = dict.fromkeys(names, float("inf"))
        for attempt in range(repeat):
            for name in order:
                start = time.perf_counter()
                text = EXTRACTORS[name](page.html)
                best[name] = min(best[name], time.perf_counter() - start)
                if attempt == 0:
                    predictions[name].append(text)
        for name in names:
            seconds[name] += best[name]
    return predictions, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="folder with ground-truth.json and html/")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per page (best kept)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap rounds for std")
    parser.add_argument(
        "--only", action="append", choices=sorted(EXTRACTORS), help="run only these extractors"
    )
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)  # trafilatura and readability log every discarded page

    pages = load_pages(args.data_dir)
    names = args.only or list(EXTRACTORS)
    for name in names:  # imports and caches warm up outside the timed loop
        EXTRACTORS[name](pages[0].html)
    predictions, seconds = run(pages, names, args.repeat)

    rng = random.Random(0)
    columns = [f.name for f in fields(Scores)]
    header = f"{'extractor':<18}" + "".join(f"{c:>17}" for c in columns) + f"{'pages/s':>10}"
    print(f"{len(pages)} pages, best of {args.repeat} timed runs per page, mean ± bootstrap std")
    print(header)
    print("-" * len(header))
    speed: dict[str, float] = {}
    for name in names:
        counts = [page_counts(p.truth, t) for p, t in zip(pages, predictions[name], strict=True)]
        mean, std = score(counts), bootstrap_std(counts, args.bootstrap, rng)
        speed[name] = len(pages) / seconds[name]
        cells = "".join(
            f"{m:>10.3f} ± {s:.3f}" for m, s in zip(astuple(mean), astuple(std), strict=True)
        )
        print(f"{name:<18}{cells}{speed[name]:>10.1f}")
    if "sleuth" in speed and "trafilatura" in speed:
        print(f"\nsleuth speed vs trafilatura: {speed['sleuth'] / speed['trafilatura']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
