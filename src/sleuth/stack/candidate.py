"""A folder that may hold a project, as a detector sees it.

A detector gets names and counts for free; file contents cost a read, so they come through
:meth:`Candidate.read`, which caps the size, refuses paths outside the scanned root, serves
each file once per run and turns refusals into evidence.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from sleuth.stack.languages import language_counts
from sleuth.stack.model import Evidence
from sleuth.stack.reader import ReadOutcome, read_limited
from sleuth.stack.scan import ROOT, Tree, join

# Why a folder is a candidate: it holds a manifest (known or only project-like), or it holds
# source files and no enclosing folder is a candidate.
Reason = Literal["manifest", "sources"]


@dataclass(frozen=True, slots=True)
class WorkspaceContext:
    """The workspace a candidate belongs to, for commands that must reach the workspace root."""

    root: str  # the workspace root folder, relative to the scanned root
    up: str  # the workspace root, relative to the member folder ("../..")
    orchestrator: str
    build_system: str | None
    files: frozenset[str]  # file names in the workspace root folder


class Files:
    """Capped, cached reads of files the scan kept, shared by all candidates of one run."""

    def __init__(self, tree: Tree, max_file_bytes: int) -> None:
        self.tree = tree
        self.max_file_bytes = max_file_bytes
        self._cache: dict[str, ReadOutcome] = {}

    def read(self, rel: str) -> ReadOutcome:
        cached = self._cache.get(rel)
        if cached is None:
            if self.tree.has_file(rel):
                path = str(self.tree.root.joinpath(*rel.split("/")))
                cached = read_limited(path, rel, self.max_file_bytes)
            else:
                cached = ReadOutcome(None, None)
            self._cache[rel] = cached
        return cached


class Candidate:
    """A candidate folder: its names, its source counts, and capped reads of its files.

    ``path`` is relative to the scanned root (``"."`` for the root itself). ``extensions``
    counts files by lower-cased extension in this folder and its sub-folders, stopping at
    sub-folders that are candidates themselves. ``notes`` collects evidence about files that
    were refused while reading.
    """

    __slots__ = (
        "_files",
        "_folders",
        "_languages",
        "dirs",
        "extensions",
        "files",
        "manifests",
        "notes",
        "path",
        "reason",
        "workspace",
    )

    def __init__(
        self,
        *,
        path: str,
        reason: Reason,
        manifests: tuple[str, ...],
        files: frozenset[str],
        dirs: frozenset[str],
        extensions: Mapping[str, int],
        store: Files,
        folders: tuple[str, ...] = (),
        workspace: WorkspaceContext | None = None,
    ) -> None:
        self.path = path
        self.reason: Reason = reason
        self.manifests = manifests
        self.files = files
        self.dirs = dirs
        self.extensions = extensions
        self.workspace = workspace
        self.notes: list[Evidence] = []
        self._files = store
        self._folders = folders
        self._languages: dict[str, int] | None = None

    def __repr__(self) -> str:
        return f"Candidate(path={self.path!r}, manifests={self.manifests!r})"

    @property
    def name(self) -> str:
        """The folder's own name; the scanned root's real name for ``"."``."""
        if self.path == ROOT:
            return self._files.tree.root.name or ROOT
        return self.path.rpartition("/")[2]

    def rel(self, name: str) -> str | None:
        """``name`` (relative to this folder) as a path from the scanned root; None if outside."""
        joined = posixpath.normpath(join(self.path, name))
        if joined.startswith("../") or joined == ".." or joined.startswith("/"):
            return None
        return joined

    def has(self, name: str) -> bool:
        """Whether the file ``name`` (relative to this folder, ``/``-separated) was kept."""
        rel = self.rel(name)
        return rel is not None and self._files.tree.has_file(rel)

    def has_dir(self, name: str) -> bool:
        rel = self.rel(name)
        return rel is not None and rel in self._files.tree.index

    def listdir(self, name: str = ROOT) -> list[str]:
        """File names in a kept sub-folder (relative to this folder), sorted; [] if absent."""
        rel = self.rel(name)
        folder = self._files.tree.folder(rel) if rel is not None else None
        return sorted(folder.files) if folder is not None else []

    def subdirs(self, name: str = ROOT) -> list[str]:
        """Sub-folder names of a kept sub-folder (relative to this folder), sorted."""
        rel = self.rel(name)
        folder = self._files.tree.folder(rel) if rel is not None else None
        return sorted(folder.dirs) if folder is not None else []

    def read(self, name: str) -> str | None:
        """The text of ``name`` (relative to this folder), or None if missing or refused."""
        rel = self.rel(name)
        if rel is None:
            return None
        outcome = self._files.read(rel)
        if outcome.note is not None and outcome.note not in self.notes:
            self.notes.append(outcome.note)
        return outcome.text

    def languages(self) -> dict[str, int]:
        """Source files per language under this folder."""
        if self._languages is None:
            self._languages = language_counts(self.extensions)
        return self._languages

    def count(self, *extensions: str) -> int:
        return sum(self.extensions.get(ext, 0) for ext in extensions)

    def tree(self, limit: int = 500) -> list[str]:
        """Up to ``limit`` file paths under this folder (relative to it), nested candidates left
        out; enough for a reader, such as a model, to see the shape of the project."""
        out: list[str] = []
        prefix = "" if self.path == ROOT else self.path + "/"
        for rel in sorted(self._folders or (self.path,)):  # listing order varies by filesystem
            folder = self._files.tree.folder(rel)
            if folder is None:
                continue
            inner = "" if rel == self.path else rel[len(prefix) :] + "/"
            for name in sorted(folder.files):
                out.append(inner + name)
                if len(out) >= limit:
                    return out
        return out
