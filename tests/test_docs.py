"""Every example in README.md and docs/*.md runs as written.

The fenced blocks are read out of the Markdown and checked against the code, never
against a copy of it: each ``sleuth ...`` line is parsed by the CLI's own click
command (so commands, sub-commands, options and their choices and bounds must exist;
nothing runs), each Python block compiles and every ``sleuth`` name and attribute it
uses exists, each ``curl`` posts a body the route's model accepts, TOML loads through
the real settings loader, and JSON marked ``<!-- model: dotted.Name -->`` names only
fields that model has. The README's table of what each surface offers is checked
against the CLI, the Python API, the server's routes and the tool registries; the
exit-code table against ``EXIT_CODES``. New commands, options and settings are simply
checked where the docs use them; they fail this test only when the docs say something
untrue (or leave a tool, a route or an exit code out of a table that lists them all).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import itertools
import json
import re
import shlex
import tomllib
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import BaseModel, ValidationError

import sleuth
from sleuth.cli import app as cli_app

try:  # typer vendors click; its commands raise the vendored exceptions
    from typer._click.exceptions import UsageError as CliUsageError
except ImportError:  # an older typer on plain click
    from click import UsageError as CliUsageError  # type: ignore[assignment]
from sleuth.config import Settings, load_settings
from sleuth.errors import EXIT_CODES
from sleuth.operation import Bound

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "console", "shell"}
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MARKER = re.compile(r"<!--\s*(?P<name>[a-z-]+)(?::\s*(?P<value>[^>]*?))?\s*-->")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    marker: dict[str, str]  # the <!-- name: value --> comment just above the fence, if any

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _blocks(path: Path) -> Iterator[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        fence = match["fence"]
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index])
            index += 1
        marker: dict[str, str] = {}
        above = start - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        if above >= 0 and (found := MARKER.fullmatch(lines[above].strip())):
            marker[found["name"]] = (found["value"] or "").strip()
        lang = match["info"].strip().split(" ")[0].lower()
        yield Block(path, start + 1, lang, "\n".join(body) + "\n", marker)
        index += 1


BLOCKS = [block for path in DOC_FILES for block in _blocks(path)]


def _of(*langs: str) -> list[Any]:
    return [pytest.param(b, id=b.where) for b in BLOCKS if b.lang in langs]


def _prose(path: Path) -> str:
    """The Markdown with its fenced blocks left out."""
    text = path.read_text(encoding="utf-8")
    return re.sub(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1\s*$", "", text, flags=re.S | re.M)


# ---------------------------------------------------------------- shell blocks


def _command_lines(block: Block) -> list[str]:
    """Shell lines joined across ``\\`` continuations; a console block's are the ``$`` ones."""
    raw = block.text.splitlines()
    if block.lang == "console":
        raw = [line[2:] for line in raw if line.startswith("$ ")]
    joined: list[str] = []
    pending = ""
    for line in raw:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    return [line for line in joined if line.strip() and not line.lstrip().startswith("#")]


def _simple_commands(line: str) -> list[list[str]]:
    """The words of each simple command on ``line``, redirections and comments dropped."""
    line = re.sub(r"(?<=\s)\d?(?:>>|>|<)(?:&\d|\s*[^\s|;&]+)", " ", line)  # redirections
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.commenters = "#"
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    skip_next = False
    for token in lexer:
        if skip_next:
            skip_next = False
            continue
        if token in {"|", "||", "&&", ";", "&", "(", ")"}:
            commands.append([])
        elif set(token) <= set("<>&") or re.fullmatch(r"\d?[<>]&?\d?", token):
            skip_next = token.endswith(("<", ">"))
        else:
            commands[-1].append(token)
    result = []
    for words in commands:
        start = 0
        while start < len(words) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[start]):
            start += 1  # FOO=bar before the command
        if words[start:]:
            result.append(words[start:])
    return result


ROOT_COMMAND = typer.main.get_command(cli_app)


