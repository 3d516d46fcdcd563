"""Which providers exist, built-in or installed as plugins, and the order to try them in."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import entry_points

from sleuth.config import NetSettings, SearchSettings
from sleuth.errors import ConfigError
from sleuth.websearch.provider import SearchProvider
from sleuth.websearch.providers.brave import BraveProvider
from sleuth.websearch.providers.duckduckgo import DuckDuckGoProvider
from sleuth.websearch.providers.searxng import SearxngProvider
from sleuth.websearch.providers.serpapi import SerpApiProvider
from sleuth.websearch.providers.tavily import TavilyProvider

ENTRY_POINT_GROUP = "sleuth.search_providers"

BUILTIN: dict[str, type[SearchProvider]] = {
    cls.name: cls
    for cls in (BraveProvider, TavilyProvider, SerpApiProvider, SearxngProvider, DuckDuckGoProvider)
}
# Keyed providers first: they are faster and steadier than scraping DuckDuckGo.
DEFAULT_ORDER = ("brave", "tavily", "serpapi", "searxng")
FALLBACK = "duckduckgo"


def known_providers() -> list[str]:
    """Built-in names, then installed plugins; nothing is imported to list them."""
    plugins = sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)} - set(BUILTIN))
    return [*BUILTIN, *plugins]


def provider_class(name: str) -> type[SearchProvider]:
    """The class registered under ``name``; plugins are imported only when asked for."""
    if name in BUILTIN:
        return BUILTIN[name]
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            cls = ep.load()
        except Exception as exc:
            raise ConfigError(
                f"search provider plugin {name!r} ({ep.value}) failed to import: {exc}",
                hint="reinstall the plugin or remove it from SLEUTH_SEARCH_PROVIDERS",
            ) from exc
        if not (isinstance(cls, type) and issubclass(cls, SearchProvider)):
            raise ConfigError(
                f"search provider plugin {name!r} ({ep.value}) is not a SearchProvider subclass"
            )
        if getattr(cls, "name", None) != name:
            raise ConfigError(
                f"search provider plugin {name!r} ({ep.value}) calls itself "
                f"{getattr(cls, 'name', None)!r}; the entry-point name must match"
            )
        return cls
    raise ConfigError(
        f"unknown search provider {name!r}",
        hint=f"known providers: {', '.join(known_providers())}",
    )


def build_providers(
    search: SearchSettings, net: NetSettings, chosen: Sequence[str | SearchProvider] | None = None
) -> list[SearchProvider]:
    """Providers in trying order: the explicit list, else configured keyed ones, then DuckDuckGo."""
    explicit = list(chosen) if chosen is not None else list(search.search_providers)
    if not explicit:
        candidates = [BUILTIN[name](search, net) for name in DEFAULT_ORDER]
        configured = [p for p in candidates if p.is_configured(search)]
        return [*configured, DuckDuckGoProvider(search, net)]
    providers: list[SearchProvider] = []
    for item in explicit:
        provider = (
            item
            if isinstance(item, SearchProvider)
            else provider_class(item.strip().lower())(search, net)
        )
        if provider.name not in {p.name for p in providers}:
            providers.append(provider)
    return providers
