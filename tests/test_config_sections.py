"""Settings in sections: one loader (``Settings``), frozen slices handed to the layers below.

Sections are how the code holds the settings, not new names for users: every variable and
TOML key keeps its name, and each section only copies the loaded, validated values.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import pytest

import sleuth
from sleuth.cache import FallbackCache, MemoryCache, open_cache
from sleuth.config import (
    SECTIONS,
    CacheSettings,
    DetectSettings,
    DiscoverSettings,
    DocumentSettings,
    FetchSettings,
    LLMSettings,
    NetSettings,
    RenderSettings,
    ResearchSettings,
    SearchSettings,
    Section,
    ServerSettings,
    Settings,
    StyleSettings,
    SuggestSettings,
    load_settings,
)
from sleuth.digest import run_research
from sleuth.discovery.probes import probe_all
from sleuth.discovery.verify import GitHub
from sleuth.documents.files import record
from sleuth.llm.http import LLMHttp
from sleuth.llm.meter import Meter
from sleuth.llm.setup import open_provider, resolve
from sleuth.net.client import Clients, make_client, make_sync_client
from sleuth.net.guard import Guard
from sleuth.net.transport import AsyncSafeTransport, SafeTransport
from sleuth.pages import Fetcher
from sleuth.pages.stylesheets import SheetReader
from sleuth.render.browser import find_chromium, launch_browser
from sleuth.render.intercept import Interceptor
from sleuth.render.renderer import Renderer
from sleuth.server.auth import Tokens
from sleuth.server.guard import RequestGuard
from sleuth.stack.run import detect_stack
from sleuth.suggest import Suggester
from sleuth.websearch import ProviderChain
from sleuth.websearch.provider import SearchProvider
from sleuth.websearch.providers.brave import BraveProvider
from sleuth.websearch.providers.duckduckgo import DuckDuckGoProvider
from sleuth.websearch.providers.searxng import SearxngProvider
from sleuth.websearch.providers.serpapi import SerpApiProvider
from sleuth.websearch.providers.tavily import TavilyProvider
from sleuth.websearch.registry import build_providers

SRC = Path(sleuth.__file__).resolve().parent


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No developer's config file is read (the environment is cleaned in conftest)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def test_every_field_is_in_exactly_one_section() -> None:
    owners: dict[str, list[str]] = {}
    for section, model in SECTIONS.items():
        for name in model.model_fields:
            owners.setdefault(name, []).append(section)
    assert set(owners) == set(Settings.model_fields), "a section names a field Settings lacks"
    assert {name: where for name, where in owners.items() if len(where) > 1} == {}


def test_sections_are_properties_that_never_shadow_a_field() -> None:
    assert not set(SECTIONS) & set(Settings.model_fields)  # `cache`, `render` stay fields
    settings = Settings()
    for section, model in SECTIONS.items():
        assert issubclass(model, Section)
        assert type(getattr(settings, section)) is model
        assert getattr(settings, section) is getattr(settings, section)  # built once


def test_each_field_is_declared_once_in_its_section_and_settings_lists_each_section_once() -> None:
    declared_by_settings = {
        name for name in vars(Settings).get("__annotations__", {}) if not name.startswith("_")
    }
    assert declared_by_settings == set(), "a field is declared on Settings, not in a section"
    assert list(SECTIONS.values()) == list(Settings.__bases__)
    for model in SECTIONS.values():
        for name, field in model.model_fields.items():
            loaded = Settings.model_fields[name]
            assert loaded.annotation == field.annotation, name
            assert loaded.validation_alias == field.validation_alias, name
            assert loaded.metadata == field.metadata, name  # bounds and validators
            assert loaded.get_default(call_default_factory=True) == field.get_default(
                call_default_factory=True
            ), name


def test_a_section_alone_has_the_same_defaults_and_bounds() -> None:
    settings = Settings()
    for section, model in SECTIONS.items():
        assert model() == getattr(settings, section), section
    with pytest.raises(pydantic.ValidationError):
        NetSettings(allow_ports="8080,99999")
    with pytest.raises(pydantic.ValidationError):
        SearchSettings(searxng_url="not a url")
    assert NetSettings(allow_hosts="a.example, b.example").allow_hosts == [
        "a.example",
        "b.example",
    ]


def test_reading_sections_builds_no_section_schema_and_loads_no_settings_library(
    tmp_path: Path,
) -> None:
    """What start-up saves: the loader validates once, the sections are copies of it."""
    script = (
        "import sys; from sleuth.config import SECTIONS, Settings, load_settings\n"
        "settings = load_settings()\n"
        "sections = [getattr(settings, name) for name in SECTIONS]\n"
        "assert [type(s) for s in sections] == list(SECTIONS.values())\n"
        "built = [m for m in (Settings, *SECTIONS.values()) if m.__pydantic_complete__]\n"
        "print(sorted(m.__name__ for m in built))\n"
        "print('pydantic_settings' in sys.modules)\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "PYTHONPATH": str(SRC.parent)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "False"]


def test_the_defaults_are_valid_as_written() -> None:
    """The loader does not validate a section given no value; its defaults must pass."""
    for model in SECTIONS.values():
        assert model.model_construct() == model.model_validate({}), model.__name__


def test_the_loader_gives_what_validating_everything_gives(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('cache = "memory"\nallow_ports = [8080]\nllm_provider = "OpenAI_Responses"\n')
    overrides = {"max_pages": 5, "SEARXNG_URL": "https://searx.example/", "rate_limit": " "}
    loaded = load_settings(config, **overrides)
    whole = Settings(
        cache="memory", allow_ports=[8080], llm_provider="openai-responses", **overrides
    )
    assert loaded.model_dump() == whole.model_dump()
    assert loaded.model_fields_set == whole.model_fields_set
    for section in SECTIONS:
        assert getattr(loaded, section) == getattr(whole, section), section


def test_a_section_owns_its_lists() -> None:
    settings = Settings(allow_hosts=["a.example"])
    net = settings.net
    settings.allow_hosts.append("b.example")
    assert net.allow_hosts == ["a.example"]


def test_sections_carry_the_loaded_values_from_env_and_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        'cache = "memory"\nmax_pages = 4\nallow_hosts = ["wiki.intranet"]\n'
        'render = "never"\nllm_provider = "Anthropic"\n'
    )
    monkeypatch.setenv("SLEUTH_ALLOW_PORTS", "8080, 8443")
    monkeypatch.setenv("SLEUTH_CORS_ORIGINS", "https://a.example,https://b.example")
    monkeypatch.setenv("SLEUTH_SHUTDOWN_GRACE", "3")
    monkeypatch.setenv("BRAVE_API_KEY", "bsa-key")
    monkeypatch.setenv("SLEUTH_DISCOVER_PROBE_TIMEOUT", "1.5")
    settings = load_settings(config)

    assert settings.caching.cache == "memory"
    assert settings.research.max_pages == 4
    assert settings.net.allow_hosts == ["wiki.intranet"]
    assert settings.net.allow_ports == [8080, 8443]
    assert settings.browser.render == "never"
    assert settings.llm.llm_provider == "anthropic"
    assert settings.server.cors_origins == ["https://a.example", "https://b.example"]
    assert settings.server.shutdown_grace == 3.0
    assert settings.search.secret("brave_api_key") == "bsa-key"
    assert settings.discover.discover_probe_timeout == 1.5
    for section, model in SECTIONS.items():
        for name in model.model_fields:
            assert getattr(getattr(settings, section), name) == getattr(settings, name), name


def test_sections_are_frozen_and_follow_copies_and_assignments() -> None:
    settings = Settings(allow_hosts=["a.example"])
    with pytest.raises(pydantic.ValidationError):
        settings.net.allow_hosts = ["b.example"]  # type: ignore[misc]
    copied = settings.model_copy(update={"allow_hosts": ["c.example"]})
    assert copied.net.allow_hosts == ["c.example"]
    assert settings.net.allow_hosts == ["a.example"]
    settings.cache = "memory"
    assert settings.caching.cache == "memory"


def test_open_cache_reads_the_caching_section() -> None:
    settings = Settings(cache="memory", memory_cache_entries=3)
    assert isinstance(open_cache(settings.caching), MemoryCache)
    assert isinstance(open_cache(Settings(cache="file").caching), FallbackCache)
    hints = typing.get_type_hints(open_cache)
    assert hints["caching"] is CacheSettings


# Each lower-layer entry point and the sections it must be given, and nothing else.
ENTRY_POINTS: list[tuple[Callable[..., Any], set[type[Section]]]] = [
    (Guard.__init__, {NetSettings}),
    (make_client, {NetSettings}),
    (make_sync_client, {NetSettings}),
    (AsyncSafeTransport.__init__, {NetSettings}),
    (SafeTransport.__init__, {NetSettings}),
    (find_chromium, {RenderSettings}),
    (launch_browser, {RenderSettings}),
    (Interceptor.__init__, {NetSettings}),
    (Renderer.__init__, {NetSettings, RenderSettings}),
    (resolve, {LLMSettings}),
    (open_provider, {LLMSettings}),
    (LLMHttp.__init__, {LLMSettings}),
    (Meter.open, {LLMSettings}),
    (Meter.connect, {LLMSettings}),
    (Clients.__init__, {NetSettings}),
    (ProviderChain.__init__, {SearchSettings}),
    (Fetcher.__init__, {FetchSettings, NetSettings, StyleSettings, DocumentSettings}),
    (SheetReader.__init__, {StyleSettings, FetchSettings, NetSettings}),
    (record, {DocumentSettings, NetSettings, StyleSettings}),
    (run_research, {ResearchSettings}),
    (detect_stack, {DetectSettings, LLMSettings}),
    (Suggester.__init__, {SuggestSettings, LLMSettings}),
    (SearchProvider.__init__, {SearchSettings, NetSettings}),
    (SearchProvider.is_configured, {SearchSettings}),
    (DuckDuckGoProvider.__init__, {SearchSettings, NetSettings}),
    *(
        (provider.is_configured, {SearchSettings})
        for provider in (
            BraveProvider,
            DuckDuckGoProvider,
            SearxngProvider,
            SerpApiProvider,
            TavilyProvider,
        )
    ),
    (build_providers, {SearchSettings, NetSettings}),
    (probe_all, {DiscoverSettings}),
    (GitHub.__init__, {DiscoverSettings}),
    (Tokens.from_settings, {ServerSettings}),
    (RequestGuard.from_settings, {ServerSettings}),
]


CONFIG_CLASSES = {model.__name__: model for model in (Settings, *SECTIONS.values())}


def _config_classes(entry: Callable[..., Any]) -> set[type]:
    """The config classes the parameters of ``entry`` are annotated with (read from the
    annotation text, so names imported only for type checking need not resolve)."""
    found: set[type] = set()
    scope = vars(sys.modules[entry.__module__])
    for name, annotation in inspect.get_annotations(entry).items():
        if name == "return":
            continue
        text = annotation if isinstance(annotation, str) else repr(annotation)
        for word in set(re.findall(r"\w+", text)) & set(CONFIG_CLASSES):
            assert scope.get(word, CONFIG_CLASSES[word]) is CONFIG_CLASSES[word], word
            found.add(CONFIG_CLASSES[word])
    return found


@pytest.mark.parametrize(
    ("entry", "sections"), ENTRY_POINTS, ids=lambda value: getattr(value, "__qualname__", "")
)
def test_lower_layers_take_sections_not_the_whole_settings(
    entry: Callable[..., Any], sections: set[type[Section]]
) -> None:
    named = _config_classes(entry)
    assert Settings not in named, f"{entry.__qualname__} takes the whole Settings"
    assert named == sections


# Packages (or modules) below the orchestrators: none of them even imports Settings.
SECTION_ONLY = [
    "net",
    "render",
    "llm",
    "cache",
    "extract",
    "documents",
    "websearch",
    "pages",
    "stack",
    "crawl",
    "digest",
    "suggest",
    "discovery/probes.py",
    "discovery/verify.py",
    "server/auth.py",
    "server/guard.py",
]


@pytest.mark.parametrize("where", SECTION_ONLY)
def test_lower_layers_never_import_settings_or_load_them(where: str) -> None:
    root = SRC / where
    paths = [root] if root.suffix == ".py" else sorted(root.rglob("*.py"))
    assert paths
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "sleuth.config":
                names = {alias.name for alias in node.names}
                assert not names & {"Settings", "load_settings"}, f"{path}: {names}"
