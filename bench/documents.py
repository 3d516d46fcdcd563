"""PDF benchmark: sleuth vs raw pypdfium2 vs pypdf, speed and text quality.

Usage::

    .venv/bin/python bench/documents.py            # generates its own folder of PDFs
    .venv/bin/python bench/documents.py DIR        # every DIR/**/x.pdf with x.txt beside it

Quality is the AEB measure of ``bench/extraction.py`` (word 4-gram shingles, precision
and recall averaged over documents, F1 their harmonic mean) against the ``.txt`` truth
beside each PDF. Speed is pages per second over the whole folder, each document timed
``--repeat`` times and its fastest run kept, the extractors interleaved document by
document. The contenders: raw pypdfium2 (``get_text_bounded()`` per page, PDFium's own
text order), pypdf (``page.extract_text()``), sleuth's reader in process (the engine's
own cost) and sleuth through its worker process (what ``fetch`` and ``extract`` pay).

``bench/pdf_print.py`` writes such a folder from real text, printed by Chromium in three
layouts (a folder each); the scores are then given per layout as well.

Without DIR the bench writes its folder with reportlab, each PDF with its truth: prose in
one column and in two, running headers and footers with page numbers, headings, and
words hyphenated at line ends. The truth is what a reader reads: the body text, without
the running heads, with broken words whole.

It also prints the cost of isolation (a warm worker's round trip, a cold worker's start)
and where sleuth's time goes (the top functions of a profile).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pypdf
import pypdfium2 as pdfium
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from extraction import page_counts, score  # the metric of bench/extraction.py, beside us
from sleuth.documents import read
from sleuth.documents.pdf import read_pdf
from sleuth.documents.worker import _Worker

Extractor = Callable[[bytes], str]
WIDTH, HEIGHT = A4
WORDS = [
    "harbour",
    "lighthouse",
    "keeper",
    "logbook",
    "weather",
    "storm",
    "gale",
    "lamp",
    "lens",
    "wick",
    "dawn",
    "ship",
    "vessel",
    "cargo",
    "customs",
    "ledger",
    "record",
    "volunteer",
    "winter",
    "century",
    "coast",
    "tide",
    "current",
    "channel",
    "pilot",
    "beacon",
    "signal",
    "fog",
    "horn",
    "reef",
    "shoal",
    "anchor",
    "mooring",
    "quay",
    "pier",
    "breakwater",
    "survey",
    "chart",
    "sounding",
    "latitude",
    "longitude",
    "observation",
    "instrument",
    "barometer",
    "thermometer",
    "meteorological",
    "transcription",
    "archive",
    "digitisation",
    "satellite",
    "comparison",
    "frequency",
    "northern",
    "southern",
    "eastern",
    "western",
    "measured",
    "recorded",
    "reported",
    "noticed",
    "approved",
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "on",
    "for",
    "with",
    "by",
    "from",
    "at",
    "as",
    "was",
    "were",
    "is",
    "are",
    "had",
    "has",
]


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(3, 6)))


def wrap(text: str, canvas: Canvas, width: float, size: float) -> list[str]:
    """Lines that fit ``width``; a long word that does not fit is hyphenated."""
    rows: list[str] = []
    row = ""
    for word in text.split():
        trial = f"{row} {word}".strip()
        if canvas.stringWidth(trial, "Helvetica", size) <= width:
            row = trial
            continue
        if len(word) >= 9:
            for cut in range(len(word) - 3, 3, -1):
                head = f"{row} {word[:cut]}-".strip()
                if canvas.stringWidth(head, "Helvetica", size) <= width:
                    rows.append(head)
                    row = word[cut:]
                    break
            else:
                rows.append(row)
                row = word
        else:
            rows.append(row)
            row = word
    if row:
        rows.append(row)
    return [r for r in rows if r]


def write_document(path: Path, rng: random.Random, columns: int, pages: int) -> None:
    """One PDF and its truth: headings and paragraphs, running heads on every page."""
    canvas = Canvas(str(path), pagesize=A4, invariant=True)
    truth: list[str] = []
    size, leading = 10.0, 13.0
    margin, gutter = 60.0, 24.0
    column_width = (WIDTH - 2 * margin - gutter * (columns - 1)) / columns
    journal = f"Journal of Coastal Records, volume {rng.randint(2, 40)}"
    for number in range(1, pages + 1):
        canvas.setFont("Helvetica", 8)
        canvas.drawString(margin, HEIGHT - 30, journal)
        canvas.drawRightString(WIDTH - margin, 30, f"Page {number} of {pages}")
        top = HEIGHT - 70
        if number == 1:
            title = " ".join(rng.choice(WORDS) for _ in range(5)).title()
            canvas.setFont("Helvetica-Bold", 18)
            canvas.drawString(margin, top, title)
            truth.append(title)
            top -= 40
        for column in range(columns):
            x = margin + column * (column_width + gutter)
            y = top
            while y > 90:
                if rng.random() < 0.2:
                    heading = " ".join(rng.choice(WORDS) for _ in range(3)).title()
                    canvas.setFont("Helvetica-Bold", 13)
                    canvas.drawString(x, y, heading)
                    truth.append(heading)
                    y -= 22
                text = paragraph(rng)
                rows = wrap(text, canvas, column_width, size)
                room = int((y - 90) // leading)
                if room < 2:
                    break
                rows = rows[:room]
                canvas.setFont("Helvetica", size)
                for row in rows:
                    canvas.drawString(x, y, row)
                    y -= leading
                shown = " ".join(rows)
                # The truth: the words shown, with hyphenated breaks made whole again.
                for row in rows[:-1]:
                    if row.endswith("-"):
                        shown = shown.replace(row + " ", row[:-1], 1)
                truth.append(shown.rstrip("-"))
                y -= leading * 0.8
        canvas.showPage()
    canvas.save()
    path.with_suffix(".txt").write_text("\n\n".join(truth) + "\n")


def generate(folder: Path, count: int = 12) -> None:
    rng = random.Random(20241125)
    for index in range(count):
        columns = 2 if index % 2 else 1
        write_document(folder / f"doc{index:02d}.pdf", rng, columns, pages=3 + index % 4)


def raw_pdfium(data: bytes) -> str:
    pdf = pdfium.PdfDocument(data)
    try:
        texts = []
        for page in pdf:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_bounded())
            textpage.close()
            page.close()
        return "\n".join(texts)
    finally:
        pdf.close()


def pypdf_text(data: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() or "" for page in reader.pages)


def sleuth_in_process(data: bytes) -> str:
    return str(read_pdf(data, markdown=False, max_pages=10_000)["text"])


def sleuth_worker(data: bytes) -> str:
    return read(data, content_type="application/pdf", max_pages=10_000, timeout=120).text


EXTRACTORS: dict[str, Extractor] = {
    "raw pypdfium2": raw_pdfium,
    "pypdf": pypdf_text,
    "sleuth (in process)": sleuth_in_process,
    "sleuth (worker)": sleuth_worker,
}


def page_count(data: bytes) -> int:
    pdf = pdfium.PdfDocument(data)
    try:
        return len(pdf)
    finally:
        pdf.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folder", nargs="?", type=Path, help="PDFs with a .txt truth beside each")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per document")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder
        if folder is None:
            folder = Path(scratch)
            generate(folder)
        documents = [
            (path, path.read_bytes(), path.with_suffix(".txt").read_text())
            for path in sorted(folder.rglob("*.pdf"))
            if path.with_suffix(".txt").exists()
        ]
        if not documents:
            sys.exit(f"no PDF with a .txt truth beside it under {folder}")
        run(documents, args.repeat)


def run(documents: list[tuple[Path, bytes, str]], repeat: int) -> None:
    pages = sum(page_count(data) for _, data, _ in documents)
    seconds = dict.fromkeys(EXTRACTORS, 0.0)
    counts: dict[str, list[tuple[float, float, float, bool]]] = {n: [] for n in EXTRACTORS}
    sleuth_worker(documents[0][1])  # start the worker before timing
    for _, data, truth in documents:
        for name, extractor in EXTRACTORS.items():
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                text = extractor(data)
                best = min(best, time.perf_counter() - start)
            seconds[name] += best
            counts[name].append(page_counts(truth, text))
    print(f"{len(documents)} documents, {pages} pages; best of {repeat} runs each\n")
    print(f"{'extractor':22} {'pages/s':>9} {'speed':>7} {'prec':>6} {'recall':>6} {'F1':>6}")
    base = pages / seconds["raw pypdfium2"]
    for name in EXTRACTORS:
        rate = pages / seconds[name]
        scores = score(counts[name])
        print(
            f"{name:22} {rate:9.1f} {rate / base:6.2f}x "
            f"{scores.precision:6.3f} {scores.recall:6.3f} {scores.f1:6.3f}"
        )
    print("\nspeed is the ratio to raw pypdfium2's pages/s")
    layouts(documents, counts)
    isolation(documents)
    profile(documents)


def layouts(
    documents: list[tuple[Path, bytes, str]],
    counts: dict[str, list[tuple[float, float, float, bool]]],
) -> None:
    """F1 per layout, where the documents lie in one folder per layout (bench/pdf_print.py)."""
    folders = sorted({path.parent.name for path, _, _ in documents})
    if len(folders) < 2:
        return
    print(f"\nF1 per layout (folder)\n{'extractor':22}" + "".join(f" {f:>11}" for f in folders))
    for name in EXTRACTORS:
        row = []
        for folder in folders:
            chosen = [
                count
                for (path, _, _), count in zip(documents, counts[name], strict=True)
                if path.parent.name == folder
            ]
            row.append(f" {score(chosen).f1:11.3f}")
        print(f"{name:22}" + "".join(row))
    worst = sorted(
        (page_counts_f1(count), path.parent.name + "/" + path.name)
        for (path, _, _), count in zip(documents, counts["sleuth (in process)"], strict=True)
    )[:6]
    print("sleuth's lowest documents: " + ", ".join(f"{n} {f:.3f}" for f, n in worst))


def page_counts_f1(count: tuple[float, float, float, bool]) -> float:
    tp, fp, fn, _ = count
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def isolation(documents: list[tuple[Path, bytes, str]]) -> None:
    """What the worker process costs: a warm round trip and a cold start."""
    tiny = min((data for _, data, _ in documents), key=len)
    inside, warm = [], []
    for _ in range(20):
        start = time.perf_counter()
        sleuth_in_process(tiny)
        inside.append(time.perf_counter() - start)
        start = time.perf_counter()
        sleuth_worker(tiny)
        warm.append(time.perf_counter() - start)
    cold = []
    for _ in range(3):
        start = time.perf_counter()
        worker = _Worker()
        worker.call({"markdown": False, "max_pages": 200}, tiny, 60)
        cold.append(time.perf_counter() - start)
        worker.kill()
    overhead = statistics.median(warm) - statistics.median(inside)
    print(
        f"\nisolation: a warm worker adds {overhead * 1000:.1f} ms per document "
        f"({statistics.median(inside) * 1000:.1f} ms in process, "
        f"{statistics.median(warm) * 1000:.1f} ms through the worker, {len(tiny):,} bytes); "
        f"a cold worker (subprocess per document) costs {statistics.median(cold) * 1000:.0f} ms"
    )


def profile(documents: list[tuple[Path, bytes, str]]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for _, data, _ in documents:
        sleuth_in_process(data)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    stats.print_stats(8)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print("\nwhere sleuth's time goes (top functions by own time):")
    print("\n".join(lines[start : start + 9]))


if __name__ == "__main__":
    main()
