"""The text family: plain text, Markdown, reST, CSV, JSON and XML (feeds among them).

Each is read as a person would want it handed on, and as a reader sees it shown: prose
as written, Markdown and reST without what their rendered view hides (comments, link
definitions, raw HTML a browser would not paint), CSV rows as lines, JSON pretty-printed
within a bound, a feed as its entries. Every string goes through the same
invisible-character hygiene as HTML text (:mod:`sleuth.extract.text`).

Every parser here is linear in its input (no pattern can backtrack), and the whole read
runs in a worker process under ``SLEUTH_DOCUMENT_TIMEOUT``
(:func:`sleuth.documents.worker.read_text`).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from lxml import etree

from sleuth.documents.sniff import Kind
from sleuth.extract import Extraction
from sleuth.extract.decode import decode
from sleuth.extract.serialize import plain_to_html
from sleuth.extract.text import clean_line, squeeze_blank_lines, strip_invisible

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# C0 controls bar tab and newline, and DEL: no text needs them, a terminal obeys them.
_CONTROLS = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
# A rendered view shows these block elements on lines of their own.
_BLOCKS = frozenset(
    (
        *("address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl"),
        *("dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary"),
        *("table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"),
    )
)
_MARK = "sleuth-mark"
# reST underlines: three or more of one of these characters under a title.
_RST_ADORNMENT = frozenset("=-~^\"'`#*+")
_TITLE_SCAN = 65536  # where a Markdown title is looked for, when nothing else needs a parse
_CSV_SAMPLE = 2048  # the sniffer is quadratic in its sample: a constant cost this way
# Pretty-printed JSON may grow by this factor (plus a little) before it falls back to the
# compact form; indentation stops growing below this depth.
_JSON_GROWTH = 3
_JSON_SLACK = 4096
_JSON_INDENT_DEPTH = 8

_per_thread = threading.local()


def hygiene(text: str) -> str:
    """The author's lines and indentation as written, minus invisible and control characters."""
    text = strip_invisible(text.replace("\r\n", "\n").replace("\r", "\n")).translate(_CONTROLS)
    lines = "\n".join(line.rstrip() for line in text.split("\n"))
    return squeeze_blank_lines(lines).strip("\n")


# -- Markdown --


def _parsers() -> tuple[MarkdownIt, MarkdownIt]:
    """A full CommonMark parser and one that stops after the blocks, per thread."""
    found: tuple[MarkdownIt, MarkdownIt] | None = getattr(_per_thread, "markdown", None)
    if found is None:
        from markdown_it import MarkdownIt

        def parser() -> MarkdownIt:
            # Definitions become tokens, so the lines they take up are known.
            md = MarkdownIt("commonmark", {"html": True, "inline_definitions": True})
            md.enable(["table", "strikethrough"])
            md.add_render_rule("definition", lambda *_: "")
            return md

        blocks = parser()
        blocks.core.ruler.disable("inline")  # see _parse_inlines
        found = (parser(), blocks)
        _per_thread.markdown = found
    return found


@dataclass
class _Block:
    """One top-level block: its tokens, its source lines, and what the render left of it."""

    tokens: list[Token]
    start: int
    end: int
    raw_html: bool
    definitions: list[tuple[int, int]] = field(default_factory=list)
    shown: str | None = None  # what a reader sees, when it is not the source as written
    plain: str | None = None  # the same as plain lines

    @property
    def heading(self) -> int:
        first = self.tokens[0]
        return int(first.tag[1]) if first.type == "heading_open" else 0


def _blocks(tokens: list[Token]) -> list[_Block]:
    """Top-level blocks (an opening token to its closing one), in source order."""
    blocks: list[_Block] = []
    index = 0
    while index < len(tokens):
        first, end = tokens[index], index + 1
        depth: int = first.nesting
        while depth > 0 and end < len(tokens):
            depth += tokens[end].nesting
            end += 1
        group = tokens[index:end]
        index = end
        if first.map is None:
            continue
        raw = False
        definitions = []
        for token in group:
            if token.type == "html_block":
                raw = True
            elif token.type == "inline" and token.children:
                raw = raw or any(child.type == "html_inline" for child in token.children)
            elif token.type == "definition" and token.map is not None:
                definitions.append((token.map[0], token.map[1]))
        blocks.append(_Block(group, first.map[0], first.map[1], raw, definitions))
    return blocks


