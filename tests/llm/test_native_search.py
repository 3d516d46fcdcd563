"""The providers' own search inside the loop: their citations become sleuth's ids."""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from llm import payloads_anthropic, payloads_gemini, payloads_responses, sections
from llm.conftest import ASK_TOOLS
from search.wire import Reply, Wire
from sleuth.agent import ask
from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.llm import open_provider
from sleuth.llm.setup import choose_search

NATIVE: dict[str, tuple[ModuleType, Callable[[], Reply], str]] = {
    "anthropic": (payloads_anthropic, payloads_anthropic.search_answer, "web_search_20250305"),
    "openai-responses": (payloads_responses, payloads_responses.searched_answer, "web_search"),
    "gemini": (payloads_gemini, payloads_gemini.search_answer, "google_search"),
}


def declared(provider: str, body: dict[str, Any]) -> tuple[list[str], bool]:
    """Function tool names in a request, and whether the server search tool is on."""
    tools = body.get("tools", [])
    if provider == "anthropic":
        names = [t["name"] for t in tools if "input_schema" in t]
        server = any(t.get("type") == "web_search_20250305" for t in tools)
    elif provider == "openai-responses":
        names = [t["name"] for t in tools if t.get("type") == "function"]
        server = {"type": "web_search"} in tools
    else:
        names = [d["name"] for t in tools for d in t.get("functionDeclarations", [])]
        server = {"google_search": {}} in tools
    return names, server


@pytest.mark.parametrize("provider", list(NATIVE))
async def test_native_citations_become_ledger_ids(
    wire: Wire, llm_settings: Callable[..., Settings], provider: str
) -> None:
    fmt, reply, _ = NATIVE[provider]
    wire.on(fmt.PATH, reply())
    async with AsyncSleuth(llm_settings(provider)) as client:
        answer = await ask(
            client, registry=ASK_TOOLS, question="What is new in Python 3.13?", search="native"
        )
    assert answer.search == "native"
    assert answer.citations, "the provider's citations must reach the answer"
    assert [source.id for source in answer.citations] == list(range(1, len(answer.citations) + 1))
    assert all(source.kind == "native_search" for source in answer.citations)
    assert all(not source.fetched for source in answer.citations)
    marks = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
    assert marks == {source.id for source in answer.citations}
    assert answer.usage.web_search_requests >= 1
    assert answer.native_searches  # the provider's queries are reported, not hidden
    names, server = declared(provider, wire.to(fmt.PATH)[0].json)
    assert server
    assert "web_search" not in names  # never shadow the server's own search
    # Gemini 2.x refuses google_search beside functions; "test-model" is no Gemini 3.
    assert names == ([] if provider == "gemini" else ["fetch_page", "research"])


async def test_a_paused_server_turn_is_sent_back_to_continue(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    fmt = payloads_anthropic
    wire.on(fmt.PATH, fmt.paused(), fmt.search_answer())
    async with AsyncSleuth(llm_settings("anthropic")) as client:
        answer = await ask(
            client, registry=ASK_TOOLS, question="What is new in Python 3.13?", search="native"
        )
    _, second = (request.json for request in wire.to(fmt.PATH))
    assert second["messages"][-1]["role"] == "assistant"
    assert second["messages"][-1]["content"] == fmt.PAUSED_BLOCKS
    assert answer.turns == 2
    assert answer.citations


@pytest.mark.parametrize(
    ("provider", "local", "wanted"),
    [
        ("anthropic", False, "native"),
        ("anthropic", True, "local"),
        ("gemini", False, "native"),
        ("openai-responses", False, "native"),
        ("openai", False, "local"),
        ("ollama", True, "local"),
    ],
)
def test_auto_prefers_native_search_for_cloud_providers(
    llm_settings: Callable[..., Settings], provider: str, local: bool, wanted: str
) -> None:
    from dataclasses import replace

    llm, config = open_provider(*sections(llm_settings(provider)))
    assert choose_search("auto", llm, replace(config, local=local)) == wanted
    assert choose_search("local", llm, replace(config, local=False)) == "local"


async def test_gemini_3_keeps_functions_beside_google_search(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    path = payloads_gemini.path("gemini-3-pro-preview")
    wire.on(path, payloads_gemini.search_answer())
    settings = llm_settings("gemini", llm_model="gemini-3-pro-preview")
    async with AsyncSleuth(settings) as client:
        await ask(
            client, registry=ASK_TOOLS, question="What is new in Python 3.13?", search="native"
        )
    names, server = declared("gemini", wire.to(path)[0].json)
    assert server
    assert names == ["fetch_page", "research"]
