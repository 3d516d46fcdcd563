"""``fill`` as people and programs call it: the real CLI, ``POST /api/v1/fill`` on a real
server process, and the MCP tool, each against loopback pages, a stand-in search and the
loopback model that answers per leaf."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.client import Client

from fill.fakemodel import FakeModel, running
from loopback import SearxngWeb, serve
from server.harness import ServerProcess, model_env, stop_quietly
from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.errors import EXIT_CODES
from sleuth.server.mcp import build_server

PRODUCT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "price": {"type": "number"},
        "in_stock": {"type": "boolean"},
        "rating": {"type": ["number", "null"]},
    },
    "required": ["name", "price", "in_stock"],
}
PARAGRAPHS = [
    "The Acme Drill 500 is a cordless drill for the home workshop.",
    "Price: $129.00",
    "In stock and ready to ship.",
]


def vq(value: Any, quote: str) -> dict[str, Any]:
    return {"value": value, "quote": quote}


GOOD = {
    "/name": vq("Acme Drill 500", "The Acme Drill 500 is a cordless drill"),
    "/price": vq(129.0, "Price: $129.00"),
    "/in_stock": vq(True, "In stock and ready to ship."),
}
# A price that is one digit off: not in its quote, so a required leaf is unsupported.
WRONG_PRICE = {**GOOD, "/price": vq(139.0, "Price: $129.00")}


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with running(FakeModel()) as served:
        yield served


@pytest.fixture
def web() -> Iterator[SearxngWeb]:
    with serve() as site:
        web = SearxngWeb(site)
        web.page("/drill", "Acme Drill 500", PARAGRAPHS)
        yield web


@pytest.fixture
def env(web: SearxngWeb, model: FakeModel, tmp_path: Path) -> dict[str, str]:
    return {**web.env(tmp_path), **model_env("openai", model.base_url)}


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "product.json"
    path.write_text(json.dumps(PRODUCT))
    return path


def drill(web: SearxngWeb) -> str:
    return f"{web.site.origin}/drill"


def sleuth_cli(
    *args: str, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    return subprocess.run(
        [sys.executable, "-m", "sleuth", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=120,
        check=False,
    )


# -- the command line ---------------------------------------------------------------------


def test_cli_fills_with_quotes_and_locators(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], schema_file: Path
) -> None:
    model.scripts[drill(web)] = GOOD
    done = sleuth_cli("fill", str(schema_file), drill(web), "--json", env=env)

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["outcome"] == "ok"
    assert answer["data"] == {
        "name": "Acme Drill 500",
        "price": 129.0,
        "in_stock": True,
        "rating": None,
    }
    jsonschema.validate(answer["data"], PRODUCT)
    evidence = {item["path"]: item for item in answer["evidence"]}
    assert evidence["/price"]["locator"].startswith(drill(web) + "#:~:text=")
    assert evidence["/in_stock"]["matched"] == "quote"
    assert answer["unsupported"] == [{"path": "/rating", "reason": "no_quote"}]
    assert answer["sources"] == [{"url": drill(web), "outcome": "ok"}]
    assert len(model.requests) == 1


def test_cli_incomplete_prints_the_answer_and_exits_90(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], schema_file: Path
) -> None:
    model.scripts[drill(web)] = WRONG_PRICE
    done = sleuth_cli("fill", "-", drill(web), env=env, stdin=schema_file.read_text())

    assert done.returncode == EXIT_CODES["incomplete"] == 90
    assert "outcome: incomplete" in done.stdout
    assert '/name = "Acme Drill 500"' in done.stdout
    assert "/price: value_not_in_quote" in done.stdout
    assert f"{drill(web)}: ok" in done.stdout

    as_json = sleuth_cli("fill", "-", drill(web), "--json", env=env, stdin=json.dumps(PRODUCT))
    assert as_json.returncode == 90
    answer = json.loads(as_json.stdout)
    assert answer["outcome"] == "incomplete"
    assert "price" not in answer["data"]


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (None, "cannot read the schema file"),
        ("{not json", "is not JSON"),
        (json.dumps({"type": "object", "properties": {"a": {"type": "nope"}}}), "not valid"),
        (json.dumps({"$ref": "https://example.com/s.json"}), "$ref"),
    ],
)
def test_cli_refuses_a_bad_schema_before_any_request(
    web: SearxngWeb,
    model: FakeModel,
    env: dict[str, str],
    tmp_path: Path,
    schema: str | None,
    words: str,
) -> None:
    path = tmp_path / "schema.json"
    if schema is not None:
        path.write_text(schema)
    done = sleuth_cli("fill", str(path), drill(web), env=env)

    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert words in done.stderr
    assert web.site.paths() == []
    assert model.requests == []


def test_cli_reads_the_schema_from_stdin_before_anything_else(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], tmp_path: Path
) -> None:
    # Even settings that cannot load come second: the schema is read first, from stdin.
    broken = {**env, "SLEUTH_CONFIG": str(tmp_path / "missing.toml")}
    done = sleuth_cli("fill", "-", drill(web), env=broken, stdin="{not json")

    assert done.returncode == 2
    assert "the schema in standard input is not JSON" in done.stderr
    assert web.site.paths() == []
    assert model.requests == []


def test_cli_wants_urls_or_a_question_not_both(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], schema_file: Path
) -> None:
    both = sleuth_cli("fill", str(schema_file), drill(web), "--question", "acme drill", env=env)
    neither = sleuth_cli("fill", str(schema_file), env=env)

    assert both.returncode == neither.returncode == 2
    assert "not both and not neither" in both.stderr
    assert web.site.paths() == []
    assert model.requests == []


def test_cli_fills_from_a_searched_question(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], schema_file: Path
) -> None:
    model.scripts[drill(web)] = GOOD
    done = sleuth_cli(
        "fill", str(schema_file), "--question", "acme drill 500 price", "--json", env=env
    )

    assert done.returncode == 0, done.stderr
    assert web.searches == ["acme drill 500 price"]
    answer = json.loads(done.stdout)
    assert answer["data"]["price"] == 129.0
    assert [s["url"] for s in answer["sources"]] == [drill(web)]


def test_cli_without_a_model_says_what_to_set_before_reading(
    web: SearxngWeb, model: FakeModel, tmp_path: Path, schema_file: Path
) -> None:
    done = sleuth_cli("fill", str(schema_file), drill(web), env=web.env(tmp_path))

    assert done.returncode == EXIT_CODES["llm_not_configured"]
    assert "SLEUTH_LLM_PROVIDER" in done.stderr
    assert web.site.paths() == []
    assert model.requests == []


def _pdf(lines_per_page: list[str]) -> bytes:
    """A small text PDF, one line of text per page."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(lines_per_page)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(lines_per_page)} >>".encode())
    font = 3 + 2 * len(lines_per_page)
    for index, line in enumerate(lines_per_page):
        stream = f"BT /F1 12 Tf 72 720 Td ({line}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_cli_points_into_a_pdf_by_page(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], tmp_path: Path
) -> None:
    url = web.site.add(
        "/sheet.pdf",
        _pdf(["Acme Drill 500 data sheet", "Rated voltage: 18 V"]),
        headers={"Content-Type": "application/pdf"},
    )
    schema = {"type": "object", "properties": {"voltage": {"type": "number"}}}
    model.scripts[url] = {"/voltage": vq(18, "Rated voltage: 18 V")}
    done = sleuth_cli("fill", "-", url, "--json", env=env, stdin=json.dumps(schema))

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["data"] == {"voltage": 18}
    assert answer["evidence"][0]["locator"] == f"{url}#page=2"


