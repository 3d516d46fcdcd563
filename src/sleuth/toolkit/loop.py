"""The one LLM tool loop: a request, the model's tool calls, their results in envelopes.

``ask`` and ``discover`` (and any later LLM job) drive a conversation through a
:class:`ToolLoop`: :meth:`ToolLoop.complete` sends one turn under the deadline and
counts it, :meth:`ToolLoop.run_calls` runs the turn's calls one after another (so
citation ids, and so recorded requests, are reproducible) and wraps what came from the
web in the untrusted-data envelope. What a turn without calls means is the job's own
decision; how a turn is sent and how tools run is decided here once.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from sleuth.errors import LLMTimeout
from sleuth.llm.envelope import Envelope
from sleuth.llm.meter import Meter
from sleuth.llm.models import ChatRequest, Completion, Message, ToolCall, ToolSpec
from sleuth.log import Progress
from sleuth.toolkit.registry import Registry, ToolContext

MALFORMED_CALL = (
    "Note from sleuth: your last reply tried to call a function, but the call was malformed "
    "and nothing ran{detail}. Call one of the declared functions again with arguments that "
    "are a single JSON object matching its schema, or answer in plain text."
)


def malformed_call(detail: str) -> str:
    """The note that asks a model once more after a malformed call (Gemini says which)."""
    detail = " ".join(detail.split())[:500]
    return MALFORMED_CALL.format(detail=f" ({detail})" if detail else "")


class ToolCallInfo(BaseModel):
    name: str
    arguments: dict[str, Any]
    outcome: str
    latency_ms: int


@dataclass
class ToolLoop:
    """One conversation's turns and tool calls under one deadline and one meter."""

    meter: Meter
    registry: Registry
    context: ToolContext
    deadline: float  # time.monotonic() instant
    on_progress: Progress | None = None
    envelope: Envelope = field(default_factory=Envelope)
    # Tools whose output is sleuth's own words (a collector's receipt), not web content.
    trusted: Collection[str] = ()
    calls: list[ToolCallInfo] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)  # run by the provider's own search
    turns: int = 0

    def progress(self, stage: str, **detail: Any) -> None:
        if self.on_progress is not None:
            self.on_progress(stage, detail)

    def specs(self, *, leave_out: Collection[str] = ()) -> list[ToolSpec]:
        """The registry's tools as the provider declares them."""
        return [
            ToolSpec(tool.name, tool.description, tool.parameters)
            for tool in self.registry
            if tool.name not in leave_out
        ]

    async def complete(self, request: ChatRequest) -> Completion:
        """One turn; none is sent once the deadline has passed."""
        if time.monotonic() >= self.deadline:
            raise LLMTimeout(
                "the deadline for this question passed",
                provider=self.meter.provider.name,
                retryable=False,
            )
        self.turns += 1
        self.progress("thinking", turn=self.turns)
        completion = await self.meter.complete(request, deadline=self.deadline)
        for query in completion.searches:
            self.progress("native_search", query=query)
        self.searches += completion.searches
        return completion

    async def run_calls(self, calls: Sequence[ToolCall], *, note: str = "") -> list[Message]:
        """The tool messages answering ``calls``, in order; ``note`` ends each one."""
        messages = []
        for call in calls:
            text, outcome = await self.run(call.name, call.arguments, call.error)
            messages.append(
                Message(
                    "tool",
                    text + note,
                    tool_call_id=call.id,
                    name=call.name,
                    is_error=outcome != "ok",
                )
            )
        return messages

    async def run(
        self, name: str, arguments: dict[str, Any], argument_error: str | None = None
    ) -> tuple[str, str]:
        """One tool call: the text the model reads (web content enveloped) and its outcome."""
        self.progress("tool_call", name=name, arguments=arguments)
        if self.deadline - time.monotonic() <= 0:
            text, outcome, latency = "error timeout: no time left to run tools", "timeout", 0
        else:
            record = await self.registry.call(
                self.context, name, arguments, argument_error=argument_error
            )
            text, outcome, latency = record.output.text, record.outcome, record.latency_ms
        self.calls.append(
            ToolCallInfo(name=name, arguments=arguments, outcome=outcome, latency_ms=latency)
        )
        self.progress("tool_done", name=name, outcome=outcome, latency_ms=latency)
        if name not in self.trusted:  # web content: data, never instructions
            text = self.envelope.wrap(name, text)
        return text, outcome
