"""A failed MCP tool call in the MCP surface's one error shape: the code, the message with
its hint in field words (never a CLI flag), and the advice of the code's row."""

from __future__ import annotations

import pytest
from mcp.types import TextContent

from sleuth import errors
from sleuth.errors import ERRORS
from sleuth.pages.result import ErrorInfo
from sleuth.server.mcp import OTHER_ADVICE, to_result
from sleuth.tools import CallRecord, ToolOutput


def _failed(error: errors.SleuthError) -> str:
    info = ErrorInfo.from_error(error)  # as the registry records a call that raised
    output = ToolOutput(text=f"error {info.code}: {info.message}", error=info)
    record = CallRecord("fetch_page", {}, info.code, 1, output)
    result = to_result(record)
    assert result.is_error
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


@pytest.mark.parametrize(
    ("error", "field_words"),
    [
        (errors.JSRequired("the page is empty without scripts"), 'render: "always"'),
        (errors.LLMTurnLimit("the model wanted more tools"), "max_turns"),
        (errors.VerificationFailed("no such repository"), 'from: "BUILDER:SOURCE"'),
    ],
)
def test_an_error_result_names_fields_and_gives_its_rows_advice(
    error: errors.SleuthError, field_words: str
) -> None:
    text = _failed(error)
    assert text.startswith(f"error {error.code}: {error.message}")
    assert field_words in text
    assert "--" not in text
    assert text.endswith(f"What to do: {ERRORS[error.code].advice or OTHER_ADVICE}")


def test_a_robots_refusal_does_not_offer_an_override_a_model_cannot_use() -> None:
    text = _failed(errors.RobotsDisallowed("robots.txt disallows /private"))
    assert "ignore" not in text
    assert ERRORS["robots_disallowed"].advice in text