# -- HTTP ---------------------------------------------------------------------------------


@pytest.fixture
def server(env: dict[str, str]) -> Iterator[ServerProcess]:
    process = ServerProcess({**env, "SLEUTH_API_TOKENS": "tok-fill-1"}).wait_ready()
    try:
        yield process
    finally:
        stop_quietly(process)


def test_http_answers_ok_and_incomplete_with_200(
    web: SearxngWeb, model: FakeModel, server: ServerProcess
) -> None:
    model.scripts[drill(web)] = GOOD
    ok = server.post("/api/v1/fill", {"schema": PRODUCT, "urls": [drill(web)]}, token="tok-fill-1")
    assert ok.status_code == 200, ok.text
    assert ok.json()["outcome"] == "ok"
    assert ok.json()["data"]["name"] == "Acme Drill 500"

    model.scripts[drill(web)] = WRONG_PRICE
    schema = {**PRODUCT, "title": "another schema, so nothing is shared"}
    missing = server.post(
        "/api/v1/fill", {"schema": schema, "urls": [drill(web)]}, token="tok-fill-1"
    )
    assert missing.status_code == 200, missing.text
    assert missing.json()["outcome"] == "incomplete"
    assert {"path": "/price", "reason": "value_not_in_quote"} in missing.json()["unsupported"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (
            {"schema": {"type": "object", "properties": {"a": {"type": "nope"}}}, "urls": ["URL"]},
            422,
        ),
        ({"schema": {"type": "array"}, "urls": ["URL"]}, 422),
        ({"schema": PRODUCT}, 400),
        ({"schema": PRODUCT, "urls": ["URL"], "question": "acme drill"}, 400),
        ({"schema": PRODUCT, "urls": ["URL"] * 11}, 400),
    ],
    ids=["invalid-schema", "not-an-object", "neither", "both", "too-many-urls"],
)
def test_http_refuses_before_any_request(
    web: SearxngWeb, model: FakeModel, server: ServerProcess, body: dict[str, Any], status: int
) -> None:
    if "urls" in body:
        body = {**body, "urls": [drill(web) for _ in body["urls"]]}
    reply = server.post("/api/v1/fill", body, token="tok-fill-1")

    assert reply.status_code == status, reply.text
    assert reply.json()["code"] == ("SCHEMA_REFUSED" if status == 422 else "USAGE_ERROR")
    assert web.site.paths() == []
    assert model.requests == []


