"""The result of ``ask``: one shape for Python, ``--json`` and the servers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from sleuth.llm.models import Usage
from sleuth.toolkit.ledger import Source
from sleuth.toolkit.loop import ToolCallInfo

SCHEMA_VERSION = 1
SearchMode = Literal["native", "local", "directive"]


class Answer(BaseModel):
    schema_version: int = SCHEMA_VERSION
    answer: str
    citations: list[Source]
    flagged_citations: list[int] = Field(
        default_factory=list, description="ids the model cited that sleuth never issued"
    )
    tool_calls: list[ToolCallInfo] = Field(default_factory=list)
    native_searches: list[str] = Field(
        default_factory=list, description="queries the provider's own search ran"
    )
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    cost_estimated: bool = Field(
        False, description="the model is not in the price table; cost_usd is an estimate"
    )
    provider: str
    model: str
    search: SearchMode
    turns: int = 0
    stop_reason: str = "end"
