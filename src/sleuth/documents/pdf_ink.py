"""Whether a run of PDF text puts ink on the page a reader sees, with PDFium as the judge.

A PDF can hide text in more ways than its objects tell: a picture, a white box or an
annotation's appearance painted over it afterwards, a clip path, an optional-content layer
that is off, a soft mask or 1% opacity, a Type3 font whose glyphs draw nothing, a dark fill
beneath white text that is itself clipped away. Rather than model each, the page is
rendered twice at a low resolution, once per page: as a reader sees it (annotation
appearances included) and again with every text object made invisible. Where a run's box
is the same in both, the run has no ink of its own; pixels count as ink only where the two
renders differ by a contrast a reader can see, so faint text is no ink either. Where one
run overlaps another, the page is rendered once more without it (see ``pdf._settle``), so
that text laid over visible text cannot pass off that text's ink as its own.

The comparison runs at C speed with plain bytes: a band of rows compared whole, tables
applied with ``bytes.translate``, and integer arithmetic over a whole band of pixels at
once (one byte a pixel, a guard bit above each, so that a subtraction never borrows across
pixels). No per-pixel Python loop, no numeric library.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pypdfium2_raw import bindings

_LIB = bindings._libs["pdfium"]


def _fn(name: str, restype: Any, *argtypes: Any) -> Any:
    """A private prototype of one PDFium call that takes and returns plain addresses."""
    function = _LIB[name]
    function.restype = restype
    function.argtypes = argtypes
    return function


_VOID = ctypes.c_void_p
_INT = ctypes.c_int
_DOUBLE = ctypes.c_double
_create_bitmap = _fn("FPDFBitmap_CreateEx", _VOID, _INT, _INT, _INT, _VOID, _INT)
_destroy_bitmap = _fn("FPDFBitmap_Destroy", None, _VOID)
_render = _fn("FPDF_RenderPageBitmap", None, _VOID, _VOID, _INT, _INT, _INT, _INT, _INT, _INT)
_page_to_device = _fn(
    "FPDF_PageToDevice", _INT, _VOID, _INT, _INT, _INT, _INT, _INT, _DOUBLE, _DOUBLE, _VOID, _VOID
)
_annot_count = _fn("FPDFPage_GetAnnotCount", _INT, _VOID)
_get_mode = _fn("FPDFTextObj_GetTextRenderMode", _INT, _VOID)
_set_mode = _fn("FPDFTextObj_SetTextRenderMode", _INT, _VOID, _INT)

_GRAY = 1  # FPDFBitmap_Gray: one byte a pixel
# FPDF_ANNOT | FPDF_RENDER_NO_SMOOTHIMAGE | FPDF_RENDER_NO_SMOOTHPATH: annotation
# appearances are drawn, and the edge of a box or picture laid over text covers a pixel or
# not (a smoothed edge would let a sliver of what it covers through). Glyphs stay smoothed,
# so a thin stroke keeps some of its ink at a low resolution.
_FLAGS = 0x01 | 0x2000 | 0x4000
_INVISIBLE = 3  # FPDF_TEXTRENDERMODE_INVISIBLE
_NO_INK_MODES = (3, 7)  # invisible, and clip only: such text never draws
_SCALE = 0.4  # pixels per point (29 dpi): enough to tell ink from none, cheap to render
_MAX_PIXELS = 4_000_000  # a poster-sized page is rendered at a smaller scale
# Grey levels two renders must differ by to count as ink: text at 1% or 5% opacity stays
# under it, light-grey text that a reader sees stays over it.
_CONTRAST = 16
# Each level halved, with a guard bit above it (``0x80 | v >> 1``) or without: the first
# minus the second, as big integers, never borrows across a pixel.
_HALF_GUARDED = bytes(0x80 | (value >> 1) for value in range(256))
_HALF = bytes(value >> 1 for value in range(256))
_FAR = bytes(int(abs(value - 128) >= _CONTRAST // 2) for value in range(256))
# Share of a run's box trimmed off each side across the line: a neighbouring line's box
# overlaps this much where leading is tight, while a word keeps ink in what is left.
_TRIM = 0.15
# Where a line of words is looked at for ink, as shares of its box across: the middle of
# its x-height whether it stands upright or upside down, where every letter has a stroke.
_MIDDLE = (0.35, 0.65)
# A stretch of a run this many times its line's height without ink is a part of it no
# reader sees; shorter ones are word spaces, or thin strokes a low resolution lost.
_GAP = 1.5
# Marks of words in a picture: pixels darker than the band's lightest by this many levels.
_MARK_CONTRAST = 48

Box = tuple[float, float, float, float]
Pixels = bytes | bytearray
Rect = tuple[int, int, int, int]  # pixel rows then columns, ends excluded


@dataclass(slots=True)
class Ink:
    """Where along a run a reader sees ink: nowhere, everywhere, or all but some gaps."""

    share: float  # 0: none, 1: the whole run; in between, there are gaps along it
    gaps: list[tuple[float, float]]  # along the run's axis, in device pixels
    axis: int  # 0: the run runs along x (columns), 1: along y (rows)

    @property
    def none(self) -> bool:
        return self.share <= 0.0

    @property
    def whole(self) -> bool:
        return self.share >= 1.0


NO_INK = Ink(0.0, [], 0)
WHOLE = Ink(1.0, [], 0)
_ZEROS = bytes(1 << 16)
_UNSEEN = b""  # a row not yet compared (a compared row is never empty)


@dataclass(slots=True)
class Band:
    """A run's box in pixels, trimmed across the line, and its whole box (``rect``)."""

    r0: int
    r1: int
    c0: int
    c1: int
    rect: Rect
    sample: tuple[int, int]  # the rows that ink is looked for in, along x
    axis: int
    low: float  # where the run starts and ends along the axis, on the page or beyond it
    high: float
    thickness: float  # the box's extent across the axis, in pixels


