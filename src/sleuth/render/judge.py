"""Visibility as Chromium computes it, judged and serialised in one pass inside the page.

A rendered page is read by the same extractor as a fetched one, but what is hidden is
not guessed again from the markup: the browser has already cascaded every style sheet
and laid the page out. One synchronous script reads, for every element and text node,
``checkVisibility``, the computed style (opacity down the ancestors, ``visibility``,
font size, text colour against the background behind it) and the boxes of the text
itself (off the page, scaled to nothing, clipped away by an ancestor's ``overflow``,
``clip`` or ``clip-path``), then writes its verdicts onto an inert copy of the document
and serialises that copy. The page's scripts cannot run in between, and the script runs
in an isolated world, so a page cannot lie to it by replacing ``checkVisibility`` or
``getComputedStyle``.

In the HTML it returns, the topmost element of every subtree the browser does not
render, or renders invisibly, carries :data:`HIDDEN_MARK`. An element whose own text is
invisible but that holds something visible (``visibility:hidden`` with a child set back
to ``visible``) is not marked: its invisible text nodes are emptied instead, as is
invisible text beside visible text (a line clipped away below the ones shown).
``<script>``, ``<style>`` and ``<head>`` are left as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sleuth.errors import FetchError

if TYPE_CHECKING:
    from playwright.async_api import Page

HIDDEN_MARK = "data-sleuth-hidden"
_WORLD = "sleuth-visibility"

# Thresholds match the static engine's (sanitize.py): alpha or opacity at or below
# _FAINT and a contrast ratio under _INDISTINCT leave nothing readable; a box or a run of
# text at most _TINY px on either axis shows nothing (a 1px sr-only box, font-size:0).
JUDGE_SCRIPT = r"""
(mark, explain) => {
  "use strict";
  const FAINT = 0.05, INDISTINCT = 1.1, TINY = 1, LONG_WORD = 24;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const KEEP = new Set(["script", "style"]);
  const CONTROLS = new Set(["select", "textarea"]);
  const PAINTS = new Set(["img", "svg", "video", "canvas", "input", "iframe", "embed",
    "object", "audio", "meter", "progress", "select", "textarea"]);
  const EMPTY = {l: 0, t: 0, r: 0, b: 0};
  const CANVAS = {r: 255, g: 255, b: 255, a: 1};
  const doc = document, win = window;
  const de = doc.documentElement, body = doc.body;

  const styles = new Map();
  const cs = (el) => {
    let s = styles.get(el);
    if (s === undefined) { s = win.getComputedStyle(el); styles.set(el, s); }
    return s;
  };
  const box = (r) => ({l: r.left, t: r.top, r: r.right, b: r.bottom});
  const cut = (a, c) => ({l: Math.max(a.l, c.l), t: Math.max(a.t, c.t),
    r: Math.min(a.r, c.r), b: Math.min(a.b, c.b)});
  const big = (a) => a.r - a.l > TINY && a.b - a.t > TINY;

  // The page a reader can scroll over: nothing reaches content left of (right of, in a
  // right-to-left page) or above the document's origin. Fixed boxes never scroll.
  const rtl = cs(body || de).direction === "rtl";
  const vw = win.innerWidth, vh = win.innerHeight, sx = win.scrollX, sy = win.scrollY;
  const pageBox = rtl ? {l: -Infinity, t: -sy, r: vw - sx, b: Infinity}
                      : {l: -sx, t: -sy, r: Infinity, b: Infinity};
  const viewBox = {l: 0, t: 0, r: vw, b: vh};

  const num = (x, ref) => {
    x = (x || "").trim();
    const v = parseFloat(x);
    if (!/^-?[\d.]+(e-?\d+)?(px|%)?$/i.test(x) || !Number.isFinite(v)) return null;
    return x.endsWith("%") ? v / 100 * ref : v;
  };

  function colour(v) {
    if (!v) return null;
    if (v === "transparent") return {r: 0, g: 0, b: 0, a: 0};
    let m = /^rgba?\(([^)]*)\)$/.exec(v);
    if (m) {
      const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
      if (p.length < 3 || p.some(Number.isNaN)) return null;
      return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
    }
    m = /^color\(srgb\s+([^)]*)\)$/.exec(v);
    if (m) {
      const p = m[1].split(/[\s\/]+/).filter(Boolean).map(parseFloat);
      if (p.length < 3 || p.some(Number.isNaN)) return null;
      return {r: p[0] * 255, g: p[1] * 255, b: p[2] * 255, a: p.length > 3 ? p[3] : 1};
    }
    // Another colour space: only its alpha is read.
    m = /\/\s*([\d.]+)(%?)\s*\)$/.exec(v);
    if (m) return {r: NaN, g: NaN, b: NaN, a: parseFloat(m[1]) / (m[2] ? 100 : 1)};
    return {r: NaN, g: NaN, b: NaN, a: 1};
  }
  const channel = (c) => {
    c /= 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const over = (top, a, under) => ({r: top.r * a + under.r * (1 - a),
    g: top.g * a + under.g * (1 - a), b: top.b * a + under.b * (1 - a), a: 1});
  const known = (c) => c && !Number.isNaN(c.r);

  // The colour behind an element's text: its own background over its ancestors', down
  // to the white canvas; null (unknown) where a background image takes part.
  const backdrops = new Map();
  function backdrop(el) {
    if (backdrops.has(el)) return backdrops.get(el);
    const s = cs(el);
    let result = null;
    if (s.backgroundImage === "none") {
      const c = colour(s.backgroundColor);
      if (c && c.a >= 1) result = known(c) ? c : null;
      else {
        const under = el.parentElement ? backdrop(el.parentElement) : CANVAS;
        if (under && (!c || c.a <= 0)) result = under;
        else if (under && known(c)) result = over(c, c.a, under);
      }
    }
    backdrops.set(el, result);
    return result;
  }
  const clippedToText = new Map();
  function textClip(el) {
    if (clippedToText.has(el)) return clippedToText.get(el);
    const s = cs(el);
    const result = s.backgroundClip === "text" || s.webkitBackgroundClip === "text" ||
      (el.parentElement ? textClip(el.parentElement) : false);
    clippedToText.set(el, result);
    return result;
  }

  function colourHides(el, s, op) {
    const fill = colour(s.webkitTextFillColor || s.color);
    if (!fill || textClip(el)) return false;
    const under = backdrop(el);
    const shows = (c, a) => c && c.a * a > FAINT && (!under || !known(c) ||
      contrast(over(c, c.a * a, under), under) >= INDISTINCT);
    // A stroke or a shadow draws the glyphs too.
    if (parseFloat(s.webkitTextStrokeWidth) > 0 && shows(colour(s.webkitTextStrokeColor), op))
      return false;
    if (s.textShadow && s.textShadow !== "none") {
      for (const m of s.textShadow.matchAll(/(rgba?|color)\([^)]*\)/g))
        if (shows(colour(m[0]), op)) return false;
    }
    return !shows(fill, op);
  }

  // SVG text is drawn by its fill and its stroke, not its colour.
  function unpainted(s, op) {
    const paints = (paint, opacity, width) => !!paint && paint !== "none" && width > 0 &&
      parseFloat(opacity) * op > FAINT &&
      (!paint.startsWith("rgb") || (colour(paint) || CANVAS).a > FAINT);
    return !paints(s.fill, s.fillOpacity, 1) &&
      !paints(s.stroke, s.strokeOpacity, parseFloat(s.strokeWidth));
  }

  function opacityOf(s) {
    let o = parseFloat(s.opacity);
    if (!Number.isFinite(o)) o = 1;
    if (s.filter && s.filter !== "none") {
      for (const m of s.filter.matchAll(/opacity\(\s*([\d.]+)(%?)\s*\)/g))
        o *= parseFloat(m[1]) / (m[2] ? 100 : 1);
    }
    return Math.max(0, Math.min(1, o));
  }
  function backTurned(s) {
    if (s.backfaceVisibility !== "hidden") return false;
    const m = /^matrix3d\(([^)]*)\)$/.exec(s.transform || "");
    return !!m && parseFloat(m[1].split(",")[10]) < 0;
  }

  // -- clipping: what an element's overflow, clip and clip-path leave of its content --
  function shapeClip(v, r) {
    const m = /^(inset|circle|ellipse|polygon)\((.*)\)/.exec(v);
    if (!m) return null;
    const [, fn, args] = m;
    const w = r.right - r.left, h = r.bottom - r.top;
    if (fn === "inset") {
      const p = args.split(/\s+round\s+/)[0].trim().split(/\s+/);
      const [t, rr = t, b = t, l = rr] = p;
      const T = num(t, h), R = num(rr, w), B = num(b, h), L = num(l, w);
      if ([T, R, B, L].some((x) => x === null)) return null;
      return {l: r.left + L, t: r.top + T, r: r.right - R, b: r.bottom - B};
    }
    if (fn === "circle" || fn === "ellipse") {
      const radii = args.split(/\s+at\s+/)[0].trim().split(/\s+/).filter(Boolean);
      const ref = Math.hypot(w, h) / Math.SQRT2;
      const sizes = radii.map((x, i) => num(x, fn === "circle" ? ref : (i ? h : w)));
      return sizes.some((x) => x !== null && x <= TINY / 2) ? EMPTY : null;
    }
    const pts = args.replace(/^\s*(nonzero|evenodd)\s*,/, "").split(",")
      .map((p) => p.trim().split(/\s+/)).map(([x, y]) => [num(x, w), num(y, h)]);
    if (pts.some(([x, y]) => x === null || y === null) || pts.length < 3) return null;
    let area = 0;
    pts.forEach(([x, y], i) => {
      const [X, Y] = pts[(i + 1) % pts.length];
      area += x * Y - X * y;
    });
    if (Math.abs(area) / 2 <= TINY) return EMPTY;
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    return {l: r.left + Math.min(...xs), t: r.top + Math.min(...ys),
      r: r.left + Math.max(...xs), b: r.top + Math.max(...ys)};
  }
  function paintClips(el, s, out) {
    if (s.display === "contents") return;
    const fixedOrAbsolute = s.position === "absolute" || s.position === "fixed";
    const clip = fixedOrAbsolute && s.clip && s.clip.startsWith("rect(");
    const path = s.clipPath && s.clipPath !== "none";
    if (!clip && !path) return;
    const r = el.getBoundingClientRect();
    if (clip) {
      const v = s.clip.slice(5, -1).split(/[\s,]+/).filter(Boolean);
      if (v.length === 4) {
        const at = (x, d) => (x === "auto" ? d : parseFloat(x));
        out.push({t: r.top + at(v[0], 0), r: r.left + at(v[1], r.width),
          b: r.top + at(v[2], r.height), l: r.left + at(v[3], 0)});
      }
    }
    if (path) { const c = shapeClip(s.clipPath, r); if (c) out.push(c); }
  }
  const CLIPPING = new Set(["hidden", "clip"]);
  const SCROLLING = new Set(["scroll", "auto"]);
  const propagated = (el) => el === de ||
    (el === body && cs(de).overflowX === "visible" && cs(de).overflowY === "visible");
  function overflowClip(el, s, out) {
    if (s.display === "inline" || s.display === "contents" || propagated(el)) return;
    const paint = /\b(paint|strict|content)\b/.test(s.contain || "");
    const ox = s.overflowX, oy = s.overflowY;
    if (!paint && ox === "visible" && oy === "visible") return;
    const r = el.getBoundingClientRect();
    const kx = el.offsetWidth ? r.width / el.offsetWidth : 1;
    const ky = el.offsetHeight ? r.height / el.offsetHeight : 1;
    const l = r.left + (el.clientLeft || 0) * kx, t = r.top + (el.clientTop || 0) * ky;
    const w = el.clientWidth * kx, h = el.clientHeight * ky;
    // A box that scrolls keeps its content within reach, unless it has no size.
    const clipX = paint || CLIPPING.has(ox) || (SCROLLING.has(ox) && w <= TINY);
    const clipY = paint || CLIPPING.has(oy) || (SCROLLING.has(oy) && h <= TINY);
    if (clipX || clipY)
      out.push({l: clipX ? l : -Infinity, r: clipX ? l + w : Infinity,
        t: clipY ? t : -Infinity, b: clipY ? t + h : Infinity});
  }
  const makesFixedBlock = (s) => s.transform !== "none" || s.perspective !== "none" ||
    s.filter !== "none" || (s.backdropFilter || "none") !== "none" ||
    (s.translate || "none") !== "none" || (s.rotate || "none") !== "none" ||
    (s.scale || "none") !== "none" || /\b(paint|layout|strict|content)\b/.test(s.contain || "") ||
    /\b(transform|perspective|filter)\b/.test(s.willChange || "") ||
    /size/.test(s.containerType || "");
  const makesAbsoluteBlock = (s) => s.position !== "static" || makesFixedBlock(s);

  // The clips over the content of ``el``: its own, then its ancestors', skipping the
  // overflow of those an absolutely positioned or fixed box escapes. ``fixed``: the
  // content sits in a fixed box held by the viewport, so only the viewport shows it.
  const chains = new Map();
  function chain(el, escape) {
    let memo = chains.get(el);
    if (!memo) { memo = new Map(); chains.set(el, memo); }
    if (memo.has(escape)) return memo.get(escape);
    const s = cs(el);
    const own = [];
    let next = escape;
    if (escape === null || (escape === "absolute" ? makesAbsoluteBlock(s) : makesFixedBlock(s))) {
      next = null;
      overflowClip(el, s, own);
    }
    paintClips(el, s, own);
    if (next === null && (s.position === "absolute" || s.position === "fixed")) next = s.position;
    let result;
    if (el.parentElement) {
      const up = chain(el.parentElement, next);
      result = {clips: own.length ? own.concat(up.clips) : up.clips, fixed: up.fixed};
    } else result = {clips: own, fixed: next === "fixed"};
    memo.set(escape, result);
    return result;
  }
  function seenIn(el) {
    const {clips, fixed} = chain(el, null);
    const bounds = fixed ? viewBox : pageBox;
    return (rect) => {
      let a = cut(rect, bounds);
      for (const c of clips) a = cut(a, c);
      return big(a);
    };
  }

  function boxShows(el, s) {
    if (s.visibility !== "visible") return false;
    const r = box(el.getBoundingClientRect());
    return big(r) && seenIn(el)(r);
  }

  // -- text ----------------------------------------------------------------------
  const BLANK = 0, SHOWN = 1, HIDDEN = 2;
  const range = doc.createRange();
  const rectsOf = (node, start, end) => {
    range.setStart(node, start); range.setEnd(node, end);
    return Array.from(range.getClientRects(), box).filter(big);
  };
  // A run of text partly shown (a paragraph clipped after its first line): the words a
  // reader sees are kept, the others dropped; a long run without spaces goes by character.
  function partly(node, seen) {
    const data = node.data;
    let out = "", last = 0;
    for (const m of data.matchAll(/\S+/g)) {
      out += data.slice(last, m.index);
      last = m.index + m[0].length;
      if (m[0].length <= LONG_WORD) {
        if (rectsOf(node, m.index, last).some(seen)) out += m[0];
        continue;
      }
      let i = m.index;
      for (const ch of m[0]) {
        if (rectsOf(node, i, i + ch.length).some(seen)) out += ch;
        i += ch.length;
      }
    }
    out += data.slice(last);
    return /\S/.test(out) ? out : HIDDEN;
  }
  function judgeText(node, el, s, op) {
    if (!/\S/.test(node.data)) return BLANK;
    if (s.visibility !== "visible" || s.contentVisibility === "hidden") return HIDDEN;
    if (!(parseFloat(s.fontSize) >= 1)) return HIDDEN;
    if (el.namespaceURI === SVG_NS ? unpainted(s, op) : colourHides(el, s, op)) return HIDDEN;
    const rects = rectsOf(node, 0, node.length);
    if (!rects.length) return HIDDEN;
    const seen = seenIn(el);
    const shown = rects.filter(seen).length;
    if (shown === rects.length) return SHOWN;
    return shown === 0 ? HIDDEN : partly(node, seen);
  }

  // -- the walk --------------------------------------------------------------------
  // actions: [twin, null, el] marks an element, [twin, text, node] sets a text node's text.
  const actions = [];
  function walk(el, twin, op) {
    const s = cs(el);
    const hide = () => { actions.push([twin, null, el]); return {shows: false, loose: false}; };
    const contents = s.display === "contents";
    if (!contents) {
      if (!el.checkVisibility({opacityProperty: true})) return hide();
      op *= opacityOf(s);
      if (op <= FAINT || backTurned(s)) return hide();
    }
    if (CONTROLS.has(el.localName)) {
      const shows = boxShows(el, s);
      return shows || !/\S/.test(el.textContent) ? {shows, loose: false} : hide();
    }
    const start = actions.length;
    let shows = PAINTS.has(el.localName) && boxShows(el, s);
    let loose = false;
    const kids = el.childNodes, twins = twin.childNodes;
    for (let i = 0; i < kids.length; i++) {
      const kid = kids[i];
      if (kid.nodeType === 3 || kid.nodeType === 4) {
        const v = judgeText(kid, el, s, op);
        if (v === SHOWN) shows = true;
        else if (v === HIDDEN) { loose = true; actions.push([twins[i], "", kid]); }
        else if (typeof v === "string") { shows = true; actions.push([twins[i], v, kid]); }
      } else if (kid.nodeType === 1 && !KEEP.has(kid.localName)) {
        const r = walk(kid, twins[i], op);
        shows = shows || r.shows;
        loose = loose || r.loose;
      }
    }
    // Nothing of it shows and some of its own text is hidden: the element is hidden,
    // and it carries the mark instead of its parts.
    if (!shows && loose) { actions.length = start; return hide(); }
    return {shows, loose};
  }

  const copy = doc.implementation.createHTMLDocument("");
  const twin = copy.importNode(de, true);
  for (const old of twin.querySelectorAll("[" + mark + "]")) old.removeAttribute(mark);
  const top = opacityOf(cs(de));
  for (let i = 0; i < de.childNodes.length; i++) {
    const kid = de.childNodes[i];
    if (kid.nodeType === 1 && kid.localName !== "head" && !KEEP.has(kid.localName))
      walk(kid, twin.childNodes[i], top);
  }
  for (const [node, text] of actions) {
    if (text === null) node.setAttribute(mark, "");
    else node.data = text;
  }
  // On request, the text each verdict hid, one run per text node (for measuring).
  const hidden = [];
  if (explain) {
    for (const [, text, original] of actions) {
      if (text !== null) {
        const kept = new Set(text.split(/\s+/));
        hidden.push(original.data.split(/\s+/).filter((w) => !kept.has(w)).join(" "));
        continue;
      }
      const walker = doc.createTreeWalker(original, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (parent && !parent.closest("script, style")) hidden.push(node.data);
      }
    }
  }

  const unloaded = [];
  for (const link of doc.querySelectorAll("link[rel~='stylesheet' i]")) {
    if (link.sheet || link.disabled || !link.href || /\balternate\b/i.test(link.rel)) continue;
    if (link.media && !win.matchMedia(link.media).matches) continue;
    unloaded.push(link.href);
  }
  const doctype = doc.doctype ? new XMLSerializer().serializeToString(doc.doctype) : "";
  return {html: doctype + twin.outerHTML, unloaded, hidden};
}
"""


@dataclass(frozen=True)
class Judged:
    """The page's HTML with the browser's verdicts on it, and the sheets it never got."""

    html: str
    unloaded_sheets: list[str]
    hidden_texts: list[str] = field(default_factory=list)  # with ``explain``: what was hidden


class JudgeError(FetchError):
    """The in-page pass failed (the page navigated away, or its DOM broke the script)."""


async def judge(page: Page, *, explain: bool = False) -> Judged:
    """Judge and serialise the page's current document in one script, in an isolated world.

    ``explain`` also lists the text of every text node a verdict hid (for measuring)."""
    session = await page.context.new_cdp_session(page)
    try:
        tree = await session.send("Page.getFrameTree")
        world = await session.send(
            "Page.createIsolatedWorld",
            {"frameId": tree["frameTree"]["frame"]["id"], "worldName": _WORLD},
        )
        answer: dict[str, Any] = await session.send(
            "Runtime.evaluate",
            {
                "expression": f"({JUDGE_SCRIPT})({json.dumps(HIDDEN_MARK)}, {json.dumps(explain)})",
                "contextId": world["executionContextId"],
                "returnByValue": True,
            },
        )
    finally:
        await session.detach()
    if "exceptionDetails" in answer:
        details = answer["exceptionDetails"]
        reason = details.get("exception", {}).get("description") or details.get("text", "")
        first = reason.strip().splitlines()[0] if reason.strip() else "the script failed"
        raise JudgeError(f"the browser could not judge {page.url}: {first}")
    value = answer["result"]["value"]
    return Judged(
        html=str(value["html"]),
        unloaded_sheets=[str(url) for url in value["unloaded"]],
        hidden_texts=[str(text) for text in value["hidden"]],
    )
