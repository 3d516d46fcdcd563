"""Every failure of a document is a typed outcome, read through the worker process."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from pdfs import grey_image, pdf, text
from reportlab.pdfgen.canvas import Canvas

from sleuth.documents import read, sniff
from sleuth.documents.pdf import read_pdf
from sleuth.documents.worker import _HEADER, WorkerFailed, _Worker
from sleuth.errors import (
    EXIT_CODES,
    CorruptDocument,
    Encrypted,
    FetchTimeout,
    NoTextLayer,
    SleuthError,
    UnsupportedType,
)
from sleuth.extract import Extraction


def _read_or_code(data: bytes, **kwargs: str) -> Extraction | str:
    """The extraction, or the code of the typed error it raised."""
    try:
        return read(data, **kwargs)
    except SleuthError as error:
        return error.code


SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "data" / "pdf-samples"


def test_a_pdf_is_read_in_the_worker() -> None:
    result = read(pdf(text(72, 700, "Read in another process.")), name="note.pdf")
    assert (result.outcome, result.method, result.text) == ("ok", "pdf", "Read in another process.")


def test_an_encrypted_pdf_needs_a_password() -> None:
    with pytest.raises(Encrypted) as caught:
        read(pdf(text(72, 700, "Secret minutes."), encrypt="hunter2"), name="secret.pdf")
    assert "password" in str(caught.value)


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n%garbage that is no PDF at all\n",
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>",
    ],
)
def test_a_broken_pdf_is_corrupt(data: bytes) -> None:
    with pytest.raises(CorruptDocument):
        read(data, content_type="application/pdf")


def test_a_truncated_pdf_is_text_or_corrupt_never_syntax() -> None:
    whole = pdf(text(72, 700, "The harbour board met on Tuesday."))
    for cut in (len(whole) // 3, len(whole) // 2, len(whole) - 40):
        result = _read_or_code(whole[:cut], content_type="application/pdf")
        if isinstance(result, str):
            assert result in ("corrupt_document", "empty_extraction")
            continue
        assert "obj" not in result.text
        assert "endstream" not in result.text


def test_a_scanned_pdf_without_text_has_no_text_layer() -> None:
    def scan(canvas: Canvas) -> None:
        canvas.drawImage(grey_image(), 50, 400, width=480, height=300)

    with pytest.raises(NoTextLayer) as caught:
        read(pdf(scan), name="scan.pdf")
    assert "OCR" in str(caught.value)


def test_a_document_past_its_time_limit_is_a_timeout_and_the_worker_is_replaced() -> None:
    pages = [text(72, 700, f"Page {n} of a long report on harbour storms.") for n in range(300)]
    data = pdf(*pages)
    with pytest.raises(FetchTimeout):
        read(data, name="long.pdf", timeout=0.001)
    result = read(pdf(text(72, 700, "Still working.")), name="after.pdf")
    assert result.text == "Still working."


def test_a_worker_that_dies_mid_document_is_reported_not_awaited() -> None:
    worker = _Worker()
    try:
        stdin = worker.process.stdin
        assert stdin is not None
        stdin.write(_HEADER.pack(3, 0) + b"{{{")  # the worker dies on it, as on a crash
        stdin.flush()
        with pytest.raises(WorkerFailed, match="exited"):
            worker._read(4, time.monotonic() + 60)
    finally:
        worker.kill()
    assert read(pdf(text(72, 700, "Recovered.")), name="next.pdf").text == "Recovered."


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (b"\x7fELF\x02\x01\x01" + bytes(200), "ELF"),
        (b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png"),
        (b"PK\x03\x04" + bytes(100), "application/zip"),
        (b"plain words\x00\x00\x01 then NUL bytes", "application/octet-stream"),
    ],
)
def test_other_binaries_are_unsupported_whatever_their_name(data: bytes, named: str) -> None:
    with pytest.raises(UnsupportedType) as caught:
        read(data, name="notes.txt")
    assert named in str(caught.value)


def test_the_new_outcomes_have_their_own_exit_codes() -> None:
    codes = [EXIT_CODES[name] for name in ("encrypted", "corrupt_document", "no_text_layer")]
    assert len(set(codes)) == 3
    assert not set(codes) & {
        v
        for k, v in EXIT_CODES.items()
        if k not in ("encrypted", "corrupt_document", "no_text_layer")
    }


def _sample_files() -> list[Path]:
    return sorted(SAMPLES.rglob("*.pdf"))


def test_the_sample_folder_is_there() -> None:
    listed = json.loads((SAMPLES / "files.json").read_text())
    assert len(_sample_files()) >= 30
    assert listed


@pytest.mark.parametrize("path", _sample_files(), ids=lambda p: p.name)
def test_every_sample_gives_text_or_a_typed_outcome(path: Path) -> None:
    result = _read_or_code(path.read_bytes(), name=path.name)
    if isinstance(result, str):
        assert result in ("encrypted", "corrupt_document", "no_text_layer")
        return
    if result.outcome == "ok":
        assert result.text.strip()
        for syntax in ("endobj", "endstream", "/Type", "xref", "%PDF"):
            assert syntax not in result.text
    else:
        assert result.outcome == "empty_extraction"
        assert result.reason


def test_the_two_column_latex_sample_reads_columns_and_table_rows() -> None:
    data = (SAMPLES / "026-latex-multicolumn" / "multicolumn.pdf").read_bytes()
    result = read(data, name="multicolumn.pdf", output="markdown")
    assert result.text.startswith("# Two-Column Document with Lorem Ipsum")
    # The left column's first paragraph runs on, hyphenation mended, before the right's.
    assert "consectetuer adipiscing elit. Ut purus elit" in result.text
    assert result.text.index("adipiscing elit. Ut purus") < result.text.index(
        "Phasellus adipiscing"
    )
    # A table row set as one text object still reads as its own line.
    assert "\nAustria 8.9 83,879 Vienna German\nBelgium 11.5 30,689 Brussels" in result.text
    assert not result.text.rstrip().endswith("\n3")  # the page number is gone


def test_fuzzed_samples_give_text_or_a_typed_outcome_never_pdf_syntax() -> None:
    rng = random.Random(20241125)
    originals = [path.read_bytes() for path in _sample_files()]
    seen = set()
    for round_number in range(60):
        data = bytearray(rng.choice(originals))
        for _ in range(rng.randint(1, 30)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data))]
        name = "fuzzed.pdf" if round_number % 2 else "fuzzed"
        result = _read_or_code(bytes(data), name=name)
        if isinstance(result, str):
            assert result in ("encrypted", "corrupt_document", "no_text_layer", "too_large")
            seen.add(result)
            continue
        seen.add(result.outcome)
        for syntax in ("endobj", "endstream", "/Type /", "startxref"):
            assert syntax not in result.text
    assert {"ok", "corrupt_document"} <= seen


def test_a_pdf_with_a_damaged_header_is_still_judged_as_a_pdf() -> None:
    whole = pdf(text(72, 700, "The harbour board met on Tuesday."))
    damaged = b"YPDF" + whole[4:]
    assert sniff(damaged, None, "minutes") == "pdf"
    assert sniff(damaged, "application/octet-stream", None) == "pdf"


def test_title_and_author_from_xmp_when_the_info_dictionary_has_none() -> None:
    data = (SAMPLES / "020-xmp" / "output_with_metadata_pymupdf.pdf").read_bytes()
    record = read_pdf(data, markdown=False, max_pages=5)
    metadata = record["metadata"]
    assert metadata["title"] == "Sample PDF with XMP Metadata"
    assert metadata["author"] == "John Doe"
    assert record["outcome"] == "empty_extraction"
    assert record["reason"] == "all of its text is hidden from a reader"  # above the page's edge
