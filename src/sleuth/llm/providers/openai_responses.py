"""OpenAIResponses provider (being written)."""

from __future__ import annotations

from typing import Any

from sleuth.errors import LLMError
from sleuth.llm.http import Reply
from sleuth.llm.models import ChatRequest, Completion
from sleuth.llm.providers.base import HttpCall, Provider


class OpenAIResponses(Provider):
    name = "openai-responses"
    default_base_url = "https://api.openai.com/v1"
    default_model = "gpt-5-mini"
    native_search = "web_search"

    def build(self, request: ChatRequest) -> HttpCall:
        raise NotImplementedError

    def parse(self, data: Any) -> Completion:
        raise NotImplementedError

    def classify(self, reply: Reply) -> LLMError:
        raise NotImplementedError
