"""Link suggestions (slug, title, description, tags) for a URL, from the configured LLM.

Served at ``POST /api/v1/links/suggest`` and run by ``sleuth suggest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth._lazy import later
from sleuth.suggest.fields import Suggestion, clean

if TYPE_CHECKING:
    from sleuth.suggest.suggester import Suggester, SuggestResult, check_url, llm_configured

# The suggester (and the LLM providers) loads when first named, not with the fields.
__getattr__ = later(
    __name__,
    {
        "Suggester": "suggester",
        "SuggestResult": "suggester",
        "check_url": "suggester",
        "llm_configured": "suggester",
    },
)


__all__ = [
    "SuggestResult",
    "Suggester",
    "Suggestion",
    "check_url",
    "clean",
    "llm_configured",
]
