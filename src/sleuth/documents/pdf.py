"""PDF to text a reader would recognise, with PDFium (pypdfium2); runs in the worker.

Per page: PDFium's text page gives the characters in content order, and the runs of
characters one text object drew are found with a few ``FPDFText_GetTextObject`` calls
each (first where PDFium's line ends, else by galloping and bisecting), never one call per
character; everything else is asked once per run or per object: its box, render mode,
colour, font size and weight. Runs a reader cannot see are dropped (invisible or clip-only render
modes, colour of what lies beneath, outside the crop box, under 1 pt), except where the
text lies over an image: that is a scanned page's OCR layer, the words the image shows.
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
from statistics import median
from typing import Any

import pypdfium2 as pdfium
from pypdfium2 import raw
from pypdfium2_raw import bindings

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


@dataclass
class _Style:
    """What one text object looks like: decided once, shared by its runs."""

    index: int  # its place in the page's drawing order
    mode: int
    colour: tuple[int, int, int, int]
    size: float
    bold: bool


@dataclass
class _Shape:
    index: int
    box: tuple[float, float, float, float]
    colour: tuple[int, int, int] | None  # None: a picture (an image or a shading)


@dataclass
class _Span:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    space_before: bool


@dataclass
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
        for index in range(count):
            obj = _get_object(self.page, index)
            if obj:
                self._visit(obj, index, 0)

    def _visit(self, obj: int, index: int, depth: int) -> None:
        kind = _object_type(obj)
        if kind == _TEXT:
            self.order[obj] = index
        elif kind in (_IMAGE, _SHADING):
            box = self._box(obj)
            if box:
                self.shapes.append(_Shape(index, box, None))
        elif kind == _PATH:
            fill, stroke = ctypes.c_int(), ctypes.c_int()
            if _draw_mode(obj, ctypes.byref(fill), ctypes.byref(stroke)) and fill.value:
                colour = _rgba(_fill_colour, obj)
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
        mode = _render_mode(obj)
        colour = _rgba(_stroke_colour if mode in _STROKE_MODES else _fill_colour, obj)
        size = ctypes.c_float()
        _font_size(obj, ctypes.byref(size))
        matrix = raw.FS_MATRIX()
        scale = 1.0
        if _matrix(obj, ctypes.byref(matrix)):
            scale = math.sqrt(abs(matrix.a * matrix.d - matrix.b * matrix.c)) or 0.0
        style = _Style(
            self.order.get(obj, 1 << 30), mode, colour, size.value * scale, self._bold(obj)
        )
        self.styles[obj] = style
        return style

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
        """The colour drawn under a point before the text: white paper, a fill, or a picture."""
        if not self._grid or not math.isfinite(x + y):
            return (255, 255, 255)
        for shape in reversed(self._grid.get(self._cell(x, y), ())):
            if shape.index > style.index:
                continue
            left, bottom, right, top = shape.box
            if left <= x <= right and bottom <= y <= top:
                if shape.colour is None and not self._scan_sized(shape):
                    continue  # a small picture does not make text over it a scan's words
                return shape.colour
        return (255, 255, 255)

    def _scan_sized(self, shape: _Shape) -> bool:
        """A picture covering a good part of the page, as a scanned page's image does."""
        left, bottom, right, top = shape.box
        c_left, c_bottom, c_right, c_top = (float(v) for v in self.crop)
        page = max((c_right - c_left) * (c_top - c_bottom), 1.0)
        return bool((right - left) * (top - bottom) >= _SCAN_SHARE * page)

    def visible(self, style: _Style, x: float, y: float) -> bool:
        """Whether a reader sees a run of ``style`` centred at (x, y)."""
        left, bottom, right, top = self.crop
        if not (left <= x <= right and bottom <= y <= top):
            return False
        if 0 < style.size < 1.0:
            return False
        if style.mode == _CLIP_ONLY or style.colour[3] == 0:
            return False  # never ink, whatever lies beneath
        under = self.beneath(style, x, y)
        if under is None:  # over a scanned page's picture: its OCR words, whatever their ink
            return True
        if style.mode in _INVISIBLE_MODES:
            return False
        red, green, blue, _ = style.colour
        return abs(red - under[0]) > 12 or abs(green - under[1]) > 12 or abs(blue - under[2]) > 12

    def char_box(self, index: int) -> tuple[float, float, float, float]:
        rect = raw.FS_RECTF()
        if not _get_loose_box(self.textpage, index, ctypes.byref(rect)):
            return (0.0, 0.0, 0.0, 0.0)
        return (rect.left, rect.bottom, rect.right, rect.top)


def _rgba(getter: Any, obj: int) -> tuple[int, int, int, int]:
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    if not getter(obj, ctypes.byref(r), ctypes.byref(g), ctypes.byref(b), ctypes.byref(a)):
        return (0, 0, 0, 255)
    return (r.value, g.value, b.value, a.value)


