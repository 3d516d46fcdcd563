"""The Responses API provider against a loopback server speaking its wire format."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from llm import payloads_responses as wire_format
from llm import sections
from llm.conftest import Sleeps
from llm.specs import FETCH, SEARCH
from search.wire import Wire
from sleuth.config import Settings
from sleuth.errors import (
    LLMAuthError,
    LLMContextLength,
    LLMInvalidRequest,
    LLMQuotaExceeded,
    LLMRateLimited,
    LLMServerError,
    MalformedReply,
    ReplayMiss,
)
from sleuth.llm import (
    Annotation,
    ChatRequest,
    Completion,
    Message,
    NativeSource,
    Provider,
    StopReason,
    ToolCall,
    ToolSpec,
    open_provider,
)

NAME = "openai-responses"


def flat(tool: ToolSpec) -> dict[str, object]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,
    }


async def test_tool_call_follow_up_and_answer(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    path = "/v1" + wire_format.PATH  # the base URL ends in /v1, as OpenAI's does
    wire.on(
        path,
        wire_format.tool_call("call_Qz8mN3pL1vX7", "web_search", {"query": "python 3.13"}),
        wire_format.answer("Python 3.13 adds a free-threaded build [1]."),
    )
    provider, config = open_provider(*sections(llm_settings(NAME, prefix="/v1")))
    assert config.base_url.endswith("/v1")
    messages = [
        Message("system", "be brief"),
        Message("system", "cite sources"),
        Message("user", "what is new?"),
    ]
    first = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    assert first.stop_reason is StopReason.TOOL_CALLS
    assert first.message.content == ""
    [call] = first.message.tool_calls
    assert call == ToolCall("call_Qz8mN3pL1vX7", "web_search", {"query": "python 3.13"})
    usage = first.usage
    assert (usage.input_tokens, usage.output_tokens) == (1210, 188)
    assert (usage.cached_tokens, usage.reasoning_tokens, usage.web_search_requests) == (
        1024,
        128,
        0,
    )
    assert first.model == wire_format.MODEL

    messages += [
        first.message,
        Message("tool", "[1] result", tool_call_id=call.id, name="web_search"),
    ]
    final = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    assert final.stop_reason is StopReason.END
    assert final.message.content == "Python 3.13 adds a free-threaded build [1]."
    assert final.message.tool_calls == []
    await provider.aclose()

    first_request, follow_request = wire.to(path)
    first_body, follow_up = first_request.json, follow_request.json
    assert first_body == {
        "model": "test-model",
        "input": [{"role": "user", "content": "what is new?"}],
        "max_output_tokens": 2048,
        "instructions": "be brief\n\ncite sources",
        "tools": [flat(SEARCH)],
    }
    assert follow_up["instructions"] == "be brief\n\ncite sources"
    assert follow_up["input"] == [
        {"role": "user", "content": "what is new?"},
        {"id": wire_format.item_id("rs", "call_Qz8mN3pL1vX7"), "type": "reasoning", "summary": []},
        {
            "id": wire_format.item_id("fc", "call_Qz8mN3pL1vX7"),
            "type": "function_call",
            "status": "completed",
            "arguments": '{"query": "python 3.13"}',
            "call_id": "call_Qz8mN3pL1vX7",
            "name": "web_search",
        },
        {"type": "function_call_output", "call_id": "call_Qz8mN3pL1vX7", "output": "[1] result"},
    ]
    assert first_request.header("authorization") == "Bearer sk-test-key"


async def test_assistant_turns_without_native_are_rebuilt(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_api_key=None)))
    messages = [
        Message("user", "compare"),
        Message(
            "assistant", "Let me look.", tool_calls=[ToolCall("call_a", "fetch", {"url": "u"})]
        ),
        Message("tool", "page a", tool_call_id="call_a", name="fetch", is_error=False),
        Message("assistant", "", tool_calls=[ToolCall("call_b", "fetch", {"url": "v"})]),
        Message("tool", "fetch failed: 404", tool_call_id="call_b", name="fetch", is_error=True),
        Message("assistant", "Both read."),
        Message("user", "and now?"),
    ]
    await provider.complete(ChatRequest(messages, tools=[FETCH], temperature=0.2))
    await provider.aclose()
    [request] = wire.to(wire_format.PATH)
    assert request.header("authorization") is None
    body = request.json
    assert body["temperature"] == 0.2
    assert "instructions" not in body
    assert body["input"] == [
        {"role": "user", "content": "compare"},
        {"role": "assistant", "content": "Let me look."},
        {
            "type": "function_call",
            "call_id": "call_a",
            "name": "fetch",
            "arguments": '{"url": "u"}',
        },
        {"type": "function_call_output", "call_id": "call_a", "output": "page a"},
        {
            "type": "function_call",
            "call_id": "call_b",
            "name": "fetch",
            "arguments": '{"url": "v"}',
        },
        {"type": "function_call_output", "call_id": "call_b", "output": "fetch failed: 404"},
        {"role": "assistant", "content": "Both read."},
        {"role": "user", "content": "and now?"},
    ]


async def test_native_search_citations_sources_and_echo(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.searched_answer(), wire_format.answer("You're welcome."))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    assert provider.native_search == "web_search"
    messages = [Message("user", "what is new in python 3.13?")]
    request = ChatRequest(messages, tools=[SEARCH, FETCH], native_search=True)
    completion = await provider.complete(request)

    first, second = wire_format.FIRST_PART, wire_format.SECOND_PART
    content = completion.message.content
    assert content == first + second
    assert completion.stop_reason is StopReason.END
    first_end = first.index(wire_format.FIRST_CITED) + len(wire_format.FIRST_CITED)
    second_end = len(first) + second.index(wire_format.SECOND_CITED) + len(wire_format.SECOND_CITED)
    assert completion.annotations == [
        Annotation(
            first_end,
            NativeSource(
                wire_format.PEP_703, "PEP 703 – Making the GIL Optional", wire_format.FIRST_CITED
            ),
        ),
        Annotation(
            second_end,
            NativeSource(
                wire_format.WHATS_NEW, "What's New In Python 3.13", wire_format.SECOND_CITED
            ),
        ),
    ]
    for note in completion.annotations:  # each end lands right after its quote in the answer
        assert content[note.end - len(note.source.quote) : note.end] == note.source.quote
    assert completion.sources == [
        NativeSource(wire_format.PEP_703, "PEP 703 – Making the GIL Optional"),
        NativeSource(wire_format.WHATS_NEW, "What's New In Python 3.13"),
        NativeSource(wire_format.RELEASE),
    ]
    assert completion.searches == [
        "python 3.13 what's new",
        "PEP 703 free-threaded CPython",
        "python 3.13 no GIL build",
    ]
    # Two searches are billed; opening a page is not a search.
    assert completion.usage.web_search_requests == 2

    messages += [completion.message, Message("user", "thanks")]
    await provider.complete(ChatRequest(messages, tools=[SEARCH, FETCH], native_search=True))
    await provider.aclose()

    first_body, follow_up = (sent.json for sent in wire.to(wire_format.PATH))
    assert first_body["tools"] == [flat(FETCH), {"type": "web_search"}]
    assert first_body["include"] == ["web_search_call.action.sources"]
    output = json.loads(wire_format.searched_answer().body)["output"]
    assert [item["type"] for item in output] == [
        "reasoning",
        "web_search_call",
        "reasoning",
        "web_search_call",
        "web_search_call",
        "message",
    ]
    assert follow_up["input"] == [
        {"role": "user", "content": "what is new in python 3.13?"},
        *output,
        {"role": "user", "content": "thanks"},
    ]


async def test_without_native_search_a_web_search_function_stays(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    await provider.complete(ChatRequest([Message("user", "q")], tools=[SEARCH]))
    await provider.aclose()
    [request] = wire.to(wire_format.PATH)
    assert request.json["tools"] == [flat(SEARCH)]
    assert "include" not in request.json


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        ("max_output_tokens", StopReason.MAX_TOKENS),
        ("content_filter", StopReason.CONTENT_FILTER),
    ],
)
async def test_incomplete_replies_say_why(
    wire: Wire, llm_settings: Callable[..., Settings], reason: str, stop: StopReason
) -> None:
    wire.on(wire_format.PATH, wire_format.truncated("Python 3.13 adds", reason))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    assert completion.stop_reason is stop
    assert completion.message.content == "Python 3.13 adds"
    await provider.aclose()


@pytest.mark.parametrize(
    ("raw", "error"),
    [('{"query": "x', "not valid JSON"), ('["x"]', "must be a JSON object")],
)
async def test_arguments_that_are_not_an_object_are_flagged_not_raised(
    wire: Wire, llm_settings: Callable[..., Settings], raw: str, error: str
) -> None:
    wire.on(wire_format.PATH, wire_format.tool_call("call_1", "web_search", raw))
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    completion = await provider.complete(ChatRequest([Message("user", "q")], tools=[SEARCH]))
    assert completion.stop_reason is StopReason.TOOL_CALLS
    [call] = completion.message.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "web_search", {})
    assert call.error is not None
    assert error in call.error
    await provider.aclose()


async def test_429_is_retried_after_the_servers_delay_in_milliseconds(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    limited = wire_format.error(
        429,
        "Rate limit reached for requests",
        "requests",
        "rate_limit_exceeded",
        {"retry-after-ms": "1500", "retry-after": "2"},
    )
    wire.on(wire_format.PATH, limited, wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings(NAME)), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    assert completion.message.content == "done"
    assert sleeps.waits == [1.5]
    assert len(wire.to(wire_format.PATH)) == 2
    await provider.aclose()


async def test_429_that_persists_ends_as_rate_limited(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(3))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_retries=2)), sleep=sleeps)
    with pytest.raises(LLMRateLimited) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    assert caught.value.retryable
    assert caught.value.status == 429
    assert caught.value.provider == NAME
    assert len(wire.to(wire_format.PATH)) == 3
    assert sleeps.waits == [3.0, 3.0]
    await provider.aclose()


async def test_server_errors_are_retried(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.error(
            500,
            "The server had an error while processing your request. Sorry about that!",
            "server_error",
            None,
        ),
        wire_format.error(
            503, "The engine is currently overloaded, please try again later", "server_error", None
        ),
        wire_format.answer("done"),
    )
    provider, _ = open_provider(*sections(llm_settings(NAME)), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    assert completion.message.content == "done"
    assert len(wire.to(wire_format.PATH)) == 3
    assert len(sleeps.waits) == 2
    await provider.aclose()


async def test_server_errors_that_persist_end_as_server_errors(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.error(500, "internal error", "server_error", None))
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_retries=1)), sleep=sleeps)
    with pytest.raises(LLMServerError) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    assert caught.value.status == 500
    assert "internal error" in caught.value.message
    assert len(wire.to(wire_format.PATH)) == 2
    assert len(sleeps.waits) == 1
    await provider.aclose()


@pytest.mark.parametrize(
    ("status", "message", "kind", "code", "error"),
    [
        (
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
            LLMQuotaExceeded,
        ),
        (
            401,
            "Incorrect API key provided: sk-test. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
            LLMAuthError,
        ),
        (
            400,
            "Your input exceeds the context window of this model. Please adjust your input "
            "and try again.",
            "invalid_request_error",
            "context_length_exceeded",
            LLMContextLength,
        ),
        (
            400,
            "The requested model 'gpt-9' does not exist.",
            "invalid_request_error",
            "model_not_found",
            LLMInvalidRequest,
        ),
    ],
)
async def test_permanent_errors_are_not_retried(
    wire: Wire,
    llm_settings: Callable[..., Settings],
    sleeps: Sleeps,
    status: int,
    message: str,
    kind: str,
    code: str,
    error: type[Exception],
) -> None:
    wire.on(wire_format.PATH, wire_format.error(status, message, kind, code))
    provider, _ = open_provider(*sections(llm_settings(NAME)), sleep=sleeps)
    with pytest.raises(error) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    assert type(caught.value) is error
    assert caught.value.status == status
    assert message in str(caught.value)
    assert len(wire.to(wire_format.PATH)) == 1
    assert sleeps.waits == []
    await provider.aclose()


async def test_malformed_reply_keeps_the_raw_body(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.malformed())
    provider, _ = open_provider(*sections(llm_settings(NAME)))
    with pytest.raises(MalformedReply) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    raw = json.loads(caught.value.raw)
    assert raw["id"] == wire_format.RESPONSE_ID
    assert "output" not in raw
    assert "output" in caught.value.message
    assert caught.value.provider == NAME
    await provider.aclose()


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


async def test_a_recorded_conversation_replays_without_the_server(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_call("call_Qz8mN3pL1vX7", "web_search", {"query": "python 3.13"}),
        wire_format.answer("Python 3.13 adds a free-threaded build [1]."),
    )
    settings = llm_settings(NAME, llm_record="record")
    recorded = await _conversation(open_provider(*sections(settings))[0])
    assert len(wire.requests) == 2
    assert len(list((settings.llm_cassette_dir / NAME).glob("*.json"))) == 2

    wire.routes.clear()
    replayed = await _conversation(
        open_provider(*sections(llm_settings(NAME, llm_record="replay")))[0]
    )
    assert replayed == recorded
    assert replayed[1].message.content == "Python 3.13 adds a free-threaded build [1]."
    assert len(wire.requests) == 2


async def test_a_changed_request_misses_in_replay(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_call("call_Qz8mN3pL1vX7", "web_search", {"query": "python 3.13"}),
        wire_format.answer("done"),
    )
    await _conversation(open_provider(*sections(llm_settings(NAME, llm_record="record")))[0])
    wire.routes.clear()
    provider, _ = open_provider(*sections(llm_settings(NAME, llm_record="replay")))
    with pytest.raises(ReplayMiss) as caught:
        await _conversation(provider, "what changed in 3.14?")
    await provider.aclose()
    shown = caught.value.message
    assert '"path": "/responses"' in shown
    assert "what changed in 3.14?" in shown
    assert caught.value.request in shown
    assert len(wire.requests) == 2
