"""The ``discover`` MCP tool through the SDK's in-process client: listed, typed, never asking."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.client import Client
from mcp.types import TextContent

from discover.conversations import STRIPE
from discover.llm_settings import discover_settings
from discover.registries import Registries
from sleuth.api import AsyncSleuth
from sleuth.server.mcp import build_server


@asynccontextmanager
async def served(regs: Registries) -> AsyncIterator[Client]:
    """The SDK's in-process client on sleuth's MCP server (its default tools)."""
    async with (
        AsyncSleuth(discover_settings(regs)) as sleuth,
        Client(build_server(client=sleuth)) as client,
    ):
        yield client


def text(result: object) -> str:
    [block] = result.content  # type: ignore[attr-defined]
    assert isinstance(block, TextContent)
    return block.text


async def test_discover_is_listed_and_answers_with_the_cli_json(regs: Registries) -> None:
    async with served(regs) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "discover" in listed
        assert listed["discover"].input_schema["required"] == ["name"]
        result = await client.call_tool("discover", {"name": "rg"})
    assert not result.is_error
    data = result.structured_content
    assert data is not None
    assert (data["builder"], data["source"], data["stage"]) == (
        "github",
        "BurntSushi/ripgrep",
        "registry",
    )
    assert "Repository: github.com/BurntSushi/ripgrep" in text(result)


async def test_an_ambiguous_match_is_taken_flagged_never_asked(regs: Registries) -> None:
    regs.npm("thing", downloads=1_000, versions=20, repository="https://github.com/x/y")
    regs.crate("thing", downloads=400, versions=6, repository=None)
    async with served(regs) as client:
        result = await client.call_tool("discover", {"name": "thing", "deterministic_only": True})
    data = result.structured_content
    assert data is not None
    assert (data["selection_reason"], data["high_risk"]) == ("priority_fallback", True)


async def test_a_web_found_source_tells_the_client_to_ask_its_user(regs: Registries) -> None:
    STRIPE.serve_web(regs)
    async with served(regs) as client:
        result = await client.call_tool("discover", {"name": "stripe-cli", "stages": ["llm"]})
    data = result.structured_content
    assert data is not None, text(result)
    assert data["confirmation_required"] is True
    assert "ASK THE USER before using github:stripe/stripe-cli" in text(result)


async def test_a_failure_is_a_tool_error_with_its_code(regs: Registries) -> None:
    async with served(regs) as client:
        result = await client.call_tool("discover", {"name": "rіpgrep"})
    assert result.is_error
    assert "suspicious_name" in text(result)


async def test_a_source_not_found_says_what_to_do_in_the_tools_words(regs: Registries) -> None:
    async with served(regs) as client:
        result = await client.call_tool(
            "discover", {"name": "nothing-here", "deterministic_only": True}
        )
    assert result.is_error
    assert "not_found" in text(result)
    assert 'from: "BUILDER:SOURCE"' in text(result)
    assert "--from" not in text(result)
    assert "sleuth discover" not in text(result)
