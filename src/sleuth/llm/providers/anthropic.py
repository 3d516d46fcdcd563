"""Anthropic provider (being written)."""

from __future__ import annotations

from typing import Any

from sleuth.errors import LLMError
from sleuth.llm.http import Reply
from sleuth.llm.models import ChatRequest, Completion
from sleuth.llm.providers.base import HttpCall, Provider


class Anthropic(Provider):
    name = "anthropic"
    default_base_url = "https://api.anthropic.com"
    default_model = "claude-sonnet-4-5"
    native_search = "web_search"

    def build(self, request: ChatRequest) -> HttpCall:
        raise NotImplementedError

    def parse(self, data: Any) -> Completion:
        raise NotImplementedError

    def classify(self, reply: Reply) -> LLMError:
        raise NotImplementedError
