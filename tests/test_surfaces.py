"""Every operation is declared once, and every surface shows what its declaration says.

For each declared operation this walks the surfaces that offer it (the typed Python methods
and one-shots, the CLI command, the HTTP body and its OpenAPI, the tool an LLM or an MCP
client sees) and checks that each shows the same names, types and bounds, with only the
surface defaults and bounds the declaration itself gives, and that the surfaces that do
not offer an operation (or a parameter) leave it out.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
import typer

import sleuth
from sleuth.api import AsyncSleuth, Sleuth, operations
from sleuth.cli import app
from sleuth.config import Settings
from sleuth.errors import ERRORS, UsageError
from sleuth.operation import Operation, Surface, optional
from sleuth.server import routes
from sleuth.server.crawl import CrawlBody
from sleuth.server.openapi import build_spec
from sleuth.tools import default_registry
from sleuth.toolset import offered_registry

OPERATIONS = operations()
# The CLI's own options (how output looks and where it goes), which no declaration holds.
CLI_OWN = {"json_output", "resolve", "links", "format", "help", "out", "llms_txt"}
COMMANDS = {"map": "map", "crawl": "crawl"}
ROUTES = {"suggest": "/api/v1/links/suggest", "crawl": "/api/v1/crawl"}
BODIES = {"crawl": CrawlBody}
# Body fields a route has of its own, which the operation never receives (a job's webhook).
HTTP_OWN = {"crawl": {"webhook"}}
# Each operation lives on one line of the project: this many, by name.
EXPECTED = {
    "extract",
    "fetch",
    "search",
    "fill",
    "research",
    "ask",
    "detect",
    "discover",
    "suggest",
    "map",
    "crawl",
}


def _route(op: Operation) -> str:
    return ROUTES.get(op.name, f"/api/v1/{op.name}")


def _body(op: Operation) -> Any:
    return BODIES.get(op.name) or getattr(routes, f"{op.name.capitalize()}Body")


def _schema_bounds(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The bounds a JSON Schema property shows, in the declaration's words."""
    choices = [c for c in prop.get("anyOf", [prop]) if c.get("type") != "null"]
    (value,) = choices
    found: dict[str, Any] = {}
    if value.get("type") == "array":
        if "maxItems" in value:
            found["max_items"] = value["maxItems"]
        value = value["items"]
    names = {
        "minimum": "ge",
        "exclusiveMinimum": "gt",
        "maximum": "le",
        "minLength": "min_length",
        "maxLength": "max_length",
    }
    found.update({names[k]: v for k, v in value.items() if k in names})
    if "pattern" in value:
        found["pattern"] = value["pattern"]
    return found


def _enum(prop: dict[str, Any]) -> list[Any] | None:
    for choice in prop.get("anyOf", [prop]):
        if "enum" in choice:
            return list(choice["enum"])
        if choice.get("type") == "array" and "enum" in choice.get("items", {}):
            return list(choice["items"]["enum"])
    return None


def _literal(kind: Any) -> list[Any] | None:
    inner, _ = optional(kind)
    if get_origin(inner) in (list, tuple) or "Sequence" in str(get_origin(inner)):
        inner = get_args(inner)[0]
    return list(get_args(inner)) if get_origin(inner) is Literal else None


