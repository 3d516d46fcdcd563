"""The Gemini generateContent provider against a loopback server speaking its wire format."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from llm import payloads_gemini as wire_format
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
    ToolSpec,
    open_provider,
)

SIGNED_CALL = {
    "functionCall": {"id": "8f2kq0xd", "name": "web_search", "args": {"query": "python 3.13"}},
    "thoughtSignature": wire_format.SIGNATURE,
}
SECOND_CALL = {
    "functionCall": {"id": "n3w7cz1b", "name": "fetch", "args": {"url": "https://python.org/"}}
}


async def _conversation(settings: Settings) -> tuple[list[Completion], list[Message]]:
    """Two parallel calls (one fails), their results, then the final answer."""
    provider, _ = open_provider(*sections(settings))
    messages = [Message("system", "be brief"), Message("user", "what is new in 3.13?")]
    request = ChatRequest(messages, tools=[SEARCH, FETCH], temperature=0.2)
    first = await provider.complete(request)
    messages += [
        first.message,
        Message("tool", "[1] python.org", tool_call_id="8f2kq0xd", name="web_search"),
        Message("tool", "fetch failed: 403", tool_call_id="n3w7cz1b", name="fetch", is_error=True),
    ]
    final = await provider.complete(ChatRequest(messages, tools=[SEARCH, FETCH], temperature=0.2))
    await provider.aclose()
    return [first, final], messages


def _script(wire: Wire) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_calls(SIGNED_CALL, SECOND_CALL),
        wire_format.answer("Python 3.13 adds a free-threaded build [1]."),
    )


async def test_tool_calls_follow_up_and_answer(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    _script(wire)
    (first, final), _ = await _conversation(llm_settings("gemini"))

    assert first.stop_reason is StopReason.TOOL_CALLS  # Gemini itself said STOP
    assert first.message.tool_calls == [
        ToolCall("8f2kq0xd", "web_search", {"query": "python 3.13"}),
        ToolCall("n3w7cz1b", "fetch", {"url": "https://python.org/"}),
    ]
    assert first.model == "gemini-2.5-flash"
    assert (first.usage.input_tokens, first.usage.cached_tokens) == (1021, 512)
    # Thinking tokens are output too, as in OpenAI's completion_tokens.
    assert (first.usage.output_tokens, first.usage.reasoning_tokens) == (268, 240)
    assert first.usage.web_search_requests == 0
    assert final.stop_reason is StopReason.END
    assert final.message.content == "Python 3.13 adds a free-threaded build [1]."

    first_body, follow_up = (request.json for request in wire.to(wire_format.PATH))
    assert first_body == {
        "contents": [{"role": "user", "parts": [{"text": "what is new in 3.13?"}]}],
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "web_search",
                        "description": "Search the web",
                        "parameters": SEARCH.parameters,
                    },
                    {
                        "name": "fetch",
                        "description": "Read one page",
                        "parameters": FETCH.parameters,
                    },
                ]
            }
        ],
        "generationConfig": {"maxOutputTokens": 2048, "temperature": 0.2},
    }
    assert follow_up["contents"][1:] == [
        {"role": "model", "parts": [SIGNED_CALL, SECOND_CALL]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "web_search",
                        "response": {"result": "[1] python.org"},
                        "id": "8f2kq0xd",
                    }
                },
                {
                    "functionResponse": {
                        "name": "fetch",
                        "response": {"error": "fetch failed: 403"},
                        "id": "n3w7cz1b",
                    }
                },
            ],
        },
    ]
    [request, _] = wire.to(wire_format.PATH)
    assert request.header("x-goog-api-key") == "sk-test-key"
    assert request.query == {}
    assert request.header("authorization") is None


async def test_thought_signature_is_echoed_verbatim(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(
        wire_format.PATH,
        wire_format.tool_call("8f2kq0xd", "web_search", {"query": "gil"}),
        wire_format.answer("done"),
    )
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    messages = [Message("user", "q")]
    first = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    messages += [first.message, Message("tool", "r", tool_call_id="8f2kq0xd", name="web_search")]
    await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    await provider.aclose()
    _, follow_up = (r.json for r in wire.to(wire_format.PATH))
    [part] = follow_up["contents"][1]["parts"]
    assert part["thoughtSignature"] == wire_format.SIGNATURE
    assert part == {
        "functionCall": {"id": "8f2kq0xd", "name": "web_search", "args": {"query": "gil"}},
        "thoughtSignature": wire_format.SIGNATURE,
    }


async def test_calls_without_id_get_stable_ids_and_answers_carry_none(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    first_part = {**wire_format.call_part("web_search", {"query": "a"}), "thoughtSignature": "c2ln"}
    wire.on(
        wire_format.PATH,
        wire_format.tool_calls(first_part, wire_format.call_part("web_search", {"query": "b"})),
        wire_format.answer("done"),
    )
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    messages = [Message("user", "q")]
    first = await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    assert first.stop_reason is StopReason.TOOL_CALLS
    assert [(c.id, c.arguments) for c in first.message.tool_calls] == [
        ("gemini-call-0", {"query": "a"}),
        ("gemini-call-1", {"query": "b"}),
    ]
    messages += [
        first.message,
        Message("tool", "ra", tool_call_id="gemini-call-0", name="web_search"),
        Message("tool", "rb", tool_call_id="gemini-call-1"),  # no name: found from the call
    ]
    await provider.complete(ChatRequest(messages, tools=[SEARCH]))
    await provider.aclose()
    _, follow_up = (r.json for r in wire.to(wire_format.PATH))
    assert follow_up["contents"][2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "web_search", "response": {"result": "ra"}}},
            {"functionResponse": {"name": "web_search", "response": {"result": "rb"}}},
        ],
    }


async def test_messages_without_native_are_encoded_from_content_and_calls(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    anthropic_blocks = [{"type": "tool_use", "id": "toolu_01X", "name": "web_search", "input": {}}]
    messages = [
        Message("system", "one"),
        Message("system", "two"),
        Message("user", "q"),
        Message(
            "assistant",
            "Searching.",
            tool_calls=[ToolCall("toolu_01X", "web_search", {"query": "x"})],
            native=anthropic_blocks,  # another provider's state is never echoed here
        ),
        Message("tool", "no results", tool_call_id="toolu_01X", name="web_search", is_error=True),
        Message("user", "then answer from memory"),
    ]
    await provider.complete(ChatRequest(messages))
    await provider.aclose()
    [body] = (request.json for request in wire.to(wire_format.PATH))
    assert body["systemInstruction"] == {"parts": [{"text": "one"}, {"text": "two"}]}
    assert "tools" not in body
    assert body["generationConfig"] == {"maxOutputTokens": 2048}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "q"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Searching."},
                {"functionCall": {"name": "web_search", "args": {"query": "x"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "web_search", "response": {"error": "no results"}}},
                {"text": "then answer from memory"},
            ],
        },
    ]


async def test_schemas_lose_keywords_gemini_rejects(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.answer("ok"))
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "query": {"type": "string", "description": "terms", "default": ""},
            "additionalProperties": {"type": "boolean"},  # a property with that name stays
            "site": {"type": ["string", "null"], "format": "hostname"},
            "pages": {
                "type": "array",
                "items": {"type": "object", "additionalProperties": False, "properties": {}},
                "maxItems": 3,
            },
            "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"const": 1}]},
        },
        "required": ["query"],
    }
    original = copy.deepcopy(schema)
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    await provider.complete(
        ChatRequest([Message("user", "q")], tools=[ToolSpec("search", "s", schema)])
    )
    await provider.aclose()
    [body] = (request.json for request in wire.to(wire_format.PATH))
    assert body["tools"][0]["functionDeclarations"][0]["parameters"] == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "terms"},
            "additionalProperties": {"type": "boolean"},
            "site": {"type": "string", "nullable": True},
            "pages": {
                "type": "array",
                "items": {"type": "object", "properties": {}},
                "maxItems": 3,
            },
            "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {}]},
        },
        "required": ["query"],
    }
    assert schema == original  # the caller's schema is not changed


@pytest.mark.parametrize(
    ("model", "prefix", "expected"),
    [
        ("models/gemini-2.5-flash", "", "/v1beta/models/gemini-2.5-flash:generateContent"),
        ("gemini-2.5-pro", "", "/v1beta/models/gemini-2.5-pro:generateContent"),
        ("gemini-2.5-flash", "/v1beta", "/v1beta/models/gemini-2.5-flash:generateContent"),
        ("tunedModels/sleuth-abc", "", "/v1beta/tunedModels/sleuth-abc:generateContent"),
    ],
)
async def test_the_model_path_is_never_doubled(
    wire: Wire, llm_settings: Callable[..., Settings], model: str, prefix: str, expected: str
) -> None:
    wire.on(expected, wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings("gemini", prefix, llm_model=model)))
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "ok"
    assert [r.path for r in wire.requests] == [expected]


async def test_native_search_annotations_use_character_offsets(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.search_answer())
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    tools = [ToolSpec("google_search", "clashes with the server tool", {"type": "object"}), SEARCH]
    completion = await provider.complete(
        ChatRequest([Message("user", "python 3.13?")], tools=tools, native_search=True)
    )
    await provider.aclose()

    text = completion.message.content
    assert text == wire_format.SEARCH_TEXT
    released = text.index("2024.") + len("2024.")
    gil = len(text)
    assert (released, gil) == (54, 96)  # the bytes said 59 and 106
    assert completion.annotations == [
        Annotation(
            released,
            NativeSource(
                wire_format.RELEASE, "python.org", "Python 3.13 erschien am 7. Oktober 2024."
            ),
        ),
        Annotation(
            gil,
            NativeSource(
                wire_format.WHATSNEW, "docs.python.org", "Der „free-threaded“ Build läuft ohne GIL."
            ),
        ),
        Annotation(
            gil,
            NativeSource(
                wire_format.PEP703, "peps.python.org", "Der „free-threaded“ Build läuft ohne GIL."
            ),
        ),
    ]
    assert completion.sources == [
        NativeSource(wire_format.RELEASE, "python.org"),
        NativeSource(wire_format.WHATSNEW, "docs.python.org"),
        NativeSource(wire_format.PEP703, "peps.python.org"),
    ]
    assert completion.searches == ["Python 3.13 Veröffentlichung", "Python 3.13 free-threaded GIL"]
    usage = completion.usage
    assert usage.web_search_requests == 2
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (243, 225, 167)
    assert completion.stop_reason is StopReason.END

    [body] = (r.json for r in wire.to(wire_format.PATH))
    # "test-model" is no Gemini 3: google_search goes alone (2.x refuses functions beside it).
    assert body["tools"] == [{"google_search": {}}]


@pytest.mark.parametrize(
    "segment",
    [
        {"partIndex": 1, "endIndex": 34, "text": "Der „free-threaded“ Build ✓."},
        {"startIndex": 20, "endIndex": 54, "text": "Der „free-threaded“ Build ✓."},
    ],
    ids=["offsets-in-the-named-part", "offsets-in-the-whole-text"],
)
async def test_segments_in_a_later_part(
    wire: Wire, llm_settings: Callable[..., Settings], segment: dict[str, Any]
) -> None:
    first, second = "Über — ✓ 3.13. ", "Der „free-threaded“ Build ✓."
    assert (len(first.encode()), len(second.encode())) == (20, 34)
    wire.on(wire_format.PATH, wire_format.split_answer(first, second, segment))
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    completion = await provider.complete(ChatRequest([Message("user", "q")], native_search=True))
    await provider.aclose()
    assert completion.message.content == first + second
    [annotation] = completion.annotations
    assert annotation.end == len(first + second) == 43


@pytest.mark.parametrize(
    ("finish", "text", "stop"),
    [
        ("STOP", "all of it", StopReason.END),
        ("MAX_TOKENS", "cut o", StopReason.MAX_TOKENS),
        ("SAFETY", None, StopReason.CONTENT_FILTER),
        ("RECITATION", None, StopReason.CONTENT_FILTER),
        ("BLOCKLIST", None, StopReason.CONTENT_FILTER),
        ("PROHIBITED_CONTENT", None, StopReason.CONTENT_FILTER),
        ("MALFORMED_FUNCTION_CALL", None, StopReason.MALFORMED_CALL),
        ("SPII", None, StopReason.CONTENT_FILTER),
        ("LANGUAGE", None, StopReason.OTHER),
        ("FINISH_REASON_UNSPECIFIED", None, StopReason.OTHER),
    ],
)
async def test_finish_reasons(
    wire: Wire,
    llm_settings: Callable[..., Settings],
    finish: str,
    text: str | None,
    stop: StopReason,
) -> None:
    wire.on(wire_format.PATH, wire_format.finished(finish, text))
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.stop_reason is stop
    assert completion.finish == finish
    assert completion.message.content == (text or "")
    assert completion.message.native == (None if text is None else [{"text": text}])


async def test_a_blocked_prompt_is_a_content_filter_stop(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.blocked_prompt(), wire_format.answer("ok"))
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    messages = [Message("user", "q")]
    blocked = await provider.complete(ChatRequest(messages))
    assert blocked.stop_reason is StopReason.CONTENT_FILTER
    assert blocked.message.content == ""
    assert blocked.usage.input_tokens == 9
    messages += [blocked.message, Message("user", "something else")]
    await provider.complete(ChatRequest(messages))
    await provider.aclose()
    _, second = (r.json for r in wire.to(wire_format.PATH))
    assert second["contents"] == [
        {"role": "user", "parts": [{"text": "q"}, {"text": "something else"}]}
    ]


async def test_arguments_that_are_not_an_object_are_flagged_not_raised(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    wire.on(wire_format.PATH, wire_format.tool_call("8f2kq0xd", "web_search", '{"query": "x'))
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    completion = await provider.complete(ChatRequest([Message("user", "q")], tools=[SEARCH]))
    await provider.aclose()
    [call] = completion.message.tool_calls
    assert call.arguments == {}
    assert call.error is not None
    assert "not valid JSON" in call.error
    assert completion.stop_reason is StopReason.TOOL_CALLS


@pytest.mark.parametrize(("delay", "wait"), [("7s", 7.0), ("1.5s", 1.5), ("0s", 0.0)])
async def test_429_is_retried_after_the_delay_in_the_body(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps, delay: str, wait: float
) -> None:
    limited = wire_format.resource_exhausted(
        delay, "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
    )
    wire.on(wire_format.PATH, limited, wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings("gemini")), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "done"
    assert sleeps.waits == [wait]
    assert len(wire.to(wire_format.PATH)) == 2


async def test_429_that_persists_ends_as_rate_limited(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.rate_limited(13))
    provider, _ = open_provider(*sections(llm_settings("gemini", llm_retries=2)), sleep=sleeps)
    with pytest.raises(LLMRateLimited) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert caught.value.retryable
    assert caught.value.status == 429
    assert caught.value.retry_after == 13.0
    assert len(wire.to(wire_format.PATH)) == 3
    assert sleeps.waits == [13.0, 13.0]


async def test_503_overloaded_is_retried(
    wire: Wire, llm_settings: Callable[..., Settings], sleeps: Sleeps
) -> None:
    wire.on(wire_format.PATH, wire_format.overloaded(), wire_format.answer("done"))
    provider, _ = open_provider(*sections(llm_settings("gemini")), sleep=sleeps)
    completion = await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert completion.message.content == "done"
    assert len(wire.to(wire_format.PATH)) == 2
    assert len(sleeps.waits) == 1


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (wire_format.overloaded(), LLMOverloaded),
        (
            wire_format.error(500, "INTERNAL", "An internal error has occurred. Please retry."),
            LLMServerError,
        ),
    ],
)
async def test_server_failures_that_persist(
    wire: Wire,
    llm_settings: Callable[..., Settings],
    sleeps: Sleeps,
    reply: Any,
    error: type[Exception],
) -> None:
    wire.on(wire_format.PATH, reply)
    provider, _ = open_provider(*sections(llm_settings("gemini", llm_retries=1)), sleep=sleeps)
    with pytest.raises(error) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert type(caught.value) is error
    assert len(wire.to(wire_format.PATH)) == 2


@pytest.mark.parametrize(
    ("reply", "error", "text"),
    [
        (wire_format.invalid_key(), LLMAuthError, "API key not valid"),
        (wire_format.daily_quota(), LLMQuotaExceeded, "exceeded your current quota"),
        (
            wire_format.error(
                400,
                "INVALID_ARGUMENT",
                "The input token count (1200000) exceeds the maximum number of tokens allowed "
                "(1048576).",
            ),
            LLMContextLength,
            "1048576",
        ),
        (
            wire_format.error(
                403,
                "PERMISSION_DENIED",
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API.",
            ),
            LLMAuthError,
            "unregistered callers",
        ),
        (
            wire_format.error(
                404,
                "NOT_FOUND",
                "models/gemini-9 is not found for API version v1beta, or is not supported for "
                "generateContent. Call ListModels to see the list of available models and their "
                "supported methods.",
            ),
            LLMInvalidRequest,
            "ListModels",
        ),
        (
            wire_format.error(
                400,
                "INVALID_ARGUMENT",
                'Invalid JSON payload received. Unknown name "additionalProperties" at '
                "'tools[0].function_declarations[0].parameters': Cannot find field.",
            ),
            LLMInvalidRequest,
            "Invalid JSON payload",
        ),
    ],
)
async def test_permanent_errors_are_not_retried(
    wire: Wire,
    llm_settings: Callable[..., Settings],
    sleeps: Sleeps,
    reply: Any,
    error: type[Exception],
    text: str,
) -> None:
    wire.on(wire_format.PATH, reply)
    provider, _ = open_provider(*sections(llm_settings("gemini")), sleep=sleeps)
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
    provider, _ = open_provider(*sections(llm_settings("gemini")))
    with pytest.raises(MalformedReply) as caught:
        await provider.complete(ChatRequest([Message("user", "q")]))
    await provider.aclose()
    assert "candidates" in caught.value.message
    assert '"responseId": "Yk9WaPrxGf2kvdIP-L3x0Ag"' in caught.value.raw


async def test_cassette_replays_the_conversation_without_the_server(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    _script(wire)
    recorded, _ = await _conversation(llm_settings("gemini", llm_record="record"))
    assert len(wire.to(wire_format.PATH)) == 2

    wire.routes.clear()
    wire.requests.clear()
    replayed, messages = await _conversation(llm_settings("gemini", llm_record="replay"))
    assert replayed == recorded
    assert wire.requests == []

    provider, _ = open_provider(*sections(llm_settings("gemini", llm_record="replay")))
    changed = copy.deepcopy(messages)
    changed[1].content = "what is new in 3.14?"
    with pytest.raises(ReplayMiss) as caught:
        await provider.complete(ChatRequest(changed[:2], tools=[SEARCH, FETCH], temperature=0.2))
    await provider.aclose()
    assert '"path": "/v1beta/models/test-model:generateContent"' in str(caught.value)
    assert "what is new in 3.14?" in caught.value.request
    assert wire.requests == []
