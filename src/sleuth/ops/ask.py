"""ask: a question answered by an LLM that searches and reads through sleuth's tools."""

from __future__ import annotations

from typing import Any

from sleuth.api import AsyncSleuth
from sleuth.ops.base import Http, LLMUse, Op


def progress(stage: str, detail: dict[str, Any]) -> str:
    """What is happening now: the model is working unless a tool runs."""
    if stage == "tool_call":
        return f"running {detail.get('name')}"
    if stage == "thinking":
        return f"waiting for the model (turn {detail.get('turn')})"
    return "waiting for the model"


def spent(answer: Any) -> LLMUse:
    return LLMUse(answer.provider, answer.turns, answer.usage, answer.cost_usd)


ASK = Op(
    AsyncSleuth.ask,
    http=Http("/api/v1/ask", "Answer with an LLM that searches and cites", llm=spent),
    progress=progress,
)
