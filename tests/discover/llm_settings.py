"""Settings for LLM discovery against the loopback web (search and GitHub) and a model that
is either the scripted loopback server (recording) or nobody at all (replay)."""

from __future__ import annotations

from typing import Any

from discover.conversations import CASSETTES, LLM_PREFIX, MODEL, SEARCH_PATH
from discover.registries import Registries
from sleuth.config import Settings

DEAD_LLM = "http://127.0.0.1:9/llm/v1"  # nothing listens: a replay must not need a model


def discover_env(
    regs: Registries, *, record: str = "replay", live_llm: bool = False
) -> dict[str, str]:
    """The same settings as environment variables, for the CLI."""
    return {
        **regs.env(),
        "SLEUTH_LLM_PROVIDER": "openai",
        "SLEUTH_LLM_MODEL": MODEL,
        "SLEUTH_LLM_BASE_URL": regs.wire.url(LLM_PREFIX) if live_llm else DEAD_LLM,
        "SLEUTH_LLM_API_KEY": "sk-test-key",
        "SLEUTH_LLM_RECORD": record,
        "SLEUTH_LLM_CASSETTE_DIR": str(CASSETTES),
        "SLEUTH_LLM_SEARCH": "local",
        "SLEUTH_SEARCH_PROVIDERS": "searxng",
        "SLEUTH_SEARXNG_URL": regs.wire.url(SEARCH_PATH),
    }


def discover_settings(
    regs: Registries, *, record: str = "replay", live_llm: bool = False, **extra: Any
) -> Settings:
    env = discover_env(regs, record=record, live_llm=live_llm)
    values: dict[str, Any] = {
        **regs.settings_values(),
        "llm_provider": env["SLEUTH_LLM_PROVIDER"],
        "llm_model": MODEL,
        "llm_base_url": env["SLEUTH_LLM_BASE_URL"],
        "llm_api_key": "sk-test-key",
        "llm_record": record,
        "llm_cassette_dir": CASSETTES,
        "llm_search": "local",
        "search_providers": ["searxng"],
        "searxng_url": env["SLEUTH_SEARXNG_URL"],
        "cache": "memory",
        **extra,
    }
    return Settings(**values)
