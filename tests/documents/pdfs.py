"""Test PDFs written with reportlab: each case is drawn here, so its truth is known."""

from __future__ import annotations

import io
from collections.abc import Callable

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

Draw = Callable[[Canvas], None]
WIDTH, HEIGHT = A4


def pdf(*pages: Draw, encrypt: str | None = None, **info: str) -> bytes:
    """A PDF with one page per drawing function; ``info`` sets title and author."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, encrypt=encrypt, invariant=True)
    if "title" in info:
        canvas.setTitle(info["title"])
    if "author" in info:
        canvas.setAuthor(info["author"])
    for draw in pages:
        draw(canvas)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def text(x: float, y: float, words: str, size: float = 11, font: str = "Helvetica") -> Draw:
    def draw(canvas: Canvas) -> None:
        canvas.setFont(font, size)
        canvas.drawString(x, y, words)

    return draw


def lines(x: float, top: float, rows: list[str], size: float = 11, leading: float = 14) -> Draw:
    def draw(canvas: Canvas) -> None:
        canvas.setFont("Helvetica", size)
        for number, row in enumerate(rows):
            canvas.drawString(x, top - number * leading, row)

    return draw


def together(*draws: Draw) -> Draw:
    def draw(canvas: Canvas) -> None:
        for step in draws:
            step(canvas)

    return draw


def wrap(words: str, width: int) -> list[str]:
    """Greedy line breaking at ``width`` characters: prose lines for a column."""
    rows: list[str] = []
    row = ""
    for word in words.split():
        if row and len(row) + 1 + len(word) > width:
            rows.append(row)
            row = word
        else:
            row = f"{row} {word}".strip()
    if row:
        rows.append(row)
    return rows


def grey_image(width: int = 40, height: int = 40) -> object:
    """A small scanned-looking image (noise in grey) for reportlab's drawImage."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    image = Image.new("L", (width, height), 200)
    for x in range(0, width, 3):
        for y in range(0, height, 5):
            image.putpixel((x, y), 40)
    return ImageReader(image)


LOREM = (
    "Harbour records from the northern coast describe every ship that passed the "
    "lighthouse, the weather of each night and the state of the great lamp. Volunteers "
    "transcribed the logbooks over several winters and checked each date against the "
    "customs ledgers kept in the town hall."
)
EAST = (
    "Climate scientists now compare these observations with satellite data and find that "
    "storms grew more frequent late in the century. The keepers wrote at dawn, after "
    "trimming the wick and cleaning the lens that focused the flame towards the sea."
)
