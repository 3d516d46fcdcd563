"""PDFs written byte by byte: each content stream says exactly what is drawn, and how.

reportlab cannot draw some of the ways a PDF hides text (a Type3 font whose glyphs are
empty, an optional-content layer that is off, a soft mask, an annotation laid over text),
so these are written by hand: numbered objects, a content stream, a cross-reference table.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import pypdfium2 as pdfium

WIDTH, HEIGHT = 612, 792
# Glyph names for the characters the tests' texts use, so a Type3 font can spell them.
_NAMES = {
    " ": "space",
    ".": "period",
    ",": "comma",
    "-": "hyphen",
    "'": "quotesingle",
    **{chr(c): chr(c) for c in range(ord("a"), ord("z") + 1)},
    **{chr(c): chr(c) for c in range(ord("A"), ord("Z") + 1)},
}


def escape(text: str) -> str:
    """A PDF literal string's body."""
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def show(text: str, x: float, y: float, size: float = 11, font: str = "F1") -> str:
    """Content that draws ``text`` with its baseline at (x, y)."""
    return f"BT /{font} {size} Tf {x} {y} Td ({escape(text)}) Tj ET\n"


@dataclass
class Pdf:
    """One page, its content, and whatever objects its resources name."""

    content: str = ""
    resources: dict[str, str] = field(default_factory=dict)  # e.g. {"XObject": "/Im1 6 0 R"}
    annots: list[int] = field(default_factory=list)
    catalog_extra: str = ""
    page_extra: str = ""
    objects: list[bytes] = field(default_factory=list)  # numbered from 6 on

    def add(self, body: str | bytes) -> int:
        """A new object; its number."""
        self.objects.append(body.encode("latin-1") if isinstance(body, str) else body)
        return 5 + len(self.objects)

    def add_stream(self, dictionary: str, data: bytes, compress: bool = True) -> int:
        if compress:
            data = zlib.compress(data)
            dictionary += " /Filter /FlateDecode"
        head = f"<< {dictionary} /Length {len(data)} >>\nstream\n".encode("latin-1")
        return self.add(head + data + b"\nendstream")

    def image(self, width: int, height: int, pixels: bytes, smask: int | None = None) -> int:
        """A DeviceGray picture, one byte a pixel, top row first."""
        extra = f" /SMask {smask} 0 R" if smask else ""
        return self.add_stream(
            f"/Type /XObject /Subtype /Image /Width {width} /Height {height} "
            f"/ColorSpace /DeviceGray /BitsPerComponent 8{extra}",
            pixels,
        )

    def form(self, content: str, resources: str = "", extra: str = "") -> int:
        return self.add_stream(
            f"/Type /XObject /Subtype /Form /BBox [0 0 {WIDTH} {HEIGHT}] "
            f"/Resources << /Font << /F1 5 0 R >> {resources} >> {extra}",
            content.encode("latin-1"),
        )

    def build(self) -> bytes:
        fonts = "/F1 5 0 R " + self.resources.get("Font", "")
        others = {kind: entries for kind, entries in self.resources.items() if kind != "Font"}
        resources = " ".join(f"/{kind} << {entries} >>" for kind, entries in others.items())
        annots = " ".join(f"{number} 0 R" for number in self.annots)
        bodies: list[bytes] = [
            f"<< /Type /Catalog /Pages 2 0 R {self.catalog_extra} >>".encode("latin-1"),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH} {HEIGHT}] "
                f"/Resources << /Font << {fonts} >> {resources} >> /Contents 4 0 R "
                f"{'/Annots [' + annots + ']' if annots else ''} {self.page_extra} >>"
            ).encode("latin-1"),
            _stream(self.content.encode("latin-1")),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
            *self.objects,
        ]
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for number, body in enumerate(bodies, start=1):
            offsets.append(len(out))
            out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
        xref = len(out)
        out += f"xref\n0 {len(bodies) + 1}\n0000000000 65535 f \n".encode()
        for offset in offsets:
            out += f"{offset:010d} 00000 n \n".encode()
        trailer = f"trailer\n<< /Size {len(bodies) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
        out += trailer.encode()
        return bytes(out)


def _stream(data: bytes) -> bytes:
    return f"<< /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"


def type3_font(doc: Pdf, glyph: str) -> int:
    """A Type3 font for letters, spaces and stops, each glyph drawn by ``glyph`` (content
    in a 1000-unit em; empty draws nothing)."""
    names = sorted(set(_NAMES.values()))
    procs = {name: doc.add_stream("", glyph.encode("latin-1"), compress=False) for name in names}
    codes = sorted(_NAMES, key=ord)
    differences = " ".join(f"{ord(char)} /{_NAMES[char]}" for char in codes)
    first, last = ord(codes[0]), ord(codes[-1])
    widths = " ".join("600" if chr(code) in _NAMES else "0" for code in range(first, last + 1))
    char_procs = " ".join(f"/{name} {number} 0 R" for name, number in procs.items())
    return doc.add(
        f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 700] "
        f"/FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << {char_procs} >> "
        f"/Encoding << /Type /Encoding /Differences [{differences}] >> "
        f"/FirstChar {first} /LastChar {last} /Widths [{widths}] /Resources << >> >>"
    )


def text_page(lines: list[str], x: float = 72, top: float = 700, leading: float = 14) -> Pdf:
    """A page of black Helvetica lines, 11 pt."""
    doc = Pdf()
    doc.content = "".join(show(line, x, top - n * leading) for n, line in enumerate(lines))
    return doc


def scan_of(doc: Pdf, dpi: int = 150) -> tuple[int, int, bytes]:
    """A scanner's picture of a page: PDFium renders it in grey, and the paper gets a
    grain (a fixed pattern of slightly darker specks)."""
    page = pdfium.PdfDocument(doc.build())[0]
    bitmap = page.render(scale=dpi / 72, grayscale=True)
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    buffer = bytes(bitmap.buffer)
    rows = [buffer[row * stride : row * stride + width] for row in range(height)]
    grain = bytes(max(0, v - (7 * i * i) % 23) for i, v in enumerate(b"".join(rows)))
    return width, height, grain


def photograph(width: int = 240, height: int = 320) -> tuple[int, int, bytes]:
    """A picture with a photograph's smooth shading: hills of grey, no strokes."""
    pixels = bytes(
        int(128 + 50 * math.sin(x / 23.0) * math.cos(y / 31.0) + 40 * math.sin((x + y) / 57.0))
        for y in range(height)
        for x in range(width)
    )
    return width, height, pixels


def full_page_picture(doc: Pdf, picture: tuple[int, int, bytes]) -> str:
    """Content that draws ``picture`` over the whole page (its XObject added to ``doc``)."""
    number = doc.image(*picture)
    entries = doc.resources.get("XObject", "")
    doc.resources["XObject"] = f"{entries} /Scan {number} 0 R".strip()
    return f"q {WIDTH} 0 0 {HEIGHT} 0 0 cm /Scan Do Q\n"
