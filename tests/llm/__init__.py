"""LLM provider tests."""

from __future__ import annotations

from sleuth.config import LLMSettings, NetSettings, Settings


def sections(settings: Settings) -> tuple[LLMSettings, NetSettings]:
    """What a provider is opened from: the llm and net sections."""
    return settings.llm, settings.net
