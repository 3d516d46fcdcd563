"""The Chat Completions provider against a loopback server speaking its wire format."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from llm import payloads_openai as wire_format
from llm import sections
from llm.conftest import Sleeps
from llm.specs import SEARCH
from search.wire import Wire
from sleuth.config import Settings
from sleuth.errors import (
    LLMAuthError,
    LLMContextLength,
    LLMQuotaExceeded,
    LLMRateLimited,
    LLMToolsUnsupported,
    MalformedReply,
)
from sleuth.llm import ChatRequest, Message, StopReason, open_provider


async def test_tool_call_follow_up_and_answer(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_call("call_abc123", "web_search", {"query": "python 3.13"}),
        wire_format.answer("Python 3.13 adds a free-threaded build [1]."),
    )
    provider, config = open_provider(*sections(llm_settings("openai")))
    assert config.local
    assert config.model == "test-model"
    messages = [Message("system", "be brief"), Message("user", "what is new?")]
    first = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    assert first.stop_reason is StopReason.TOOL_CALLS
    [call] = first.message.tool_calls
    assert (call.id, call.name, call.arguments, call.error) == (
        "call_abc123",
        "web_search",
        {"query": "python 3.13"},
        None,
    )
    assert first.usage.input_tokens == 1117
    assert first.usage.cached_tokens == 1024
    assert first.usage.reasoning_tokens == 12

    messages += [first.message, Message("tool", "[1] result", tool_call_id="call_abc123")]
    final = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    assert final.stop_reason is StopReason.END
    assert final.message.content == "Python 3.13 adds a free-threaded build [1]."
    await provider.aclose()

    first_body, follow_up = (request.json for request in wire.to(wire_format.PATH))
    assert first_body["model"] == "test-model"
    assert first_body["max_tokens"] == 2048  # a compatible server, not api.openai.com
    assert first_body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "web_search",
            "description": "Search the web",
            "parameters": SEARCH.parameters,
        },
    }
    assert follow_up["messages"][2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_abc123",
                "type": "function",
                "function": {"name": "web_search", "arguments": '{"query": "python 3.13"}'},
            }
        ],
    }
    assert follow_up["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_abc123",
        "content": "[1] result",
    }
    assert wire.to(wire_format.PATH)[0].header("authorization") == "Bearer sk-test-key"


async def test_arguments_that_are_not_json_are_flagged_not_raised(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.tool_call("call_1", "web_search", '{"query": "x'))
    provider, _ = open_provider(*sections(llm_settings("openai")))
    completion = await provider.complete(ChatRequest([Message("user", "q")], tools=[SEARCH]))
    [call] = completion.message.tool_calls
    assert call.arguments == {}
    assert call.error is not None
    assert "not valid JSON" in call.error
    await provider.aclose()


async def test_429_is_retried_after_the_servers_delay(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(7), wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings("openai")), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    assert completion.message.content == "done"
    assert sleeps.waits == [7.0]
    assert len(wire.to(wire_format.PATH)) == 2
    await provider.aclose()


async def test_429_that_persists_ends_as_rate_limited(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(1))
    provider, _ = open_provider(*sections(llm_settings("openai", llm_retries=2)), sleep=sleeps)
    with pytest.raises(LLMRateLimited) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    assert caught.value.retryable
    assert caught.value.status == 429
    assert len(wire.to(wire_format.PATH)) == 3
    assert sleeps.waits == [1.0, 1.0]
    await provider.aclose()


async def test_malformed_reply_keeps_the_raw_body(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.malformed())
    provider, _ = open_provider(*sections(llm_settings("openai")))
    with pytest.raises(MalformedReply) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    assert '"choices": []' in caught.value.raw
    await provider.aclose()


@pytest.mark.parametrize(
    ("status", "message", "kind", "code", "error"),
    [
        (
            429,
            "You exceeded your current quota",
            "insufficient_quota",
            "insufficient_quota",
            LLMQuotaExceeded,
        ),
        (
            401,
            "Incorrect API key provided: sk-test",
            "invalid_request_error",
            "invalid_api_key",
            LLMAuthError,
        ),
        (
            400,
            "This model's maximum context length is 128000 tokens.",
            "invalid_request_error",
            "context_length_exceeded",
            LLMContextLength,
        ),
        (
            400,
            "registry.ollama.ai/library/gemma:2b does not support tools",
            "api_error",
            None,
            LLMToolsUnsupported,
        ),
        (500, "tools param requires --jinja flag", "server_error", None, LLMToolsUnsupported),
    ],
)
async def test_permanent_errors_are_not_retried(
    wire: Wire,
    llm_settings: Callable[..., Settings],
    sleeps: Sleeps,
    status: int,
    message: str,
    kind: str,
    code: str | None,
    error: type[Exception],
) -> None:
    wire.on(wire_format.PATH, wire_format.error(status, message, kind, code))
    provider, _ = open_provider(*sections(llm_settings("openai")), sleep=sleeps)
    with pytest.raises(error) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    assert type(caught.value) is error
    assert len(wire.to(wire_format.PATH)) == 1
    assert sleeps.waits == []
    await provider.aclose()
