"""SerpApi's Google engine: GET with the key as the ``api_key`` parameter."""

from __future__ import annotations

import httpx

from sleuth.config import SearchSettings
from sleuth.errors import SearchError
from sleuth.websearch.models import SearchHit, SearchQuery
from sleuth.websearch.provider import SearchProvider, dict_items, exact_bucket, with_site_operators
from sleuth.websearch.results import RawHit, make_hits

_SAFE = {"off": "off", "strict": "active"}


def tbs(days: int) -> str:
    """Google's quick date range: ``qdr:d|w|m|y`` or ``qdr:dN`` for any other day count."""
    bucket = exact_bucket(days)
    return f"qdr:{bucket[0]}" if bucket else f"qdr:d{days}"


class SerpApiProvider(SearchProvider):
    name = "serpapi"
    key_hint = "check SERPAPI_API_KEY (or SLEUTH_SERPAPI_API_KEY)"

    def is_configured(self, settings: SearchSettings) -> bool:
        return settings.secret("serpapi_api_key") is not None

    @property
    def trusted_urls(self) -> list[str]:
        return [self.settings.serpapi_url]

    async def search(self, query: SearchQuery, client: httpx.AsyncClient) -> list[SearchHit]:
        params: dict[str, str | int] = {
            "engine": "google",
            "q": with_site_operators(query),
            "api_key": self.settings.secret("serpapi_api_key") or "",
            "num": query.max_results,
        }
        if query.recency_days:
            params["tbs"] = tbs(query.recency_days)
        if query.country:
            params["gl"] = query.country
        if query.language:
            params["hl"] = query.language
        if query.safe_search in _SAFE:
            params["safe"] = _SAFE[query.safe_search]
        response = await self.send(client, "GET", self.settings.serpapi_url, params=params)
        self.check_status(response)
        data = self.parse_json(response)
        results = dict_items(data.get("organic_results"))
        error = data.get("error")
        # SerpApi answers 200 with an "error" both for real failures and for "no results".
        if error and not results and "hasn't returned any results" not in str(error):
            raise SearchError(f"serpapi reported: {error}", provider=self.name)
        return make_hits(
            self.name,
            (
                RawHit(item.get("title"), item.get("link"), item.get("snippet"), item.get("date"))
                for item in results
            ),
        )
