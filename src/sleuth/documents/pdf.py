"""PDF to text a reader would recognise, with PDFium (pypdfium2); runs in the worker.

Per page: PDFium's text page gives the characters in content order, and the runs of
characters one text object drew are found with a few ``FPDFText_GetTextObject`` calls
each (first where PDFium's line ends, else by galloping and bisecting), never one call per
character; everything else is asked once per run or per object: its box, font size, matrix
and weight. Runs a reader cannot see are dropped: outside the crop box, under about a point
across or squeezed onto one spot, and, above all, without ink of their own on the page as
PDFium renders it (``pdf_ink``): covered, clipped, in a layer that is off, faint, in glyphs
that draw nothing. Where the page draws more than text, the older rules on the objects
(invisible render modes, colour of what lies beneath) still hide, as a floor. Text with no
ink over a scanned page's picture is its OCR layer where the picture shows words under it.
The visible runs become lines, lines become columns (a gutter that prose lines on both
sides leave empty) and paragraphs (spacing, indents, a hyphen that breaks a word undone);
lines repeated in the margins of most pages and page numbers are running heads and go;
a font clearly larger than the body's, or bold and short, makes a heading.
"""

from __future__ import annotations

import ctypes
import math
import re
from array import array
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from statistics import median
from typing import Any

import pypdfium2 as pdfium
from pypdfium2 import raw
from pypdfium2_raw import bindings

from sleuth.documents.pdf_ink import NO_INK, Band, Ink, PageInk
from sleuth.extract.text import clean_line, strip_invisible

_LIB = bindings._libs["pdfium"]


def _fn(name: str, restype: Any, *argtypes: Any) -> Any:
    """A private prototype of one PDFium call that takes and returns plain addresses."""
    function = _LIB[name]  # a new function object: pypdfium2's own stays as it is
    function.restype = restype
    function.argtypes = argtypes
    return function


_VOID = ctypes.c_void_p
_get_text_object = _fn("FPDFText_GetTextObject", _VOID, _VOID, ctypes.c_int)
_get_loose_box = _fn("FPDFText_GetLooseCharBox", ctypes.c_int, _VOID, ctypes.c_int, _VOID)
_count_objects = _fn("FPDFPage_CountObjects", ctypes.c_int, _VOID)
_get_object = _fn("FPDFPage_GetObject", _VOID, _VOID, ctypes.c_int)
_form_count = _fn("FPDFFormObj_CountObjects", ctypes.c_int, _VOID)
_form_object = _fn("FPDFFormObj_GetObject", _VOID, _VOID, ctypes.c_ulong)
_object_type = _fn("FPDFPageObj_GetType", ctypes.c_int, _VOID)
_bounds = _fn("FPDFPageObj_GetBounds", ctypes.c_int, _VOID, _VOID, _VOID, _VOID, _VOID)
_fill_colour = _fn("FPDFPageObj_GetFillColor", ctypes.c_int, _VOID, _VOID, _VOID, _VOID, _VOID)
_stroke_colour = _fn("FPDFPageObj_GetStrokeColor", ctypes.c_int, _VOID, _VOID, _VOID, _VOID, _VOID)
_draw_mode = _fn("FPDFPath_GetDrawMode", ctypes.c_int, _VOID, _VOID, _VOID)
_render_mode = _fn("FPDFTextObj_GetTextRenderMode", ctypes.c_int, _VOID)
_font_size = _fn("FPDFTextObj_GetFontSize", ctypes.c_int, _VOID, _VOID)
_matrix = _fn("FPDFPageObj_GetMatrix", ctypes.c_int, _VOID, _VOID)
_text_font = _fn("FPDFTextObj_GetFont", _VOID, _VOID)
_font_weight = _fn("FPDFFont_GetWeight", ctypes.c_int, _VOID)
_font_name = _fn("FPDFFont_GetBaseFontName", ctypes.c_size_t, _VOID, _VOID, ctypes.c_size_t)

_TEXT, _PATH, _IMAGE, _SHADING, _FORM = 1, 2, 3, 4, 5
_HIDDEN, _INK, _SCAN = 0, 1, 2  # what a run's objects say before its ink is judged
# Glyphs under about a point across, or an em squeezed under two points along the baseline
# (characters about a point wide, stacked on one spot as Tz 1 does): too thin to read.
_THIN_ACROSS = 1.0
_THIN_ALONG = 2.0
_STACKED = 0.5  # points along the line a character needs at least, on average
_RERENDERS = 6  # renders a page may take to tell overlapping runs' ink apart
_INVISIBLE_MODES = (3, 7)  # FPDF_TEXTRENDERMODE_INVISIBLE, _CLIP
_CLIP_ONLY = 7  # text used only as a clipping path: never ink, even over a picture
# A picture this share of the page or more is a scanned page: text over it is its OCR layer.
_SCAN_SHARE = 0.25
_STROKE_MODES = (1, 5)
_HEADING_RATIO = 1.15
_GRID = 16  # cells per side of the page in the index of shapes beneath text
# Prose averages about half an em per character; a run spread over more is worth a look
# for the wide gaps of table cells.
_SPREAD = 0.75
_MARGIN = 0.12  # share of the page height at top and bottom where running heads live
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*)?(?:page\s+|p\.\s*|seite\s+)?(?:\d{1,4}|[ivxlcdm]{1,6})"
    r"(?:\s*(?:/|of|von|de)\s*\d{1,4})?(?:\s*[-–—])?$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^(?:[•●◦▪‣∙·*–-]\s|\(?\d{1,3}[.)]\s|\(?[a-z][.)]\s)")
# Control characters PDFs carry in broken text maps; U+0002 stays: PDFium's end-of-line hyphen.
_CONTROLS: dict[int, str | None] = {
    **dict.fromkeys([0, 1, *range(3, 32), 0x7F, 0xFFFF]),
    0xFFFE: "\x02",  # how some PDFium builds mark the same hyphen
}
_CONTROL_CHARS = re.compile("[\x00\x01\x03-\x1f\x7f\ufffe\uffff]")
_SENTENCE_END = (".", "!", "?", ":", '."', ".”", "?”", "!”")


@dataclass(slots=True)
class _Style:
    """What one text object looks like: decided once, shared by its runs."""

    index: int  # its place in the page's drawing order
    size: float
    bold: bool
    thin: bool = False  # under about a point across its glyphs, or squeezed onto one spot
    direction: tuple[float, float] = (1.0, 0.0)  # of its baseline, in page space


