"""One model of a conversation that every provider is translated to and from.

Providers differ in where tool calls live, whether arguments are a JSON
string or an object, and what "stop" means; the loop only ever sees these
types. ``Message.native`` carries what a provider must get back verbatim on
the next turn (Gemini thought signatures, Anthropic server-tool blocks,
Responses reasoning items) and is opaque to everything else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel

Role = Literal["system", "user", "assistant", "tool"]


class StopReason(StrEnum):
    END = "end"
    TOOL_CALLS = "tool_calls"
    MAX_TOKENS = "max_tokens"
    PAUSE = "pause"  # the server paused a long server-tool turn; send it back to continue
    CONTENT_FILTER = "content_filter"
    MALFORMED_CALL = "malformed_call"  # the model tried to call a tool and wrote nonsense
    OTHER = "other"


@dataclass
class ToolCall:
    """One call the model asked for; ``error`` is set when its arguments were not JSON.

    ``raw`` keeps the arguments exactly as the model sent them (a JSON string or an
    object), so a follow-up echoes the call the model made, not sleuth's reading of it.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None
    raw: Any = field(default=None, compare=False, repr=False)

    def raw_json(self) -> str:
        """The arguments as a JSON string: byte for byte what the model sent, when it sent one."""
        if isinstance(self.raw, str):
            return self.raw
        return json.dumps(self.raw if self.raw is not None else self.arguments)


@dataclass
class Message:
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None  # on role="tool": which call this answers
    name: str | None = None  # on role="tool": the tool's name (Gemini needs it)
    is_error: bool = False  # on role="tool": the call failed
    native: Any = None  # provider state to echo back on the next turn


@dataclass(frozen=True)
class ToolSpec:
    """A function the model may call; ``parameters`` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any]


class Usage(BaseModel):
    """Token counts as every provider reports them here: input includes cached tokens,
    output includes reasoning tokens."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    web_search_requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            **{name: getattr(self, name) + getattr(other, name) for name in Usage.model_fields}
        )


@dataclass(frozen=True)
class NativeSource:
    """A page the provider's own search used; ``quote`` is the text it cited, if any."""

    url: str
    title: str = ""
    quote: str = ""


@dataclass(frozen=True)
class Annotation:
    """A native citation: ``source`` supports the answer text ending at character ``end``."""

    end: int
    source: NativeSource


@dataclass
class Completion:
    """One reply; ``finish`` is the provider's own stop reason (``SAFETY``, ``length``,
    ``refusal`` ...) and ``finish_message`` any words it gave with it."""

    message: Message
    stop_reason: StopReason
    usage: Usage
    model: str
    annotations: list[Annotation] = field(default_factory=list)
    sources: list[NativeSource] = field(default_factory=list)  # searched, cited or not
    searches: list[str] = field(default_factory=list)  # queries the provider's search ran
    finish: str = ""
    finish_message: str = ""

    def json_text(self, schema: ReplySchema) -> str:
        """The reply asked for with ``schema``: the arguments of the call to it where the
        provider answers structured output with a tool call, else the message's text."""
        for call in self.message.tool_calls:
            if call.name == schema.name:
                return call.raw_json()
        return self.message.content


@dataclass(frozen=True)
class ReplySchema:
    """The JSON Schema a reply must fit, asked through the provider's structured output.

    The root is an object. Anthropic has no such field: there the schema is a tool the
    model must call, and the reply is that call's arguments (see :meth:`Completion.json_text`).
    """

    name: str
    schema: dict[str, Any]


@dataclass
class ChatRequest:
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    native_search: bool = False
    tool_choice: Literal["auto", "none"] = "auto"  # "none": tools stay declared, none may run
    max_output_tokens: int = 2048
    temperature: float | None = None
    reply_schema: ReplySchema | None = None  # structured output: the reply is this JSON
