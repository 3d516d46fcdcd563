"""Link suggestions (slug, title, description, tags) for a URL, from the configured LLM.

Served at ``POST /api/v1/links/suggest`` and run by ``sleuth suggest``.
"""

from sleuth.suggest.fields import Suggestion, clean
from sleuth.suggest.suggester import (
    Suggester,
    SuggestResult,
    check_url,
    llm_configured,
)

__all__ = [
    "SuggestResult",
    "Suggester",
    "Suggestion",
    "check_url",
    "clean",
    "llm_configured",
]