def _segments(root: etree._Element, key: str) -> dict[int, str]:
    """The text after each block's mark, up to the next mark, in document order."""
    pieces: dict[int, list[str]] = {}
    current: list[str] | None = None
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if event == "start":
            if tag == _MARK and element.get("data-key") == key:
                current = pieces.setdefault(int(element.get("data-block") or -1), [])
            elif current is not None and tag in _BLOCKS:
                current.append("\n")
            if current is not None and element.text:
                current.append(element.text)
        elif current is not None:
            if tag in _BLOCKS:
                current.append("\n")
            if element.tail:
                current.append(element.tail)
    return {block: "".join(parts) for block, parts in pieces.items()}


def _shown_lines(text: str) -> str:
    return "\n".join(line for line in (clean_line(part) for part in text.split("\n")) if line)


def _fragment(mark: etree._Element, following: etree._Element | None) -> str | None:
    """The block after ``mark`` as Markdown, when it lies beside the mark up to the next
    one (``following``): a block that raw HTML split across parents is None."""
    from sleuth.extract.serialize import to_text

    parent = mark.getparent()
    if parent is None or (following is None and parent.tag != "body"):
        return None
    holder = etree.Element("div")
    holder.text = mark.tail
    for sibling in mark.itersiblings():
        if sibling is following:
            break
        holder.append(copy.deepcopy(sibling))
    else:
        if following is not None:
            return None
    return to_text(holder, markdown=True)


def _render(md: MarkdownIt, blocks: list[_Block], env: dict[str, Any]) -> None:
    """Decide what a reader sees of each block, the way a browser shows the rendered page.

    The blocks are rendered into one page (raw HTML may open in one block and close in
    another, as it does in the browser), each behind a mark only this call can write,
    and the page goes through the visibility engine. A block without raw HTML whose
    text came through untouched keeps its source as written; any other block is what
    survived of it; a block whose mark was cut is not seen at all.
    """
    from sleuth.extract.parse import parse_html
    from sleuth.extract.sanitize import sanitize

    key = secrets.token_hex(8)
    # Visible text before the first block: no block can then be "the whole page",
    # which the engine keeps because a page's scripts would reveal it.
    parts = ["<p>.</p>"]
    for number, block in enumerate(blocks):
        parts.append(f'<{_MARK} data-key="{key}" data-block="{number}"></{_MARK}>')
        parts.append(md.renderer.render(block.tokens, md.options, env))
    root = parse_html("".join(parts))
    if root is None:
        for block in blocks:
            block.shown = block.plain = ""
        return
    before = _segments(root, key)
    sanitize(root)
    after = _segments(root, key)
    marks = [mark for mark in root.iter(_MARK) if mark.get("data-key") == key]
    for position, mark in enumerate(marks):
        number = int(mark.get("data-block") or -1)
        if not 0 <= number < len(blocks):
            continue
        block = blocks[number]
        seen = after.get(number, "")
        block.plain = _shown_lines(seen)
        if block.raw_html or seen != before.get(number):
            following = marks[position + 1] if position + 1 < len(marks) else None
            block.shown = _fragment(mark, following)
            if block.shown is None:
                block.shown = block.plain
    for number, block in enumerate(blocks):
        if number not in after:
            block.shown = block.plain = ""


def _parse_inlines(md: MarkdownIt, tokens: list[Token], env: dict[str, Any]) -> None:
    """Parse the inline content that may hold raw HTML (it has a ``<``); the rest is
    kept as its source, as one text token, which is all a render of it needs here.

    Inline parsing is most of a Markdown parser's work, and most blocks are written as
    they are shown: this reads a large document in a fraction of the time.
    """
    from markdown_it.rules_core.text_join import text_join
    from markdown_it.token import Token

    parsed = []
    for token in tokens:
        if token.type != "inline":
            continue
        if "<" in token.content:
            token.children = []
            md.inline.parse(token.content, md, env, token.children)
            parsed.append(token)
        else:
            token.children = [Token("text", "", 0, content=token.content)]
    text_join(SimpleNamespace(tokens=parsed))  # type: ignore[arg-type]