@dataclass(slots=True)
class _Run:
    """A run of one text object's characters that may be seen, before its ink is judged."""

    obj: int
    first: int
    text: str
    style: _Style
    box: tuple[float, float, float, float]  # from its first character to its last
    whole: tuple[float, float, float, float]  # everything its characters' boxes cover
    scan: bool  # over a scanned page's picture: its OCR layer if the picture shows words
    letters: int  # characters that are not spaces


@dataclass(slots=True)
class _Shape:
    index: int
    box: tuple[float, float, float, float]
    colour: tuple[int, int, int] | None  # None: a picture (an image or a shading)


@dataclass(slots=True)
class _Span:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    space_before: bool
    order: int = 0  # its first character's index: where PDFium's own order puts it


@dataclass(slots=True)
class _Line:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    region: int = 0  # which column-band it came from: a jump means a new paragraph
    cells: bool = False  # a row of separate cells (a table): it keeps its own line
    order: int = 0  # its first character's index: where PDFium's own order puts it


@dataclass
class PageText:
    """One page's lines in reading order, before running heads are known."""

    lines: list[_Line]
    height: float
    pictures: int
    hidden: int
    chars: int


class _PageReader:
    """Reads one page: object styles, what is drawn beneath, visible runs."""

    def __init__(self, page: pdfium.PdfPage, textpage: pdfium.PdfTextPage) -> None:
        self.page: int = ctypes.cast(page.raw, _VOID).value or 0
        self.textpage: int = ctypes.cast(textpage.raw, _VOID).value or 0
        self.crop = page.get_cropbox()
        self.order: dict[int, int] = {}
        self.shapes: list[_Shape] = []
        self.styles: dict[int, _Style] = {}
        self.fonts: dict[int, bool] = {}
        self.hidden = 0
        self.graphics = False  # whether anything but text is drawn on the page
        # Buffers PDFium writes into, made once a page rather than once a call.
        self._channels = [ctypes.c_uint() for _ in range(4)]
        self._channel_refs = [ctypes.byref(channel) for channel in self._channels]
        self._size = ctypes.c_float()
        self._size_ref = ctypes.byref(self._size)
        self._matrix = raw.FS_MATRIX()
        self._matrix_ref = ctypes.byref(self._matrix)
        self._rect = raw.FS_RECTF()
        self._rect_ref = ctypes.byref(self._rect)
        self._walk()
        self._grid = self._index()

    def _box(self, obj: int) -> tuple[float, float, float, float] | None:
        left, bottom, right, top = (ctypes.c_float() for _ in range(4))
        ok = _bounds(
            obj, ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right), ctypes.byref(top)
        )
        return (left.value, bottom.value, right.value, top.value) if ok else None

    def _walk(self) -> None:
        """Drawing order of every object; filled paths and pictures that text may sit on."""
        count = _count_objects(self.page)
        page, order = self.page, self.order
        for index in range(count):
            obj = _get_object(page, index)
            if obj:
                if _object_type(obj) == _TEXT:  # most objects: no more to ask
                    order[obj] = index
                else:
                    self._visit(obj, index, 0)

    def _visit(self, obj: int, index: int, depth: int) -> None:
        kind = _object_type(obj)
        if kind not in (_TEXT, _FORM) or depth >= 8:
            self.graphics = True
        if kind == _TEXT:
            self.order[obj] = index
        elif kind in (_IMAGE, _SHADING):
            box = self._box(obj)
            if box:
                self.shapes.append(_Shape(index, box, None))
        elif kind == _PATH:
            fill, stroke = ctypes.c_int(), ctypes.c_int()
            if _draw_mode(obj, ctypes.byref(fill), ctypes.byref(stroke)) and fill.value:
                colour = self._rgba(_fill_colour, obj)
                box = self._box(obj)
                if box and colour[3] > 0:
                    self.shapes.append(_Shape(index, box, colour[:3]))
        elif kind == _FORM and depth < 8:
            for child in range(_form_count(obj)):
                inner = _form_object(obj, child)
                if inner:
                    self._visit(inner, index, depth + 1)

    def style(self, obj: int) -> _Style:
        known = self.styles.get(obj)
        if known is not None:
            return known
        size = self._size.value if _font_size(obj, self._size_ref) else 0.0
        scale = 1.0
        thin = False
        direction = (1.0, 0.0)
        if _matrix(obj, self._matrix_ref):
            a, b, c, d = self._matrix.a, self._matrix.b, self._matrix.c, self._matrix.d
            determinant = abs(a * d - b * c)
            scale = math.sqrt(determinant) or 0.0
            # The em along the baseline (horizontal scaling, Tz, is part of this matrix) and
            # the glyphs' height across it, after every transform.
            length = math.hypot(a, b)
            along = abs(size) * length
            across = abs(size) * determinant / max(length, 1e-9)
            thin = size != 0 and (along < _THIN_ALONG or across < _THIN_ACROSS)
            direction = (-a, -b) if size < 0 else (a, b)
        style = _Style(
            self.order.get(obj, 1 << 30),
            size * scale,
            self._bold(obj),
            thin,
            direction,
        )
        self.styles[obj] = style
        return style

    def paint(self, obj: int) -> tuple[int, tuple[int, int, int, int]]:
        """An object's rendering mode and the colour it paints with. Only the rules that
        decide without the page's rendering ask: the rendering shows both."""
        mode = _render_mode(obj)
        return mode, self._rgba(_stroke_colour if mode in _STROKE_MODES else _fill_colour, obj)

    def _rgba(self, getter: Any, obj: int) -> tuple[int, int, int, int]:
        if not getter(obj, *self._channel_refs):
            return (0, 0, 0, 255)
        red, green, blue, alpha = self._channels
        return (red.value, green.value, blue.value, alpha.value)

    def _bold(self, obj: int) -> bool:
        font = _text_font(obj)
        if not font:
            return False
        known = self.fonts.get(font)
        if known is None:
            weight = _font_weight(font)
            buffer = ctypes.create_string_buffer(128)
            _font_name(font, buffer, 128)
            known = weight >= 600 or bool(_BOLD_NAME.search(buffer.value.decode("latin-1")))
            self.fonts[font] = known
        return known

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        left, bottom, right, top = self.crop
        column = int((x - left) * _GRID / max(right - left, 1.0))
        row = int((y - bottom) * _GRID / max(top - bottom, 1.0))
        return min(max(column, 0), _GRID - 1), min(max(row, 0), _GRID - 1)

    def _index(self) -> dict[tuple[int, int], list[_Shape]]:
        """Shapes by the grid cells they cover, in drawing order: a lookup reads one cell,
        not every path of a map or a chart."""
        grid: dict[tuple[int, int], list[_Shape]] = {}
        for shape in self.shapes:
            left, bottom, right, top = shape.box
            if not (math.isfinite(left + bottom + right + top) and right >= left and top >= bottom):
                continue
            first_column, first_row = self._cell(left, bottom)
            last_column, last_row = self._cell(right, top)
            for column in range(first_column, last_column + 1):
                for row in range(first_row, last_row + 1):
                    grid.setdefault((column, row), []).append(shape)
        return grid

    def beneath(self, style: _Style, x: float, y: float) -> tuple[int, int, int] | None:
        """The colour drawn under a point before the text: white paper, a fill, or None
        for a picture (whose colours only the page's rendering knows)."""
        if not self._grid or not math.isfinite(x + y):
            return (255, 255, 255)
        for shape in reversed(self._grid.get(self._cell(x, y), ())):
            if shape.index > style.index:
                continue
            left, bottom, right, top = shape.box
            if left <= x <= right and bottom <= y <= top:
                return shape.colour
        return (255, 255, 255)

    def scanned(self, x: float, y: float) -> bool:
        """Whether a picture the size of a scanned page covers a point, drawn before the
        text or after it: OCR tools put their text layer on either side of the image."""
        if not self._grid or not math.isfinite(x + y):
            return False
        for shape in self._grid.get(self._cell(x, y), ()):
            left, bottom, right, top = shape.box
            inside = left <= x <= right and bottom <= y <= top
            if shape.colour is None and inside and self._scan_sized(shape):
                return True
        return False

    def _scan_sized(self, shape: _Shape) -> bool:
        """A picture covering a good part of the page, as a scanned page's image does."""
        left, bottom, right, top = shape.box
        c_left, c_bottom, c_right, c_top = (float(v) for v in self.crop)
        page = max((c_right - c_left) * (c_top - c_bottom), 1.0)
        return bool((right - left) * (top - bottom) >= _SCAN_SHARE * page)

    def verdict(self, obj: int, style: _Style, x: float, y: float) -> int:
        """What the objects alone say of a run of ``obj`` centred at (x, y): hidden, ink for
        the page's rendering to judge, or over a scanned page's picture (its OCR layer,
        where the picture shows words under it)."""
        left, bottom, right, top = self.crop
        if not (left <= x <= right and bottom <= y <= top):
            return _HIDDEN
        if 0 < style.size < 1.0 or style.thin:
            return _HIDDEN
        if not self._grid:  # nothing drawn but text: the page's rendering judges alone
            return _INK
        mode, colour = self.paint(obj)
        if mode == _CLIP_ONLY or colour[3] == 0:
            return _HIDDEN  # never ink, even over a scan whose picture shows words
        if self.scanned(x, y):
            return _SCAN
        # The rules that held before pages were rendered stay, a floor under the rendering.
        return _INK if self.painted(obj, style, x, y, (mode, colour)) else _HIDDEN

    def painted(
        self,
        obj: int,
        style: _Style,
        x: float,
        y: float,
        paint: tuple[int, tuple[int, int, int, int]] | None = None,
    ) -> bool:
        """Whether the object's mode and colour (``paint``, if already asked), against what
        is drawn beneath (white paper, a fill, a picture of unknown colours), leave it
        visible."""
        mode, colour = paint or self.paint(obj)
        if mode in _INVISIBLE_MODES or colour[3] == 0:
            return False
        under = self.beneath(style, x, y)
        if under is None:
            return True
        red, green, blue, _ = colour
        differs = abs(red - under[0]) > 12 or abs(green - under[1]) > 12
        return differs or abs(blue - under[2]) > 12

    def char_box(self, index: int) -> tuple[float, float, float, float]:
        if not _get_loose_box(self.textpage, index, self._rect_ref):
            return (0.0, 0.0, 0.0, 0.0)
        rect = self._rect
        return (rect.left, rect.bottom, rect.right, rect.top)


