"""One pass over the repository that records, per folder, what a detector may look at.

Nothing but ``.gitignore`` files is read here. Skipped and ignored folders are pruned before
descending, symlinks are never followed, and extensions are counted on the way so that no
later step has to list a folder again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from sleuth.stack.ignore import CONTEXT_SKIPS, OUTPUT_DIRS, SKIP_DIRS, IgnoreFile, parse_ignore
from sleuth.stack.manifests import KNOWN, KNOWN_SUFFIXES
from sleuth.stack.model import Evidence
from sleuth.stack.reader import read_limited

ROOT = "."


@dataclass(slots=True)
class Folder:
    """A folder that survived the skip rules, and the files in it that did too."""

    rel: str
    parent: int  # index in Tree.folders; -1 for the root
    files: list[str]
    dirs: list[str]
    extensions: dict[str, int]


@dataclass(slots=True)
class Tree:
    """Every kept folder, parents before children."""

    root: Path
    folders: list[Folder] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    notes: dict[str, list[Evidence]] = field(default_factory=dict)

    def folder(self, rel: str) -> Folder | None:
        i = self.index.get(rel)
        return None if i is None else self.folders[i]

    def has_file(self, rel: str) -> bool:
        """Whether ``rel`` (a file path from the root) was kept by the scan."""
        head, _, name = rel.rpartition("/")
        folder = self.folder(head or ROOT)
        return folder is not None and name in folder.files


def join(rel: str, name: str) -> str:
    return name if rel == ROOT else f"{rel}/{name}"


def _prefix(rel: str, base: str) -> str:
    """``rel`` as seen from the folder of an ignore file at ``base``, with a trailing slash."""
    if rel == base:
        return ""
    if base == ROOT:
        return rel + "/"
    return rel[len(base) + 1 :] + "/"


def scan(root: Path, *, max_file_bytes: int) -> Tree:
    """Walk ``root`` (an existing folder) and keep what detection may use."""
    tree = Tree(root=root)
    base_ignores: list[tuple[str, IgnoreFile]] = []
    exclude = root / ".git" / "info" / "exclude"
    if exclude.is_file():
        outcome = read_limited(str(exclude), ".git/info/exclude", max_file_bytes)
        rules = parse_ignore(outcome.text) if outcome.text else None
        if rules is not None:
            base_ignores.append((ROOT, rules))
    stack: list[tuple[str, str, int, list[tuple[str, IgnoreFile]]]] = [
        (str(root), ROOT, -1, base_ignores)
    ]
    while stack:
        path, rel, parent, ignores = stack.pop()
        files: list[str] = []
        dirs: list[str] = []
        extensions: dict[str, int] = {}
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    # follow_symlinks=False: a symlink is neither, so it is never followed
                    if entry.is_dir(follow_symlinks=False):
                        name = entry.name
                        if name[0] != "." and name not in SKIP_DIRS:
                            dirs.append(name)
                    elif entry.is_file(follow_symlinks=False):
                        files.append(entry.name)
        except OSError as exc:
            reason = f"folder could not be listed: {exc.strerror or exc}"
            tree.notes.setdefault(rel, []).append(Evidence(file=rel, reason=reason, kind="note"))
            continue
        for name, markers in CONTEXT_SKIPS.items():
            if name in dirs and any(f.endswith(markers) for f in files):
                dirs.remove(name)
        # Output-like names not beside their producer are kept only if they declare a project.
        dirs = [d for d in dirs if d not in OUTPUT_DIRS or _holds_manifest(f"{path}/{d}")]
        if ".gitignore" in files:
            outcome = read_limited(f"{path}/.gitignore", join(rel, ".gitignore"), max_file_bytes)
            if outcome.note is not None:
                tree.notes.setdefault(rel, []).append(outcome.note)
            rules = parse_ignore(outcome.text) if outcome.text else None
            if rules is not None:
                ignores = [*ignores, (rel, rules)]
        if ignores:
            checks = [(_prefix(rel, base), rules) for base, rules in reversed(ignores)]
            files = _kept(checks, files, "")
            dirs = _kept(checks, dirs, "/")
        for name in files:
            dot = name.rfind(".")
            if dot > 0:
                ext = name[dot:].lower()
                extensions[ext] = extensions.get(ext, 0) + 1
        index = len(tree.folders)
        tree.folders.append(Folder(rel, parent, files, dirs, extensions))
        tree.index[rel] = index
        prefix = "" if rel == ROOT else rel + "/"
        for name in dirs:
            stack.append((f"{path}/{name}", prefix + name, index, ignores))
    return tree


def _holds_manifest(path: str) -> bool:
    """Whether a folder named like build output declares a project itself (a member)."""
    try:
        with os.scandir(path) as entries:
            return any(
                entry.name in KNOWN or entry.name.endswith(KNOWN_SUFFIXES) for entry in entries
            )
    except OSError:
        return False


def _kept(checks: list[tuple[str, IgnoreFile]], names: list[str], tail: str) -> list[str]:
    """``names`` minus the ignored ones; most folders have no suspect, so no exact check."""
    suspects: set[str] = set()
    for prefix, rules in checks:
        suspects.update(rules.suspects(prefix, names, tail))
    if not suspects:
        return names
    return [n for n in names if n not in suspects or not _ignored(checks, n + tail)]


def _ignored(checks: list[tuple[str, IgnoreFile]], tail: str) -> bool:
    """Deepest ignore file first; the first one with an opinion decides."""
    for prefix, rules in checks:
        verdict = rules.verdict(prefix + tail)
        if verdict is not None:
            return verdict
    return False
