"""Tavily search API: JSON over POST, keyed by a Bearer token."""

from __future__ import annotations

from typing import Any

import httpx

from sleuth.config import SearchSettings
from sleuth.errors import RateLimited
from sleuth.websearch.models import SearchHit, SearchQuery
from sleuth.websearch.provider import SearchProvider, date_range, dict_items, exact_bucket
from sleuth.websearch.results import RawHit, make_hits

# Tavily's own codes for "plan or pay-as-you-go limit reached".
_QUOTA_STATUSES = (432, 433)


class TavilyProvider(SearchProvider):
    name = "tavily"
    key_hint = "check TAVILY_API_KEY (or SLEUTH_TAVILY_API_KEY)"

    def is_configured(self, settings: SearchSettings) -> bool:
        return settings.secret("tavily_api_key") is not None

    @property
    def trusted_urls(self) -> list[str]:
        return [self.settings.tavily_url]

    async def search(self, query: SearchQuery, client: httpx.AsyncClient) -> list[SearchHit]:
        # Tavily has no region or safe-search switch for general web search.
        body: dict[str, Any] = {
            "query": query.query,
            "max_results": query.max_results,
            "search_depth": "basic",
            "topic": "general",
            "include_answer": False,
            "include_raw_content": False,
            "include_images": False,
        }
        if query.site_include:
            body["include_domains"] = query.site_include
        if query.site_exclude:
            body["exclude_domains"] = query.site_exclude
        if query.recency_days:
            bucket = exact_bucket(query.recency_days)
            if bucket:
                body["time_range"] = bucket
            else:
                start, _ = date_range(query.recency_days)
                body["start_date"] = start.isoformat()
        headers = {"Authorization": f"Bearer {self.settings.secret('tavily_api_key') or ''}"}
        response = await self.send(
            client, "POST", self.settings.tavily_url, json=body, headers=headers
        )
        if response.status in _QUOTA_STATUSES:
            raise RateLimited(
                f"tavily says the plan's search quota is used up (HTTP {response.status})",
                hint="wait for the quota to renew or raise the plan's limit",
            )
        self.check_status(response)
        return make_hits(
            self.name,
            (
                RawHit(
                    item.get("title"),
                    item.get("url"),
                    item.get("content"),
                    item.get("published_date"),
                )
                for item in dict_items(self.parse_json(response).get("results"))
            ),
        )