# -- MCP ----------------------------------------------------------------------------------


def settings_for(web: SearxngWeb, model: FakeModel, tmp_path: Path) -> Settings:
    return web.settings().model_copy(
        update={
            "llm_provider": "openai",
            "llm_model": "test-model",
            "llm_base_url": model.base_url,
            "llm_api_key": "sk-test-key",
            "llm_cassette_dir": tmp_path / "cassettes",
        }
    )


async def test_mcp_returns_the_answer_as_structured_content(
    web: SearxngWeb, model: FakeModel, tmp_path: Path
) -> None:
    model.scripts[drill(web)] = WRONG_PRICE
    async with (
        AsyncSleuth(settings_for(web, model, tmp_path)) as sleuth,
        Client(build_server(None, client=sleuth), mode="auto") as client,
    ):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("fill_schema", {"schema": PRODUCT, "urls": [drill(web)]})

    assert "fill_schema" in tools
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["outcome"] == "incomplete"
    assert result.structured_content["data"]["name"] == "Acme Drill 500"


def test_ask_model_is_not_offered_fill() -> None:
    from sleuth.tools import default_registry
    from sleuth.toolset import offered_registry

    assert "fill_schema" in offered_registry()
    assert "fill_schema" not in default_registry(local=False, ask=True)


def test_cli_leaves_out_a_site_that_says_ai_input_no(
    web: SearxngWeb, model: FakeModel, env: dict[str, str], schema_file: Path
) -> None:
    # The site's robots.txt says its pages are not model input: the page is not read, its
    # source says why, and the model is asked nothing about it.
    web.site.add(
        "/robots.txt",
        "User-agent: *\nContent-Signal: search=yes, ai-input=no\nAllow: /\n",
        headers={"Content-Type": "text/plain"},
    )
    model.scripts[drill(web)] = GOOD
    done = sleuth_cli("fill", str(schema_file), drill(web), "--json", env=env)

    answer = json.loads(done.stdout)
    assert answer["sources"] == [{"url": drill(web), "outcome": "content_signal"}]
    assert answer["evidence"] == []
    assert model.requests == []
    assert "/drill" not in web.site.paths()

    # A person may say otherwise at the command line; a tool call or HTTP body cannot.
    ignored = sleuth_cli(
        "fill", str(schema_file), drill(web), "--json", "--ignore-content-signals", env=env
    )
    assert json.loads(ignored.stdout)["sources"] == [{"url": drill(web), "outcome": "ok"}]
    assert len(model.requests) == 1


@pytest.mark.parametrize("surface", ["http", "tool"])
@pytest.mark.parametrize("field", ["ignore_content_signals", "respect_content_signals"])
def test_no_body_or_tool_call_can_ignore_content_signals(surface: str, field: str) -> None:
    from pydantic import ValidationError

    from sleuth.operation import OPERATIONS

    body = {"schema": PRODUCT, "urls": ["https://docs.example/drill"]}
    model = OPERATIONS["fill"].model(surface)  # type: ignore[arg-type]
    model.model_validate(body)  # the same body without the field is fine
    with pytest.raises(ValidationError):
        model.model_validate({**body, field: False})
