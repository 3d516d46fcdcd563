"""Reading order against PDFium's own: columns drawn in any order, tables drawn cell by cell
with wrapped cells, and running heads that a page splits or joins differently."""

from __future__ import annotations

from pdfs import EAST, LOREM, Draw, lines, pdf, text, together, wrap
from reportlab.pdfgen.canvas import Canvas

from sleuth.documents.pdf import read_pdf

THIRD = (
    "Winter observations at the northern stations were written up each spring by the "
    "volunteers, who copied the keepers' figures into the survey's ledgers by hand."
)


def _read(data: bytes) -> str:
    return str(read_pdf(data, markdown=False, max_pages=200)["text"])


def _columns(first: Draw, second: Draw) -> Draw:
    return together(text(72, 780, "Storms on the Northern Coast", size=18), first, second)


def test_columns_drawn_east_first_are_read_west_first() -> None:
    """PDFium's order (the east column first) is not a reading order: the gutter decides."""
    west, east = lines(72, 740, wrap(LOREM, 40)), lines(320, 740, wrap(EAST, 40))
    expected = f"Storms on the Northern Coast\n\n{LOREM}\n\n{EAST}"
    assert _read(pdf(_columns(east, west))) == expected
    assert _read(pdf(_columns(west, east))) == expected


def test_columns_drawn_line_by_line_across_the_page_are_read_column_by_column() -> None:
    """A producer that draws row by row across both columns: each move goes right or down,
    yet the gutter keeps the columns apart."""
    west, east = wrap(LOREM, 40), wrap(EAST, 40)

    def page(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", 11)
        for number in range(max(len(west), len(east))):
            for x, rows in ((72, west), (320, east)):
                if number < len(rows):
                    canvas.drawString(x, 740 - 14 * number, rows[number])

    assert _read(pdf(page)) == f"{LOREM}\n\n{EAST}"


def test_two_column_pages_with_a_footer_keep_their_order_on_every_page() -> None:
    bodies = [(LOREM, EAST), (THIRD, LOREM.replace("Harbour", "Port"))]

    def page(number: int, west: str, east: str) -> Draw:
        return together(
            text(72, 810, "Journal of Coastal Records", size=8),
            lines(72, 760, wrap(west, 40)),
            lines(320, 760, wrap(east, 40)),
            text(72, 30, "Printed from the survey archive", size=8),
            text(500, 30, f"{number}/2", size=8),
        )

    data = pdf(*(page(n, west, east) for n, (west, east) in enumerate(bodies, 1)))
    assert _read(data) == "\n\n".join(part for pair in bodies for part in pair)


def _cell_table(canvas: Canvas) -> None:
    """Cells drawn one after the other, as a browser prints a table: a label and a long
    sentence that wrap over lines, and a number, in each row."""
    rows = [("Northern storms", "1", LOREM), ("Keepers' logs", "2", EAST)]
    canvas.setFont("Helvetica", 10)
    top = 760.0
    for label, number, sentence in rows:
        label_rows = wrap(label, 9)
        sentence_rows = wrap(sentence, 60)
        for at, row in enumerate(label_rows):
            canvas.drawString(72, top - 13 * at, row)
        canvas.drawString(150, top, number)
        for at, row in enumerate(sentence_rows):
            canvas.drawString(190, top - 13 * at, row)
        top -= 13 * max(len(label_rows), len(sentence_rows)) + 10


def test_a_table_drawn_cell_by_cell_keeps_each_cell_whole() -> None:
    words = _read(pdf(_cell_table)).split()
    assert " ".join(words) == f"Northern storms 1 {LOREM} Keepers' logs 2 {EAST}"


def test_a_footer_split_on_one_page_and_joined_on_the_next_goes_from_both() -> None:
    """On two-column pages the footer's address and page count are two lines where the
    count stands in the east column and one where it follows the address: it repeats, so
    it goes from both pages."""

    def page(west: str, east: str, count: str, apart: float) -> Draw:
        return together(
            lines(72, 760, wrap(west, 40)),
            lines(320, 760, wrap(east, 40)),
            text(72, 30, "file:///archive/coastal-records.html", size=8),
            text(72 + apart, 30, count, size=8),
        )

    port = LOREM.replace("Harbour", "Port")
    data = pdf(page(LOREM, EAST, "1/2", 400), page(THIRD, port, "2/2", 122))
    assert _read(data) == f"{LOREM}\n\n{EAST}\n\n{THIRD}\n\n{port}"


def test_a_line_at_the_foot_of_one_page_only_is_body_text() -> None:
    """A last line in the bottom margin that no other page repeats is not a footer."""
    closing = "Records of the last winter are kept at the harbour office."
    data = pdf(
        together(lines(72, 760, wrap(LOREM, 80)), text(72, 40, closing)),
        lines(72, 760, wrap(EAST, 80)),
    )
    text_read = _read(data)
    assert closing in text_read
    assert text_read.startswith(LOREM)
    assert text_read.endswith(EAST)
