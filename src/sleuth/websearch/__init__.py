"""Web search: pluggable providers behind one chain with fallback, cooldown, cache and budget.

>>> async with ProviderChain(settings.search, cache, clients=web.clients) as chain:
...     response = await chain.search(SearchQuery(query="python 3.13 release notes"))
"""

from sleuth.websearch.chain import ProviderChain, attempts_of
from sleuth.websearch.health import ProviderHealth
from sleuth.websearch.models import ProviderAttempt, SearchHit, SearchQuery, SearchResponse
from sleuth.websearch.provider import SearchProvider
from sleuth.websearch.registry import ENTRY_POINT_GROUP, known_providers
from sleuth.websearch.urls import domain_of, normalize_url

__all__ = [
    "ENTRY_POINT_GROUP",
    "ProviderAttempt",
    "ProviderChain",
    "ProviderHealth",
    "SearchHit",
    "SearchProvider",
    "SearchQuery",
    "SearchResponse",
    "attempts_of",
    "domain_of",
    "known_providers",
    "normalize_url",
]
