"""The shapes a search takes in and gives back; shared by every provider, the CLI and the digest."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator

MAX_RESULTS = 10

_REGION = re.compile(r"^[a-z]{2}(-[a-z]{2})?$")
_SITE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?([^/?#\s]+)")


class SearchQuery(BaseModel):
    """One search request, independent of the provider that answers it."""

    query: str = Field(min_length=1)
    max_results: int = Field(8, ge=1, description="results wanted; more than 10 are capped at 10")
    recency_days: int | None = Field(None, ge=1, description="only pages from the last N days")
    site_include: list[str] = Field(default_factory=list)
    site_exclude: list[str] = Field(default_factory=list)
    region: str | None = Field(
        None, description="country, or country-language as DuckDuckGo writes it: 'de', 'us-en'"
    )
    safe_search: Literal["off", "moderate", "strict"] = "moderate"

    @field_validator("query")
    @classmethod
    def _strip_query(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("the search query is empty")
        return value

    @field_validator("max_results")
    @classmethod
    def _cap(cls, value: int) -> int:
        return min(value, MAX_RESULTS)

    @field_validator("site_include", "site_exclude")
    @classmethod
    def _bare_hosts(cls, value: list[str]) -> list[str]:
        # People paste URLs; providers want bare domains.
        hosts = []
        for site in value:
            match = _SITE.match(site.strip().lower())
            if match and match.group(1).removeprefix("www.") not in hosts:
                hosts.append(match.group(1).removeprefix("www."))
        return hosts

    @field_validator("region")
    @classmethod
    def _region(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().lower().replace("_", "-")
        if value in ("", "wt-wt", "all"):
            return None
        if not _REGION.match(value):
            raise ValueError(
                "region must be a country code like 'de' or 'country-language' like 'us-en'"
            )
        return value

    @property
    def country(self) -> str | None:
        return self.region.split("-")[0] if self.region else None

    @property
    def language(self) -> str | None:
        if not self.region or "-" not in self.region:
            return None
        return self.region.split("-")[1]


class SearchHit(BaseModel):
    """One result; ``rank`` starts at 1 and is dense after deduplication."""

    rank: int
    title: str
    url: str
    domain: str
    snippet: str
    published: str | None = None
    provider: str


class ProviderAttempt(BaseModel):
    """What one provider did for one search, so callers can see why fallback happened."""

    name: str
    outcome: Literal["ok", "error", "skipped", "cooldown", "empty"]
    error_code: str | None = None
    latency_ms: int = 0
    cached: bool = False
    message: str | None = None


class SearchResponse(BaseModel):
    query: str
    results: list[SearchHit]
    providers_tried: list[ProviderAttempt]
