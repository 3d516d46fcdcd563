"""Ollama provider (being written)."""

from __future__ import annotations

from typing import Any

from sleuth.errors import LLMError
from sleuth.llm.http import Reply
from sleuth.llm.models import ChatRequest, Completion
from sleuth.llm.providers.base import HttpCall, Provider


class Ollama(Provider):
    name = "ollama"
    default_base_url = "http://127.0.0.1:11434"
    default_model = "llama3.1"
    native_search = None

    def build(self, request: ChatRequest) -> HttpCall:
        raise NotImplementedError

    def parse(self, data: Any) -> Completion:
        raise NotImplementedError

    def classify(self, reply: Reply) -> LLMError:
        raise NotImplementedError
