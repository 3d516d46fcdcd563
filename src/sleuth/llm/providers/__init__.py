"""The providers sleuth speaks, by the name ``SLEUTH_LLM_PROVIDER`` uses."""

from __future__ import annotations

from sleuth.llm.providers.anthropic import Anthropic
from sleuth.llm.providers.base import Provider
from sleuth.llm.providers.gemini import Gemini
from sleuth.llm.providers.ollama import Ollama
from sleuth.llm.providers.openai_chat import OpenAIChat
from sleuth.llm.providers.openai_responses import OpenAIResponses

PROVIDERS: dict[str, type[Provider]] = {
    cls.name: cls for cls in (OpenAIChat, OpenAIResponses, Anthropic, Gemini, Ollama)
}

__all__ = ["PROVIDERS", "Provider"]
