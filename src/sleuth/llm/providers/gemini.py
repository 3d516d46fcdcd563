"""Gemini provider (being written)."""

from __future__ import annotations

from typing import Any

from sleuth.errors import LLMError
from sleuth.llm.http import Reply
from sleuth.llm.models import ChatRequest, Completion
from sleuth.llm.providers.base import HttpCall, Provider


class Gemini(Provider):
    name = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com"
    default_model = "gemini-2.5-flash"
    native_search = "google_search"

    def build(self, request: ChatRequest) -> HttpCall:
        raise NotImplementedError

    def parse(self, data: Any) -> Completion:
        raise NotImplementedError

    def classify(self, reply: Reply) -> LLMError:
        raise NotImplementedError
