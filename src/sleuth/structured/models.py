"""The answer of a fill, as every surface shows it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

Reason = Literal["no_quote", "quote_not_found", "value_not_in_quote", "not_in_schema", "conflict"]


class FieldEvidence(BaseModel):
    path: str  # an RFC 6901 JSON Pointer into ``data``
    value: Any
    quote: str
    matched: Literal["value", "quote"]  # "quote": a boolean or a choice, the value not sought
    url: str
    locator: str


class Proposal(BaseModel):
    """One of the values a conflict is between, with what the model quoted for it."""

    value: Any
    quote: str
    url: str


class Unsupported(BaseModel):
    path: str
    reason: Reason
    quotes: list[Proposal] = Field(default_factory=list)  # a conflict's sides

    @model_serializer(mode="wrap")
    def _without_empty_quotes(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("quotes"):
            data.pop("quotes", None)
        return data


class PageRead(BaseModel):
    url: str
    outcome: str  # "ok", a read's outcome (http_error ...), or "malformed_reply"


class FillUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0


class FillAnswer(BaseModel):
    data: dict[str, Any]
    evidence: list[FieldEvidence] = Field(default_factory=list)
    unsupported: list[Unsupported] = Field(default_factory=list)
    sources: list[PageRead] = Field(default_factory=list)
    usage: FillUsage = Field(default_factory=FillUsage)
    outcome: Literal["ok", "incomplete"] = "ok"
