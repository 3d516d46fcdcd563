"""One search over an ordered list of providers: cache, budget, fallback, cooldown, logging."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from types import TracebackType

import httpx
from pydantic import ValidationError

from sleuth.cache.base import Cache, cache_key, get_json, set_json
from sleuth.config import SearchSettings
from sleuth.errors import (
    ProviderAuthError,
    Ref,
    SearchError,
    SearchUnavailable,
    SleuthError,
)
from sleuth.log import Stopwatch, event
from sleuth.net import Clients
from sleuth.websearch.budget import SearchBudget
from sleuth.websearch.health import PROCESS_HEALTH, ProviderHealth
from sleuth.websearch.models import ProviderAttempt, SearchHit, SearchQuery, SearchResponse
from sleuth.websearch.provider import SearchProvider
from sleuth.websearch.registry import build_providers
from sleuth.websearch.results import finalize


def attempts_of(error: BaseException) -> list[ProviderAttempt]:
    """The per-provider attempts a failed search carried, for callers that report them."""
    attempts = getattr(error, "attempts", None)
    return list(attempts) if isinstance(attempts, list) else []


class ProviderChain:
    """Tries providers in order until one answers; remembers failures across searches.

    ``providers`` overrides ``search.search_providers``; items may be names or
    ready-made provider objects. ``clients`` is the session's client factory: each
    provider's client trusts that provider's own endpoints. ``health`` defaults to the
    process-wide breaker so consecutive chains share what they learned.
    """

    def __init__(
        self,
        search: SearchSettings,
        cache: Cache,
        *,
        clients: Clients,
        providers: Sequence[str | SearchProvider] | None = None,
        health: ProviderHealth | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.cache = cache
        self.search_settings = search
        self.providers = build_providers(search, clients.net, providers)
        self.health = health or PROCESS_HEALTH
        self._connect = clients
        self._budget = SearchBudget(cache, search.searches_per_hour, clock=clock)
        self._clients: dict[str, httpx.AsyncClient] = {}

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.providers]

    @property
    def configured(self) -> list[str]:
        return [p.name for p in self.providers if p.is_configured(self.search_settings)]

    def _client(self, provider: SearchProvider) -> httpx.AsyncClient:
        # One client per provider and chain: connections are reused across searches.
        client = self._clients.get(provider.name)
        if client is None:
            client = self._connect(
                trusted_urls=provider.trusted_urls, timeout=self.search_settings.search_timeout
            )
            self._clients[provider.name] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def __aenter__(self) -> ProviderChain:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def search(self, query: SearchQuery) -> SearchResponse:
        watch = Stopwatch()
        if not self.configured:
            raise SearchUnavailable(
                "web search unavailable: none of the providers "
                f"({', '.join(self.names) or 'none listed'}) is configured"
            )
        key = cache_key("search", self.names, query.model_dump(mode="json"))
        cached = await self._cached(key, query, watch)
        if cached is not None:
            return cached

        attempts: list[ProviderAttempt] = []
        spent = False
        for provider in self.providers:
            passed_over = self._passed_over(provider)
            if passed_over is not None:
                attempts.append(passed_over)
                continue
            if not spent:  # one unit per search, and only once a provider is really asked
                await self._budget.spend()
                spent = True
            hits = await self._attempt(provider, query, attempts)
            if hits is None:
                continue
            event(
                "search_call",
                provider=provider.name,
                outcome=attempts[-1].outcome,
                latency_ms=attempts[-1].latency_ms,
                result_count=len(hits),
                fallback_used=len(attempts) > 1,
                cached=False,
                query=query.query,
            )
            if hits:
                await self._store(key, provider.name, hits)
                return SearchResponse(query=query.query, results=hits, providers_tried=attempts)
        if any(a.outcome == "empty" for a in attempts):
            return SearchResponse(query=query.query, results=[], providers_tried=attempts)
        raise self._all_failed(attempts)

    def _passed_over(self, provider: SearchProvider) -> ProviderAttempt | None:
        """Why ``provider`` is not asked this time, or None when it should be."""
        name = provider.name
        if not provider.is_configured(self.search_settings):
            return ProviderAttempt(
                name=name, outcome="skipped", error_code="config_error", message="not configured"
            )
        remaining = self.health.cooling(name)
        if remaining > 0:
            return ProviderAttempt(
                name=name,
                outcome="cooldown",
                error_code=self.health.last_error(name),
                message=f"cooling down for {math.ceil(remaining)} s after recent failures",
            )
        return None

    async def _attempt(
        self, provider: SearchProvider, query: SearchQuery, attempts: list[ProviderAttempt]
    ) -> list[SearchHit] | None:
        """Ask one provider; record what happened; None means "try the next one"."""
        name = provider.name
        watch = Stopwatch()
        try:
            raw = await provider.search(query, self._client(provider))
        except SleuthError as exc:
            error: SleuthError = exc
        except Exception as exc:
            # A provider bug (often a plugin's) costs that provider, not the whole search.
            error = SearchError(
                f"{name} failed unexpectedly: {type(exc).__name__}: {exc}",
                provider=name,
                retryable=False,
            )
        else:
            self.health.succeeded(name)
            hits = finalize(raw, query)
            attempts.append(
                ProviderAttempt(name=name, outcome="ok" if hits else "empty", latency_ms=watch.ms)
            )
            return hits
        pause = self.health.failed(name, error)
        attempts.append(
            ProviderAttempt(
                name=name,
                outcome="error",
                error_code=error.code,
                latency_ms=watch.ms,
                message=str(error),
            )
        )
        event(
            "search_error",
            provider=name,
            stage="provider",
            error_code=error.code,
            error=str(error),
            latency_ms=watch.ms,
            cooldown_s=round(pause),
        )
        return None

    def _all_failed(self, attempts: list[ProviderAttempt]) -> SearchError:
        summary = "; ".join(f"{a.name}: {a.message or a.outcome}" for a in attempts)
        failed = [a for a in attempts if a.outcome in ("error", "cooldown")]
        cls = SearchError
        if failed and all(a.error_code == "provider_auth" for a in failed):
            cls = ProviderAuthError
        retry_in = [self.health.cooling(a.name) for a in failed]
        hint = (
            f"try again in {math.ceil(min(retry_in))} s, or configure another provider"
            if cls is SearchError and retry_in
            else "check the provider settings{show}"
        )
        error = cls(
            f"every search provider failed: {summary}",
            hint=hint,
            refs={"show": Ref("settings_shown", words=" on the server")},
            retryable=cls is SearchError,
        )
        # SearchError has no typed field for these yet; attempts_of() reads them back.
        setattr(error, "attempts", attempts)  # noqa: B010
        return error

    async def _cached(
        self, key: str, query: SearchQuery, watch: Stopwatch
    ) -> SearchResponse | None:
        if self.search_settings.search_cache_ttl <= 0:  # 0 turns search caching off
            return None
        data = await get_json(self.cache, key)  # a failing cache reads as a miss
        if not isinstance(data, dict):
            return None
        try:
            hits = [SearchHit.model_validate(item) for item in data.get("results", [])]
            provider = str(data["provider"])
        except (ValidationError, KeyError, TypeError):
            return None
        attempt = ProviderAttempt(name=provider, outcome="ok", latency_ms=watch.ms, cached=True)
        event(
            "search_call",
            provider=provider,
            outcome="ok",
            latency_ms=attempt.latency_ms,
            result_count=len(hits),
            fallback_used=False,
            cached=True,
            query=query.query,
        )
        return SearchResponse(query=query.query, results=hits, providers_tried=[attempt])

    async def _store(self, key: str, provider: str, hits: list[SearchHit]) -> None:
        if self.search_settings.search_cache_ttl <= 0:
            return
        payload = {"provider": provider, "results": [hit.model_dump(mode="json") for hit in hits]}
        await set_json(self.cache, key, payload, self.search_settings.search_cache_ttl)