def test_every_operation_is_declared_once_with_known_errors() -> None:
    assert set(OPERATIONS) == EXPECTED
    for op in OPERATIONS.values():
        assert op.errors, op.name
        assert set(op.errors) <= set(ERRORS), (op.name, set(op.errors) - set(ERRORS))
        assert (op.tool is not None) == ("tool" in op.surfaces), op.name
        assert not (op.local and "http" in op.surfaces), op.name
        names = [p.name for p in op.params]
        assert len(names) == len(set(names)), op.name
        op.result_model()  # the declared result exists


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_python_shows_the_declaration(name: str) -> None:
    op = OPERATIONS[name]
    method = getattr(AsyncSleuth, name)
    signature = inspect.signature(method)
    assert method.__operation__ is op  # the method is the declaration
    for param in op.params:
        assert signature.parameters[param.name].default == param.default
        assert signature.parameters[param.name].kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        )
    # The blocking client keeps the same typed keywords (no **kwargs).
    blocking = inspect.signature(getattr(Sleuth, name))
    assert list(blocking.parameters) == list(signature.parameters)
    for one_shot in (getattr(sleuth, name, None), getattr(sleuth, f"a{name}", None)):
        if callable(one_shot):  # (sleuth.crawl is the package; crawl has no one-shot)
            assert list(inspect.signature(one_shot).parameters) == list(signature.parameters)[1:]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_cli_shows_the_declaration(name: str) -> None:
    op = OPERATIONS[name]
    group = typer.main.get_command(app)
    command = group.commands[COMMANDS.get(name, name)]  # type: ignore[attr-defined]
    params = {p.name: p for p in command.params}
    declared = {p.name: p for p in op.on("cli")}
    assert set(declared) <= set(params), name
    assert set(params) - CLI_OWN == set(declared) - CLI_OWN, name
    for param in declared.values():
        click = params[param.name]
        assert click.help == param.help_on("cli")  # type: ignore[attr-defined]
        bounds = param.bounds("cli")
        if param.arg.negate:
            assert click.opts == [param.arg.negate]  # type: ignore[attr-defined]
            continue
        if param.arg.flags:
            assert set(click.opts) | set(click.secondary_opts) >= set(param.arg.flags)  # type: ignore[attr-defined]
        parsed = click.type_descriptor.annotation  # type: ignore[attr-defined]
        if not param.arg.comma:
            assert _literal(parsed) == _literal(param.type), (name, param.name)
        assert click.min == bounds.get("ge", bounds.get("gt")), (name, param.name)  # type: ignore[attr-defined]
        assert click.max == bounds.get("le"), (name, param.name)  # type: ignore[attr-defined]
        many = click.nargs == -1 if param.arg.positional else click.multiple  # type: ignore[attr-defined]
        assert many == (param.is_list and not param.arg.comma), (name, param.name)


def _check_json(op: Operation, surface: Surface, schema: dict[str, Any], extra: set[str]) -> None:
    props = schema["properties"]
    declared = {p.wire: p for p in op.on(surface)}
    assert set(props) - extra == set(declared), (op.name, surface)
    required = set(schema.get("required", ()))
    for wire, param in declared.items():
        prop = props[wire]
        assert prop.get("description") == param.help_on(surface), (op.name, wire)
        bounds = _schema_bounds(prop, schema.get("$defs", {}))
        own = {
            k: v
            for k, v in param.bounds(surface).items()
            if not (k == "pattern" and param.arg.schema and "pattern" in param.arg.schema)
        }
        assert bounds == own or bounds == {**own, "pattern": prop.get("pattern")}, (
            op.name,
            surface,
            wire,
            bounds,
            own,
        )
        for key, value in (param.arg.schema or {}).items():
            assert prop[key] == value, (op.name, wire, key)
        assert _enum(prop) == _literal(param.type), (op.name, wire)
        if param.required_on(surface):
            assert wire in required
        elif wire in required:  # a default the surface still shows
            pytest.fail(f"{op.name}.{wire} has a default but is required on {surface}")
        else:
            default = param.default_on(surface)
            expected = list(default) if isinstance(default, tuple) else default
            shown = prop.get("default", None if expected in (None, []) else "missing")
            assert shown in (expected, None if expected == [] else expected), (
                op.name,
                surface,
                wire,
            )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_http_shows_the_declaration(name: str) -> None:
    op = OPERATIONS[name]
    spec = build_spec(Settings(cache="memory"))
    paths = spec["paths"]
    if "http" not in op.surfaces:
        assert _route(op) not in paths
        return
    body = _body(op)
    own = HTTP_OWN.get(name, set())
    _check_json(op, "http", body.model_json_schema(by_alias=True), own)
    # The description serves the same body (with this server's own narrowing: a webhook
    # only where the server has a key to sign it).
    served = spec["components"]["schemas"][body.__name__]
    assert set(served["properties"]) == {p.wire for p in op.on("http")}
    signing = build_spec(Settings(cache="memory", webhook_secret="k"))  # type: ignore[call-arg]
    shown = signing["components"]["schemas"][body.__name__]["properties"]
    assert set(shown) == {p.wire for p in op.on("http")} | own
    assert "requestBody" in paths[_route(op)]["post"]


