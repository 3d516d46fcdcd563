"""What a crawl leaves behind, as text: each page's Markdown and where it goes under a
folder mirroring the site, an index and an llms.txt. The CLI writes them
(``sleuth.commands.crawl``); the crawl_site tool returns the llms.txt.

llms.txt follows the proposal at llmstxt.org: an H1 with the site's name, a ``>``
summary, then H2 sections of ``- [title](url): description`` links, grouped here by
the first segment of the path.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_SEGMENT = 100  # characters of one file or folder name; file systems allow 255 bytes
_MARKDOWN_SPECIAL = re.compile(r"([\[\]\\])")


def markdown_path(url: str) -> Path:
    """Where a page's Markdown goes under ``--out``: its URL path, made safe.

    ``/`` -> ``index.md``, ``/a/b/`` -> ``a/b/index.md``, ``/a/b.html`` -> ``a/b.md``;
    a query string adds a short hash, so ``?page=2`` gets a file of its own. A segment
    longer than :data:`MAX_SEGMENT` is cut and ends in a hash of the whole, so a site's
    300-character path is a legal name, and two long paths alike at the start stay two.
    """
    parts = urlsplit(url)
    segments = [_UNSAFE.sub("_", seg).strip("._") or "_" for seg in parts.path.split("/") if seg]
    name = "index" if not segments or parts.path.endswith("/") else segments.pop()
    name = re.sub(r"\.(html?|php|aspx?|jsp|md)$", "", name) or "index"
    if parts.query:
        name += "-" + hashlib.sha256(parts.query.encode()).hexdigest()[:8]
    host = _UNSAFE.sub("_", parts.netloc)
    folders = (_bounded(part) for part in (host, *segments))
    return Path(*folders, _bounded(name, MAX_SEGMENT - len(".md")) + ".md")


def _bounded(segment: str, limit: int = MAX_SEGMENT) -> str:
    if len(segment) <= limit:
        return segment
    digest = hashlib.sha256(segment.encode()).hexdigest()[:12]
    return segment[: limit - len(digest) - 1] + "-" + digest


def page_markdown(record: dict[str, Any]) -> str:
    title = record.get("title") or record["url"]
    return f"# {title}\n\nSource: <{record.get('final_url') or record['url']}>\n\n" + (
        (record.get("text") or "").strip() + "\n"
    )


def _escape(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _section(url: str) -> str:
    segments = [seg for seg in urlsplit(url).path.split("/") if seg]
    return segments[0] if len(segments) > 1 else ""


def _grouped(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        if record.get("outcome") == "ok":
            groups.setdefault(_section(record["url"]), []).append(record)
    return groups


def llms_txt(records: list[dict[str, Any]], *, start: str) -> str:
    """The llms.txt of a crawl's pages (those that were read; failures are left out)."""
    pages = [record for record in records if record.get("outcome") == "ok"]
    home = next((r for r in pages if r.get("url") == start), pages[0] if pages else None)
    site = urlsplit(start).netloc
    title = (home or {}).get("title") or site
    summary = (home or {}).get("description") or f"Pages of {site}, read by sleuth crawl."
    lines = [f"# {_escape(title)}", "", f"> {_escape(summary)}", ""]
    groups = _grouped(pages)
    for name in sorted(groups, key=lambda key: (key != "", key)):
        heading = name.replace("-", " ").replace("_", " ").capitalize() if name else "Pages"
        lines += [f"## {heading}", ""]
        for record in groups[name]:
            label = _escape(record.get("title") or record["url"])
            line = f"- [{label}]({record['url']})"
            if record.get("description"):
                line += f": {_escape(record['description'])}"
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


def index_markdown(records: list[dict[str, Any]], *, start: str) -> str:
    """``index.md`` of ``--out``: every page read, linked to its file."""
    lines = [f"# Crawl of {start}", ""]
    for record in records:
        if record.get("outcome") == "ok":
            label = _escape(record.get("title") or record["url"])
            file = markdown_path(record["url"]).as_posix()
            lines.append(f"- [{label}]({file}) — <{record['url']}>")
    return "\n".join(lines) + "\n"


def links_section(links: list[dict[str, Any]], *, markdown: bool = False) -> str:
    """``fetch --links``: the page's links after its text, content links first."""
    ordered = sorted(links, key=lambda link: not link.get("in_content"))
    if markdown:
        rows = [
            f"- [{_escape(link.get('text') or link['url'])}]({link['url']})" for link in ordered
        ]
        return "\n## Links\n\n" + "\n".join(rows) + "\n"
    rows = [f"{link['url']}\t{' '.join((link.get('text') or '').split())}" for link in ordered]
    return "\nLinks:\n" + "\n".join(row.rstrip("\t") for row in rows) + "\n"
