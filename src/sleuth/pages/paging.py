"""Paging through long documents, the way the MCP fetch server does it.

The cache keeps the whole text; a caller asks for ``max_chars`` starting at
``start_index`` and learns where the next page starts. A continuation
(``start_index`` > 0) carries the text from that index and no title.
"""

from __future__ import annotations

from sleuth.errors import StartPastEnd
from sleuth.pages.result import FetchResult


def truncation_marker(next_start_index: int) -> str:
    return (
        f"\n\n[content truncated: {next_start_index} characters shown so far; "
        f"fetch again with --start-index {next_start_index} for more]"
    )


def page_text(result: FetchResult, *, start_index: int, max_chars: int | None) -> FetchResult:
    text = result.text
    total = len(text)
    if start_index and start_index >= total and result.ok:
        raise StartPastEnd(
            f"start_index {start_index} is past the end of the text ({total} characters)"
        )
    end = total if max_chars is None else min(total, start_index + max_chars)
    truncated = end < total
    # A document whose page cap stopped reading is cut short too, wherever the text ends.
    pages, read = result.metadata.get("pages"), result.metadata.get("pages_read")
    capped = isinstance(pages, int) and isinstance(read, int) and read < pages
    return result.model_copy(
        update={
            # A continuation is the text from start_index and nothing else: the title
            # heads the document's first part, and printing it again would splice it
            # into the middle of the text a reader is putting back together.
            "title": result.title if start_index == 0 else None,
            "text": text[start_index:end],
            "truncated": truncated or capped,
            "next_start_index": end if truncated else None,
            "total_chars": total,
        }
    )
