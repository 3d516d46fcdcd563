"""The CLI's operation commands are the registry's: none is listed by hand in the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from typing import Annotated, Any

import pytest
import typer
from pydantic import BaseModel

import sleuth.ops
from sleuth import cli, operation
from sleuth.commands import derive
from sleuth.operation import Arg, declare
from sleuth.ops import REGISTRY, Op


def _own_names() -> set[str]:
    return {cli._name(callback) for _, callback in cli.OWN_COMMANDS} | {
        name for name, _ in cli.OWN_GROUPS
    }


def test_the_operation_commands_are_the_registrys_cli_names() -> None:
    whole = typer.main.get_command(cli.app)
    listed = [name for name in getattr(whole, "commands", {}) if name not in _own_names()]
    offered = [op.name for op in REGISTRY if derive.offered(op)]
    assert sorted(listed) == sorted(offered)
    assert len(offered) == len(REGISTRY)  # every operation today is a command too


def test_every_operation_command_is_its_own_declaration() -> None:
    for op in REGISTRY:
        command = derive.command_of(op)
        assert command.op is op
        assert command.operation is op.operation


class Echoed(BaseModel):
    text: str


@pytest.fixture
def echo_op(monkeypatch: pytest.MonkeyPatch) -> Op:
    """A new operation, declared and added to the registry as a new module would be."""
    monkeypatch.setattr(operation, "OPERATIONS", dict(operation.OPERATIONS))

    @declare("echo", summary="Say it back.", surfaces=("cli",))
    async def echo(
        session: Any, text: Annotated[str, Arg("What to say.", positional=True)]
    ) -> Echoed:
        return Echoed(text=text)

    op = Op(echo)
    monkeypatch.setattr(sleuth.ops, "REGISTRY", (*REGISTRY, op))
    return op


def _listed() -> list[str]:
    return list(getattr(typer.main.get_command(cli._whole.__wrapped__()), "commands", {}))


def test_a_new_operation_is_a_command_without_editing_the_cli(
    echo_op: Op, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # No sleuth.commands.echo: its command prints the result as JSON, listed after the
    # other commands (the groups come last).
    names = _listed()
    assert names[-3:] == ["echo", "config", "cache"]
    monkeypatch.setenv("SLEUTH_CACHE", "memory")
    cli._invoked(["echo", "hello"])(["echo", "hello"], standalone_mode=False)
    assert json.loads(capsys.readouterr().out) == {"text": "hello"}
    alone = typer.main.get_command(cli._invoked(["echo", "--help"]))
    assert list(getattr(alone, "commands", {})) == ["echo"]


def test_a_new_operation_with_words_of_its_own_is_listed_at_its_place(
    echo_op: Op, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[dict[str, Any]] = []

    @derive.command(echo_op, place=65)
    def echo_command(arguments: dict[str, Any]) -> None:
        """Say it back."""
        said.append(arguments)

    module = types.ModuleType("sleuth.commands.echo")
    module.echo_command = echo_command  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sleuth.commands.echo", module)
    names = _listed()
    assert names.index("echo") == names.index("tools") + 1  # by its place, 65
    cli._invoked(["echo", "hello"])(["echo", "hello"], standalone_mode=False)
    assert said == [{"text": "hello"}]


def _loaded_by(argv: list[str]) -> list[str]:
    """The sleuth modules a fresh process has imported once the CLI picked its command."""
    code = (
        "import sys; from sleuth import cli; "
        f"cli._invoked({argv!r}); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('sleuth.'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_a_run_builds_only_what_its_command_uses() -> None:
    extract = _loaded_by(["extract", "page.html"])
    commands = [name for name in extract if name.startswith("sleuth.commands.")]
    assert "sleuth.commands.extract" in commands
    assert not {"sleuth.commands.fetch", "sleuth.commands.crawl", "sleuth.commands.ask"} & set(
        commands
    )
    # The operations are declared, not run: their engines load when a command runs them.
    for engine in ("sleuth.crawl.crawler", "sleuth.structured.engine", "sleuth.stack.walk"):
        assert engine not in extract
    # ... and only the named operation's declaration is read.
    assert [name for name in extract if name.startswith("sleuth.ops.")] == [
        "sleuth.ops.base",
        "sleuth.ops.extract",
    ]
    # A command runs its operation on the core session, not the API's session class,
    # which binds (and so imports) every operation.
    code = (
        "import sys; from sleuth import cli; from sleuth.commands import options; "
        "options.session(); print('sleuth.api' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert "sleuth.ops" not in _loaded_by(["--version"])
