"""Errors carry no interface words: the CLI names flags, HTTP and MCP name fields.

Below the CLI an error names a Python parameter or a named hint key (a :class:`Ref`), and
never a flag or a command line, not even in a ``Ref``'s own words: ``str(error)`` is the
library's wording (Python, HTTP, MCP) and :func:`sleuth.commands.output.error_text` the
CLI's, which spells each way out from the declaration or its table of named keys.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

import sleuth
from sleuth import errors
from sleuth.commands.output import error_text, spell
from sleuth.config import load_settings
from sleuth.crawl.scope import Scope
from sleuth.discovery.chain import parse_stages
from sleuth.discovery.names import normalize_name
from sleuth.discovery.sources import name_it, parse_from
from sleuth.errors import ConfigError, Ref, SleuthError, UsageError
from sleuth.llm.setup import LLMConfig, choose_search
from sleuth.server.responses import error_payload
from sleuth.server.run import serve
from sleuth.stack.walk import detect_path

SRC = Path(sleuth.__file__).resolve().parent
# A flag (``--search``) or a sleuth command line (``sleuth discover jq``): the CLI's words.
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
COMMAND = re.compile(
    r"\bsleuth (?:ask|cache|config|crawl|detect|discover|extract|fetch|mcp|research|search"
    r"|serve|sitemap|suggest|tools)\b"
)
ERROR_NAMES = {
    name
    for name, value in vars(errors).items()
    if isinstance(value, type) and issubclass(value, SleuthError)
}
# The CLI itself may name its flags.
CLI = ("commands/", "cli.py")


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _texts(node: ast.AST) -> list[ast.Constant]:
    """The string constants under ``node``, the words of its ways out included."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    return [text for child in ast.iter_child_nodes(node) for text in _texts(child)]


def error_texts(source: str) -> list[ast.Constant]:
    """Every string that may reach an error's message or hint in ``source``."""
    found: list[ast.AST] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            found.append(node.exc)
        elif isinstance(node, ast.Call):
            if _name(node.func) == "Ref":
                found.append(node)
            if _name(node.func) in ERROR_NAMES:
                found += node.args[:1]
            found += [k.value for k in node.keywords if k.arg in ("hint", "refs")]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(
                "hint" in _name(t) or _name(t) in ("message", "refs") for t in targets
            ):
                found.append(node.value)
    texts = {id(text): text for node in found for text in _texts(node)}  # each text once
    return sorted(texts.values(), key=lambda text: (text.lineno, text.col_offset))


def interface_words(source: str) -> list[str]:
    """The error texts in ``source`` that name a flag or a command line."""
    found = []
    for text in error_texts(source):
        words = str(text.value)
        if FLAG.search(words) or COMMAND.search(words):
            found.append(f"line {text.lineno}: {words!r}")
    return found


def _files() -> list[Any]:
    params: list[Any] = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative.startswith(CLI):
            continue
        params.append(pytest.param(relative, id=relative))
    return params


def test_the_walk_finds_the_words_it_looks_for() -> None:
    old = """
def pick(choice):
    if choice == "native":
        raise UsageError("no native search", hint="use --search local or --search auto")
    hint = "name it yourself: sleuth discover jq"
    raise NotFound(f"--from {choice!r} is wrong", hint=hint)
SHOW = Ref("settings_shown", words=" with `sleuth config show`")
"""
    assert len(interface_words(old)) == 4
    remedy = (
        'raise UsageError("x", hint="{local}", refs={"local": Ref("x", words="--search local")})'
    )
    assert len(interface_words(remedy)) == 1  # a way out's own words are read too
    new = 'raise UsageError("x", hint="{local}", refs={"local": Ref("search", "local")})'
    assert error_texts(new)
    assert interface_words(new) == []
    everything = sum(len(error_texts(p.read_text())) for p in SRC.rglob("*.py"))
    assert everything > 300  # the walk reads the real raises, not nothing


@pytest.mark.parametrize("relative", _files())
def test_no_error_below_the_cli_names_a_flag_or_a_command(relative: str) -> None:
    """No message, hint or way out below the CLI spells a flag (``--max-turns``) or a
    sleuth command line: it names the parameter, and the CLI spells it."""
    assert interface_words((SRC / relative).read_text()) == []


@pytest.mark.parametrize("name", sorted(ERROR_NAMES))
def test_no_class_hint_worded_for_api_names_a_flag_or_command(name: str) -> None:
    words = getattr(errors, name).hint_for()
    assert not FLAG.search(words)
    assert not COMMAND.search(words)


def _both(error: SleuthError) -> tuple[str, str]:
    """The CLI's wording and the HTTP body's; the body is what the server sends."""
    api = str(error)
    assert error_payload(error)["error"] == api
    assert not FLAG.search(api), api
    assert not COMMAND.search(api), api
    return error_text(error), api


def test_search_local_is_a_flag_on_the_cli_and_a_field_over_http() -> None:
    provider = cast(Any, SimpleNamespace(name="openai", native_search=None))
    config = LLMConfig("openai", "m", "https://api.openai.com/v1", "k", 30, local=False)
    with pytest.raises(UsageError) as caught:
        choose_search("native", provider, config)
    cli, api = _both(caught.value)
    assert cli == (
        "the openai provider has no native web search "
        "(use --search local (sleuth's providers) or --search auto)"
    )
    assert api == (
        "the openai provider has no native web search "
        """(use search: "local" (sleuth's providers) or search: "auto")"""
    )
    assert caught.value.hint_in(spell) == "use --search local (sleuth's providers) or --search auto"
    assert caught.value.hint == 'use search: "local" (sleuth\'s providers) or search: "auto"'