def _markdown(text: str) -> tuple[str | None, str]:
    """Markdown as its rendered view shows it: the title and the text, source kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    full, blocks_only = _parsers()
    if "<" not in text and "]:" not in text:
        # Without raw HTML or a link definition, a render shows all of the source: only
        # the title is wanted, and it is near the top.
        head = text[:_TITLE_SCAN].rpartition("\n")[0] if len(text) > _TITLE_SCAN else text
        found = (
            clean_line(b.tokens[1].content)
            for b in _blocks(blocks_only.parse(head, {}))
            if b.heading
        )
        return next((title for title in found if title), None), text
    env: dict[str, Any] = {}
    tokens = blocks_only.parse(text, env)
    _parse_inlines(full, tokens, env)
    blocks = _blocks(tokens)
    if any(block.raw_html for block in blocks):
        _render(full, blocks, env)
    lines = text.split("\n")
    out: list[str] = []
    title: str | None = None
    position = 0
    for block in blocks:
        out.extend(line for line in lines[position : block.start] if not line.strip())
        position = max(position, block.end)
        if block.tokens[0].type == "definition":
            continue
        if block.shown is None:
            dropped = {n for start, end in block.definitions for n in range(start, end)}
            out.extend(lines[n] for n in range(block.start, block.end) if n not in dropped)
            plain = block.tokens[1].content if block.heading else ""
        else:
            plain = block.plain or ""
            if block.shown:
                out.append(block.shown)
        if title is None and block.heading and clean_line(plain):
            title = clean_line(plain)
    out.extend(line for line in lines[position:] if not line.strip())
    return title, "\n".join(out)


# -- reST --


def _rst_comment(rest: str) -> bool:
    """Whether an explicit markup block (``.. rest``) is one the rendered view hides: a
    comment, or a hyperlink target; directives, footnotes, citations and substitution
    definitions are shown."""
    head = rest.split(None, 1)[0] if rest.strip() else ""
    return not (head.startswith(("[", "|")) or head.endswith("::"))


def _rst_visible(text: str) -> str:
    """reST without its comments and hyperlink targets, one pass over the lines.

    An explicit markup block runs from its ``..`` line through the lines indented
    deeper than it (blank lines among them); an empty comment (``..`` then a blank
    line) takes nothing after it.
    """
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip(" \t")
        if not (stripped == ".." or stripped.startswith((".. ", "..\t"))) or not _rst_comment(
            stripped[2:]
        ):
            out.append(line)
            index += 1
            continue
        indent = len(line) - len(stripped)
        index += 1
        if not stripped[2:].strip() and (index >= len(lines) or not lines[index].strip()):
            continue  # an empty comment
        while index < len(lines):
            following = lines[index]
            body = following.lstrip(" \t")
            if body and len(following) - len(body) <= indent:
                break
            index += 1
    return "\n".join(out)


def _adornment(line: str) -> bool:
    """Three or more of one adornment character: a reST title's underline (or overline)."""
    mark = line.strip()
    return len(mark) >= 3 and mark[0] in _RST_ADORNMENT and mark.count(mark[0]) == len(mark)


def _rst_title(text: str) -> str | None:
    """The first line that is not itself an adornment, underlined by one."""
    lines = text.split("\n")
    for above, below in pairwise(lines):
        if above.strip() and not above[0].isspace() and _adornment(below) and not _adornment(above):
            return above.strip()
    return None


# -- CSV, JSON, XML --


def _csv_rows(text: str) -> str:
    try:
        dialect: Any = csv.Sniffer().sniff(text[:_CSV_SAMPLE], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(text), dialect)
    try:
        return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows if any(row))
    except csv.Error:  # a broken quote: the lines as they are
        return text


def _scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return json.dumps(value, ensure_ascii=False)


def _entries(value: Any) -> Iterator[tuple[str | None, Any]] | None:
    """The entries of a non-empty container (a key, or None in a list), else None."""
    if isinstance(value, dict) and value:
        return iter(value.items())
    if isinstance(value, list) and value:
        return ((None, item) for item in value)
    return None


