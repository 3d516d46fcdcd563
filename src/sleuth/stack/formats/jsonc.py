"""JSON as tools write it by hand: ``//`` and ``/* */`` comments and trailing commas allowed.

``rush.json``, ``deno.jsonc``, ``turbo.json`` and ``tsconfig.json`` are read by tools that
accept both, so a strict parser would call valid files malformed.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def strip_comments(text: str) -> str:
    """``text`` with comments blanked out, strings left intact."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def loads(text: str) -> Any:
    """Parse JSON with comments; raises ``ValueError`` like :func:`json.loads`."""
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", strip_comments(text)))
