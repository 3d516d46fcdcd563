"""The Anthropic Messages provider against a loopback server speaking its wire format."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

import pytest

from llm import payloads_anthropic as wire_format
from llm import sections
from llm.conftest import Sleeps
from llm.specs import FETCH, SEARCH
from search.wire import Wire
from sleuth.config import Settings
from sleuth.errors import (
    LLMAuthError,
    LLMContextLength,
    LLMInvalidRequest,
    LLMOverloaded,
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
    StopReason,
    ToolCall,
    open_provider,
)


async def _conversation(settings: Settings) -> tuple[list[Completion], list[Message]]:
    """Two parallel calls (one fails), their results, then the final answer."""
    provider, _ = open_provider(*sections(settings))
    messages = [Message("system", "be brief"), Message("user", "what is new in 3.13?")]
    request = ChatRequest(messages, tools=[SEARCH, FETCH], temperature=0.2)
    first = await provider.complete(request)
    messages += [
        first.message,
        Message(
            "tool",
            "[1] python.org",
            tool_call_id="toolu_01A09q90qw90lq917835lq9",
            name="web_search",
        ),
        Message(
            "tool",
            "fetch failed: 403",
            tool_call_id="toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            name="fetch",
            is_error=True,
        ),
    ]
    final = await provider.complete(ChatRequest(messages, tools=[SEARCH, FETCH], temperature=0.2))
    await provider.aclose()
    return [first, final], messages


def _script(wire: Wire) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.thinking_tool_calls(
            wire_format.tool_use(
                "toolu_01A09q90qw90lq917835lq9", "web_search", {"query": "python 3.13"}
            ),
            wire_format.tool_use(
                "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "fetch", {"url": "https://python.org/"}
            ),
        ),
        wire_format.answer("Python 3.13 adds a free-threaded build [1]."),
    )


async def test_tool_calls_follow_up_and_answer(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    _script(wire)
    (first, final), _ = await _conversation(llm_settings("anthropic"))

    assert first.stop_reason is StopReason.TOOL_CALLS
    assert first.message.content == ""  # thinking is not answer text
    assert first.message.tool_calls == [
        ToolCall("toolu_01A09q90qw90lq917835lq9", "web_search", {"query": "python 3.13"}),
        ToolCall("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "fetch", {"url": "https://python.org/"}),
    ]
    assert first.model == "claude-sonnet-4-5-20250929"
    # input_tokens is the whole prompt: 472 uncached + 1536 read from the cache.
    assert (first.usage.input_tokens, first.usage.cached_tokens) == (2008, 1536)
    assert (first.usage.output_tokens, first.usage.web_search_requests) == (89, 0)
    assert final.stop_reason is StopReason.END
    assert final.message.content == "Python 3.13 adds a free-threaded build [1]."

    first_body, follow_up = (request.json for request in wire.to(wire_format.PATH))
    assert first_body == {
        "model": "test-model",
        "max_tokens": 2048,
        "system": "be brief",
        "temperature": 0.2,
        "messages": [{"role": "user", "content": "what is new in 3.13?"}],
        "tools": [
            {
                "name": "web_search",
                "description": "Search the web",
                "input_schema": SEARCH.parameters,
            },
            {"name": "fetch", "description": "Read one page", "input_schema": FETCH.parameters},
        ],
    }
    echoed = json.loads(wire_format.thinking_tool_calls().body)["content"]
    assert follow_up["messages"][1] == {
        "role": "assistant",
        "content": [
            *echoed,
            {
                "type": "tool_use",
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "web_search",
                "input": {"query": "python 3.13"},
            },
            {
                "type": "tool_use",
                "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "name": "fetch",
                "input": {"url": "https://python.org/"},
            },
        ],
    }
    assert follow_up["messages"][1]["content"][0]["signature"] == wire_format.THINKING_SIGNATURE
    assert follow_up["messages"][2:] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                    "content": "[1] python.org",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                    "content": "fetch failed: 403",
                    "is_error": True,
                },
            ],
        }
    ]
    [request, _] = wire.to(wire_format.PATH)
    assert request.header("x-api-key") == "sk-test-key"
    assert request.header("anthropic-version") == "2023-06-01"
    assert request.header("content-type") == "application/json"
    assert request.header("authorization") is None


async def test_messages_without_native_are_encoded_from_content_and_calls(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    gemini_parts = [{"functionCall": {"name": "web_search", "args": {"query": "x"}}}]
    messages = [
        Message("system", "one"),
        Message("system", "two"),
        Message("user", "q"),
        Message(
            "assistant",
            "Searching.",
            tool_calls=[ToolCall("call_abc123", "web_search", {"query": "x"})],
            native=gemini_parts,  # another provider's state is never echoed here
        ),
        Message("tool", "no results", tool_call_id="call_abc123", name="web_search"),
        Message("user", "then answer from memory"),
    ]
    await provider.complete(ChatRequest(messages))
    await provider.aclose()
    [body] = (request.json for request in wire.to(wire_format.PATH))
    assert body["system"] == "one\n\ntwo"
    assert "tools" not in body
    assert "temperature" not in body
    assert body["messages"] == [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Searching."},
                {
                    "type": "tool_use",
                    "id": "call_abc123",
                    "name": "web_search",
                    "input": {"query": "x"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_abc123", "content": "no results"},
                {"type": "text", "text": "then answer from memory"},
            ],
        },
    ]


async def test_native_search_citations_sources_and_queries(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.search_answer())
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    request = ChatRequest([Message("user", "python 3.13?")], tools=[SEARCH, FETCH])
    request.native_search = True
    completion = await provider.complete(request)
    await provider.aclose()

    text = completion.message.content
    assert text == (
        "I'll search for the release details.\n\nHere is what I found. Python 3.13.0 was released "
        "on October 7, 2024, and it ships an experimental free-threaded build that can run "
        "with the GIL disabled."
    )
    released = text.index("October 7, 2024") + len("October 7, 2024")
    disabled = text.index("GIL disabled") + len("GIL disabled")
    assert [(a.end, a.source.url) for a in completion.annotations] == [
        (released, wire_format.RELEASE),
        (disabled, wire_format.WHATSNEW),
        (disabled, wire_format.PEP703),
    ]
    assert completion.annotations[0] == Annotation(
        released,
        NativeSource(
            wire_format.RELEASE,
            "Python Release Python 3.13.0 | Python.org",
            "Python 3.13.0 Release Date: Oct. 7, 2024 This is the stable release of Python 3.13.0",
        ),
    )
    assert completion.sources == [
        NativeSource(wire_format.RELEASE, "Python Release Python 3.13.0 | Python.org"),
        NativeSource(wire_format.WHATSNEW, "What's New In Python 3.13"),
        NativeSource(wire_format.PEP703, "PEP 703 – Making the Global Interpreter Lock Optional"),
    ]
    assert completion.searches == ["python 3.13 release date", "python 3.13 free-threaded build"]
    assert completion.usage.web_search_requests == 2
    assert completion.stop_reason is StopReason.END
    assert completion.message.tool_calls == []
    assert completion.message.native == wire_format.SEARCH_BLOCKS

    [body] = (r.json for r in wire.to(wire_format.PATH))
    assert body["tools"] == [
        {"name": "fetch", "description": "Read one page", "input_schema": FETCH.parameters},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
    ]


async def test_a_failed_search_is_not_a_source(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.search_failed())
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    completion = await provider.complete(
        ChatRequest([Message("user", "python 3.14?")], native_search=True)
    )
    await provider.aclose()
    assert completion.sources == []
    assert completion.annotations == []
    assert completion.searches == ["python 3.14 release date"]
    assert completion.message.content.startswith("I could not search any further")
    [body] = (r.json for r in wire.to(wire_format.PATH))
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]


async def test_pause_turn_is_sent_back_verbatim_to_continue(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.paused(), wire_format.search_answer())
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    messages = [Message("user", "research python 3.13")]
    paused = await provider.complete(ChatRequest(messages, native_search=True))
    assert paused.stop_reason is StopReason.PAUSE
    assert paused.message.content == "Let me research this thoroughly."
    assert paused.searches == ["python 3.13 incremental garbage collector"]
    assert paused.sources == [NativeSource(wire_format.WHATSNEW, "What's New In Python 3.13")]
    assert paused.usage.web_search_requests == 1

    messages.append(paused.message)
    final = await provider.complete(ChatRequest(messages, native_search=True))
    await provider.aclose()
    assert final.stop_reason is StopReason.END
    _, follow_up = (r.json for r in wire.to(wire_format.PATH))
    assert follow_up["messages"] == [
        {"role": "user", "content": "research python 3.13"},
        {"role": "assistant", "content": wire_format.PAUSED_BLOCKS},
    ]


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        ("end_turn", StopReason.END),
        ("stop_sequence", StopReason.END),
        ("max_tokens", StopReason.MAX_TOKENS),
        ("refusal", StopReason.CONTENT_FILTER),
        ("something_new", StopReason.OTHER),
    ],
)
async def test_stop_reasons(
    wire: Wire, llm_settings: Callable[..., Settings], reason: str, stop: StopReason
) -> None:
    wire.on(wire_format.PATH, wire_format.stopped(reason, "partial"))
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.stop_reason is stop
    assert completion.message.content == "partial"


async def test_an_empty_assistant_turn_is_not_sent(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.stopped("end_turn"), wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    messages = [Message("user", "q")]
    empty = await provider.complete(ChatRequest(messages))
    assert empty.message.content == ""
    assert empty.message.native == []
    messages += [empty.message, Message("user", "please answer")]
    await provider.complete(ChatRequest(messages))
    await provider.aclose()
    _, second = (r.json for r in wire.to(wire_format.PATH))
    assert second["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "please answer"}],
        }
    ]


async def test_arguments_that_are_not_an_object_are_flagged_not_raised(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.tool_call("toolu_01X", "web_search", '["python"]'))
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    completion = await provider.complete(ChatRequest([Message("user", "q")], tools=[SEARCH]))
    await provider.aclose()
    [call] = completion.message.tool_calls
    assert call.arguments == {}
    assert call.error == 'the arguments must be a JSON object, not list: ["python"]'
    assert completion.stop_reason is StopReason.TOOL_CALLS


async def test_429_is_retried_after_the_servers_delay(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(7), wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings("anthropic")), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "done"
    assert sleeps.waits == [7.0]
    assert len(wire.to(wire_format.PATH)) == 2


async def test_429_that_persists_ends_as_rate_limited(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(2))
    provider, _ = open_provider(*sections(llm_settings("anthropic", llm_retries=2)), sleep=sleeps)
    with pytest.raises(LLMRateLimited) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert caught.value.retryable
    assert caught.value.status == 429
    assert "rate limit for your organization" in caught.value.message
    assert len(wire.to(wire_format.PATH)) == 3
    assert sleeps.waits == [2.0, 2.0]


async def test_529_overloaded_is_retried(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.overloaded(), wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings("anthropic")), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "done"
    assert len(wire.to(wire_format.PATH)) == 2
    assert len(sleeps.waits) == 1


async def test_529_that_persists_ends_as_overloaded(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.overloaded())
    provider, _ = open_provider(*sections(llm_settings("anthropic", llm_retries=1)), sleep=sleeps)
    with pytest.raises(LLMOverloaded) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert caught.value.status == 529
    assert len(wire.to(wire_format.PATH)) == 2


async def test_500_api_error_is_a_retryable_server_error(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.error(500, "api_error", "Internal server error"))
    provider, _ = open_provider(*sections(llm_settings("anthropic", llm_retries=1)), sleep=sleeps)
    with pytest.raises(LLMServerError):
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert len(wire.to(wire_format.PATH)) == 2


@pytest.mark.parametrize(
    ("status", "kind", "text", "error"),
    [
        (401, "authentication_error", "invalid x-api-key", LLMAuthError),
        (
            403,
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
            LLMAuthError,
        ),
        (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
            "Billing to upgrade or purchase credits.",
            LLMQuotaExceeded,
        ),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
            LLMContextLength,
        ),
        (404, "not_found_error", "model: claude-sonnet-9", LLMInvalidRequest),
        (
            400,
            "invalid_request_error",
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`",
            LLMInvalidRequest,
        ),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
            LLMInvalidRequest,
        ),
    ],
)
async def test_permanent_errors_are_not_retried(
    wire: Wire,
    llm_settings: Callable[..., Settings],
    sleeps: Sleeps,
    status: int,
    kind: str,
    text: str,
    error: type[Exception],
) -> None:
    wire.on(wire_format.PATH, wire_format.error(status, kind, text))
    provider, _ = open_provider(*sections(llm_settings("anthropic")), sleep=sleeps)
    with pytest.raises(error) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert type(caught.value) is error
    assert text in str(caught.value)
    assert len(wire.to(wire_format.PATH)) == 1
    assert sleeps.waits == []


async def test_malformed_reply_keeps_the_raw_body(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.malformed())
    provider, _ = open_provider(*sections(llm_settings("anthropic")))
    with pytest.raises(MalformedReply) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert "content" in caught.value.message
    assert '"id": "msg_01Gk2FhV7xq9rWb3nLcT5dPe"' in caught.value.raw
    assert '"content"' not in caught.value.raw


async def test_cassette_replays_the_conversation_without_the_server(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    _script(wire)
    recorded, _ = await _conversation(llm_settings("anthropic", llm_record="record"))
    assert len(wire.to(wire_format.PATH)) == 2

    wire.routes.clear()
    wire.requests.clear()
    replayed, messages = await _conversation(llm_settings("anthropic", llm_record="replay"))
    assert replayed == recorded
    assert wire.requests == []

    provider, _ = open_provider(*sections(llm_settings("anthropic", llm_record="replay")))
    changed = copy.deepcopy(messages)
    changed[1].content = "what is new in 3.14?"
    with pytest.raises(ReplayMiss) as caught:
        await provider.complete(ChatRequest(changed[:2], tools=[SEARCH, FETCH], temperature=0.2))
    await provider.aclose()
    assert '"path": "/v1/messages"' in str(caught.value)
    assert "what is new in 3.14?" in caught.value.request
    assert wire.requests == []
