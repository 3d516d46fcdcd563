"""The data path reads one way: every unit imports only the layers beneath it.

Tools and the loop name a small :class:`~sleuth.tools.Services` protocol, not
``sleuth.api.AsyncSleuth``; an ``AsyncSleuth`` satisfies it as it is, and so does
any object with those members.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.ops.detect import DetectOutput
from sleuth.session import AsyncSession
from sleuth.tools import CitationLedger, Services, ToolContext, default_registry

ROOT = Path(__file__).resolve().parents[2]


def _layers() -> Any:
    """``scripts/layers.py``: the one table of layers, loaded as the script runs it."""
    spec = importlib.util.spec_from_file_location("layers", ROOT / "scripts" / "layers.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LAYERS = _layers()


def test_every_import_points_down_and_no_module_circles() -> None:
    # Every import counts: top level, under TYPE_CHECKING and inside functions.
    assert LAYERS.violations(LAYERS.graph()) == []
    assert LAYERS.circles(LAYERS.module_graph()) == []


def test_the_checker_sees_an_import_inside_a_function_that_runs_up() -> None:
    edges = {"tools": {"api"}, "api": {"tools"}}
    assert "tools -> api runs up" in LAYERS.violations(edges)
    assert LAYERS.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_no_function_below_the_session_takes_the_whole_settings() -> None:
    assert LAYERS.settings_parameters() == []


@pytest.mark.parametrize(
    ("annotation", "named"),
    [
        ("Settings", True),
        ("Settings | None", True),
        ("'config.Settings'", True),
        ("NetSettings", False),
        ("Callable[[NetSettings], None]", False),
    ],
)
def test_the_checker_sees_settings_however_it_is_written(annotation: str, named: bool) -> None:
    parsed = ast.parse(f"x: {annotation}").body[0]
    assert isinstance(parsed, ast.AnnAssign)
    assert LAYERS._names_settings(parsed.annotation) is named


BELOW_THE_TOP = [
    unit for units in LAYERS.LAYERS[:-1] for unit in units if unit not in ("cli", "__main__")
]


@pytest.mark.parametrize("unit", BELOW_THE_TOP)
def test_a_layer_imported_alone_loads_nothing_above_it(unit: str) -> None:
    floor = LAYERS.FLOOR[unit]
    above = sorted(u for u, f in LAYERS.FLOOR.items() if f > floor and u != "__init__")
    code = (
        f"import sys, sleuth.{unit}; "
        f"print(sorted({{m.split('.')[1] for m in sys.modules if m.startswith('sleuth.')}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(ast.literal_eval(done.stdout.strip()))
    assert loaded.isdisjoint(above), sorted(loaded & set(above))


async def test_an_async_sleuth_is_the_services_the_tools_need(tmp_path: Path) -> None:
    async with AsyncSleuth(Settings(cache="memory", cache_dir=tmp_path)) as client:
        assert isinstance(client, Services)
        context = ToolContext(client=client)
        assert context.client is client


class Repository:
    """A session of another shape: only what the protocol names."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.web: Any = None
        self.cache: Any = None


def test_any_object_with_the_members_is_the_services_the_loop_needs() -> None:
    assert isinstance(Repository(Settings(cache="memory")), Services)


async def test_the_tools_run_on_the_session_core(tmp_path: Path) -> None:
    # The operations take the session first: the core alone runs a tool, no AsyncSleuth.
    async with AsyncSession(Settings(cache="memory", cache_dir=tmp_path)) as session:
        context = ToolContext(client=session, ledger=CitationLedger())
        args = {"path": str(tmp_path), "mode": "static"}
        record = await default_registry().call(context, "detect", args)
    assert record.outcome == "ok"
    assert isinstance(record.output.data, DetectOutput)
