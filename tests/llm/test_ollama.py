"""The native Ollama provider against a loopback server speaking ``/api/chat``."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from llm import payloads_ollama as wire_format
from llm import sections
from llm.conftest import Sleeps
from llm.specs import FETCH, SEARCH
from search.wire import Reply, Wire
from sleuth.config import Settings
from sleuth.errors import (
    LLMInvalidRequest,
    LLMRateLimited,
    LLMServerError,
    LLMToolsUnsupported,
    MalformedReply,
    ReplayMiss,
)
from sleuth.llm import (
    ChatRequest,
    Completion,
    Message,
    Provider,
    StopReason,
    ToolCall,
    ToolSpec,
    open_provider,
)

NAME = "ollama"
THOUGHT = "The user wants recent changes; I should search first."


def nested(tool: ToolSpec) -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


async def test_tool_call_follow_up_and_answer(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    calling = wire_format.tool_calls(
        wire_format.call("web_search", {"query": "python 3.13"}), thinking=THOUGHT
    )
    wire.on(
        wire_format.PATH,
        calling,
        wire_format.answer("Python 3.13 adds a free-threaded build [1].", thinking="Easy."),
    )
    provider, config = open_provider(*sections(llm_settings(NAME, llm_api_key=None)))
    assert config.local
    assert config.model == "test-model"
    messages = [Message("system", "be brief"), Message("user", "what is new?")]
    first = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    # Ollama says done_reason "stop" while calling a tool.
    assert json.loads(calling.body)["done_reason"] == "stop"
    assert first.stop_reason is StopReason.TOOL_CALLS
    assert first.message.content == ""
    assert first.message.tool_calls == [
        ToolCall("ollama-call-0", "web_search", {"query": "python 3.13"})
    ]
    assert (first.usage.input_tokens, first.usage.output_tokens) == (412, 31)
    assert first.model == wire_format.MODEL

    messages += [
        first.message,
        Message("tool", "[1] result", tool_call_id="ollama-call-0", name="web_search"),
    ]
    final = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    assert final.stop_reason is StopReason.END
    assert final.message.content == "Python 3.13 adds a free-threaded build [1]."
    assert "Easy." not in final.message.content
    assert final.message.native["thinking"] == "Easy."
    assert (final.usage.input_tokens, final.usage.output_tokens) == (598, 57)
    await provider.aclose()

    first_request, follow_request = wire.to(wire_format.PATH)
    assert first_request.header("authorization") is None
    assert first_request.json == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "what is new?"},
        ],
        "stream": False,
        "options": {"num_predict": 2048},
        "tools": [nested(SEARCH)],
    }
    follow_up = follow_request.json
    assert follow_up["messages"][2] == {
        "role": "assistant",
        "content": "",
        "thinking": THOUGHT,
        "tool_calls": [{"function": {"name": "web_search", "arguments": {"query": "python 3.13"}}}],
    }
    assert follow_up["messages"][3] == {
        "role": "tool",
        "content": "[1] result",
        "tool_name": "web_search",
    }
    assert len(follow_up["messages"]) == 4


async def test_ids_are_made_up_by_position_unless_the_server_sent_one(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_calls(
            wire_format.call("fetch", {"url": "https://a.example/"}),
            wire_format.call("fetch", {"url": "https://b.example/"}),
        ),
        wire_format.tool_call("call_7fx2k9qa", "web_search", {"query": "q"}),
    )
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    request = ChatRequest([Message("user", "compare a and b")], tools=[FETCH, SEARCH])
    first = await provider.complete(request)
    again = await provider.complete(request)
    await provider.aclose()
    assert first.stop_reason is StopReason.TOOL_CALLS
    assert [(call.id, call.arguments["url"]) for call in first.message.tool_calls] == [
        ("ollama-call-0", "https://a.example/"),
        ("ollama-call-1", "https://b.example/"),
    ]
    assert [call.id for call in again.message.tool_calls] == ["call_7fx2k9qa"]


async def test_turns_without_native_are_rebuilt(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    messages = [
        Message("user", "compare"),
        Message(
            "assistant",
            "",
            tool_calls=[
                ToolCall("a", "fetch", {"url": "https://a.example/"}),
                ToolCall("b", "web_search", {"query": "b"}),
            ],
        ),
        Message("tool", "page a", tool_call_id="a", name="fetch"),
        Message("tool", "no results", tool_call_id="b", is_error=True),  # no name: found by id
        Message("assistant", "Both read."),
        Message("user", "and now?"),
    ]
    request = ChatRequest(messages, tools=[FETCH], temperature=0.3, max_output_tokens=512)
    await provider.complete(request)
    await provider.aclose()
    [sent] = wire.to(wire_format.PATH)
    assert sent.header("authorization") == "Bearer sk-test-key"  # hosted Ollama takes a key
    assert sent.json["options"] == {"num_predict": 512, "temperature": 0.3}
    assert sent.json["messages"] == [
        {"role": "user", "content": "compare"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "fetch", "arguments": {"url": "https://a.example/"}}},
                {"function": {"name": "web_search", "arguments": {"query": "b"}}},
            ],
        },
        {"role": "tool", "content": "page a", "tool_name": "fetch"},
        {"role": "tool", "content": "no results", "tool_name": "web_search"},
        {"role": "assistant", "content": "Both read."},
        {"role": "user", "content": "and now?"},
    ]


async def test_native_search_is_ignored(wire: Wire, llm_settings: Callable[..., Settings]) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    assert provider.native_search is None
    completion = await provider.complete(
        ChatRequest([Message("user", "q")], tools=[SEARCH], native_search=True)
    )
    await provider.aclose()
    assert completion.usage.web_search_requests == 0
    assert completion.sources == []
    [sent] = wire.to(wire_format.PATH)
    assert sent.json["tools"] == [nested(SEARCH)]


async def test_length_is_max_tokens(wire: Wire, llm_settings: Callable[..., Settings]) -> None:
    wire.on(wire_format.PATH, wire_format.answer("Python 3.13 adds", done_reason="length"))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.stop_reason is StopReason.MAX_TOKENS
    assert completion.message.content == "Python 3.13 adds"


@pytest.mark.parametrize(
    ("raw", "error"),
    [('{"query": "x', "not valid JSON"), (["x"], "must be a JSON object")],
)
async def test_arguments_that_are_not_an_object_are_flagged_not_raised(
    wire: Wire, llm_settings: Callable[..., Settings], raw: object, error: str
) -> None:
    wire.on(
        wire_format.PATH, wire_format.tool_calls({"function": {"name": "fetch", "arguments": raw}})
    )
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    completion = await provider.complete(ChatRequest([Message("user", "q")], tools=[FETCH]))
    await provider.aclose()
    [call] = completion.message.tool_calls
    assert (call.id, call.name, call.arguments) == ("ollama-call-0", "fetch", {})
    assert call.error is not None
    assert error in call.error


async def test_a_model_without_tools_is_not_retried(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.tools_unsupported("gemma:2b"))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_model="gemma:2b")), sleep=sleeps)
    with pytest.raises(LLMToolsUnsupported) as caught:
        await provider.complete(ChatRequest([Message("user", "q")], tools=[SEARCH]))
    await provider.aclose()
    assert caught.value.status == 400
    assert "gemma:2b does not support tools" in caught.value.message
    assert not caught.value.retryable
    assert len(wire.to(wire_format.PATH)) == 1
    assert sleeps.waits == []


async def test_a_missing_model_names_it_and_how_to_pull_it(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.not_found("llama9"))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_model="llama9")), sleep=sleeps)
    with pytest.raises(LLMInvalidRequest) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    error = caught.value
    assert type(error) is LLMInvalidRequest
    assert error.status == 404
    assert 'model "llama9" not found' in error.message
    assert "ollama pull llama9" in error.hint
    assert "ollama pull llama9" in str(error)
    assert len(wire.to(wire_format.PATH)) == 1
    assert sleeps.waits == []


async def test_a_base_url_that_is_not_ollama_says_so(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    # Ollama's router answers an unknown path with a plain-text 404.
    wire.on("/v1" + wire_format.PATH, Reply(404, "404 page not found", "text/plain"))
    provider, _ = open_provider(*sections(llm_settings(NAME, prefix="/v1")), sleep=sleeps)
    with pytest.raises(LLMInvalidRequest) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert "404 page not found" in caught.value.message
    assert "no /v1" in caught.value.hint
    assert "ollama pull" not in caught.value.hint
    assert len(wire.to("/v1" + wire_format.PATH)) == 1
    assert sleeps.waits == []


async def test_429_is_retried_after_the_servers_delay(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(4), wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings(NAME)), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "done"
    assert sleeps.waits == [4.0]
    assert len(wire.to(wire_format.PATH)) == 2


async def test_429_that_persists_ends_as_rate_limited(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(1))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_retries=2)), sleep=sleeps)
    with pytest.raises(LLMRateLimited) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert caught.value.retryable
    assert caught.value.status == 429
    assert len(wire.to(wire_format.PATH)) == 3
    assert sleeps.waits == [1.0, 1.0]


async def test_server_errors_are_retried(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.error(500, "llama runner process has terminated: exit status 2"),
        wire_format.error(503, "server busy, please try again.  maximum pending requests exceeded"),
        wire_format.answer("done"),
    )
    provider, _ = open_provider(*sections(llm_settings(NAME)), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "done"
    assert len(wire.to(wire_format.PATH)) == 3
    assert len(sleeps.waits) == 2


async def test_server_errors_that_persist_end_as_server_errors(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.error(500, "llama runner process has terminated"))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_retries=1)), sleep=sleeps)
    with pytest.raises(LLMServerError) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert caught.value.retryable
    assert caught.value.status == 500
    assert "llama runner process has terminated" in caught.value.message
    assert len(wire.to(wire_format.PATH)) == 2
    assert len(sleeps.waits) == 1


async def test_malformed_reply_keeps_the_raw_body(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.malformed())
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    with pytest.raises(MalformedReply) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    raw = json.loads(caught.value.raw)
    assert raw["model"] == wire_format.MODEL
    assert raw["done"] is True
    assert "message" not in raw
    assert "message" in caught.value.message
    assert caught.value.provider == NAME


async def _conversation(provider: Provider, question: str = "what is new?") -> list[Completion]:
    messages = [Message("system", "be brief"), Message("user", question)]
    first = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    [call] = first.message.tool_calls
    messages += [
        first.message,
        Message("tool", "[1] result", tool_call_id=call.id, name=call.name),
    ]
    final = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    await provider.aclose()
    return [first, final]


def _script(wire: Wire) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_calls(
            wire_format.call("web_search", {"query": "python 3.13"}), thinking=THOUGHT
        ),
        wire_format.answer("Python 3.13 adds a free-threaded build [1]."),
    )


async def test_a_recorded_conversation_replays_without_the_server(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    _script(wire)
    settings = llm_settings(NAME, llm_record="record")
    recorded = await _conversation(open_provider(*sections(settings))[0])
    assert len(wire.requests) == 2
    assert len(list((settings.llm_cassette_dir / NAME).glob("*.json"))) == 2

    wire.routes.clear()
    replayed = await _conversation(
        open_provider(*sections(llm_settings(NAME, llm_record="replay")))[0]
    )
    assert replayed == recorded
    assert replayed[0].message.tool_calls[0].id == "ollama-call-0"
    assert replayed[1].message.content == "Python 3.13 adds a free-threaded build [1]."
    assert len(wire.requests) == 2


async def test_a_changed_request_misses_in_replay(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    _script(wire)
    await _conversation(open_provider(*sections(llm_settings(NAME, llm_record="record")))[0])
    wire.routes.clear()
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_record="replay")))
    with pytest.raises(ReplayMiss) as caught:
        await _conversation(provider, "what changed in 3.14?")
    await provider.aclose()
    shown = caught.value.message
    assert '"path": "/api/chat"' in shown
    assert "what changed in 3.14?" in shown
    assert caught.value.request in shown
    assert len(wire.requests) == 2
