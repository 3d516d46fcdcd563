"""Reading order, paragraphs, hyphenation, running heads, headings and page offsets."""

from __future__ import annotations

from pdfs import EAST, LOREM, Draw, lines, pdf, text, together, wrap
from reportlab.pdfgen.canvas import Canvas

from sleuth.documents.pdf import pdf_date, read_pdf


def _read(data: bytes, markdown: bool = False, max_pages: int = 200) -> dict[str, object]:
    return read_pdf(data, markdown=markdown, max_pages=max_pages)


def test_two_columns_are_read_one_after_the_other() -> None:
    west = wrap(LOREM, 42)
    east = wrap(EAST, 42)
    page = together(
        text(72, 760, "Storms on the Northern Coast", size=18),
        lines(72, 720, west),
        lines(320, 720, east),
    )
    record = _read(pdf(page))
    assert record["text"] == f"Storms on the Northern Coast\n\n{LOREM}\n\n{EAST}"


def test_lines_become_paragraphs_and_a_gap_starts_a_new_one() -> None:
    first = wrap(LOREM, 70)
    second = wrap(EAST, 70)
    page = together(lines(72, 760, first), lines(72, 760 - 14 * len(first) - 16, second))
    assert _read(pdf(page))["text"] == f"{LOREM}\n\n{EAST}"


def test_a_word_broken_at_the_line_end_is_mended() -> None:
    page = lines(72, 700, ["The keepers trimmed the wick and clea-", "ned the lens every dawn."])
    assert (
        _read(pdf(page))["text"] == "The keepers trimmed the wick and cleaned the lens every dawn."
    )


def test_a_hyphen_before_a_capital_stays() -> None:
    page = lines(72, 700, ["The agreement covered the Anglo-", "French border of the time."])
    assert _read(pdf(page))["text"] == "The agreement covered the Anglo-French border of the time."


def _page_with_heads(number: int, total: int, body: str) -> Draw:
    return together(
        text(72, 810, "Annual Report of the Harbour Board 2024", size=9),
        lines(72, 740, wrap(body, 80)),
        text(280, 30, f"Page {number} of {total}", size=9),
    )


def test_running_headers_footers_and_page_numbers_are_removed() -> None:
    bodies = [LOREM, EAST, LOREM.replace("Harbour", "Port")]
    data = pdf(*(_page_with_heads(n, 3, body) for n, body in enumerate(bodies, 1)))
    record = _read(data)
    assert record["text"] == "\n\n".join(bodies)
    metadata = record["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["pages"] == 3
    assert metadata["pages_read"] == 3
    offsets = metadata["page_offsets"]
    assert [str(record["text"])[start:].split(".")[0] for start in offsets] == [
        body.split(".")[0] for body in bodies
    ]


def test_a_lone_page_number_goes_even_on_one_page() -> None:
    page = together(lines(72, 740, wrap(LOREM, 80)), text(290, 30, "7", size=9))
    assert _read(pdf(page))["text"] == LOREM


def test_headings_by_size_and_weight_in_markdown() -> None:
    page = together(
        text(72, 780, "Storms on the Northern Coast", size=20),
        text(72, 740, "Sources", size=14),
        lines(72, 715, wrap(LOREM, 80)),
        text(72, 640, "Method of transcription", font="Helvetica-Bold"),
        lines(72, 620, wrap(EAST, 80)),
    )
    data = pdf(page)
    assert _read(data, markdown=True)["text"] == (
        f"# Storms on the Northern Coast\n\n## Sources\n\n{LOREM}\n\n"
        f"### Method of transcription\n\n{EAST}"
    )
    plain = _read(data)
    assert plain["text"] == (
        f"Storms on the Northern Coast\n\nSources\n\n{LOREM}\n\nMethod of transcription\n\n{EAST}"
    )
    assert plain["title"] == "Storms on the Northern Coast"  # no info title: the first heading


def test_a_table_reads_row_by_row() -> None:
    def table(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", 10)
        for row, cells in enumerate([("Port", "Ships", "Storms"), ("Wick", "412", "31")]):
            for column, cell in enumerate(cells):
                canvas.drawString(72 + 120 * column, 700 - 16 * row, cell)

    assert _read(pdf(table))["text"] == "Port Ships Storms\nWick 412 31"


def test_metadata_from_the_info_dictionary() -> None:
    data = pdf(text(72, 700, VISIBLE := "A short note."), title="Harbour Note", author="A. Keeper")
    record = _read(data)
    metadata = record["metadata"]
    assert isinstance(metadata, dict)
    assert record["title"] == "Harbour Note"
    assert metadata["author"] == "A. Keeper"
    assert metadata["document_type"] == "pdf"
    assert record["text"] == VISIBLE


def test_the_page_cap_stops_reading_and_says_so() -> None:
    data = pdf(*(text(72, 700, f"Page body number {n}.") for n in range(1, 5)))
    record = _read(data, max_pages=2)
    assert record["text"] == "Page body number 1.\n\nPage body number 2."
    assert record["truncated"] is True
    metadata = record["metadata"]
    assert isinstance(metadata, dict)
    assert (metadata["pages"], metadata["pages_read"]) == (4, 2)


def test_pdf_dates_become_iso_8601() -> None:
    assert pdf_date("D:20240131093000+01'00'") == "2024-01-31T09:30:00+01:00"
    assert pdf_date("D:20240131093000Z") == "2024-01-31T09:30:00Z"
    assert pdf_date("D:2024") == "2024-01-01"
    assert pdf_date("yesterday") is None
