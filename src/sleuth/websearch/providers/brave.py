"""Brave Search API (web results), keyed by ``X-Subscription-Token``."""

from __future__ import annotations

import httpx

from sleuth.config import SearchSettings
from sleuth.websearch.models import SearchHit, SearchQuery
from sleuth.websearch.provider import (
    SearchProvider,
    date_range,
    dict_items,
    exact_bucket,
    with_site_operators,
)
from sleuth.websearch.results import RawHit, make_hits

_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


def freshness(days: int) -> str:
    """Brave's named ranges where one fits exactly, else an explicit date range."""
    bucket = exact_bucket(days)
    if bucket:
        return _FRESHNESS[bucket]
    start, end = date_range(days)
    return f"{start.isoformat()}to{end.isoformat()}"


class BraveProvider(SearchProvider):
    name = "brave"
    key_hint = "check BRAVE_API_KEY (or SLEUTH_BRAVE_API_KEY)"

    def is_configured(self, settings: SearchSettings) -> bool:
        return settings.secret("brave_api_key") is not None

    @property
    def trusted_urls(self) -> list[str]:
        return [self.settings.brave_url]

    async def search(self, query: SearchQuery, client: httpx.AsyncClient) -> list[SearchHit]:
        params: dict[str, str | int] = {
            "q": with_site_operators(query),
            "count": query.max_results,
            "safesearch": query.safe_search,
        }
        if query.recency_days:
            params["freshness"] = freshness(query.recency_days)
        if query.country:
            params["country"] = query.country.upper()
        if query.language:
            params["search_lang"] = query.language
        headers = {
            "Accept": "application/json",
            "X-Subscription-Token": self.settings.secret("brave_api_key") or "",
        }
        response = await self.send(
            client, "GET", self.settings.brave_url, params=params, headers=headers
        )
        self.check_status(response)
        web = self.parse_json(response).get("web")
        results = web.get("results") if isinstance(web, dict) else None
        return make_hits(
            self.name,
            (
                RawHit(
                    item.get("title"),
                    item.get("url"),
                    item.get("description"),
                    item.get("page_age") or item.get("age"),
                )
                for item in dict_items(results)
            ),
        )
