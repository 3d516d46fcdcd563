"""Building repositories on disk from a flat mapping of path -> content."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

# str: text; bytes: raw; dict or list: JSON; None: an empty file.
Content = str | bytes | dict[str, object] | list[object] | None
Spec = Mapping[str, Content]
Repo = Callable[[Spec], Path]  # the ``repo`` fixture: lay out a repository, get its root


def write_tree(root: Path, spec: Spec) -> Path:
    for rel, content in spec.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.write_bytes(b"")
        elif isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, indent=2), encoding="utf-8")
    return root