def _page_string(units: Any, count: int) -> str:
    """The text page's characters, one per character index (a lone surrogate kept as is)."""
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
        never infers more than a space or a line break in a row)."""
        for at in range(index, min(index + 3, count)):
            found = owner(at)
            if found:
                return found
        return 0

    start = 0
    while start < count:
        obj = owner(start)
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


def _spans(reader: _PageReader, textpage: pdfium.PdfTextPage) -> tuple[list[_Span], int]:
    """Visible runs of one text object each, and how many characters there were."""
    count = textpage.count_chars()
    if count <= 0:
        return [], 0
    units = (ctypes.c_ushort * (count + 1))()
    raw.FPDFText_GetText(textpage.raw, 0, count, units)
    page = _page_string(units, count)
    spans: list[_Span] = []
    for obj, first, last in _runs(reader.textpage, count, page):
        text = page[first : last + 1]
        if not text.strip():
            continue
        if "\r" in text or "\n" in text:
            text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
        if _SURROGATE.search(text):
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        style = reader.style(obj)
        x0, y0, _, y1 = reader.char_box(first)
        _, b0, x1, t1 = reader.char_box(last)
        box = (x0, min(y0, b0), max(x1, x0), max(y1, t1))
        centre_x, centre_y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        if not reader.visible(style, centre_x, centre_y):
            reader.hidden += len(text.strip())
            continue
        size = style.size if style.size >= 1 else (box[3] - box[1]) / 1.2
        space = first > 0 and page[first - 1] in " \r\n"
        span = _Span(text, *box, size, style.bold, space)
        if box[2] - box[0] > _SPREAD * size * len(text) and " " in text.strip():
            spans.extend(_cells(reader, span, first))  # one object set as a row of cells
        else:
            spans.append(span)
    return spans, count


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
                )
            )
            start, x0 = index + 1, right[0]
    if not pieces:
        return [span]
    pieces.append(_Span(text[start:], x0, span.y0, span.x1, span.y1, span.size, span.bold, True))
    return [piece for piece in pieces if piece.text.strip()]


_SURROGATE = re.compile("[\ud800-\udfff]")


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
            if span.x0 - last.x1 > 0.9 * max(last.size, span.size, 1.0):
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
            _clean(span.text), span.x0, span.y0, span.x1, span.y1, round(span.size, 1), span.bold
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
    )


def _clean(text: str) -> str:
    """Control characters out (a regex finds the rare line that has one), then the hygiene
    every extracted line gets."""
    if _CONTROL_CHARS.search(text):
        text = text.translate(_CONTROLS)
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
    steps = [0] * (int(width) + 2)
    for line in narrow:
        steps[max(0, int(line.x0 - left))] += 1
        steps[min(len(steps) - 1, int(line.x1 - left) + 1)] -= 1
    allowed = len(narrow) // 10
    best: tuple[float, float] | None = None
    covered, run_start = 0, -1
    for x, step in enumerate(steps[:-1]):
        covered += step
        if covered <= allowed and x > 0:
            run_start = x if run_start < 0 else run_start
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


def _merge_rows(lines: list[_Line]) -> list[_Line]:
    """Without columns, segments of one row are one line (a table row reads as a row)."""
    merged: list[_Line] = []
    for line in sorted(lines, key=lambda ln: (-(ln.y0 + ln.y1) / 2, ln.x0)):
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
        spans, chars = _spans(reader, textpage)
        lines = _reading_order(_segments(_rows(spans))) if spans else []
        pictures = sum(1 for shape in reader.shapes if shape.colour is None)
        return PageText(lines, page.get_height(), pictures, reader.hidden, chars)
    finally:
        textpage.close()


# -- Across pages: running heads, paragraphs, headings --


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower()).strip()


def _drop_running_heads(pages: list[PageText]) -> None:
    """Lines in the margins repeated on most pages, and page numbers, are not the text."""

    def margins(page: PageText) -> list[_Line]:
        """The two top and two bottom lines of a page, where they lie near its edges."""
        if not page.lines:
            return []
        by_height = sorted(page.lines, key=lambda ln: -ln.y1)
        zone = _MARGIN * page.height
        top = [ln for ln in by_height[:2] if ln.y0 >= page.height - zone]
        bottom = [ln for ln in by_height[-2:] if ln.y1 <= zone]
        return list({id(ln): ln for ln in top + bottom}.values())

    edges = [margins(page) for page in pages]
    counts = Counter(key for lines in edges for key in {_key(line.text) for line in lines})
    needed = max(2, math.ceil(0.5 * len(pages)))
    for page, lines in zip(pages, edges, strict=True):
        doomed = {
            id(line)
            for line in lines
            if _PAGE_NUMBER.match(line.text)
            or (len(pages) > 1 and counts[_key(line.text)] >= needed)
        }
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

    @property
    def text(self) -> str:
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
_XMP_TITLE = re.compile(rb"<dc:title>.*?<rdf:li[^>]*>(.*?)</rdf:li>", re.DOTALL)
_NO_TITLE = frozenset({"untitled", "(anonymous)", "anonymous", "title", "document", "-"})
_XMP_CREATOR = re.compile(rb"<dc:creator>.*?<rdf:li[^>]*>(.*?)</rdf:li>", re.DOTALL)


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


def _xmp(data: bytes, pattern: re.Pattern[bytes]) -> str | None:
    start = data.find(b"<x:xmpmeta")
    if start < 0:
        return None
    found = pattern.search(data, start, start + 200_000)
    if not found:
        return None
    value = found.group(1).decode("utf-8", "replace")
    value = re.sub(r"<[^>]+>", "", value).replace("&amp;", "&").replace("&lt;", "<")
    return clean_line(value.replace("&gt;", ">")) or None


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
    title = title or _xmp(data, _XMP_TITLE) or ""
    author = clean_line(info.get("Author", "")) or _xmp(data, _XMP_CREATOR)
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
