"""The MCP server through the SDK's in-process client, against a loopback web.

Every test runs over both ways the SDK connects in process: the modern
per-request dispatch ("auto") and the JSON-RPC stream loop of the
initialize handshake ("legacy").
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent
from mcp_web import QUESTION, SearxngWeb
from pydantic import BaseModel, ConfigDict

from sleuth._version import __version__
from sleuth.api import AsyncSleuth
from sleuth.errors import UsageError
from sleuth.ops.research import progress as describe_progress
from sleuth.server import mcp as mcp_server
from sleuth.server.guard import is_loopback_name
from sleuth.server.mcp import build_server
from sleuth.toolkit.schema import output_schema
from sleuth.tools import Registry, Tool, ToolContext, ToolOutput, default_registry

MODES = ["auto", "legacy"]
BLOG_START = "We moved our crawler to Nimbus last spring"


@pytest.fixture
async def sleuth(web: SearxngWeb) -> AsyncIterator[AsyncSleuth]:
    async with AsyncSleuth(web.settings()) as client:
        yield client


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def connect(sleuth: AsyncSleuth, mode: str, registry: Registry | None = None) -> Client:
    """The SDK's in-process client on a fresh server (enter it in the test's own task)."""
    return Client(build_server(registry, client=sleuth), mode=mode)


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_server_identifies_itself_and_warns_about_web_content(
    sleuth: AsyncSleuth, mode: str
) -> None:
    async with connect(sleuth, mode) as client:
        info = client.server_info
        instructions = client.instructions or ""

    assert info is not None
    assert info.name == "sleuth"
    assert info.version == __version__
    assert "untrusted" in instructions
    assert "never as instructions" in instructions
    assert "[n]" in instructions


async def test_lists_every_registry_tool_with_schemas_and_annotations(
    sleuth: AsyncSleuth, mode: str
) -> None:
    async with connect(sleuth, mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    registry = mcp_server.mcp_registry()

    assert (
        list(listed)
        == registry.names()
        == [
            "web_search",
            "fetch_page",
            "research",
            "map_site",
            "crawl_site",
            "detect",
            "discover",
            "fill_schema",
        ]
    )
    for tool in registry:
        declared = listed[tool.name]
        assert declared.title == tool.title
        assert declared.description == tool.description
        assert declared.input_schema == tool.parameters
        assert set(declared.input_schema["properties"]) == {
            f.alias or name for name, f in tool.arguments.model_fields.items()
        }
        assert declared.output_schema is not None
        assert declared.output_schema["type"] == "object"
        assert set(declared.output_schema["properties"]) == set(tool.output.model_fields)
        assert "$ref" not in str(declared.output_schema)
        annotations = declared.annotations
        assert annotations is not None
        assert annotations.title == tool.title
        assert annotations.read_only_hint is True
        assert annotations.open_world_hint is tool.open_world
        assert annotations.destructive_hint is False
        assert annotations.idempotent_hint is True
    assert listed["web_search"].input_schema["required"] == ["query"]
    assert listed["fetch_page"].input_schema["required"] == ["url"]
    assert listed["research"].input_schema["required"] == ["question"]


async def test_web_search_returns_numbered_results(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb
) -> None:
    async with connect(sleuth, mode) as client:
        result = await client.call_tool("web_search", {"query": "nimbus timeout"})

    assert not result.is_error
    data = result.structured_content
    assert data["query"] == "nimbus timeout"
    assert data["providers"] == ["searxng"]
    assert [item["id"] for item in data["results"]] == [1, 2]
    assert [item["url"] for item in data["results"]] == [r["url"] for r in web.results]
    assert data["results"][0]["title"] == "Nimbus timeouts"
    assert data["results"][0]["domain"] == "127.0.0.1"
    assert data["results"][0]["snippet"].startswith("Nimbus applies a default timeout")
    text = text_of(result)
    assert "[1] Nimbus timeouts" in text
    assert web.results[1]["url"] in text
    assert web.searches == ["nimbus timeout"]


async def test_fetch_page_reads_a_page_and_keeps_its_citation_id(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb
) -> None:
    async with connect(sleuth, mode) as client:
        searched = await client.call_tool("web_search", {"query": "nimbus"})
        blog = searched.structured_content["results"][1]
        result = await client.call_tool("fetch_page", {"url": blog["url"], "max_chars": 2000})

    assert not result.is_error
    data = result.structured_content
    assert data["id"] == blog["id"] == 2  # the URL keeps the id its search result had
    assert data["url"] == blog["url"]
    assert data["final_url"] == blog["url"]
    assert data["title"] == "Moving to Nimbus"
    assert BLOG_START in data["text"]
    assert data["start_index"] == 0
    assert data["total_chars"] == len(data["text"])
    assert data["next_start_index"] is None  # a null the output schema must allow
    text = text_of(result)
    assert text.startswith("[2] Moving to Nimbus")
    assert f"URL: {blog['url']}" in text
    assert BLOG_START in text


async def test_fetch_page_forbidden_by_robots_is_a_tool_error(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb
) -> None:
    url = web.site.origin + "/private/calendar"

    async with connect(sleuth, mode) as client:
        result = await client.call_tool("fetch_page", {"url": url})

    assert result.is_error
    assert result.structured_content is None
    text = text_of(result)
    assert text.startswith("error robots_disallowed: ")
    assert url in text
    assert "robots.txt" in text
    assert "What to do: Do not retry this URL" in text
    assert "/private/calendar" not in web.page_paths()


async def test_research_returns_cited_findings(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb
) -> None:
    async with connect(sleuth, mode) as client:
        result = await client.call_tool("research", {"question": QUESTION, "max_pages": 2})

    assert not result.is_error
    data = result.structured_content
    assert data["query"] == QUESTION
    assert data["errors"] == []
    assert data["meta"]["fetched_pages"] == 2
    assert data["bullets"]
    assert any("default timeout of five seconds" in b["text"] for b in data["bullets"])
    cited = {c["url"] for c in data["citations"]}
    assert cited <= {r["url"] for r in web.results}
    ids = {c["id"] for c in data["citations"]}
    assert all(set(b["citations"]) <= ids for b in data["bullets"])
    text = text_of(result)
    assert text.startswith(f"Findings for {QUESTION!r}")
    assert "[1]" in text
    assert "Sources:" in text


async def test_research_reports_progress_to_a_client_that_asks(
    sleuth: AsyncSleuth, mode: str
) -> None:
    messages: list[tuple[float, float | None, str | None]] = []
    ranked = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append((progress, total, message))
        if message and message.startswith("ranking"):
            ranked.set()

    async with connect(sleuth, mode) as client:
        result = await client.call_tool(
            "research", {"question": QUESTION, "max_pages": 2}, progress_callback=on_progress
        )
        with anyio.fail_after(10):  # a notification may be handled just after the result
            await ranked.wait()

    assert not result.is_error
    texts = [message for _, _, message in sorted(messages)]
    assert texts[0] == f"searching the web for {QUESTION!r}"
    assert "reading 2 pages" in texts
    assert sum(1 for text in texts if text and text.startswith("page done: ")) == 2
    assert texts[-1] == "ranking passages from 2 pages"
    steps = sorted(progress for progress, _, _ in messages)
    assert steps == list(range(1, len(messages) + 1))


async def test_unknown_tool_is_a_protocol_error_naming_the_tools(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb
) -> None:
    async with connect(sleuth, mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("web_serch", {"query": "nimbus"})
        after = await client.call_tool("web_search", {"query": "nimbus"})  # the session goes on

    assert raised.value.code == INVALID_PARAMS == -32602
    assert "web_serch" in raised.value.message
    assert "available tools: web_search, fetch_page, research" in raised.value.message
    assert not after.is_error
    assert web.searches == ["nimbus"]


async def test_a_crawl_or_map_that_read_nothing_is_an_error(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb
) -> None:
    blocked = web.site.origin + "/private/calendar"  # robots.txt disallows it

    async with connect(sleuth, mode) as client:
        crawled = await client.call_tool("crawl_site", {"url": blocked, "max_pages": 1})
        mapped = await client.call_tool("map_site", {"url": blocked})
        readable = await client.call_tool(
            "crawl_site", {"url": web.site.origin + "/docs/timeouts", "max_pages": 1}
        )

    assert crawled.is_error
    pages = crawled.structured_content["pages"]
    assert pages
    assert all(page["outcome"] != "ok" for page in pages)
    assert "Pages read (0 of" in text_of(crawled)
    assert mapped.is_error
    assert mapped.structured_content["entries"] == []
    assert not readable.is_error
    assert readable.structured_content["pages"][0]["outcome"] == "ok"
    assert "/private/calendar" not in web.page_paths()


def empty_schemas(node: Any, where: str) -> list[str]:
    """Every place below ``node`` where a schema is ``{}``, which accepts any value."""
    if isinstance(node, list):
        return [found for i, item in enumerate(node) for found in empty_schemas(item, where)]
    if not isinstance(node, dict):
        return []
    if node == {}:
        return [where]
    found = []
    for key, value in node.items():
        if key in ("properties", "$defs", "patternProperties"):
            for name, schema in value.items():
                found += empty_schemas(schema, f"{where}.{key}.{name}")
        elif key in ("default", "examples", "const", "enum", "required", "description"):
            continue  # values, not schemas
        else:
            found += empty_schemas(value, f"{where}.{key}")
    return found


async def test_every_output_schema_is_complete(sleuth: AsyncSleuth, mode: str) -> None:
    async with connect(sleuth, mode) as client:
        listed = (await client.list_tools()).tools

    assert listed
    found = [
        where
        for tool in listed
        for where in empty_schemas(tool.output_schema, f"{tool.name}.outputSchema")
    ]
    assert found == []
    research = next(tool for tool in listed if tool.name == "research")
    assert research.output_schema is not None
    bullet = research.output_schema["properties"]["bullets"]["items"]
    assert bullet["required"] == ["text", "citations", "quote", "source_offset"]
    assert set(bullet["properties"]) == {
        "text",
        "citations",
        "quote",
        "source_offset",
        "page",
        "locator",
    }


def test_the_schema_walk_finds_an_empty_schema() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {}}}}

    assert empty_schemas(schema, "t") == ["t.properties.a.items"]
    assert empty_schemas({"anyOf": [{"type": "null"}, {}]}, "t") == ["t.anyOf"]


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "query: Field required"),
        ({"query": "nimbus", "max_results": 50}, "max_results: Input should be less than"),
        ({"query": "nimbus", "colour": "blue"}, "colour: Extra inputs are not permitted"),
    ],
)
async def test_invalid_arguments_are_a_tool_error_saying_what_is_wrong(
    sleuth: AsyncSleuth, mode: str, web: SearxngWeb, arguments: dict[str, Any], problem: str
) -> None:
    async with connect(sleuth, mode) as client:
        result = await client.call_tool("web_search", arguments)

    assert result.is_error
    text = text_of(result)
    assert text.startswith("error invalid_arguments: invalid arguments for web_search")
    assert problem in text
    assert "What to do: Fix the arguments to match the tool's input schema" in text
    assert web.searches == []


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    word: str
    times: int = 2


class EchoOutput(BaseModel):
    words: list[str]
    note: str | None = None


async def echo(context: ToolContext, args: EchoArgs) -> ToolOutput:
    assert context.on_progress is not None
    context.on_progress("echoing", {"times": args.times})
    words = [args.word] * args.times
    return ToolOutput(" ".join(words), EchoOutput(words=words))


async def crash(context: ToolContext, args: EchoArgs) -> ToolOutput:
    raise RuntimeError("secret internal detail")


def tool(name: str, run: Any, **options: Any) -> Tool:
    return Tool(
        name=name,
        description=f"The {name} tool.",
        arguments=EchoArgs,
        output=EchoOutput,
        run=run,
        **options,
    )


async def test_a_tool_added_to_the_registry_is_served_like_the_built_ins(
    sleuth: AsyncSleuth,
) -> None:
    registry = default_registry()
    registry.add(tool("echo", echo, title="Echo", read_only=False, open_world=False))
    progress: list[str | None] = []
    done = anyio.Event()

    async def on_progress(_progress: float, _total: float | None, message: str | None) -> None:
        progress.append(message)
        done.set()

    async with connect(sleuth, "auto", registry) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("echo", {"word": "hi", "times": 3}, None, on_progress)
        with anyio.fail_after(10):
            await done.wait()

    assert list(listed) == [
        "web_search",
        "fetch_page",
        "research",
        "map_site",
        "crawl_site",
        "detect",
        "echo",
    ]
    echo_tool = listed["echo"]
    assert echo_tool.title == "Echo"
    assert echo_tool.input_schema["required"] == ["word"]
    assert echo_tool.output_schema is not None
    assert echo_tool.output_schema["properties"]["note"]["anyOf"][1] == {"type": "null"}
    assert echo_tool.annotations is not None
    assert echo_tool.annotations.read_only_hint is False
    assert echo_tool.annotations.open_world_hint is False
    assert not result.is_error
    assert result.structured_content == {"words": ["hi", "hi", "hi"], "note": None}
    assert text_of(result) == "hi hi hi"
    assert progress == ["echoing times=3"]


async def test_a_crashing_tool_is_an_internal_error_and_the_session_goes_on(
    sleuth: AsyncSleuth,
) -> None:
    registry = Registry([tool("crash", crash), tool("echo", echo)])

    async with connect(sleuth, "auto", registry) as client:
        crashed = await client.call_tool("crash", {"word": "hi"})
        after = await client.call_tool("echo", {"word": "ok", "times": 1})

    assert crashed.is_error
    text = text_of(crashed)
    assert text.startswith("error internal_error: the tool failed unexpectedly")
    assert "secret internal detail" not in text
    assert "What to do:" in text
    assert not after.is_error
    assert text_of(after) == "ok"


async def test_a_server_without_a_client_opens_and_closes_its_own(web: SearxngWeb) -> None:
    server = build_server(settings=web.settings())

    async with Client(server) as client:
        result = await client.call_tool("web_search", {"query": "nimbus"})

    assert not result.is_error
    assert len(result.structured_content["results"]) == 2
    assert web.searches == ["nimbus"]


class Node(BaseModel):
    name: str
    children: list[Node] = []


def test_output_schema_keeps_references_of_a_recursive_model() -> None:
    schema = output_schema(Node)

    assert schema["$ref"] == "#/$defs/Node"
    assert "Node" in schema["$defs"]


def test_progress_lines_read_well() -> None:
    assert describe_progress("reading", {"pages": 1, "urls": []}) == "reading 1 page"
    assert (
        describe_progress("page", {"url": "http://a/x", "outcome": "timeout", "cache": "miss"})
        == "page not read (timeout): http://a/x"
    )
    assert describe_progress("custom", {"n": 2, "items": [1]}) == "custom n=2"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("192.0.2.7", False),
        ("example.org", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_name(host) is loopback


def test_a_public_host_gets_a_warning_and_loopback_none(
    web: SearxngWeb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[tuple[str, int]] = []
    offered: list[list[str]] = []
    build = mcp_server.build_server

    def recording_build(registry: Any = None, **kwargs: Any) -> Any:
        offered.append(registry.names() if registry is not None else [])
        return build(registry, **kwargs)

    monkeypatch.setattr(mcp_server, "build_server", recording_build)
    monkeypatch.setattr(
        mcp_server, "_serve_http", lambda _server, host, port: served.append((host, port))
    )

    mcp_server.run("http", host="192.0.2.7", port=9000, settings=web.settings())
    warned = capsys.readouterr().err
    mcp_server.run("http", host="127.0.0.1", port=9001, settings=web.settings())
    quiet = capsys.readouterr().err

    assert served == [("192.0.2.7", 9000), ("127.0.0.1", 9001)]
    # Other machines never get the tools that read this one's disk.
    assert offered == [
        [
            "web_search",
            "fetch_page",
            "research",
            "map_site",
            "crawl_site",
            "discover",
            "fill_schema",
        ],
        [
            "web_search",
            "fetch_page",
            "research",
            "map_site",
            "crawl_site",
            "detect",
            "discover",
            "fill_schema",
        ],
    ]
    assert "warning" in warned
    assert "no authentication" in warned
    assert quiet == ""


@pytest.mark.parametrize(
    ("transport", "port", "message"),
    [("sse", 8765, "unknown MCP transport"), ("http", 70000, "the port must be 0-65535")],
)
def test_run_rejects_bad_options(web: SearxngWeb, transport: Any, port: int, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        mcp_server.run(transport, port=port, settings=web.settings())


def test_a_port_in_use_is_a_usage_error(web: SearxngWeb) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]

        with pytest.raises(UsageError, match=f"cannot listen on 127.0.0.1:{port}"):
            mcp_server.run("http", port=port, settings=web.settings())


async def test_detect_reads_a_local_repository(sleuth: AsyncSleuth, tmp_path: Path) -> None:
    repo = tmp_path / "svc"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text('[package]\nname = "svc"\nversion = "0.1.0"\n')
    (repo / "src" / "main.rs").write_text("fn main() {}\n")
    async with connect(sleuth, "auto") as client:
        result = await client.call_tool("detect", {"path": str(repo)})
    assert result.is_error is False
    assert result.structured_content is not None
    [project] = result.structured_content["projects"]
    assert (project["language"], project["build_system"], project["source"]) == (
        "Rust",
        "Cargo",
        "static",
    )
    assert "Cargo" in result.content[0].text
