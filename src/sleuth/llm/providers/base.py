"""The contract every provider meets: build a request, read a reply, name an error.

A provider is pure translation between :mod:`sleuth.llm.models` and one wire
format; sending, retrying and recording are :class:`~sleuth.llm.http.LLMHttp`'s.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from sleuth.errors import LLMError, MalformedReply
from sleuth.llm.http import LLMHttp, Reply
from sleuth.llm.models import ChatRequest, Completion, ToolCall, ToolSpec

HttpCall = tuple[str, dict[str, Any], dict[str, str]]  # path, JSON body, headers


class Provider(ABC):
    name: ClassVar[str]
    default_base_url: ClassVar[str]
    default_model: ClassVar[str]
    # The name of the provider's own search tool when it has one; None when it has none.
    native_search: ClassVar[str | None] = None

    @staticmethod
    def declare(tool: ToolSpec) -> dict[str, Any]:
        """``tool`` as this API declares a function; the Chat Completions shape by default."""
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }

    @classmethod
    def declare_tools(cls, tools: list[ToolSpec]) -> list[dict[str, Any]]:
        """The request's ``tools`` list for these functions (``sleuth tools`` prints it too)."""
        return [cls.declare(tool) for tool in tools]

    def functions(self, request: ChatRequest) -> list[ToolSpec]:
        """The request's functions, less any that would shadow the enabled server search."""
        if not request.native_search:
            return list(request.tools)
        return [tool for tool in request.tools if tool.name != self.native_search]

    def __init__(self, *, model: str, http: LLMHttp, api_key: str | None = None) -> None:
        self.model = model
        self.http = http
        self.api_key = api_key

    @abstractmethod
    def build(self, request: ChatRequest) -> HttpCall:
        """The request on the wire."""

    @abstractmethod
    def parse(self, data: Any) -> Completion:
        """A 2xx reply as a :class:`Completion`; a KeyError or TypeError means malformed."""

    @abstractmethod
    def classify(self, reply: Reply) -> LLMError:
        """A non-2xx reply as the error class that decides retrying."""

    async def complete(self, request: ChatRequest, *, deadline: float | None = None) -> Completion:
        path, body, headers = self.build(request)
        data = await self.http.post(
            path, body, classify=self.classify, headers=headers, deadline=deadline
        )
        try:
            return self.parse(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise MalformedReply(
                f"{self.name} sent a reply sleuth cannot read ({type(exc).__name__}: {exc})",
                raw=json.dumps(data, ensure_ascii=False)[:20_000],
                provider=self.name,
            ) from None

    async def aclose(self) -> None:
        await self.http.aclose()


def error_fields(data: Any) -> tuple[str, str]:
    """``(message, code)`` from the error shapes most servers use."""
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, str):
            return error, ""
        if isinstance(error, dict):
            message = str(error.get("message") or "")
            code = error.get("code") or error.get("type") or error.get("status") or ""
            return message, str(code)
    return "", ""


def reply_fields(reply: Reply) -> tuple[str, str]:
    try:
        return error_fields(reply.json())
    except ValueError:
        return reply.text[:300], ""


def parse_arguments(call_id: str, name: str, raw: Any) -> ToolCall:
    """A tool call whose arguments may be a JSON string (OpenAI) or an object (elsewhere)."""
    if not isinstance(name, str):  # a TypeError is how parse() says "malformed reply"
        raise TypeError(f"a tool call's name is a {type(name).__name__}, not a string")
    call_id = str(call_id)
    if isinstance(raw, dict):
        return ToolCall(call_id, name, raw, raw=raw)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return ToolCall(call_id, name, {}, raw=raw)
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        error = f"the arguments are not valid JSON ({exc.msg} at {where}): {_clip(raw)}"
        return ToolCall(call_id, name, {}, error=error, raw=raw)
    if not isinstance(value, dict):
        kind = type(value).__name__
        error = f"the arguments must be a JSON object, not {kind}: {_clip(raw)}"
        return ToolCall(call_id, name, {}, error=error, raw=raw)
    return ToolCall(call_id, name, value, raw=raw)


def _clip(raw: Any, limit: int = 300) -> str:
    text = raw if isinstance(raw, str) else json.dumps(raw)
    return text if len(text) <= limit else text[:limit] + "..."