def _page_string(units: Any, count: int, written: int, textpage: Any) -> str:
    """The text page's characters, one per character index (a lone surrogate kept as is).

    ``FPDFText_GetText`` leaves out a glyph that maps to no character (U+0000, an emoji
    in a font without a text map, say): every later character would then sit one index
    early and lose its place, box and object. ``written`` short of ``count + 1`` tells of
    it, and the characters are then asked for one index at a time."""
    if written < count + 1:
        return "".join([chr(raw.FPDFText_GetUnicode(textpage, i)) for i in range(count)])
    text = bytes(units)[: 2 * count].decode("utf-16-le", "surrogatepass")
    if len(text) == count:
        return text
    wide = array("I", units[:count])  # a surrogate pair counts as two characters here
    return wide.tobytes().decode("utf-32-le", "surrogatepass")


def _runs(textpage: int, count: int, page: str) -> Iterator[tuple[int, int, int]]:
    """(object, first, last) for each run of characters drawn by one text object.

    PDFium lists an object's characters together, with the spaces and breaks it infers
    between them (which belong to no object). So a run's end is found by galloping and
    bisecting, a few calls per run instead of one per character: a line set as one
    object costs a dozen calls, not eighty.
    """
    known: dict[int, int] = {}

    def owner(index: int) -> int:
        found = known.get(index)
        if found is None:
            found = _get_text_object(textpage, index) or 0
            known[index] = found
        return found

    def drawn_by(index: int) -> int:
        """The object of the first character at or after ``index`` that has one (PDFium
        never infers more than a space or a line break in a row, and a line break's two
        characters, which no object draws, need no call)."""
        for at in range(index, min(index + 3, count)):
            if page[at] in _BREAK:
                continue
            found = owner(at)
            if found:
                return found
        return 0

    start = 0
    while start < count:
        if page[start] in _BREAK:
            start += 1
            continue
        obj = known.get(start)
        if obj is None:
            obj = known[start] = _get_text_object(textpage, start) or 0
        if not obj:
            start += 1
            continue
        # Most objects end where PDFium's line ends: try that first, two calls.
        line_end = page.find("\r", start)
        line_end = count if line_end < 0 else line_end
        if (
            line_end - 1 > start
            and owner(line_end - 1) == obj
            and (line_end >= count or drawn_by(line_end) != obj)
        ):
            yield obj, start, line_end - 1
            start = line_end
            continue
        last, step = start, 1
        beyond = count
        while last + step < count:
            if drawn_by(last + step) == obj:
                last += step
                step *= 2
            else:
                beyond = last + step
                break
        while beyond - last > 1:
            middle = (last + beyond) // 2
            if drawn_by(middle) == obj:
                last = middle
            else:
                beyond = middle
        yield obj, start, last
        start = last + 1
        if len(known) > 4096:
            known.clear()


