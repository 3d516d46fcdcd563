"""Reading a file for a detector: never past a size cap, never through a symlink.

Manifests are small; a huge file under a manifest's name is a generated artefact or an
accident, and reading it would cost more than the whole scan. Refusals become evidence so
the report says why a manifest was not considered.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from sleuth.stack.model import Evidence

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class ReadOutcome(NamedTuple):
    text: str | None
    note: Evidence | None


def human_size(n: int) -> str:
    """Sizes the way people read them: 512 B, 3.1 KiB, 2.0 MiB."""
    size = float(n)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024 or unit == "MiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"  # pragma: no cover - the loop always returns


def read_limited(path: str, rel: str, limit: int) -> ReadOutcome:
    """The text of ``path`` (``rel`` names it in evidence), or None and the reason."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError as exc:
        reason = f"could not be read: {exc.strerror or exc}"
        return ReadOutcome(None, Evidence(file=rel, reason=reason, kind="problem"))
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if size > limit:
            reason = f"not read: {human_size(size)} is over the {human_size(limit)} limit"
            return ReadOutcome(None, Evidence(file=rel, reason=reason, kind="skipped"))
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew while we read it
        reason = f"not read: larger than the {human_size(limit)} limit"
        return ReadOutcome(None, Evidence(file=rel, reason=reason, kind="skipped"))
    return ReadOutcome(data.decode("utf-8-sig", errors="replace"), None)