def _indented(value: Any, budget: int) -> str | None:
    """``value`` indented two spaces a level (no deeper than ``_JSON_INDENT_DEPTH``
    levels), or None once the text would pass ``budget`` characters.

    Written with a stack, not recursion: the depth is the document's to choose.
    """
    parts: list[str] = []
    size = 0
    entries = _entries(value)
    if entries is None:
        return _scalar(value)
    # Each open container: its entries, its closing bracket, whether one was written.
    stack = [(entries, "}" if isinstance(value, dict) else "]", False)]
    parts.append("{" if isinstance(value, dict) else "[")
    while stack:
        entries, close, started = stack[-1]
        depth = len(stack)
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            piece = "\n" + "  " * min(depth - 1, _JSON_INDENT_DEPTH) + close
        else:
            stack[-1] = (entries, close, True)
            name, item = entry
            piece = ("," if started else "") + "\n" + "  " * min(depth, _JSON_INDENT_DEPTH)
            if name is not None:
                piece += json.dumps(name, ensure_ascii=False) + ": "
            inner = _entries(item)
            if inner is None:
                piece += _scalar(item)
            else:
                is_dict = isinstance(item, dict)
                piece += "{" if is_dict else "["
                stack.append((inner, "}" if is_dict else "]", False))
        parts.append(piece)
        size += len(piece)
        if size > budget:
            return None
    return "".join(parts)


def _pretty_json(text: str) -> str:
    """JSON indented, unless that would multiply its size (indentation grows with depth,
    and a deep document would come out many times larger): then compact."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text  # not JSON after all, or nested past reason: the text as sent
    pretty = _indented(value, _JSON_GROWTH * len(text) + _JSON_SLACK)
    if pretty is not None:
        return pretty
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        return text


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _child_text(element: etree._Element, *names: str) -> str:
    for child in element:
        if _local(child.tag) in names:
            if _local(child.tag) == "link" and child.get("href"):
                return clean_line(child.get("href") or "")
            return clean_line("".join(str(t) for t in child.itertext()))
    return ""


def _feed(root: etree._Element, markdown: bool) -> tuple[str | None, str] | None:
    """A feed's title and its entries (title, link, date), or None when it is no feed."""
    entries = [e for e in root.iter() if _local(e.tag) in ("item", "entry")]
    if _local(root.tag) not in ("rss", "feed", "rdf") or not entries:
        return None
    channel = next((e for e in root.iter() if _local(e.tag) == "channel"), root)
    title = _child_text(channel, "title") or None
    blocks = []
    for entry in entries:
        name = _child_text(entry, "title") or "(untitled)"
        link = _child_text(entry, "link", "guid")
        date = _child_text(entry, "pubdate", "published", "updated", "date")
        if markdown:
            head = f"- [{name}]({link})" if link else f"- {name}"
            blocks.append(head + (f" ({date})" if date else ""))
        else:
            blocks.append("\n".join(part for part in (name, link, date) if part))
    return title, ("\n" if markdown else "\n\n").join(blocks)


def _xml(data: bytes, markdown: bool) -> tuple[str | None, str]:
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, recover=True, huge_tree=False
    )
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        root = None
    if root is None:
        return None, decode(data)
    feed = _feed(root, markdown)
    if feed is not None:
        return feed
    lines = (clean_line(str(part)) for part in root.itertext())
    return None, "\n".join(line for line in lines if line)


# -- The door --


def read_text(data: bytes, kind: Kind, output: str, content_type: str | None) -> Extraction:
    """One text-family document as an Extraction (``method`` is ``text/<kind>``), read
    in this process: callers use :func:`sleuth.documents.worker.read_text`."""
    title: str | None = None
    if kind == "xml":
        title, text = _xml(data, output == "markdown")
    else:
        text = decode(data, content_type)
        if kind == "csv":
            text = _csv_rows(text)
        elif kind == "json":
            text = _pretty_json(text)
        elif kind == "markdown":
            title, text = _markdown(text)
        elif kind == "rst":
            text = _rst_visible(hygiene(text))
            title = _rst_title(text)
    cleaned = hygiene(text)
    method = f"text/{kind}"
    metadata: dict[str, Any] = {"document_type": kind}
    if title:
        metadata["title"] = clean_line(title)
    if not cleaned:
        return Extraction(None, "", metadata, "empty_extraction", "the document is empty", method)
    rendered = plain_to_html(cleaned) if output == "html" else cleaned
    return Extraction(metadata.get("title"), rendered, metadata, "ok", None, method)


def text_record(data: bytes, request: dict[str, Any]) -> dict[str, Any]:
    """The worker's side: one document's record, as JSON travels."""
    kind = request["kind"]
    result = read_text(data, kind, str(request["output"]), request.get("content_type"))
    return {
        "outcome": result.outcome,
        "reason": result.reason,
        "title": result.title,
        "text": result.text,
        "metadata": result.metadata,
        "method": result.method,
    }