def _spans(
    reader: _PageReader, textpage: pdfium.PdfTextPage, size: tuple[float, float]
) -> tuple[list[_Span], int]:
    """Visible runs of one text object each, and how many characters there were."""
    count = textpage.count_chars()
    if count <= 0:
        return [], 0
    units = (ctypes.c_ushort * (count + 1))()
    written = raw.FPDFText_GetText(textpage.raw, 0, count, units)
    page = _page_string(units, count, written, textpage.raw)
    runs: list[_Run] = []
    style_of, verdict_of = reader.style, reader.verdict
    # reader.char_box, inline: twice for every run.
    get_box, textpage_address = _get_loose_box, reader.textpage
    rect, rect_ref = reader._rect, reader._rect_ref
    for obj, first, last in _runs(reader.textpage, count, page):
        text = page[first : last + 1]
        stripped = text.strip()
        if not stripped:
            continue
        style = style_of(obj)
        if not get_box(textpage_address, first, rect_ref):
            rect.left = rect.bottom = rect.right = rect.top = 0.0
        x0, y0, x1, y1 = rect.left, rect.bottom, rect.right, rect.top
        if not get_box(textpage_address, last, rect_ref):
            rect.left = rect.bottom = rect.right = rect.top = 0.0
        b_x0, b0, b_x1, t1 = rect.left, rect.bottom, rect.right, rect.top
        bottom, top = (y0 if y0 < b0 else b0), (y1 if y1 > t1 else t1)
        right = b_x1 if b_x1 > x0 else x0
        box = (x0, bottom, right, top)
        whole = (x0 if x0 < b_x0 else b_x0, bottom, x1 if x1 > b_x1 else b_x1, top)
        verdict = verdict_of(obj, style, (x0 + right) / 2, (bottom + top) / 2)
        letters = len(text) - text.count(" ")
        if verdict == _HIDDEN or _stacked(letters, whole):
            reader.hidden += len(stripped)
            continue
        runs.append(_Run(obj, first, text, style, box, whole, verdict == _SCAN, letters))
    return _inked(reader, runs, size, page), count


def _stacked(letters: int, box: tuple[float, float, float, float]) -> bool:
    """Characters squeezed onto one spot (by character spacing, say): no reader can tell
    them apart, whatever each glyph's size."""
    if letters < 3:
        return False
    width, height = box[2] - box[0], box[3] - box[1]
    return (width if width > height else height) < _STACKED * letters


def _inked(
    reader: _PageReader, runs: list[_Run], size: tuple[float, float], page: str
) -> list[_Span]:
    """The spans of the runs, or of the pieces of them, that put ink on the page.

    A scanned page's OCR layer puts none of its own: it counts where the picture shows
    marks of words under it.
    """
    spans: list[_Span] = []
    judge = PageInk.judge(reader.page, *size, reader.order, reader.graphics) if runs else None
    if judge is None:  # PDFium could not render the page: the objects' word stands
        for run in runs:
            centre = ((run.box[0] + run.box[2]) / 2, (run.box[1] + run.box[3]) / 2)
            if run.scan or reader.painted(run.obj, run.style, *centre):
                spans.extend(_span(reader, page, run.style, run.first, text=run.text, box=run.box))
            else:
                reader.hidden += len(run.text.strip())
        return spans
    # A word has ink across the middle of its line, where no neighbouring line reaches; a
    # lone comma or full stop may have it only near the edges, so it is looked at whole.
    bands, inks = judge.measure(
        [(run.whole, run.style.direction, run.letters >= 3) for run in runs]
    )
    _settle(judge, runs, bands, inks)
    for run, band, own in zip(runs, bands, inks, strict=True):
        ink = judge.marks(band) if run.scan and own.none else own
        if ink.whole:
            spans.extend(_span(reader, page, run.style, run.first, text=run.text, box=run.box))
        elif ink.none:
            reader.hidden += len(run.text.strip())
        else:
            for first, text, box in _pieces(reader, judge, run, ink):
                spans.extend(_span(reader, page, run.style, first, text=text, box=box))
    return spans


def _settle(judge: PageInk, runs: list[_Run], bands: list[Band | None], inks: list[Ink]) -> None:
    """Runs that overlap another run with ink are judged again, each against the page
    rendered without it: text laid over visible text borrows none of its ink."""
    contested = _overlapping(runs, bands, inks)
    pending = sorted(contested)
    dropped: set[int] = set()
    for _ in range(_RERENDERS):
        if not pending:
            return
        batch: list[int] = []
        later: list[int] = []
        for index in pending:
            rect = bands[index].rect  # type: ignore[union-attr]
            if any(_meets(rect, bands[taken].rect) for taken in batch):  # type: ignore[union-attr]
                later.append(index)
            else:
                batch.append(index)
        without = judge.render_without({runs[index].obj for index in batch} | dropped)
        for index in batch:
            inks[index] = judge.ink(bands[index], without)
            if inks[index].none:
                dropped.add(runs[index].obj)
        pending = later
    for index in pending:  # more overlaps than renders to tell them apart: none is trusted
        inks[index] = NO_INK


def _overlapping(runs: list[_Run], bands: list[Band | None], inks: list[Ink]) -> set[int]:
    """Runs with ink whose middle band another run's box reaches into. Runs on one line
    share their rows: each line is swept left to right, alone and with each line whose
    rows overlap its own, so a page costs about one sort, not a comparison of every pair."""
    lines: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    middles: dict[tuple[int, int], tuple[int, int]] = {}  # the rows each line is judged by
    for index, band in enumerate(bands):
        if band is not None and inks[index] is not NO_INK:
            top, bottom, left, right = band.rect
            key = (top, bottom)
            first, last = band.sample if band.axis == 0 else (band.r0, band.r1)
            known = lines.get(key)
            if known is None:
                lines[key] = [(left, right, index)]
                middles[key] = (first, last)
            else:
                known.append((left, right, index))
                low, high = middles[key]
                middles[key] = (first if first < low else low, last if last > high else high)
    keys = sorted(lines)
    contested: set[int] = set()
    count = len(keys)
    for place, key in enumerate(keys):
        mine = lines[key]
        if len(mine) > 1:
            _sweep(sorted(mine), runs, bands, contested)
        after = place + 1
        while after < count and keys[after][0] < key[1]:
            other = keys[after]
            after += 1
            # Neighbouring lines whose boxes touch, no more, leave each other's middle alone.
            ours, theirs = middles[key], middles[other]
            if (ours[0] < other[1] and other[0] < ours[1]) or (
                theirs[0] < key[1] and key[0] < theirs[1]
            ):
                _sweep(sorted(mine + lines[other]), runs, bands, contested)
    return contested


