"""A SearXNG instance the operator runs, through its JSON output format."""

from __future__ import annotations

import httpx

from sleuth.config import SearchSettings
from sleuth.errors import SearchError
from sleuth.websearch.models import SearchHit, SearchQuery
from sleuth.websearch.provider import (
    SearchProvider,
    dict_items,
    recency_bucket,
    with_site_operators,
)
from sleuth.websearch.results import RawHit, make_hits

_SAFE = {"off": 0, "moderate": 1, "strict": 2}


class SearxngProvider(SearchProvider):
    name = "searxng"

    def is_configured(self, settings: SearchSettings) -> bool:
        return bool(settings.searxng_url)

    @property
    def endpoint(self) -> str:
        base = (self.settings.searxng_url or "").rstrip("/")
        return base if base.endswith("/search") else f"{base}/search"

    @property
    def trusted_urls(self) -> list[str]:
        return [self.endpoint]

    async def search(self, query: SearchQuery, client: httpx.AsyncClient) -> list[SearchHit]:
        params: dict[str, str | int] = {
            "q": with_site_operators(query),
            "format": "json",
            "safesearch": _SAFE[query.safe_search],
            "pageno": 1,
        }
        bucket = recency_bucket(query.recency_days) if query.recency_days else None
        if bucket:
            params["time_range"] = bucket
        if query.language:
            params["language"] = f"{query.language}-{(query.country or '').upper()}"
        response = await self.send(client, "GET", self.endpoint, params=params)
        if response.status == 403:
            raise SearchError(
                "searxng refused the JSON format (HTTP 403)",
                provider=self.name,
                hint="enable it: add `json` under `search.formats` in the instance's settings.yml",
                retryable=False,
            )
        self.check_status(response)
        results = dict_items(self.parse_json(response).get("results"))
        return make_hits(
            self.name,
            (
                RawHit(
                    item.get("title"),
                    item.get("url"),
                    item.get("content"),
                    item.get("publishedDate"),
                )
                for item in results
            ),
        )
