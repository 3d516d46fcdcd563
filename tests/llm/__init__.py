"""LLM provider tests."""

from __future__ import annotations

from sleuth.config import LLMSettings, Settings
from sleuth.net import Clients


def sections(settings: Settings) -> tuple[LLMSettings, Clients]:
    """What a provider is opened from: the llm section and a client factory (a session's
    comes from its Web)."""
    return settings.llm, Clients(settings.net)
