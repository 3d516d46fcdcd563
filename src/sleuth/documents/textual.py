"""The text family: plain text, Markdown, reST, CSV, JSON and XML (feeds among them).

Each is read as a person would want it handed on: prose as written, CSV rows as lines,
JSON pretty-printed, a feed as its entries. Every string goes through the same
invisible-character hygiene as HTML text (:mod:`sleuth.extract.text`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from lxml import etree

from sleuth.documents.sniff import Kind
from sleuth.extract import Extraction
from sleuth.extract.decode import decode
from sleuth.extract.serialize import plain_to_html
from sleuth.extract.text import clean_line, squeeze_blank_lines, strip_invisible

_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_RST_TITLE = re.compile(r"^([^\n]+)\n([=\-~^\"'`#*+])\2{2,}\s*$", re.MULTILINE)
# C0 controls bar tab and newline, and DEL: no text needs them, a terminal obeys them.
_CONTROLS = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


def hygiene(text: str) -> str:
    """The author's lines and indentation as written, minus invisible and control characters."""
    text = strip_invisible(text.replace("\r\n", "\n").replace("\r", "\n")).translate(_CONTROLS)
    lines = "\n".join(line.rstrip() for line in text.split("\n"))
    return squeeze_blank_lines(lines).strip("\n")


def _title(text: str, kind: Kind) -> str | None:
    if kind == "markdown":
        found = _HEADING.search(text)
        return found.group(1).strip() if found else None
    if kind == "rst":
        found = _RST_TITLE.search(text)
        return found.group(1).strip() if found else None
    return None


def _csv_rows(text: str) -> str:
    try:
        dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(text), dialect)
    try:
        return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows if any(row))
    except csv.Error:  # a broken quote: the lines as they are
        return text


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text  # not JSON after all, or nested past reason: the text as sent


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


def read_text(data: bytes, kind: Kind, output: str, content_type: str | None) -> Extraction:
    """One text-family document as an Extraction (``method`` is ``text/<kind>``)."""
    title: str | None = None
    if kind == "xml":
        title, text = _xml(data, output == "markdown")
    else:
        text = decode(data, content_type)
        if kind == "csv":
            text = _csv_rows(text)
        elif kind == "json":
            text = _pretty_json(text)
        else:
            title = _title(text, kind)
    cleaned = hygiene(text)
    method = f"text/{kind}"
    metadata: dict[str, Any] = {"document_type": kind}
    if title:
        metadata["title"] = clean_line(title)
    if not cleaned:
        return Extraction(None, "", metadata, "empty_extraction", "the document is empty", method)
    rendered = plain_to_html(cleaned) if output == "html" else cleaned
    return Extraction(metadata.get("title"), rendered, metadata, "ok", None, method)