def check_sleuth_args(args: list[str]) -> None:
    """Parse ``sleuth args`` with the CLI's own click commands, down to the leaf command.

    Raises ``CliUsageError`` (an unknown command or option, a bad choice or value)
    or ``AssertionError``; runs nothing.
    """
    command: Any = ROOT_COMMAND
    name = "sleuth"
    parent: Any = None
    while True:
        try:
            context = command.make_context(name, list(args), parent=parent)
        except typer.Exit:  # an eager --version or --help: valid, nothing more to see
            return
        if not hasattr(command, "commands"):
            return
        rest = [*context._protected_args, *context.args]
        assert rest, f"`{' '.join(args)}`: `{name}` needs a sub-command"
        sub = command.get_command(context, rest[0])
        if sub is None:
            raise CliUsageError(f"no command {rest[0]!r} under `{name}`")
        command, name, args, parent = sub, rest[0], rest[1:], context


def _api_routes() -> dict[str, set[str]]:
    from sleuth.server.app import create_app

    app = create_app(load_settings(cache="memory"))
    return {route.path: set(getattr(route, "methods", None) or ()) for route in app.routes}  # type: ignore[attr-defined]


ROUTES = _api_routes()


def _body_model(path: str) -> type[BaseModel]:
    """The model the JSON API reads a route's body with."""
    from sleuth.server import routes

    last = path.rstrip("/").rsplit("/", 1)[-1]
    if path == "/api/v1/links/suggest":
        return routes.SuggestBody
    if path == "/api/v1/crawl":
        from sleuth.server.crawl import CrawlBody

        return CrawlBody
    model = getattr(routes, f"{last.capitalize()}Body", None)
    assert model is not None, f"no body model found for {path}: teach tests/test_docs.py"
    return typing.cast(type[BaseModel], model)


def _route_for(path: str) -> str | None:
    """The route ``path`` reaches: itself, or a route whose ``{param}`` parts match."""
    if path in ROUTES:
        return path
    for route in ROUTES:
        if "{" in route and re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(route)), path):
            return route
    return None


def check_curl(words: list[str]) -> None:
    url = next((w for w in words if w.startswith(("http://", "https://"))), None)
    assert url is not None, f"`{' '.join(words)}` names no URL"
    after_host = url.split("://", 1)[1]
    if not after_host.startswith(("127.0.0.1", "localhost", "[::1]")):
        return  # someone else's site, fetched for a pipe: nothing of sleuth's to check
    path = "/" + after_host.split("/", 1)[1].split("?", 1)[0] if "/" in after_host else "/"
    data = None
    headers: list[str] = []
    method = "GET"
    for flag, value in itertools.pairwise(words):
        if flag in {"-d", "--data", "--data-raw", "--json"}:
            data = value
            method = "POST"
        elif flag in {"-H", "--header"}:
            headers.append(value.lower())
        elif flag in {"-X", "--request"}:
            method = value.upper()
    route = _route_for(path)
    assert route is not None, f"the server has no route {path}"
    methods = ROUTES[route]
    assert not methods or method in methods, f"{path} does not take {method}"
    if data is None or not path.startswith("/api/v1/"):
        return
    assert any(h.startswith("content-type: application/json") for h in headers), (
        f"a POST to {path} must say Content-Type: application/json"
    )
    body = json.loads(data)
    _body_model(path).model_validate(body)


def _check_shell_words(words: list[str]) -> None:
    program = words[0]
    base = program.rsplit("/", 1)[-1]
    if base == "sleuth":
        check_sleuth_args(words[1:])
    elif base == "curl":
        check_curl(words)
    elif program.startswith(("./scripts/", "scripts/")):
        assert (ROOT / program.removeprefix("./")).is_file(), f"no script {program}"
    elif base.startswith("python") and len(words) > 1 and words[1].endswith(".py"):
        assert (ROOT / words[1]).is_file(), f"no file {words[1]}"


@pytest.mark.parametrize("block", _of(*SHELL))
def test_shell_examples_parse(block: Block) -> None:
    """Every command line in a shell block names commands and options that exist."""
    problems = []
    for line in _command_lines(block):
        for words in _simple_commands(line):
            try:
                _check_shell_words(words)
            except (CliUsageError, AssertionError, ValidationError, ValueError) as error:
                problems.append(f"`{line.strip()}`: {error}")
    assert not problems, f"{block.where}:\n" + "\n".join(problems)