@dataclass
class Image:
    """One render of the page: a byte a pixel, rows ``stride`` bytes apart."""

    pixels: Pixels


class PageInk:
    """Two renders of one page, with and without its text, and questions about boxes."""

    def __init__(
        self, page: int, width: float, height: float, text_objects: Iterable[int], graphics: bool
    ):
        self.page = page
        scale = _SCALE
        if width * height * scale * scale > _MAX_PIXELS:
            scale = math.sqrt(_MAX_PIXELS / max(width * height, 1.0))
        self.width = max(1, round(width * scale))
        self.height = max(1, round(height * scale))
        self.stride = (self.width + 3) & ~3
        self.objects = list(text_objects)
        row = b"\xff" * self.width + bytes(self.stride - self.width)
        self.paper = row * self.height  # a blank page, white
        self._transform()
        self.seen = self._render()
        # Nothing but text on the page: without it, the page is blank paper.
        self.blank = not graphics and _annot_count(page) == 0
        if self.blank:
            self.bare = Image(self.paper)
        elif all(_get_mode(obj) in _NO_INK_MODES for obj in self.objects):
            self.bare = self.seen  # text that draws nothing (a scan's OCR layer): no change
        else:
            self.bare = self.render_without(self.objects)

    @classmethod
    def judge(
        cls,
        page: int,
        width: float,
        height: float,
        text_objects: Iterable[int],
        graphics: bool = True,
    ) -> PageInk | None:
        """The judge of a page, or None where PDFium cannot render it. ``graphics``: whether
        the page draws anything but text objects (annotations are looked up here)."""
        if not (width > 0 and height > 0 and math.isfinite(width + height)):
            return None
        try:
            return cls(page, width, height, text_objects, graphics)
        except MemoryError:
            return None

    # -- rendering --

    def _transform(self) -> None:
        """Page space to pixels as PDFium renders the page (its rotation and crop box
        included), read from three points on a bitmap a thousand times larger, so that
        PDFium's rounding to whole pixels costs nothing."""
        span = 1000.0

        def device(x: float, y: float) -> tuple[float, float]:
            dx, dy = _INT(), _INT()
            size_x, size_y = self.width * 1000, self.height * 1000
            point = (x, y, ctypes.byref(dx), ctypes.byref(dy))
            _page_to_device(self.page, 0, 0, size_x, size_y, 0, *point)
            return dx.value / 1000.0, dy.value / 1000.0

        self._ox, self._oy = device(0.0, 0.0)
        along_x, along_y = device(span, 0.0), device(0.0, span)
        self._a = (along_x[0] - self._ox) / span  # x' = ox + a x + c y
        self._b = (along_x[1] - self._oy) / span  # y' = oy + b x + d y
        self._c = (along_y[0] - self._ox) / span
        self._d = (along_y[1] - self._oy) / span
        self._upright = self._b == 0 and self._c == 0 and self._a > 0 and self._d < 0

    def _render(self) -> Image:
        pixels = bytearray(self.paper)  # white paper, for PDFium to draw the page on
        buffer = (ctypes.c_char * len(pixels)).from_buffer(pixels)
        bitmap = _create_bitmap(self.width, self.height, _GRAY, buffer, self.stride)
        if not bitmap:
            raise MemoryError
        try:
            _render(bitmap, self.page, 0, 0, self.width, self.height, 0, _FLAGS)
        finally:
            _destroy_bitmap(bitmap)
        return Image(pixels)

    def render_without(self, objects: Iterable[int]) -> Image:
        """The page as a reader sees it, less some text objects (made invisible for the
        render, then given their own rendering mode back)."""
        known = set(self.objects)
        modes = {obj: _get_mode(obj) for obj in objects if obj in known}
        for obj in modes:
            _set_mode(obj, _INVISIBLE)
        try:
            return self._render()
        finally:
            for obj, mode in modes.items():
                _set_mode(obj, mode)

    # -- boxes --

    def band(self, box: Box, direction: tuple[float, float], *, trim: bool = True) -> Band | None:
        """The pixels of a run's box. Across the line it is trimmed where a neighbouring
        line's glyphs may reach (a word always has ink in the middle; a lone comma, not
        trimmed, may have it only near an edge). ``direction`` is the baseline's."""
        left, bottom, right, top = box
        if not math.isfinite(left + bottom + right + top):
            return None
        a, b, c, d = self._a, self._b, self._c, self._d
        if self._upright:  # the usual page: x' = ox + a x, y' = oy + d y with d < 0
            x0, x1 = self._ox + a * left, self._ox + a * right
            y0, y1 = self._oy + d * top, self._oy + d * bottom
        else:  # the bounding box of the box's image under x' = ox + a x + c y, y' = ...
            x0, x1 = (a * left, a * right) if a >= 0 else (a * right, a * left)
            y0, y1 = (b * left, b * right) if b >= 0 else (b * right, b * left)
            if c >= 0:
                x0, x1 = x0 + c * bottom + self._ox, x1 + c * top + self._ox
            else:
                x0, x1 = x0 + c * top + self._ox, x1 + c * bottom + self._ox
            if d >= 0:
                y0, y1 = y0 + d * bottom + self._oy, y1 + d * top + self._oy
            else:
                y0, y1 = y0 + d * top + self._oy, y1 + d * bottom + self._oy
        width, height = self.width, self.height
        top_row, bottom_row = math.floor(y0), math.ceil(y1)
        left_column, right_column = math.floor(x0), math.ceil(x1)
        full = (
            top_row if top_row > 0 else 0,
            bottom_row if bottom_row < height else height,
            left_column if left_column > 0 else 0,
            right_column if right_column < width else width,
        )
        if abs(direction[0] * a + direction[1] * c) >= abs(direction[0] * b + direction[1] * d):
            thickness = y1 - y0
            cut = _TRIM * thickness if trim else 0.0
            r0, r1 = math.floor(y0 + cut), math.ceil(y1 - cut)
            r0, r1 = (r0 if r0 > 0 else 0), (r1 if r1 < height else height)
            c0, c1 = full[2], full[3]
            sample = (r0, r1)
            if trim:  # rows through the middle of a line of words: every letter's ink
                first = math.floor(y0 + _MIDDLE[0] * thickness)
                first = r1 - 1 if first >= r1 else (r0 if first < r0 else first)
                last = math.ceil(y0 + _MIDDLE[1] * thickness)
                sample = (first, last if last > first else first + 1)
            axis, low, high = 0, x0, x1
        else:
            thickness = x1 - x0
            cut = _TRIM * thickness if trim else 0.0
            c0, c1 = math.floor(x0 + cut), math.ceil(x1 - cut)
            c0, c1 = (c0 if c0 > 0 else 0), (c1 if c1 < width else width)
            r0, r1 = full[0], full[1]
            sample = (r0, r1)
            axis, low, high = 1, y0, y1
        if c1 <= c0 or r1 <= r0:
            return None
        return Band(r0, r1, c0, c1, full, sample, axis, low, high, thickness)

    def measure(
        self, runs: Iterable[tuple[Box, tuple[float, float], bool]]
    ) -> tuple[list[Band | None], list[Ink]]:
        """The band and the ink of each run (its box, its baseline's direction, whether to
        trim it): :meth:`band` and :meth:`ink` for a page's hundreds of runs. A line of
        words is first looked at along the one row through its middle; only where that
        row leaves a gap (a faint or thin stroke, or a part no reader sees) is the whole
        middle of the line looked at."""
        bands: list[Band | None] = []
        inks: list[Ink] = []
        band_of, ink_of = self.band, self.ink
        seen, bare, stride = self.seen.pixels, self.bare.pixels, self.stride
        guarded, half, far, zeros = _HALF_GUARDED, _HALF, _FAR, _ZEROS
        from_bytes = int.from_bytes
        rows: dict[int, Pixels | None] = {}  # each row's ink, column by column
        blank_row: int | None = None  # blank paper's row, as the integer below
        upright, width, height = self._upright, self.width, self.height
        a, d, ox, oy = self._a, self._d, self._ox, self._oy
        floor, ceil = math.floor, math.ceil
        for box, direction, trim in runs:
            left, bottom, right, top = box
            if (
                upright
                and trim
                and abs(direction[0] * a) >= abs(direction[1] * d)
                and -1e6 < left <= right < 1e6
                and -1e6 < bottom <= top < 1e6
            ):  # band() for the usual line of words, inline: this runs for every run
                x0, x1, y0, y1 = ox + a * left, ox + a * right, oy + d * top, oy + d * bottom
                thickness = y1 - y0
                r0, r1 = floor(y0 + _TRIM * thickness), ceil(y1 - _TRIM * thickness)
                r0, r1 = (r0 if r0 > 0 else 0), (r1 if r1 < height else height)
                c0, c1 = floor(x0), ceil(x1)
                c0, c1 = (c0 if c0 > 0 else 0), (c1 if c1 < width else width)
                if c1 <= c0 or r1 <= r0:
                    band: Band | None = None
                else:
                    top_row, bottom_row = floor(y0), ceil(y1)
                    rect = (
                        top_row if top_row > 0 else 0,
                        bottom_row if bottom_row < height else height,
                        c0,
                        c1,
                    )
                    first = floor(y0 + _MIDDLE[0] * thickness)
                    first = r1 - 1 if first >= r1 else (r0 if first < r0 else first)
                    last = ceil(y0 + _MIDDLE[1] * thickness)
                    sample = (first, last if last > first else first + 1)
                    band = Band(r0, r1, c0, c1, rect, sample, 0, x0, x1, thickness)
            else:
                band = band_of(box, direction, trim=trim)
            bands.append(band)
            if band is None:
                inks.append(NO_INK)
                continue
            first, last = band.sample
            if band.axis == 0 and last - first > 1:
                # _far over the whole row through the run's middle, once for all the runs
                # a line shares it with (the columns of a page, the words of a line).
                middle = (first + last) >> 1
                row = rows.get(middle, _UNSEEN)
                if row is _UNSEEN:
                    at = middle * stride
                    mine, base = seen[at : at + width], bare[at : at + width]
                    if mine == base:
                        row = None
                    else:
                        if not self.blank:
                            under = from_bytes(base.translate(half), "big")
                        elif blank_row is None:
                            under = blank_row = from_bytes(base.translate(half), "big")
                        else:
                            under = blank_row
                        difference = from_bytes(mine.translate(guarded), "big") - under
                        row = difference.to_bytes(width, "big").translate(far)
                    rows[middle] = row
                if row is not None:
                    left, right = band.c0, band.c1
                    profile = row[left:right]
                    gap = zeros[: max(4, math.ceil(_GAP * band.thickness))]
                    if (
                        profile.find(gap) < 0
                        and profile.find(1) >= 0
                        and band.low >= left - 1
                        and band.high <= right + 1
                    ):
                        inks.append(WHOLE)
                        continue
            inks.append(ink_of(band))
        return bands, inks

    def ink(self, band: Band | None, against: Image | None = None) -> Ink:
        """Where the run in ``band`` puts ink: the page as seen, against the page without
        text or ``against`` another render (the page without some text objects)."""
        if band is None:
            return NO_INK
        other = (self.bare if against is None else against).pixels
        seen = self.seen.pixels
        if band.axis == 0:  # a profile along the line: 1 where a column has ink
            stride, left, right = self.stride, band.c0, band.c1
            first, last = band.sample
            if last - first == 1:
                at = first * stride
                mine, base = seen[at + left : at + right], other[at + left : at + right]
                if mine == base:
                    return NO_INK
                return _coverage(band, _far(mine, base))
            mine = b"".join(
                [seen[row * stride + left : row * stride + right] for row in range(first, last)]
            )
            base = b"".join(
                [other[row * stride + left : row * stride + right] for row in range(first, last)]
            )
            if mine == base:
                return NO_INK
            far = _far(mine, base)
            width = right - left
            value = int.from_bytes(far, "big")
            folded = value
            for row in range(1, last - first):  # every row onto the last one
                folded |= value >> (8 * width * row)
            return _coverage(band, folded.to_bytes(len(far), "big")[-width:])
        lines = self._rows(seen, band)
        bases = self._rows(other, band)
        along = bytearray(band.r1 - band.r0)
        for index, (line, under) in enumerate(zip(lines, bases, strict=True)):
            if line != under and _far(line, under).find(1) >= 0:
                along[index] = 1
        return _coverage(band, bytes(along))

    def _rows(self, pixels: Pixels, band: Band) -> list[Pixels]:
        stride, left, right = self.stride, band.c0, band.c1
        return [
            pixels[row * stride + left : row * stride + right] for row in range(band.r0, band.r1)
        ]

    def marks(self, band: Band | None) -> Ink:
        """Where the page without text shows marks of words in ``band``: dark strokes on a
        lighter ground, many along the line, as a scan's picture of text does. An even
        picture, a scan's empty margin or a photograph's smooth shading shows none."""
        if band is None:
            return NO_INK
        rows = self._rows(self.bare.pixels, band)
        pixels = b"".join(rows)
        light, dark = max(pixels), min(pixels)
        if light - dark < _MARK_CONTRAST:
            return NO_INK
        cut = light - _MARK_CONTRAST // 2
        marked = pixels.translate(bytes(int(value < cut) for value in range(256)))
        share = marked.count(1) / len(marked)
        width = band.c1 - band.c0
        # Letters start a dark run about every line height along each row of the line; a
        # photograph's shading, a few in all. A quarter of that is asked for.
        strokes = marked.count(b"\x00\x01")
        wanted = 0.25 * len(rows) * (band.high - band.low) / max(band.thickness, 1.0)
        if not 0.02 <= share <= 0.7 or strokes < wanted:
            return NO_INK
        if band.axis == 0:
            value = 0
            for index in range(len(rows)):
                value |= int.from_bytes(marked[index * width : (index + 1) * width], "big")
            return _coverage(band, value.to_bytes(width, "big"))
        along = bytes(
            int(marked.find(1, i * width, (i + 1) * width) >= 0) for i in range(len(rows))
        )
        return _coverage(band, along)

    def unseen(self, box: Box, ink: Ink) -> bool:
        """Whether the middle half of a character's box, along the run, lies in one of its
        gaps: a character the gap only clips at an edge still shows."""
        left, bottom, right, top = box
        if ink.axis == 0:
            a, c, origin = self._a, self._c, self._ox
        else:
            a, c, origin = self._b, self._d, self._oy
        ends = sorted(origin + a * x + c * y for x in (left, right) for y in (bottom, top))
        low, high = ends[0], ends[-1]
        quarter = (high - low) / 4
        low, high = low + quarter, high - quarter
        return any(start <= low and high <= stop for start, stop in ink.gaps)