def _sweep(
    spans: list[tuple[int, int, int]],
    runs: list[_Run],
    bands: list[Band | None],
    contested: set[int],
) -> None:
    """Pairs among boxes sorted by their left edge whose columns overlap, checked in full."""
    active: list[tuple[int, int, int]] = []
    for left, right, index in spans:
        active = [entry for entry in active if entry[1] > left]
        mine = bands[index]
        assert mine is not None
        for _, _, other in active:
            theirs = bands[other]
            assert theirs is not None
            if runs[other].obj != runs[index].obj and (
                _meets(_inner(mine), theirs.rect) or _meets(_inner(theirs), mine.rect)
            ):
                contested.update((index, other))
        active.append((left, right, index))


def _inner(band: Band) -> tuple[int, int, int, int]:
    """The pixels a run's ink is looked for in: the middle rows of a line, or its band."""
    if band.axis == 0:
        return (band.sample[0], band.sample[1], band.c0, band.c1)
    return (band.r0, band.r1, band.c0, band.c1)


def _meets(first: tuple[int, int, int, int], second: tuple[int, int, int, int]) -> bool:
    """Whether two pixel boxes (rows then columns, ends excluded) share a pixel."""
    return (
        first[0] < second[1]
        and second[0] < first[1]
        and first[2] < second[3]
        and second[2] < first[3]
    )


def _pieces(
    reader: _PageReader, judge: PageInk, run: _Run, ink: Ink
) -> list[tuple[int, str, tuple[float, float, float, float]]]:
    """The stretches of a partly inked run whose characters lie outside its gaps."""
    pieces: list[tuple[int, str, tuple[float, float, float, float]]] = []
    start = -1
    boxes: list[tuple[float, float, float, float]] = []

    def close(end: int) -> None:
        text = run.text[start - run.first : end - run.first]
        stripped = len(text.rstrip())
        if text.strip():
            kept = boxes[: stripped or 1]
            box = (
                min(b[0] for b in kept),
                min(b[1] for b in kept),
                max(b[2] for b in kept),
                max(b[3] for b in kept),
            )
            pieces.append((start, text[:stripped], box))

    for offset, char in enumerate(run.text):
        index = run.first + offset
        if char.isspace():
            if start >= 0:
                boxes.append(reader.char_box(index))
            continue
        box = reader.char_box(index)
        if judge.unseen(box, ink):
            reader.hidden += 1
            if start >= 0:
                close(index)
                start = -1
            continue
        if start < 0:
            start, boxes = index, []
        boxes.append(box)
    if start >= 0:
        close(run.first + len(run.text))
    return pieces


def _span(
    reader: _PageReader,
    page: str,
    style: _Style,
    first: int,
    *,
    text: str,
    box: tuple[float, float, float, float],
) -> list[_Span]:
    if not text.isascii():
        if "\r" in text or "\n" in text:
            text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
        if _SURROGATE.search(text):
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    elif "\r" in text or "\n" in text:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    size = style.size if style.size >= 1 else (box[3] - box[1]) / 1.2
    space = first > 0 and page[first - 1] in " \r\n"
    span = _Span(text, *box, size, style.bold, space, first)
    if box[2] - box[0] > _SPREAD * size * len(text) and " " in text.strip():
        return _cells(reader, span, first)  # one object set as a row of cells
    return [span]


def _cells(reader: _PageReader, span: _Span, first: int) -> list[_Span]:
    """A run whose words stand far apart (a table row in one text object), cut at each gap
    wider than a word space, so the row's cells are told apart as if drawn one by one."""
    pieces: list[_Span] = []
    text = span.text
    start = 0
    x0 = span.x0
    for index, char in enumerate(text):
        if char != " " or index == 0 or index + 1 >= len(text) or text[index + 1] == " ":
            continue
        left = reader.char_box(first + index - 1)
        right = reader.char_box(first + index + 1)
        if right[0] - left[2] > 0.9 * span.size:
            pieces.append(
                _Span(
                    text[start:index],
                    x0,
                    span.y0,
                    left[2],
                    span.y1,
                    span.size,
                    span.bold,
                    span.space_before if not pieces else True,
                    first + start,
                )
            )
            start, x0 = index + 1, right[0]
    if not pieces:
        return [span]
    pieces.append(
        _Span(
            text[start:], x0, span.y0, span.x1, span.y1, span.size, span.bold, True, first + start
        )
    )
    return [piece for piece in pieces if piece.text.strip()]


_SURROGATE = re.compile("[\ud800-\udfff]")
_BREAK = frozenset("\r\n")  # PDFium's own line break, drawn by no object


def _rows(spans: list[_Span]) -> list[list[_Span]]:
    """Spans sharing a baseline band, top to bottom, each row left to right."""
    ordered = sorted(spans, key=lambda s: (-(s.y0 + s.y1) / 2, s.x0))
    rows: list[list[_Span]] = []
    centre = 0.0
    for span in ordered:
        middle = (span.y0 + span.y1) / 2
        height = max(span.y1 - span.y0, 0.5)
        if rows and abs(centre - middle) < 0.5 * height:
            rows[-1].append(span)
        else:
            rows.append([span])
            centre = middle
    for row in rows:
        row.sort(key=lambda s: s.x0)
    return rows


def _join(spans: list[_Span]) -> str:
    parts: list[str] = []
    for prev, span in zip([None, *spans[:-1]], spans, strict=True):
        text = span.text
        if prev is not None:
            gap = span.x0 - prev.x1
            wants = span.space_before or gap > 0.18 * max(span.size, 1.0)
            if wants and not parts[-1].endswith(" ") and not text.startswith(" "):
                parts.append(" ")
        parts.append(text)
    return "".join(parts)


def _segments(rows: list[list[_Span]]) -> list[_Line]:
    """Each row cut where a gap is wider than a word space can be (a gutter, a table cell)."""
    lines: list[_Line] = []
    for row in rows:
        group: list[_Span] = [row[0]]
        for span in row[1:]:
            last = group[-1]
            widest = last.size if last.size > span.size else span.size
            if span.x0 - last.x1 > 0.9 * (widest if widest > 1.0 else 1.0):
                lines.append(_line(group))
                group = [span]
            else:
                group.append(span)
        lines.append(_line(group))
    return lines


def _line(spans: list[_Span]) -> _Line:
    if len(spans) == 1:  # the common case, without the bookkeeping
        span = spans[0]
        return _Line(
            _clean(span.text),
            span.x0,
            span.y0,
            span.x1,
            span.y1,
            round(span.size, 1),
            span.bold,
            order=span.order,
        )
    weights = Counter[float]()
    bold = 0
    for span in spans:
        weights[round(span.size, 1)] += len(span.text)
        bold += len(span.text) if span.bold else 0
    size = weights.most_common(1)[0][0]
    total = sum(weights.values())
    return _Line(
        _clean(_join(spans)),
        min(s.x0 for s in spans),
        min(s.y0 for s in spans),
        max(s.x1 for s in spans),
        max(s.y1 for s in spans),
        size,
        bold * 2 > total,
        order=min(s.order for s in spans),
    )


