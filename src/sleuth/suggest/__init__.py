"""Link suggestions (slug, title, description, tags) for a URL, from the configured LLM.

Served at ``POST /api/v1/links/suggest`` and run by ``sleuth suggest``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from sleuth.suggest.fields import Suggestion, clean

if TYPE_CHECKING:
    from sleuth.suggest.suggester import Suggester, SuggestResult, check_url, llm_configured

# The suggester (and the LLM providers) loads when first named, not with the fields.
_LATER = {
    "Suggester": "suggester",
    "SuggestResult": "suggester",
    "check_url": "suggester",
    "llm_configured": "suggester",
}


def __getattr__(name: str) -> object:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LATER[name]}"), name)


__all__ = [
    "SuggestResult",
    "Suggester",
    "Suggestion",
    "check_url",
    "clean",
    "llm_configured",
]