def _far(seen: Pixels, bare: Pixels) -> bytes:
    """One byte a pixel: 1 where the two renders differ by ``_CONTRAST`` levels or more."""
    high = int.from_bytes(seen.translate(_HALF_GUARDED), "big")
    low = int.from_bytes(bare.translate(_HALF), "big")
    return (high - low).to_bytes(len(seen), "big").translate(_FAR)


def _coverage(band: Band, profile: Pixels) -> Ink:
    """Gaps in a profile along the band (1 where there is ink) wider than ``_GAP`` line
    heights, and whatever lies beyond the rendered page."""
    if profile.find(1) < 0:
        return NO_INK
    start = band.c0 if band.axis == 0 else band.r0
    end = start + len(profile)
    zeros = _ZEROS[: max(4, math.ceil(_GAP * band.thickness))]
    at = profile.find(zeros)
    if at < 0 and band.low >= start - 1 and band.high <= end + 1:
        return WHOLE
    gaps: list[tuple[float, float]] = []
    if band.low < start - 1:  # a run that runs off the page: nothing is seen out there
        gaps.append((-math.inf, start))
    if band.high > end + 1:
        gaps.append((end, math.inf))
    covered = len(profile)
    while at >= 0:
        stop = profile.find(1, at)
        stop = len(profile) if stop < 0 else stop
        gaps.append((start + at, start + stop))
        covered -= stop - at
        at = profile.find(zeros, stop)
    if not gaps:
        return WHOLE
    gaps.sort()
    merged = [gaps[0]]
    for low, high in gaps[1:]:  # a gap running into the page's edge is one gap with it
        if low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    gaps = merged
    return Ink(max(covered / max(band.high - band.low, 1.0), 1e-6), gaps, band.axis)