def test_detect_is_never_served_over_http() -> None:
    spec = build_spec(Settings(cache="memory"))
    assert not [path for path in spec["paths"] if "detect" in path]
    assert "detect" not in offered_registry(local=False)
    assert "detect" in offered_registry()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_tools_show_the_declaration(name: str) -> None:
    op = OPERATIONS[name]
    offered = offered_registry()
    if op.tool is None:
        assert name not in offered.names()
        return
    tool = offered.get(op.tool.name)
    assert tool.operation is op
    assert (tool.title, tool.description) == (op.tool.title, op.tool.description)
    own = {"max_chars"} if name == "crawl" else set()  # the crawl tool's text budget
    _check_json(op, "tool", tool.parameters, own)
    assert tool.local == op.local
    assert (op.tool.name in default_registry(ask=True)) == op.tool.in_ask
    assert (op.tool.name in offered_registry(local=False)) == (not op.local)


def test_stdio_mcp_and_sleuth_tools_offer_the_declared_tools() -> None:
    declared = {op.tool.name for op in OPERATIONS.values() if op.tool is not None}
    assert set(offered_registry().names()) == declared


async def _called(method: Any, **arguments: Any) -> None:
    """Call an operation as far as its first check: crawl's run refuses when it is made."""
    result = method(**arguments)
    await (result.__anext__() if inspect.isasyncgen(result) else result)


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_python_calls_are_held_to_the_declared_bounds(name: str, tmp_path: Path) -> None:
    """A call outside a bound is refused before anything runs (no server is up here)."""
    op = OPERATIONS[name]
    bounded = [p for p in op.params if "le" in p.bounds("python") or "ge" in p.bounds("python")]
    required = {p.name: "x" for p in op.params if p.required}
    async with AsyncSleuth(Settings(cache="memory", cache_dir=tmp_path)) as client:
        for param in bounded:
            bounds = param.bounds("python")
            bad = bounds["le"] + 1 if "le" in bounds else bounds["ge"] - 1
            with pytest.raises(UsageError) as refused:
                await _called(getattr(client, name), **{**required, param.name: bad})
            assert str(refused.value).startswith(param.wire), str(refused.value)


def _capability_rows() -> dict[str, dict[str, str]]:
    text = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- capabilities -->", 1)[1].strip().splitlines()
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    rows = {}
    for line in table[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return rows


def test_the_readme_capability_table_says_what_the_declarations_say() -> None:
    """Where the README's table shows an operation offered, its declaration offers it."""
    rows = _capability_rows()
    for name, op in OPERATIONS.items():
        row = rows[name]
        shown = {column: cell not in ("—", "-", "") for column, cell in row.items()}
        assert shown["CLI"] == ("cli" in op.surfaces), name
        assert shown["HTTP (`sleuth serve`)"] == ("http" in op.surfaces), name
        tool = op.tool.name if op.tool else None
        assert shown["MCP stdio (`sleuth mcp`)"] == (tool is not None), name
        assert shown["`sleuth tools`"] == (tool is not None), name
        assert shown["`/mcp` (`sleuth serve`)"] == (tool is not None and not op.local), name
        assert shown["ask's model"] == (op.tool is not None and op.tool.in_ask), name
        if tool is not None:
            assert f"`{tool}`" in row["MCP stdio (`sleuth mcp`)"], name