def _clean(text: str) -> str:
    """Control characters out (a regex finds the rare line that has one), then the hygiene
    every extracted line gets."""
    if _CONTROL_CHARS.search(text):
        text = text.translate(_CONTROLS)
    if text.isascii() and "\n" not in text:  # nothing invisible: spaces collapsed is all
        return " ".join(text.split())
    return clean_line(text)


def _gutter(lines: list[_Line]) -> tuple[float, float] | None:
    """An x range that prose lines on both sides leave empty: a column gap."""
    if len(lines) < 6:
        return None
    left = min(line.x0 for line in lines)
    right = max(line.x1 for line in lines)
    width = right - left
    if not 0 < width < 20_000:  # no page is that wide: broken coordinates, no columns
        return None
    narrow = sorted(
        (line for line in lines if line.x1 - line.x0 < 0.6 * width), key=lambda ln: ln.x0
    )
    if len(narrow) < 6:
        return None
    # Coverage of x by the narrow lines, per point: a gutter is the widest run that at most
    # a tenth of them cross (a centred name or date above the columns may).
    # Coverage changes only where a line starts or ends: walked from change to change.
    size_x = int(width) + 2
    steps: dict[int, int] = {}
    for line in narrow:
        start, end = max(0, int(line.x0 - left)), min(size_x - 1, int(line.x1 - left) + 1)
        steps[start] = steps.get(start, 0) + 1
        steps[end] = steps.get(end, 0) - 1
    allowed = len(narrow) // 10
    best: tuple[float, float] | None = None
    covered, run_start = 0, -1
    changes = sorted(x for x in steps if x < size_x - 1)
    starts = changes if changes and changes[0] == 0 else [0, *changes]
    for at, x in enumerate(starts):
        covered += steps.get(x, 0)
        if covered <= allowed:
            following = starts[at + 1] if at + 1 < len(starts) else size_x - 1
            if run_start < 0 and max(x, 1) < following:
                run_start = max(x, 1)
        elif run_start >= 0:
            if best is None or x - run_start > best[1] - best[0]:
                best = (left + run_start, left + x - 1)
            run_start = -1
    if best is None:
        return None
    size = median(line.size for line in narrow)
    if best[1] - best[0] < 0.6 * size:
        return None
    west = [line for line in narrow if line.x1 <= best[0]]
    east = [line for line in narrow if line.x0 >= best[1]]
    if len(west) < 3 or len(east) < 3:
        return None
    # Prose fills its column; table cells and labels do not.
    for side, low, high in ((west, left, best[0]), (east, best[1], right)):
        if median(line.x1 - line.x0 for line in side) < 0.5 * (high - low):
            return None
    top = min(max(line.y1 for line in west), max(line.y1 for line in east))
    bottom = max(min(line.y0 for line in west), min(line.y0 for line in east))
    return best if top > bottom else None


def _reads_on(lines: list[_Line]) -> bool:
    """Whether each line lies below the one before it or to its right."""
    for last, line in pairwise(lines):
        height = max(last.y1 - last.y0, 1.0)
        if (line.y0 + line.y1) / 2 >= last.y0 + 0.25 * height and line.x0 < last.x1 - 0.5:
            return False
    return True


def _stream_order(lines: list[_Line]) -> list[_Line] | None:
    """The lines in PDFium's own order, where that order is one a reader could follow:
    each line below the one before it or to its right (the next cell of a row, the top of
    the next column), never back up to its left. A table drawn cell by cell then keeps
    its cells whole, where sorting by height would interleave the lines of wrapped cells.
    A top and a bottom row drawn out of that order (a running head, a footer, often drawn
    last) go first and last."""
    if len(lines) < 3:
        return None
    drawn = sorted(lines, key=lambda ln: ln.order)
    if _reads_on(drawn):
        return drawn
    highest = max(lines, key=lambda ln: ln.y0 + ln.y1)
    lowest = min(lines, key=lambda ln: ln.y0 + ln.y1)
    top = [ln for ln in lines if ln.y0 <= (highest.y0 + highest.y1) / 2 <= ln.y1]
    bottom = [ln for ln in lines if ln.y0 <= (lowest.y0 + lowest.y1) / 2 <= ln.y1 and ln not in top]
    edges = {id(ln) for ln in top + bottom}
    inner = [ln for ln in drawn if id(ln) not in edges]
    if not _reads_on(inner):
        return None
    return [*sorted(top, key=lambda ln: ln.x0), *inner, *sorted(bottom, key=lambda ln: ln.x0)]


def _merge_rows(lines: list[_Line]) -> list[_Line]:
    """Without columns, segments of one row are one line (a table row reads as a row).
    The lines go in PDFium's order where that order reads, else top to bottom."""
    ordered = _stream_order(lines) or sorted(lines, key=lambda ln: (-(ln.y0 + ln.y1) / 2, ln.x0))
    merged: list[_Line] = []
    for line in ordered:
        if merged:
            last = merged[-1]
            middle = (line.y0 + line.y1) / 2
            if last.y0 <= middle <= last.y1 and line.x0 >= last.x1:
                merged[-1] = _Line(
                    f"{last.text} {line.text}",
                    last.x0,
                    min(last.y0, line.y0),
                    line.x1,
                    max(last.y1, line.y1),
                    last.size,
                    last.bold and line.bold,
                    last.region,
                    cells=True,
                    order=last.order,
                )
                continue
        merged.append(line)
    return merged


def _reading_order(
    lines: list[_Line], depth: int = 0, region: list[int] | None = None
) -> list[_Line]:
    """Top to bottom; where a gutter splits the lines, each column in turn between wide lines."""
    region = region if region is not None else [0]
    gutter = _gutter(lines) if depth < 3 else None
    if gutter is None:
        ordered = _merge_rows(lines)
        for line in ordered:
            line.region = region[0]
        return ordered
    out: list[_Line] = []
    west: list[_Line] = []
    east: list[_Line] = []

    def flush() -> None:
        for side in (west, east):
            if side:
                region[0] += 1
                out.extend(_reading_order(side, depth + 1, region))
                side.clear()

    for line in sorted(lines, key=lambda ln: -(ln.y0 + ln.y1) / 2):
        if line.x1 <= gutter[1] - 0.5:  # a line may reach into the gap, not across it
            west.append(line)
        elif line.x0 >= gutter[0] + 0.5:
            east.append(line)
        else:  # a line across the gutter: a title, a figure, a footer
            flush()
            region[0] += 1
            line.region = region[0]
            out.append(line)
    flush()
    return out


