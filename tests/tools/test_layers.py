"""The data path reads one way: ``api`` on top, ``agent`` and ``tools`` beneath, the core below.

Tools and the loop name a small :class:`~sleuth.tools.Services` protocol, not
``sleuth.api.AsyncSleuth``; an ``AsyncSleuth`` satisfies it as it is, and so does
any object with those members.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import sleuth
from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.tools import CitationLedger, Services, ToolContext, default_registry

SRC = Path(sleuth.__file__).parent
ABOVE = ("sleuth.api", "sleuth.cli", "sleuth.server")


def imports(path: Path) -> list[tuple[str, str | None]]:
    """``(module, enclosing function or None)`` for every import in a file."""
    found: list[tuple[str, str | None]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            if isinstance(child, ast.Import):
                found.extend((alias.name, function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module:
                found.append((child.module, function))
            visit(child, inner)

    visit(ast.parse(path.read_text()), None)
    return found


@pytest.mark.parametrize(
    "path",
    sorted((SRC / "tools").rglob("*.py")) + sorted((SRC / "agent").rglob("*.py")),
    ids=lambda path: str(path.relative_to(SRC)),
)
def test_tools_and_agent_never_import_the_layers_above(path: Path) -> None:
    upward = [(module, function) for module, function in imports(path) if module.startswith(ABOVE)]
    # The one exception: sleuth.tools.acall opens a session for a caller who passed none.
    assert upward in ([], [("sleuth.api", "acall")]), upward
    if upward:
        assert path == SRC / "tools" / "__init__.py"


def test_importing_the_loop_and_the_tools_loads_nothing_above_them() -> None:
    code = (
        "import sys, sleuth.agent, sleuth.agent.loop, sleuth.tools, sleuth.tools.builtin; "
        "print(sorted(m for m in sys.modules if m.startswith(('sleuth.api', 'sleuth.cli', "
        "'sleuth.server'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


async def test_an_async_sleuth_is_the_services_the_tools_need(tmp_path: Path) -> None:
    async with AsyncSleuth(Settings(cache="memory", cache_dir=tmp_path)) as client:
        assert isinstance(client, Services)
        context = ToolContext(client=client)
        assert context.client is client


class Repository:
    """A session of another shape: only what the protocol names, answering ``detect``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.resolver = None
        self.cache: Any = None
        self.asked: list[tuple[str, str | None]] = []

    async def search(
        self,
        query: str,
        *,
        max_results: int | None = None,
        recency_days: int | None = None,
        sites: Sequence[str] = (),
    ) -> Any:
        raise AssertionError("not called")

    async def fetch(self, url: str, **options: Any) -> Any:
        raise AssertionError("not called")

    async def research(self, question: str, **options: Any) -> Any:
        raise AssertionError("not called")

    async def detect(self, path: Path | str = ".", *, mode: str | None = None) -> list[Any]:
        self.asked.append((str(path), mode))
        return []


async def test_any_services_object_runs_the_tools(tmp_path: Path) -> None:
    session = Repository(Settings(cache="memory"))
    assert isinstance(session, Services)
    registry = default_registry()
    context = ToolContext(client=session, ledger=CitationLedger())
    record = await registry.call(context, "detect", {"path": str(tmp_path), "mode": "static"})
    assert record.outcome == "ok"
    assert session.asked == [(str(tmp_path), "static")]
