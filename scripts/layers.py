#!/usr/bin/env python3
"""Print sleuth's layer graph and check it: no circles, no import from a layer to one above,
and no function below the session that takes the whole ``Settings``.

Every import counts (a module's own, those under ``TYPE_CHECKING`` and those inside
functions): the structure is what a reader sees, not only what runs. A unit is a
top-level module or package of ``sleuth``; ``LAYERS`` lists them from the ground up, and a
unit may import only units on its own layer's lower floors (or itself). The units in
``SECTIONED`` take the sections of the settings they read (``NetSettings`` ...) or plain
values: a parameter annotated ``Settings`` there is a violation.

    python scripts/layers.py           # the graph, then the verdict; exit 1 on a violation
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "sleuth"

# From the ground up. Units on one line share a floor and must not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_version", "_lazy", "errors"),
    ("operation",),
    ("config",),
    ("log",),
    ("net", "cache"),
    ("llm", "websearch", "render", "extract"),
    ("documents",),
    ("pages",),
    ("web",),
    ("digest", "stack", "suggest", "crawl", "structured"),
    ("session",),
    ("toolkit",),
    ("agent", "discovery"),
    ("ops",),
    ("tools",),
    ("api",),
    ("toolset",),
    ("jobs",),
    ("server",),
    ("commands",),
    ("cli",),
    ("__main__", "__init__"),
)
FLOOR = {unit: floor for floor, units in enumerate(LAYERS) for unit in units}
SECTIONED = frozenset(
    (
        "net",
        "cache",
        "extract",
        "documents",
        "render",
        "llm",
        "websearch",
        "pages",
        "stack",
        "crawl",
        "digest",
        "suggest",
        "structured",
    )
)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _own_unit(path: Path) -> str:
    rel = path.relative_to(SRC)
    return "__init__" if rel == Path("__init__.py") else rel.parts[0].removesuffix(".py")


def graph() -> dict[str, set[str]]:
    """unit -> the units it imports, every import in every file counted."""
    edges: dict[str, set[str]] = defaultdict(set)
    for path in sorted(SRC.rglob("*.py")):
        me = _own_unit(path)
        edges.setdefault(me, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module == "sleuth":
                    targets = [f"sleuth.{alias.name}" for alias in node.names]
                elif node.module.startswith("sleuth."):
                    targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("sleuth.")]
            edges[me].update(u for u in map(_unit, targets) if u != me)
    return edges


def _module(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def module_graph() -> dict[str, set[str]]:
    """module -> the sleuth modules it imports (a name imported from a package that is a
    submodule of it counts as that submodule)."""
    files = {_module(path): path for path in SRC.rglob("*.py")}
    edges: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                subs = [f"{node.module}.{a.name}" for a in node.names]
                edges[name].update(sub for sub in subs if sub in files)
                if node.module in files and not all(sub in files for sub in subs):
                    edges[name].add(node.module)
            elif isinstance(node, ast.Import):
                edges[name].update(a.name for a in node.names if a.name in files)
        edges[name].discard(name)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def violations(edges: dict[str, set[str]]) -> list[str]:
    """Every unit missing from the table, and every import that does not point down."""
    found = [f"{unit} is on no layer: add it to LAYERS" for unit in edges if unit not in FLOOR]
    for unit, targets in sorted(edges.items()):
        for target in sorted(targets):
            if unit in FLOOR and target in FLOOR and FLOOR[target] >= FLOOR[unit]:
                how = "sideways" if FLOOR[target] == FLOOR[unit] else "up"
                found.append(f"{unit} -> {target} runs {how}")
    return found


def _names_settings(annotation: ast.expr | None) -> bool:
    """``Settings``, ``Settings | None``, ``"Settings"``, ``config.Settings`` ..."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    return any(
        (isinstance(node, ast.Name) and node.id == "Settings")
        or (isinstance(node, ast.Attribute) and node.attr == "Settings")
        for node in ast.walk(annotation)
    )


def settings_parameters() -> list[str]:
    """Every parameter annotated ``Settings`` in a function of a ``SECTIONED`` unit."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if _own_unit(path) not in SECTIONED:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            arguments = node.args
            every = [
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
            ]
            found += [
                f"{path.relative_to(SRC.parent)}:{node.lineno} {node.name}({a.arg}) takes "
                "the whole Settings: pass its sections"
                for a in every
                if _names_settings(a.annotation)
            ]
    return found


def main() -> int:
    edges = graph()
    for floor in range(len(LAYERS) - 1, -1, -1):
        for unit in LAYERS[floor]:
            below = ", ".join(sorted(edges.get(unit, ()), key=lambda u: -FLOOR.get(u, -1)))
            print(f"{floor:2}  {unit:<10} -> {below or '-'}")
    problems = violations(edges)
    problems += [f"circle: {' -> '.join(group)}" for group in circles(module_graph())]
    problems += settings_parameters()
    for problem in problems:
        print(f"violation: {problem}", file=sys.stderr)
    print(f"{len(edges)} units, {sum(map(len, edges.values()))} arrows, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
