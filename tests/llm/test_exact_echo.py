"""An invalid tool call goes back to the provider exactly as the model made it.

The conversation the provider sees must be the one that happened: the
follow-up request echoes the assistant turn byte for byte (Chat Completions'
``arguments`` string, Responses' ``function_call`` item, Anthropic's ``input``,
Gemini's ``args`` with its id and thought signature, Ollama's message), then a
tool result that says what was wrong and that nothing ran. Each loopback server
speaks its provider's documented wire format (payloads_*.py); the loop, the
tools and the web behind them are real.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from llm import (
    payloads_anthropic,
    payloads_gemini,
    payloads_ollama,
    payloads_openai,
    payloads_responses,
    sections,
)
from llm.conftest import ASK_TOOLS
from loopback import Web
from search.wire import Reply, Wire
from sleuth.agent import ask
from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.llm import ChatRequest, Message, ToolCall, open_provider

ANSWER = "No page could be read, so there is nothing to cite."
# Not JSON (a trailing comma), in the model's own spacing.
NOT_JSON = '{"url":  "https://docs.example.com/a",}'
# JSON, compact and with an escape json.dumps would write differently, failing the schema.
OFF_SCHEMA = '{"url":"https://docs.example.com/caf\\u00e9","max_chars":1}'
OFF_SCHEMA_OBJECT = {"url": "https://docs.example.com/a", "max_chars": 1}


@pytest.fixture
def settings(web: Web, llm_settings: Callable[..., Settings]) -> Callable[[str], Settings]:
    def build(provider: str) -> Settings:
        values = web.settings().model_dump()
        values.update(llm_settings(provider).model_dump(exclude_unset=True))
        values["llm_search"] = "local"
        return Settings(**values)

    return build


def body(reply: Reply) -> Any:
    return json.loads(reply.body)


async def run(wire: Wire, path: str, settings: Settings, call: Reply, answer: Reply) -> Any:
    """Ask once with the scripted call then answer; return the follow-up request body."""
    wire.on(path, call, answer)
    async with AsyncSleuth(settings) as client:
        result = await ask(client, registry=ASK_TOOLS, question="What does the page say?")
    assert result.answer == ANSWER
    assert [(c.name, c.outcome) for c in result.tool_calls] == [("fetch_page", "invalid_arguments")]
    _, follow_up = (request.json for request in wire.to(path))
    return follow_up


def says_what_was_wrong(text: str, *fragments: str) -> None:
    assert "invalid arguments for fetch_page" in text
    assert "nothing ran" in text
    assert "JSON Schema" in text
    for fragment in fragments:
        assert fragment in text, (fragment, text)


@pytest.mark.parametrize(
    ("arguments", "fragments"),
    [
        (NOT_JSON, ["not valid JSON", "line 1 column", NOT_JSON]),
        (OFF_SCHEMA, ["max_chars", "greater than or equal"]),
    ],
)
async def test_openai_chat_echoes_the_arguments_string_byte_for_byte(
    wire: Wire, settings: Callable[[str], Settings], arguments: str, fragments: list[str]
) -> None:
    fmt = payloads_openai
    call = fmt.tool_call("call_Xk2", "fetch_page", arguments)
    follow_up = await run(wire, fmt.PATH, settings("openai"), call, fmt.answer(ANSWER))
    sent = body(call)["choices"][0]["message"]
    assistant, result = follow_up["messages"][2:4]
    assert assistant == {"role": "assistant", "content": None, "tool_calls": sent["tool_calls"]}
    assert assistant["tool_calls"][0]["function"]["arguments"] == arguments
    assert (result["role"], result["tool_call_id"]) == ("tool", "call_Xk2")
    says_what_was_wrong(result["content"], *fragments)


@pytest.mark.parametrize(
    ("arguments", "fragments"),
    [
        (NOT_JSON, ["not valid JSON", NOT_JSON]),
        (OFF_SCHEMA, ["max_chars", "greater than or equal"]),
    ],
)
async def test_responses_echoes_the_function_call_item(
    wire: Wire, settings: Callable[[str], Settings], arguments: str, fragments: list[str]
) -> None:
    fmt = payloads_responses
    call = fmt.tool_call("call_Rv7", "fetch_page", arguments)
    follow_up = await run(wire, fmt.PATH, settings("openai-responses"), call, fmt.answer(ANSWER))
    output = body(call)["output"]
    items = follow_up["input"]
    assert items[1 : 1 + len(output)] == output  # reasoning and function_call, unchanged
    assert items[2]["arguments"] == arguments
    result = items[1 + len(output)]
    assert (result["type"], result["call_id"]) == ("function_call_output", "call_Rv7")
    says_what_was_wrong(result["output"], *fragments)


async def test_anthropic_echoes_the_input_object(
    wire: Wire, settings: Callable[[str], Settings]
) -> None:
    fmt = payloads_anthropic
    call = fmt.tool_call("toolu_01Qm", "fetch_page", OFF_SCHEMA_OBJECT)
    follow_up = await run(wire, fmt.PATH, settings("anthropic"), call, fmt.answer(ANSWER))
    assistant, user = follow_up["messages"][1:3]
    assert assistant == {"role": "assistant", "content": body(call)["content"]}
    [result] = user["content"]
    assert (result["type"], result["tool_use_id"], result["is_error"]) == (
        "tool_result",
        "toolu_01Qm",
        True,
    )
    says_what_was_wrong(result["content"], "max_chars", "greater than or equal")


async def test_anthropic_echoes_an_input_that_is_not_an_object(
    wire: Wire, settings: Callable[[str], Settings]
) -> None:
    fmt = payloads_anthropic
    call = fmt.tool_call("toolu_01Qn", "fetch_page", '["https://docs.example.com/a"]')
    follow_up = await run(wire, fmt.PATH, settings("anthropic"), call, fmt.answer(ANSWER))
    assert follow_up["messages"][1]["content"] == body(call)["content"]
    [result] = follow_up["messages"][2]["content"]
    says_what_was_wrong(result["content"], "must be a JSON object, not list")


async def test_gemini_echoes_args_id_and_thought_signature(
    wire: Wire, settings: Callable[[str], Settings]
) -> None:
    fmt = payloads_gemini
    call = fmt.tool_call("fc-8a1c", "fetch_page", OFF_SCHEMA_OBJECT)
    follow_up = await run(wire, fmt.PATH, settings("gemini"), call, fmt.answer(ANSWER))
    sent_parts = body(call)["candidates"][0]["content"]["parts"]
    model_turn, user_turn = follow_up["contents"][1:3]
    assert model_turn == {"role": "model", "parts": sent_parts}
    assert model_turn["parts"][0]["thoughtSignature"] == fmt.SIGNATURE
    assert model_turn["parts"][0]["functionCall"]["id"] == "fc-8a1c"
    [part] = user_turn["parts"]
    response = part["functionResponse"]
    assert (response["id"], response["name"]) == ("fc-8a1c", "fetch_page")
    says_what_was_wrong(response["response"]["error"], "max_chars")


async def test_gemini_echoes_args_that_are_not_an_object(
    wire: Wire, settings: Callable[[str], Settings]
) -> None:
    fmt = payloads_gemini
    call = fmt.tool_call("fc-8a1d", "fetch_page", "https://docs.example.com/a")
    follow_up = await run(wire, fmt.PATH, settings("gemini"), call, fmt.answer(ANSWER))
    sent_parts = body(call)["candidates"][0]["content"]["parts"]
    assert follow_up["contents"][1]["parts"] == sent_parts
    error = follow_up["contents"][2]["parts"][0]["functionResponse"]["response"]["error"]
    says_what_was_wrong(error, "not valid JSON")


async def test_ollama_echoes_the_message_as_received(
    wire: Wire, settings: Callable[[str], Settings]
) -> None:
    fmt = payloads_ollama
    call = fmt.tool_call("call_o9", "fetch_page", OFF_SCHEMA_OBJECT)
    follow_up = await run(wire, fmt.PATH, settings("ollama"), call, fmt.answer(ANSWER))
    assistant, result = follow_up["messages"][2:4]
    assert assistant == body(call)["message"]
    assert (result["role"], result["tool_name"]) == ("tool", "fetch_page")
    says_what_was_wrong(result["content"], "max_chars")


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "ollama", "gemini"])
async def test_a_rebuilt_turn_keeps_the_raw_arguments(
    provider: str, llm_settings: Callable[..., Settings]
) -> None:
    """Without native state (a conversation carried over), the raw arguments still go back."""
    raw: Any = NOT_JSON if provider in ("openai", "openai-responses") else {"url": 5}
    call = ToolCall("c1", "fetch_page", {}, error="bad", raw=raw)
    messages = [
        Message("user", "q"),
        Message("assistant", "", tool_calls=[call]),
        Message("tool", "error", tool_call_id="c1", name="fetch_page", is_error=True),
    ]
    llm, _ = open_provider(*sections(llm_settings(provider)))
    _, wire_body, _ = llm.build(ChatRequest(messages))
    await llm.aclose()
    text = json.dumps(wire_body)
    if isinstance(raw, str):
        assert json.dumps(raw) in text  # the very string, as one JSON string value
    else:
        assert '"arguments": {"url": 5}' in text or '"args": {"url": 5}' in text
