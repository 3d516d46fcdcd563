"""One name per concept: no two classes in ``src/sleuth`` share a name, nested and private
ones included, so a name read anywhere means one thing."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "sleuth"


def class_names(root: Path) -> dict[str, list[str]]:
    """Class name -> where each class of that name is defined (``path:line``)."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_two_classes_share_a_name() -> None:
    shared = {name: places for name, places in class_names(SRC).items() if len(places) > 1}
    assert shared == {}


def test_the_scan_sees_nested_and_private_classes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Reply:\n    class _Inner: ...\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    class _Inner: ...\n", encoding="utf-8")
    assert class_names(tmp_path) == {"Reply": ["a.py:1"], "_Inner": ["a.py:2", "b.py:2"]}