def read_page(page: pdfium.PdfPage) -> PageText:
    textpage = page.get_textpage()
    try:
        reader = _PageReader(page, textpage)
        size = (page.get_width(), page.get_height())
        spans, chars = _spans(reader, textpage, size)
        lines = _reading_order(_segments(_rows(spans))) if spans else []
        pictures = sum(1 for shape in reader.shapes if shape.colour is None)
        return PageText(lines, size[1], pictures, reader.hidden, chars)
    finally:
        textpage.close()


# -- Across pages: running heads, paragraphs, headings --


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower()).strip()


def _drop_running_heads(pages: list[PageText]) -> None:
    """Lines in the margins repeated on most pages, and page numbers, are not the text."""

    def margins(page: PageText) -> list[list[_Line]]:
        """The two top and two bottom rows of a page, where they lie near its edges; a
        row is the lines side by side at one height (a date and a title, an address and
        a page count), however the page split or joined them."""
        if not page.lines:
            return []
        by_height = sorted(page.lines, key=lambda ln: -ln.y1)
        zone = _MARGIN * page.height
        top = [ln for ln in by_height[:2] if ln.y0 >= page.height - zone]
        bottom = [ln for ln in by_height[-2:] if ln.y1 <= zone]
        rows: list[list[_Line]] = []
        for line in {id(ln): ln for ln in top + bottom}.values():
            middle = (line.y0 + line.y1) / 2
            row = [ln for ln in page.lines if ln.y0 <= middle <= ln.y1 or line is ln]
            if all(line not in known for known in rows):
                rows.append(sorted(row, key=lambda ln: ln.x0))
        return rows

    def keys(row: list[_Line]) -> set[str]:
        return {_key(" ".join(ln.text for ln in row)), *(_key(ln.text) for ln in row)}

    edges = [margins(page) for page in pages]
    counts = Counter(key for rows in edges for key in set().union(*map(keys, rows)))
    needed = max(2, math.ceil(0.5 * len(pages)))
    for page, rows in zip(pages, edges, strict=True):
        doomed: set[int] = set()
        for row in rows:
            if len(pages) > 1 and counts[_key(" ".join(ln.text for ln in row))] >= needed:
                doomed.update(id(line) for line in row)
            doomed.update(
                id(line)
                for line in row
                if _PAGE_NUMBER.match(line.text)
                or (len(pages) > 1 and counts[_key(line.text)] >= needed)
            )
        if page.lines:  # a lone number as the first or last line is a page number anywhere
            ends = (max(page.lines, key=lambda ln: ln.y1), min(page.lines, key=lambda ln: ln.y0))
            doomed.update(id(line) for line in ends if _PAGE_NUMBER.match(line.text))
        if doomed and len(doomed) < len(page.lines):
            page.lines = [line for line in page.lines if id(line) not in doomed]


def _body_size(pages: list[PageText]) -> tuple[float, bool]:
    sizes = Counter[float]()
    bold = 0
    total = 0
    for page in pages:
        for line in page.lines:
            sizes[round(line.size)] += len(line.text)
            total += len(line.text)
            bold += len(line.text) if line.bold else 0
    body = float(sizes.most_common(1)[0][0]) if sizes else 10.0
    return body, bold * 3 > total


@dataclass
class _Para:
    lines: list[_Line]

    @cached_property
    def text(self) -> str:  # asked for only once the paragraph has all its lines
        out = ""
        previous_cells = False
        for line in self.lines:
            piece = line.text
            if not out:
                out = piece
            elif line.cells or previous_cells:
                out += "\n" + piece  # table rows stay rows
            elif (
                out[-1] in "-\x02\u00ad"
                and len(out) > 1
                and out[-2].isalpha()
                and piece[:1].islower()
            ):
                out = out[:-1] + piece  # a word broken at the line end, mended
            elif out[-1] in "-\x02" and len(out) > 1 and out[-2].isalpha():
                out = out[:-1] + "-" + piece  # a compound broken at its hyphen: Anglo-French
            else:
                out = out + " " + piece
            previous_cells = line.cells
        return out.replace("\x02", "-")


def _paragraphs(lines: list[_Line]) -> list[_Para]:
    paras: list[_Para] = []
    for line in lines:
        if paras:
            prev = paras[-1].lines[-1]
            size = max(prev.size, line.size, 1.0)
            gap = prev.y0 - line.y1
            moved = line.region != prev.region or gap < -0.5 * size
            # A paragraph that a column break cut mid-sentence goes on at the next column's top.
            runs_on = (
                moved
                and abs(line.size - prev.size) <= 0.1 * size
                and line.bold == prev.bold
                and not prev.text.endswith(_SENTENCE_END)
                and line.text[:1].islower()
            )
            new = not runs_on and (
                moved
                or gap > 0.6 * size
                or abs(line.size - prev.size) > 0.1 * size
                or line.bold != prev.bold
                or bool(_BULLET.match(line.text))
                or (
                    prev.text.endswith(_SENTENCE_END)
                    and line.x0 - prev.x0 > 0.8 * size  # an indented first line
                )
            )
            if not new:
                paras[-1].lines.append(line)
                continue
        paras.append(_Para([line]))
    return paras


def _heading_levels(pages: list[PageText], body: float) -> dict[float, int]:
    sizes = sorted(
        {
            round(line.size)
            for page in pages
            for line in page.lines
            if line.size >= body * _HEADING_RATIO
        },
        reverse=True,
    )
    return {size: min(index + 1, 4) for index, size in enumerate(sizes[:4])}


def _heading(para: _Para, body: float, body_bold: bool, levels: dict[float, int]) -> int:
    line = para.lines[0]
    text = para.text
    if len(para.lines) > 3 or len(text) > 200 or not any(c.isalpha() for c in text):
        return 0
    level = levels.get(round(line.size))
    if level:
        return level
    if line.bold and not body_bold and len(text) < 100 and not text.endswith((".", ",", ";")):
        return min(max(levels.values(), default=0) + 1, 5)
    return 0


@dataclass
class Layout:
    text: str
    page_offsets: list[int]
    first_heading: str | None