# ---------------------------------------------------------------- python blocks

Kind = tuple[str, Any]  # ("module", m) | ("class", c) | ("inst", c) | ("list", kind) | ("func", f)


def _namespace(func: Any) -> dict[str, Any]:
    """Globals to resolve ``func``'s annotations in, with sleuth's lazy exports filled in."""
    names = dict(getattr(importlib.import_module(func.__module__), "__dict__", {}))
    for name in sleuth.__all__:
        names.setdefault(name, getattr(sleuth, name))
    return names


def _kind_of_type(annotation: Any) -> Kind | None:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _kind_of_type(options[0]) if len(options) == 1 else None
    if origin in (list, tuple, typing.Sequence, typing.Iterable, set, frozenset) or (
        origin is not None and getattr(origin, "__name__", "") in {"Sequence", "Iterable"}
    ):
        args = typing.get_args(annotation)
        element = _kind_of_type(args[0]) if args else None
        return ("list", element) if element else None
    if inspect.isclass(annotation) and annotation.__module__ != "builtins":
        return ("inst", annotation)
    return None


def _returns(func: Any) -> Kind | None:
    """What calling ``func`` gives, from its (unwrapped) signature's return annotation."""
    if inspect.isclass(func):
        return ("inst", func)
    try:
        annotation = inspect.signature(func).return_annotation
    except (TypeError, ValueError):
        return None
    if annotation is inspect.Signature.empty:
        return None
    if isinstance(annotation, str):
        target = inspect.unwrap(func)
        names = {**_namespace(target), **getattr(target, "__globals__", {})}
        for name in sleuth.__all__:
            names.setdefault(name, getattr(sleuth, name))
        try:
            annotation = eval(annotation, names)  # an annotation of sleuth's own
        except Exception:
            return None
    return _kind_of_type(annotation)


def _attribute_names(cls: type) -> set[str]:
    names = set(dir(cls))
    if issubclass(cls, BaseModel):
        names |= set(cls.model_fields)
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls)}
    for klass in cls.__mro__:
        names |= set(getattr(klass, "__annotations__", {}))
    return names


def _attribute(kind: Kind, attr: str, problems: list[str], where: str) -> Kind | None:
    tag, value = kind
    if tag == "module":
        if not hasattr(value, attr):
            try:
                importlib.import_module(f"{value.__name__}.{attr}")
            except ImportError:
                problems.append(f"{where}: {value.__name__} has no attribute {attr!r}")
                return None
        target = getattr(value, attr)
        if inspect.ismodule(target):
            return ("module", target)
        if inspect.isclass(target):
            return ("class", target)
        return ("func", target) if callable(target) else None
    if tag in ("inst", "class"):
        if attr not in _attribute_names(value):
            problems.append(f"{where}: {value.__name__} has no attribute {attr!r}")
            return None
        if issubclass(value, BaseModel) and attr in value.model_fields:
            return _kind_of_type(value.model_fields[attr].annotation)
        member = inspect.getattr_static(value, attr, None)
        if isinstance(member, property) and member.fget is not None:
            return _returns(member.fget)
        if callable(member) or isinstance(member, Bound):  # Bound: an operation's method
            return ("func", getattr(value, attr))
        if attr in _attribute_names(value):
            try:
                hints = typing.get_type_hints(value, globalns=_namespace(value))
            except Exception:
                return None
            return _kind_of_type(hints[attr]) if attr in hints else None
    return None


def _forwarded(func: Any) -> Any:
    """The signature that a ``**kwargs`` shortcut of :mod:`sleuth.api` passes its keywords to."""
    from sleuth.api import AsyncSleuth

    name = getattr(func, "__name__", "")
    for candidate in (name, name[1:] if name.startswith("a") else name):
        method = getattr(AsyncSleuth, candidate, None)
        if method is not None:
            return method
    return None