def test_from_is_a_flag_on_the_cli_and_a_field_over_http() -> None:
    with pytest.raises(UsageError) as caught:
        parse_from("nonsense")
    cli, api = _both(caught.value)
    assert cli == (
        "--from 'nonsense' is not BUILDER:SOURCE "
        "(for example --from github:cli/cli or --from crates.io:ripgrep)"
    )
    assert api == (
        "from 'nonsense' is not BUILDER:SOURCE "
        '(for example from: "github:cli/cli" or from: "crates.io:ripgrep")'
    )
    assert caught.value.message == "from 'nonsense' is not BUILDER:SOURCE"
    with pytest.raises(UsageError) as unknown:
        parse_from("cargo2:ripgrep")
    assert error_text(unknown.value).startswith("--from names an unknown builder 'cargo2'")
    assert _both(unknown.value)[1].startswith("from names an unknown builder 'cargo2'")
    with pytest.raises(errors.SuspiciousName) as suspicious:
        normalize_name("rіpgrep")  # a Cyrillic і
    cli, api = _both(suspicious.value)
    assert cli.endswith("(type the name in plain ASCII letters, or name the source with --from)")
    assert api.endswith("(type the name in plain ASCII letters, or name the source with from)")


def test_render_is_a_flag_on_the_cli_and_a_field_over_http() -> None:
    for cls in (errors.JSRequired, errors.EmptyExtraction):
        cli, api = _both(cls("no readable text"))
        assert "--render always" in cli
        assert "--render always" not in api
        assert 'render: "always"' in api


def test_scope_is_a_flag_on_the_cli_and_a_field_over_http() -> None:
    with pytest.raises(UsageError) as caught:
        Scope("https://example.org/", kind=cast(Any, "galaxy"))
    cli, api = _both(caught.value)
    assert cli == "unknown scope 'galaxy' (use --scope host, domain or prefix)"
    assert api == """unknown scope 'galaxy' (use scope: "host", "domain" or "prefix")"""
    out = errors.OutOfScope("the redirect leaves example.org")
    assert "--scope" in error_text(out)
    assert "widen it" in _both(out)[1]


def test_stages_and_mode_are_worded_per_surface(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as stages:
        parse_stages(["everything"])
    cli, api = _both(stages.value)
    assert cli.endswith("(--stages takes a comma list of registry, ecosystem, llm)")
    assert api.endswith("(stages takes a list of registry, ecosystem, llm)")
    with pytest.raises(UsageError) as mode:
        detect_path(tmp_path, mode="llm")
    cli, api = _both(mode.value)
    assert cli.endswith("(configure a model, or use --mode static or --mode full)")
    assert api.endswith('(configure a model, or use mode: "static" or mode: "full")')


def test_start_up_errors_are_worded_per_surface(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as workers:
        serve(workers=0)
    cli, api = _both(workers.value)
    assert cli == "--workers must be 1 or more, not 0"
    assert api == "workers must be 1 or more, not 0"
    config = tmp_path / "sleuth.toml"
    config.write_text("[sleuth]\nmax_resluts = 5\n")
    with pytest.raises(ConfigError) as unknown:
        load_settings(config)
    cli, api = _both(unknown.value)
    assert cli.endswith("(see `sleuth config show` for the names sleuth knows)")
    assert api.endswith("(see `sleuth.config.Settings` for the names sleuth knows)")


def test_a_raisers_remedies_word_message_and_hint() -> None:
    error = UsageError(
        "{turns} must be 1-50, not 60",
        hint='send {"max_turns": 5}; {turns} counts model turns {unknown}',
        refs={"turns": Ref("max_turns")},
    )
    assert error.message == "max_turns must be 1-50, not 60"
    assert error.hint == 'send {"max_turns": 5}; max_turns counts model turns {unknown}'
    assert str(error) == f"{error.message} ({error.hint})"
    assert error.args == (error.message,)
    assert error_text(error) == (
        '--max-turns must be 1-50, not 60 (send {"max_turns": 5}; --max-turns counts model '
        "turns {unknown})"
    )
    assert error.to_dict()["message"] == str(error)
    # A hint set after the fact is that error's hint on every surface.
    error.hint = "lower {turns}"
    assert str(error).endswith("(lower max_turns)")
    assert error_text(error).endswith("(lower --max-turns)")
    llm = errors.LLMInvalidRequest("the model is missing")
    llm.hint = "run `ollama pull x`"
    assert error_text(llm) == str(llm) == "the model is missing (run `ollama pull x`)"


def test_a_raiser_may_reword_a_class_way_out() -> None:
    error = errors.VerificationFailed(
        "no such repository",
        hint="name the source yourself: {source}",
        refs={"source": name_it("jq", "github:O/R")},
    )
    assert error_text(
        error
    ) == "no such repository (name the source yourself: sleuth discover jq " + (
        "--from github:O/R)"
    )
    assert _both(error)[1] == 'no such repository (name the source yourself: from: "github:O/R")'
    timeout = errors.DiscoverTimeout("too slow", hint="raise {timeout}")  # the class's own words
    assert (error_text(timeout), str(timeout)) == (
        "too slow (raise --timeout)",
        "too slow (raise timeout)",
    )
    assert json.loads(json.dumps(error_payload(timeout)))["error"] == "too slow (raise timeout)"
