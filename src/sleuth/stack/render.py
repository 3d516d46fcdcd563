"""How detected projects are shown: a JSON array for programs, a table for people.

The table keeps one line per project and fits the width it is given by cutting the widest
cells, so a long path never pushes the confidence column off screen. A path is cut in its
middle: its last folder is the part that tells two projects apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from sleuth.stack.model import Project

WIDTH = 100
MIN_COLUMN = 5
PATH_FLOOR = 24

Column = tuple[str, Callable[[Project], str]]
COLUMNS: tuple[Column, ...] = (
    ("PATH", lambda p: p.path),
    ("NAME", lambda p: p.project_name),
    ("LANGUAGE", lambda p: p.language or "-"),
    ("BUILD", lambda p: p.build_system or "-"),
    ("FRAMEWORK", lambda p: p.framework or "-"),
    ("ORCHESTRATOR", lambda p: p.orchestrator or "-"),
    ("PORTS", lambda p: ",".join(str(n) for n in p.run.ports) or "-"),
    ("CONF", lambda p: f"{p.confidence:.2f}" + ("*" if p.source == "llm" else "")),
)


def _fit(cell: str, width: int, *, middle: bool = False) -> str:
    if len(cell) <= width:
        return cell
    if not middle:
        return cell[: width - 1] + "…"
    head = (width - 1) // 3
    return cell[:head] + "…" + cell[len(cell) - (width - 1 - head) :]


def render_table(projects: Sequence[Project], width: int | None = WIDTH) -> str:
    """Projects as an aligned text table; long cells are cut with an ellipsis to fit ``width``.

    ``width=None`` cuts nothing (output to a file or a pipe). A ``*`` after the confidence
    marks projects the LLM recognised.
    """
    if not projects:
        return "No projects found."
    rows = [[getter(p) for _, getter in COLUMNS] for p in projects]
    widths = [max(len(head), *(len(r[i]) for r in rows)) for i, (head, _) in enumerate(COLUMNS)]
    gaps = 2 * (len(widths) - 1)
    overflow = 0 if width is None else sum(widths) + gaps - width
    if overflow > 0:  # the path gives way first, down to a length that still tells apart
        widths[0] = max(min(widths[0], PATH_FLOOR), widths[0] - overflow)
    while width is not None and sum(widths) + gaps > width:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= MIN_COLUMN:
            break
        widths[widest] -= 1
    lines = []
    for cells in [[head for head, _ in COLUMNS], *rows]:
        fitted = [
            _fit(cell, w, middle=i == 0).ljust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ]
        lines.append("  ".join(fitted).rstrip())
    footer = f"{len(projects)} project{'s' if len(projects) != 1 else ''}"
    if any(p.source == "llm" for p in projects):
        footer += "; * recognised by the LLM"
    return "\n".join([*lines, "", footer])


def render_json(projects: Sequence[Project], indent: int | None = 2) -> str:
    """The ``--json`` output: an array in the order given (detection sorts it by path)."""
    return json.dumps([p.model_dump(mode="json") for p in projects], indent=indent)