def _check_call(func: Any, node: ast.Call, problems: list[str], where: str) -> None:
    """Keyword names the callee accepts (through a ``**kwargs`` shortcut, too)."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return
    module = getattr(func, "__module__", "")
    if module == "sleuth.tools" and func.__name__ in {"call", "acall"} and node.args:
        _check_tool_call(node, problems, where)
        return
    params = signature.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        target = _forwarded(func) if func.__module__ == "sleuth.api" else None
        if target is None:
            return
        signature = inspect.signature(target)
        params = signature.parameters.values()
    accepted = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    for keyword in node.keywords:
        if keyword.arg is not None and keyword.arg not in accepted:
            problems.append(f"{where}: {func.__qualname__}() takes no keyword {keyword.arg!r}")


def _check_tool_call(node: ast.Call, problems: list[str], where: str) -> None:
    from sleuth.errors import SleuthError
    from sleuth.tools import default_registry

    try:
        name = ast.literal_eval(node.args[0])
        arguments = ast.literal_eval(node.args[1]) if len(node.args) > 1 else {}
    except ValueError:
        return
    try:
        default_registry().validate(name, arguments)
    except SleuthError as error:
        problems.append(f"{where}: sleuth.tools.call({name!r}, ...) would raise: {error}")


class _Checker(ast.NodeVisitor):
    """Follows names bound from ``sleuth`` through a block and checks each attribute used."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.env: dict[str, Kind] = {}
        self.problems: list[str] = []
        self.in_try = False  # an example that shows an exception being raised, on purpose

    def kind(self, node: ast.expr) -> Kind | None:
        where = f"{self.where} line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Name):
            return self.env.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.kind(node.value)
            return _attribute(base, node.attr, self.problems, where) if base else None
        if isinstance(node, ast.Await):
            return self.kind(node.value)
        if isinstance(node, ast.Call):
            callee = self.kind(node.func)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                self.kind(arg)
            if callee is None:
                return None
            if callee[0] == "class":
                _check_call(callee[1], node, self.problems, where)
                return ("inst", callee[1])
            if callee[0] == "func":
                _check_call(callee[1], node, [] if self.in_try else self.problems, where)
                return _returns(callee[1])
            return None
        if isinstance(node, ast.Subscript):
            base = self.kind(node.value)
            self.kind(node.slice) if isinstance(node.slice, ast.expr) else None
            if base and base[0] == "list" and not isinstance(node.slice, ast.Slice):
                return typing.cast(Kind | None, base[1])
            return base if base and base[0] == "list" else None
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            for comp in node.generators:
                self.bind(comp.target, self.element(comp.iter))
            element = self.kind(node.elt)
            return ("list", element) if element else None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.kind(child)
        return None

    def element(self, node: ast.expr) -> Kind | None:
        kind = self.kind(node)
        return typing.cast(Kind | None, kind[1]) if kind and kind[0] == "list" else None

    def bind(self, target: ast.expr, kind: Kind | None) -> None:
        if isinstance(target, ast.Name):
            if kind:
                self.env[target.id] = kind
            else:
                self.env.pop(target.id, None)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            try:
                module = importlib.import_module(alias.name)
            except ImportError as error:
                self.problems.append(f"{self.where}: import {alias.name}: {error}")
                continue
            if alias.asname:
                self.env[alias.asname] = ("module", module)
            else:
                top = alias.name.split(".")[0]
                self.env[top] = ("module", importlib.import_module(top))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not node.module:
            return
        try:
            module = importlib.import_module(node.module)
        except ImportError as error:
            self.problems.append(f"{self.where}: from {node.module} import: {error}")
            return
        for alias in node.names:
            kind = _attribute(("module", module), alias.name, self.problems, self.where)
            if kind:
                self.env[alias.asname or alias.name] = kind

    def visit_Assign(self, node: ast.Assign) -> None:
        kind = self.kind(node.value)
        for target in node.targets:
            self.bind(target, kind)

    def visit_For(self, node: ast.For) -> None:
        self.bind(node.target, self.element(node.iter))
        for statement in [*node.body, *node.orelse]:
            self.visit(statement)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            kind = self.kind(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, kind)
        for statement in node.body:
            self.visit(statement)

    visit_AsyncWith = visit_With  # type: ignore[assignment]

    def visit_Try(self, node: ast.Try) -> None:
        self.in_try = True
        for statement in node.body:
            self.visit(statement)
        self.in_try = False
        for part in [*node.handlers, *node.orelse, *node.finalbody]:
            self.visit(part)

    def visit_Expr(self, node: ast.Expr) -> None:
        self.kind(node.value)

    def generic_visit(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.kind(child)
            else:
                self.visit(child)


@pytest.mark.parametrize("block", _of("python", "py"))
def test_python_examples_use_names_that_exist(block: Block) -> None:
    """Each Python block compiles, and every sleuth name, attribute and keyword it uses exists."""
    source = block.text
    compile(source, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    tree = ast.parse(source)
    checker = _Checker(block.where)
    checker.visit(tree)
    assert not checker.problems, "\n".join(checker.problems)


# ---------------------------------------------------------------- JSON and TOML blocks


def _resolve(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _check_keys(value: Any, annotation: Any, trail: str, problems: list[str]) -> None:
    kind = _kind_of_type(annotation)
    if kind is None:
        return
    if kind[0] == "list":
        for index, item in enumerate(value if isinstance(value, list) else []):
            _check_keys(item, _element_type(annotation), f"{trail}[{index}]", problems)
        return
    cls = kind[1]
    if not (inspect.isclass(cls) and issubclass(cls, BaseModel)) or not isinstance(value, dict):
        return
    fields = {(f.alias or name): f for name, f in cls.model_fields.items()} | dict(cls.model_fields)
    for key, item in value.items():
        if key not in fields:
            problems.append(f"{trail}: {cls.__name__} has no field {key!r}")
            continue
        _check_keys(item, fields[key].annotation, f"{trail}.{key}", problems)


def _element_type(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _element_type(options[0])
    args = typing.get_args(annotation)
    return args[0] if args else Any


@pytest.mark.parametrize("block", _of("json"))
def test_json_examples_match_their_models(block: Block) -> None:
    """JSON is valid; marked with a model, it names only that model's fields (nested too)."""
    value = json.loads(block.text)
    if isinstance(value, dict) and value.get("command") == "sleuth":
        check_sleuth_args([str(arg) for arg in value.get("args", [])])
        # an MCP client's configuration: the command it starts must parse
    for server in value.get("mcpServers", {}).values() if isinstance(value, dict) else ():
        if server.get("command") == "sleuth":
            check_sleuth_args([str(arg) for arg in server.get("args", [])])
    dotted = block.marker.get("model") or block.marker.get("body")
    if not dotted:
        return
    model = _resolve(dotted)
    problems: list[str] = []
    items = value if isinstance(value, list) else [value]
    for item in items:
        _check_keys(item, model, dotted, problems)
    assert not problems, f"{block.where}:\n" + "\n".join(problems)
    if "body" in block.marker:  # a request example: one the route accepts as it stands
        for item in items:
            model.model_validate(item)


@pytest.mark.parametrize("block", _of("toml"))
def test_toml_examples_load(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A TOML example is a config file the real loader accepts (no unknown setting).

    A ``[[sites]]`` entry is resolved on load, so what it names is provided: its
    ``env:NAME`` variables and its cookies files (under a home of the test's own)."""
    parsed = tomllib.loads(block.text)
    monkeypatch.setenv("HOME", str(tmp_path))
    for entry in parsed.get("sites", []):
        for value in entry.get("headers", {}).values():
            if value.startswith("env:"):
                monkeypatch.setenv(value[4:], "example-value")
        if "cookies_file" in entry:
            cookies = Path(entry["cookies_file"]).expanduser()
            cookies.parent.mkdir(parents=True, exist_ok=True)
            cookies.write_text("# Netscape HTTP Cookie File\n", encoding="utf-8")
    path = tmp_path / "config.toml"
    path.write_text(block.text, encoding="utf-8")
    load_settings(path)


# ---------------------------------------------------------------- names in prose


def _known_env_names() -> set[str]:
    names = {f"SLEUTH_{name.upper()}" for name in Settings.model_fields}
    for field in Settings.model_fields.values():
        choices = getattr(field.validation_alias, "choices", ())
        names |= {str(choice).upper() for choice in choices}
    return names


def _source_text() -> str:
    parts = []
    for folder in ("src", "scripts", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".py", ""} and path.stat().st_size < 2_000_000:
                try:
                    parts.append(path.read_text(encoding="utf-8"))
                except UnicodeDecodeError:
                    continue
    return "\n".join(parts)


_READ_ENV = re.compile(
    r"""(?:environ\.get|getenv)\(\s*["'](SLEUTH_\w+)["']|environ\[["'](SLEUTH_\w+)["']\]"""
)


def _test_switches() -> set[str]:
    """``SLEUTH_*`` variables the test set-up reads (``conftest.py``), such as the switch
    that retakes the docs' screenshots: documented for contributors, read by no module."""
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("conftest.py"):
        for match in _READ_ENV.finditer(path.read_text(encoding="utf-8")):
            names.add(match[1] or match[2])
    return names


def test_every_sleuth_variable_named_exists() -> None:
    """Each ``SLEUTH_*`` name in the docs is a setting or a variable the code reads."""
    known = _known_env_names() | _test_switches()
    source = _source_text()
    unknown = set()
    for path in DOC_FILES:
        for name in re.findall(r"\bSLEUTH_[A-Z0-9_]*[A-Z0-9]\b", path.read_text("utf-8")):
            if name not in known and name not in source:
                unknown.add(f"{path.relative_to(ROOT)}: {name}")
    assert not unknown, sorted(unknown)


def test_links_between_pages_resolve() -> None:
    """Relative links point at files that exist, and #anchors at headings there."""
    broken = []
    for path in DOC_FILES:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(path)):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{path.relative_to(ROOT)} -> {target} (no such heading)")
    assert not broken, broken


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} +(.+?)\s*$", _prose(path), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


# ---------------------------------------------------------------- the tables


def _table_after(marker: str) -> list[list[str]]:
    """The rows (cells stripped, header and rule left out) of the table after ``marker``."""
    for path in DOC_FILES:
        text = path.read_text("utf-8")
        at = text.find(f"<!-- {marker} -->")
        if at < 0:
            continue
        rows: list[list[str]] = []
        for line in text[at:].splitlines()[1:]:
            if not line.strip():
                if rows:
                    break
                continue
            if not line.lstrip().startswith("|"):
                break
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        return [row for row in rows[2:]]
    raise AssertionError(f"no <!-- {marker} --> table in README.md or docs/")


def _header_after(marker: str) -> list[str]:
    for path in DOC_FILES:
        text = path.read_text("utf-8")
        at = text.find(f"<!-- {marker} -->")
        if at >= 0:
            line = next(ln for ln in text[at:].splitlines()[1:] if ln.strip())
            return [cell.strip() for cell in line.strip().strip("|").split("|")]
    raise AssertionError(marker)


def _command(path: str) -> Any:
    """The click command for ``sleuth sub ...``."""
    command: Any = ROOT_COMMAND
    for word in path.split()[1:]:
        found = getattr(command, "commands", {}).get(word)
        assert found is not None, f"there is no command `{path}`"
        command = found
    return command


OPTION_TABLES = [
    (path, m["value"])
    for path in DOC_FILES
    for m in MARKER.finditer(path.read_text("utf-8"))
    if m["name"] == "options"
]


@pytest.mark.parametrize(
    ("path", "command"), [pytest.param(p, c, id=f"{p.name}:{c}") for p, c in OPTION_TABLES]
)
def test_option_tables_name_real_options(path: Path, command: str) -> None:
    """Every option in a command's option table is one that command accepts."""
    text = path.read_text("utf-8")
    at = text.index(f"<!-- options: {command} -->")
    rows = [line for line in text[at:].split("\n\n", 1)[0].splitlines()[3:] if line]
    accepted = {
        opt
        for param in _command(command).params
        for opt in [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
    }
    named = [opt for row in rows for opt in re.findall(r"`(-{1,2}[a-z][\w-]*)", row.split("|")[1])]
    assert named, f"no options found in the table for {command}"
    unknown = [opt for opt in named if opt not in accepted]
    assert not unknown, f"{command} has no {unknown}"


def test_tool_argument_table_names_real_arguments() -> None:
    """Each tool in the MCP page's table exists and takes exactly the arguments it lists."""
    from sleuth.server.mcp import mcp_registry

    registry = mcp_registry(local=True)
    problems = []
    for row in _table_after("tool-arguments"):
        tool = row[0].strip("`")
        if tool not in registry:
            problems.append(f"no tool {tool}")
            continue
        named = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", row[1])))  # not values
        fields = {f.alias or n for n, f in registry.get(tool).arguments.model_fields.items()}
        if named != fields:
            problems.append(
                f"{tool}: the table says {sorted(named)}, the tool takes {sorted(fields)}"
            )
    assert not problems, problems


def test_json_flag_table_is_true() -> None:
    """The commands said to take ``--json`` take it; those said not to, do not."""
    problems = []
    for row in _table_after("json-flag"):
        expected = not row[0].startswith("not")
        for path in re.findall(r"`(sleuth [a-z ]+?)`", row[1]):
            params = _command(path).params
            takes = any("--json" in getattr(param, "opts", ()) for param in params)
            if takes != expected:
                problems.append(f"`{path}` {'does not take' if expected else 'takes'} --json")
    assert not problems, problems


def test_exit_code_table_is_exit_codes() -> None:
    """The exit-code table lists every code of ``EXIT_CODES`` with its number, and no other."""
    documented: dict[str, int] = {}
    for row in _table_after("exit-codes"):
        code = row[0].strip("`")
        documented[code] = int(row[1])
    wrong = {c: n for c, n in documented.items() if EXIT_CODES.get(c) != n}
    missing = sorted(set(EXIT_CODES) - set(documented))
    assert not wrong, f"documented with the wrong exit code (or not a code): {wrong}"
    assert not missing, f"exit codes missing from the table: {missing}"


TOOL_COLUMNS = ("mcp stdio", "/mcp", "sleuth tools", "sleuth.tools.call", "ask's model")
NOT_OFFERED = {"—", "-", ""}


def _registries() -> dict[str, Any]:
    from sleuth.server.mcp import mcp_registry
    from sleuth.tools import default_registry
    from sleuth.toolset import offered_registry

    return {
        "mcp stdio": mcp_registry(local=True),
        "/mcp": mcp_registry(local=False),
        "sleuth tools": offered_registry(),
        "sleuth.tools.call": default_registry(),
        "ask's model": default_registry(local=False, ask=True),
    }


def _column(header: str) -> str:
    lowered = header.lower().strip("` ")
    for key in (*TOOL_COLUMNS, "cli", "python", "http"):
        if key in lowered:
            return key
    raise AssertionError(f"the capability table has a column this test does not know: {header}")


def _python_offers(operation: str) -> bool:
    from sleuth.api import AsyncSleuth

    return operation in sleuth.__all__ or hasattr(AsyncSleuth, operation)


def _names_exist(column: str, names: list[str], registries: dict[str, Any]) -> list[str]:
    """The names in one cell that the surface does not have."""
    missing = []
    for name in names:
        if column in TOOL_COLUMNS:
            ok = name in registries[column]
        elif column == "cli":
            words = name.split()
            try:
                check_sleuth_args([*words[1:], "--help"])
                ok = words[0] == "sleuth"
            except CliUsageError:
                ok = False
        elif column == "python":
            parts = name.removesuffix("()").split(".")
            if parts[0] == "sleuth":
                parts = parts[1:]
            problems: list[str] = []
            kind: Kind | None = ("module", sleuth)
            for part in parts:
                kind = _attribute(kind, part, problems, name) if kind else None
            ok = not problems and kind is not None
        else:
            method, _, path = name.rpartition(" ")
            ok = path in ROUTES and (not method or method in ROUTES[path])
        if not ok:
            missing.append(name)
    return missing


def test_capability_table_matches_the_code() -> None:
    """Each cell of the README's capability table is true: a name it gives exists on that
    surface, and a dash stands where the surface does not offer the operation. Every tool
    of every registry and every JSON route has a row."""
    header = _header_after("capabilities")
    columns = [_column(head) for head in header[1:]]
    registries = _registries()
    cli = set(ROOT_COMMAND.commands)  # type: ignore[attr-defined]
    api = {path.rsplit("/", 1)[-1] for path in ROUTES if path.startswith("/api/v1/")}
    problems = []
    seen: dict[str, set[str]] = {column: set() for column in columns}
    for row in _table_after("capabilities"):
        operation = row[0].strip("`* ")
        for column, cell in zip(columns, row[1:], strict=True):
            names = re.findall(r"`([^`]+)`", cell)
            seen[column].update(names)
            if names:
                for name in _names_exist(column, names, registries):
                    problems.append(f"{operation} / {column}: {name!r} does not exist there")
            elif cell not in NOT_OFFERED:
                problems.append(f"{operation} / {column}: write `names` or —, not {cell!r}")
            elif column == "cli" and operation in cli:
                problems.append(f"{operation} / cli: `sleuth {operation}` exists")
            elif column == "python" and _python_offers(operation):
                problems.append(f"{operation} / python: sleuth offers {operation}")
            elif column == "http" and operation in api:
                problems.append(f"{operation} / http: a route serves {operation}")
    for column, registry in registries.items():
        if column in seen:
            left_out = set(registry.names()) - seen[column]
            if left_out:
                problems.append(f"{column} offers {sorted(left_out)}; the table leaves it out")
    if "http" in seen:
        shown = {name.rpartition(" ")[2] for name in seen["http"]}
        left_out = {p for p in ROUTES if p.startswith("/api/v1/")} - shown
        if left_out:
            problems.append(f"routes the table leaves out: {sorted(left_out)}")
    assert not problems, "\n".join(problems)


def test_checks_catch_wrong_examples() -> None:
    """The checks above fail on the mistakes they exist for (so a pass means something)."""
    with pytest.raises(ValidationError):  # research over HTTP wants "question"
        check_curl(
            [
                "curl",
                "http://127.0.0.1:8080/api/v1/research",
                "-H",
                "Content-Type: application/json",
                "-d",
                '{"query": "x"}',
            ]
        )
    with pytest.raises(ValidationError):  # a crawl job's delay has a floor of 0.25 s
        check_curl(
            [
                "curl",
                "http://127.0.0.1:8080/api/v1/crawl",
                "-H",
                "Content-Type: application/json",
                "-d",
                '{"url": "https://example.org/", "delay": 0.1}',
            ]
        )
    with pytest.raises(AssertionError, match="does not take"):  # a job is GET or DELETE
        check_curl(["curl", "-X", "PUT", "http://127.0.0.1:8080/api/v1/crawl/abc"])
    with pytest.raises(AssertionError, match="no route"):  # {job} is one path segment
        check_curl(["curl", "http://127.0.0.1:8080/api/v1/crawl/abc/def"])
    with pytest.raises(CliUsageError):
        check_sleuth_args(["fetch", "https://example.org/", "--no-such-option"])
    with pytest.raises(CliUsageError):
        check_sleuth_args(["tools", "--format", "klingon"])
    with pytest.raises(CliUsageError):
        check_sleuth_args(["no-such-command"])
    problems: list[str] = []
    checker = _Checker("example")
    checker.visit(
        ast.parse(
            "import sleuth\npage = sleuth.fetch('https://example.org/', formt='text')\n"
            "print(page.no_such_field)\nsleuth.tools.call('no_such_tool', {})\n"
        )
    )
    problems = checker.problems
    assert any("formt" in p for p in problems), problems
    assert any("no_such_field" in p for p in problems), problems
    assert any("no_such_tool" in p for p in problems), problems
    assert "SLEUTH_SCREENSHOTS" in _test_switches()  # read by tests/browser/conftest.py
    assert "SLEUTH_NO_SUCH_SWITCH" not in _test_switches() | _known_env_names()
    wrong: list[str] = []
    _check_keys({"query": "x", "bulets": []}, sleuth.Digest, "Digest", wrong)
    assert wrong == ["Digest: Digest has no field 'bulets'"]