def compose(pages: list[PageText], markdown: bool) -> Layout:
    _drop_running_heads(pages)
    body, body_bold = _body_size(pages)
    levels = _heading_levels(pages, body)
    chunks: list[str] = []
    offsets: list[int] = []
    length = 0
    first_heading: str | None = None
    for page in pages:
        offsets.append(length + (2 if chunks else 0))
        blocks = []
        for para in _paragraphs(page.lines):
            text = para.text.strip()
            if not text:
                continue
            level = _heading(para, body, body_bold, levels)
            if level and first_heading is None:
                first_heading = text
            blocks.append(("#" * level + " " + text) if (level and markdown) else text)
        chunk = "\n\n".join(blocks)
        if chunk:
            if chunks:
                length += 2
            chunks.append(chunk)
            length += len(chunk)
        else:
            offsets[-1] = length
    return Layout("\n\n".join(chunks), offsets, first_heading)


# -- Metadata --

_PDF_DATE = re.compile(
    r"D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+\-])?(\d{2})?'?(\d{2})?"
)
_NO_TITLE = frozenset({"untitled", "(anonymous)", "anonymous", "title", "document", "-"})
_XMP_SPAN = 200_000  # bytes of XMP read after its start
_TAG = re.compile(rb"<[^<>]*>")  # a tag; a '<' never starts a second scan of the same text


def pdf_date(value: str) -> str | None:
    """``D:20240131093000+01'00'`` -> ``2024-01-31T09:30:00+01:00``."""
    found = _PDF_DATE.match(value.strip())
    if not found:
        return None
    year, month, day, hour, minute, second, sign, tz_h, tz_m = found.groups()
    stamp = f"{year}-{month or '01'}-{day or '01'}"
    if hour:
        stamp += f"T{hour}:{minute or '00'}:{second or '00'}"
        if sign in ("Z", "z"):
            stamp += "Z"
        elif sign in ("+", "-") and tz_h:
            stamp += f"{sign}{tz_h}:{tz_m or '00'}"
    return stamp


def _xmp(data: bytes, element: bytes) -> str | None:
    """The first ``rdf:li`` of an XMP element (``dc:title``, ``dc:creator``).

    Found with a handful of ``bytes.find`` calls, each scanning forward from where the last
    stopped: linear in the XMP's size whatever it holds. (A regular expression with lazy
    wildcards backtracked cubically on a packet of many unclosed tags: a 170 KB PDF took
    longer than the document time limit.)
    """
    start = data.find(b"<x:xmpmeta")
    if start < 0:
        return None
    end = min(len(data), start + _XMP_SPAN)
    opened = data.find(b"<" + element + b">", start, end)
    if opened < 0:
        return None
    closed = data.find(b"</" + element + b">", opened, end)
    closed = end if closed < 0 else closed
    item = data.find(b"<rdf:li", opened, closed)
    head = data.find(b">", item, closed) if item >= 0 else -1
    tail = data.find(b"</rdf:li>", head, closed) if head >= 0 else -1
    if tail < 0:
        return None
    value = _TAG.sub(b"", data[head + 1 : tail]).decode("utf-8", "replace")
    value = value.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return clean_line(value) or None


def _language(pdf: pdfium.PdfDocument) -> str | None:
    size = raw.FPDFCatalog_GetLanguage(pdf.raw, None, 0)
    if size <= 2 or size > 200:
        return None
    buffer = (ctypes.c_ushort * (size // 2))()
    raw.FPDFCatalog_GetLanguage(pdf.raw, buffer, size)
    return clean_line(bytes(buffer).decode("utf-16-le", "replace").rstrip("\x00")) or None


def metadata(pdf: pdfium.PdfDocument, data: bytes) -> dict[str, Any]:
    info = {}
    try:
        info = pdf.get_metadata_dict(skip_empty=True)
    except Exception:  # a broken info dictionary is no reason to fail
        info = {}
    found: dict[str, Any] = {}
    title = clean_line(strip_invisible(info.get("Title", "")))
    if title.lower() in _NO_TITLE:
        title = ""
    title = title or _xmp(data, b"dc:title") or ""
    author = clean_line(info.get("Author", "")) or _xmp(data, b"dc:creator")
    if title:
        found["title"] = title
    if author:
        found["author"] = author
    for key, name in (("CreationDate", "created"), ("ModDate", "modified")):
        stamp = pdf_date(info.get(key, ""))
        if stamp:
            found[name] = stamp
    if found.get("created"):
        found["published"] = found["created"]
    for key, name in (
        ("Subject", "description"),
        ("Keywords", "keywords"),
        ("Producer", "producer"),
    ):
        value = clean_line(info.get(key, ""))
        if value:
            found[name] = value[:500]
    language = _language(pdf)
    if language:
        found["language"] = language
    return found


# -- One document --


def read_pdf(data: bytes, *, markdown: bool, max_pages: int) -> dict[str, Any]:
    """The document as a JSON-able record: outcome, reason, title, text, metadata."""
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            return _failed("encrypted", "the PDF is encrypted and needs a password")
        return _failed("corrupt_document", f"PDFium cannot open it: {exc}")
    try:
        return _read(pdf, data, markdown, max_pages)
    finally:
        pdf.close()


def _failed(outcome: str, reason: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"outcome": outcome, "reason": reason, "title": None, "text": "", "metadata": meta or {}}


def _read(pdf: pdfium.PdfDocument, data: bytes, markdown: bool, max_pages: int) -> dict[str, Any]:
    total = len(pdf)
    if total <= 0:
        return _failed("corrupt_document", "the PDF has no pages")
    meta = metadata(pdf, data)
    meta["document_type"] = "pdf"
    meta["pages"] = total
    pages: list[PageText] = []
    broken = 0
    for number in range(min(total, max_pages)):
        try:
            page = pdf[number]
        except pdfium.PdfiumError:
            broken += 1
            pages.append(PageText([], 792.0, 0, 0, 0))
            continue
        try:
            pages.append(read_page(page))
        finally:
            page.close()
    meta["pages_read"] = len(pages)
    if broken == len(pages):
        return _failed("corrupt_document", "no page of the PDF could be read", meta)
    hidden = sum(page.hidden for page in pages)
    if hidden:
        meta["hidden_chars_dropped"] = hidden
    layout = compose(pages, markdown)
    meta["page_offsets"] = layout.page_offsets
    if not meta.get("title") and layout.first_heading:
        meta["title"] = layout.first_heading[:300]
    if not layout.text.strip():
        if sum(page.chars for page in pages) == 0 and any(page.pictures for page in pages):
            return _failed(
                "no_text_layer", "the PDF is scanned pages without a text layer (no OCR)", meta
            )
        why = "all of its text is hidden from a reader" if hidden else "the PDF holds no text"
        return _failed("empty_extraction", why, meta)
    record: dict[str, Any] = {
        "outcome": "ok",
        "reason": None,
        "title": meta.get("title"),
        "text": layout.text,
        "metadata": meta,
    }
    if len(pages) < total:
        record["truncated"] = True
    return record
