"""Where a page's linked style sheets come from, for the visibility engine.

Extraction is synchronous and never touches the network: whoever hands it a page
(the fetcher, or ``extract`` of a local file) reads the sheets the page links first,
through its own guarded path, and hands them over here by absolute URL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Styles:
    """The page's base address and its linked sheets: ``load(url)`` is the text of a
    sheet the caller read, or None for one it could not (``unread`` says why)."""

    base: str | None
    load: Callable[[str], str | None]
    unread: list[dict[str, Any]] = field(default_factory=list)
