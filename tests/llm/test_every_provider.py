"""The same conversation through every provider's wire format, live and from cassettes.

A 429, then a call to a tool that does not exist, a call with bad arguments, a
real ``fetch_page``, and a final answer citing the page it read. Each provider's
loopback server speaks that provider's documented format (see payloads_*.py).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from llm import (
    payloads_anthropic,
    payloads_gemini,
    payloads_ollama,
    payloads_openai,
    payloads_responses,
)
from llm.conftest import ASK_TOOLS, Sleeps
from llm.pages import NIMBUS_FACTS
from loopback import Web
from search.wire import Wire
from sleuth.agent import ask
from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.errors import MalformedReply

FORMATS: dict[str, ModuleType] = {
    "openai": payloads_openai,
    "openai-responses": payloads_responses,
    "anthropic": payloads_anthropic,
    "gemini": payloads_gemini,
    "ollama": payloads_ollama,
}


@pytest.fixture(params=list(FORMATS))
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def settings(
    web: Web, llm_settings: Callable[..., Settings], provider: str
) -> Callable[..., Settings]:
    def build(**overrides: Any) -> Settings:
        values = web.settings().model_dump()
        values.update(llm_settings(provider).model_dump(exclude_unset=True))
        values.update(overrides)
        return Settings(**values)

    return build


def script(wire: Wire, fmt: ModuleType, page: str) -> None:
    wire.on(
        fmt.PATH,
        fmt.rate_limited(2),
        fmt.tool_call("call_u1", "format_disk", {"drive": "c"}),
        fmt.tool_call("call_i1", "fetch_page", {"url": page, "max_chars": 1}),
        fmt.tool_call("call_f1", "fetch_page", {"url": page}),
        fmt.answer("Nimbus waits thirty seconds [1]."),
    )


async def test_a_conversation_with_mistakes_and_a_cited_answer(
    wire: Wire, web: Web, settings: Callable[..., Settings], provider: str, sleeps: Sleeps
) -> None:
    fmt = FORMATS[provider]
    page = web.page("/nimbus", "Nimbus timeouts", NIMBUS_FACTS)
    script(wire, fmt, page)
    async with AsyncSleuth(settings(llm_search="local")) as client:
        answer = await ask(
            client, registry=ASK_TOOLS, question="How long does Nimbus wait?", sleep=sleeps
        )
    assert sleeps.waits == [2.0]
    assert [(c.name, c.outcome) for c in answer.tool_calls] == [
        ("format_disk", "unknown_tool"),
        ("fetch_page", "invalid_arguments"),
        ("fetch_page", "ok"),
    ]
    assert answer.answer == "Nimbus waits thirty seconds [1]."
    assert [(s.id, s.url, s.fetched) for s in answer.citations] == [(1, page, True)]
    assert answer.turns == 4
    assert answer.provider == provider
    assert answer.search == "local"
    assert len(wire.to(fmt.PATH)) == 5
    last = wire.to(fmt.PATH)[-1].body.decode()
    assert "thirty seconds" in last  # the page went back to the model
    assert "no tool named 'format_disk'" in last
    assert "max_chars" in last


async def test_the_same_conversation_replays_from_cassettes(
    wire: Wire, web: Web, settings: Callable[..., Settings], provider: str, sleeps: Sleeps
) -> None:
    fmt = FORMATS[provider]
    page = web.page("/nimbus", "Nimbus timeouts", NIMBUS_FACTS)
    script(wire, fmt, page)
    async with AsyncSleuth(settings(llm_search="local", llm_record="record")) as client:
        live = await ask(
            client, registry=ASK_TOOLS, question="How long does Nimbus wait?", sleep=sleeps
        )
    wire.routes.clear()
    async with AsyncSleuth(settings(llm_search="local", llm_record="replay")) as client:
        replayed = await ask(
            client, registry=ASK_TOOLS, question="How long does Nimbus wait?", sleep=sleeps
        )
    assert len(wire.to(fmt.PATH)) == 5  # the replay reached no model server
    assert replayed.answer == live.answer
    assert replayed.citations == live.citations
    assert [c.outcome for c in replayed.tool_calls] == [c.outcome for c in live.tool_calls]
    assert sleeps.waits == [2.0, 2.0]  # the recorded 429 replays as a 429


async def test_a_malformed_reply_is_a_typed_error(
    wire: Wire, settings: Callable[..., Settings], provider: str
) -> None:
    fmt = FORMATS[provider]
    wire.on(fmt.PATH, fmt.malformed())
    async with AsyncSleuth(settings(llm_search="local")) as client:
        with pytest.raises(MalformedReply) as caught:
            await ask(client, registry=ASK_TOOLS, question="q?")
    assert caught.value.provider == provider
    assert caught.value.raw
    assert caught.value.exit_code == 51


CHOICE_NONE = {
    "openai": ("tool_choice", "none"),
    "openai-responses": ("tool_choice", "none"),
    "anthropic": ("tool_choice", {"type": "none"}),
    "gemini": ("toolConfig", {"functionCallingConfig": {"mode": "NONE"}}),
    "ollama": ("tools", None),  # no tool_choice there: the last turn declares no tools
}


async def test_the_last_turn_forbids_tools_in_each_wire_format(
    wire: Wire, web: Web, settings: Callable[..., Settings], provider: str
) -> None:
    fmt = FORMATS[provider]
    page = web.page("/nimbus", "Nimbus timeouts", NIMBUS_FACTS)
    wire.on(
        fmt.PATH,
        fmt.tool_call("call_f1", "fetch_page", {"url": page}),
        fmt.answer("Thirty seconds [1]."),
    )
    async with AsyncSleuth(settings(llm_search="local", llm_max_turns=2)) as client:
        answer = await ask(client, registry=ASK_TOOLS, question="How long does Nimbus wait?")
    assert answer.answer == "Thirty seconds [1]."
    first, last = (request.json for request in wire.to(fmt.PATH))
    key, value = CHOICE_NONE[provider]
    assert first.get(key) != value or value is None
    assert last.get(key) == value
    if value is None:
        assert "tools" in first
