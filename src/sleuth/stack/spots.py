"""Which folders are candidates, and which files and sub-folders each one answers for.

A folder holding a manifest is a candidate, except that a folder holding only build-file
fragments (``CMakeLists.txt``, ``Makefile``, Bazel ``BUILD``) belongs to the project around
it when there is one. A folder of source files with no candidate above it is a candidate
too, so loose sources reach the LLM fallback. The platform folders of a Flutter app
(``android/``, ``ios/`` ...) hold Gradle and CocoaPods files that belong to the app, so
nothing under them starts a project. Every other folder belongs to its nearest candidate
above, which is what makes a candidate's extension counts its own.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

from sleuth.stack.candidate import Reason
from sleuth.stack.formats.jsonc import loads as jsonc_loads
from sleuth.stack.formats.yaml_lite import load as yaml_load
from sleuth.stack.languages import LANGUAGE_BY_EXTENSION
from sleuth.stack.manifests import (
    FRAGMENT_FAMILIES,
    FRAGMENTS,
    SHAPES,
    looks_like_manifest,
    manifests_in,
    shape_format,
)
from sleuth.stack.model import Evidence
from sleuth.stack.reader import read_limited
from sleuth.stack.scan import Folder, Tree, join

# Sub-folders that belong to the app in the folder above them, by the manifest that app holds.
EMBEDDED: dict[str, frozenset[str]] = {
    "pubspec.yaml": frozenset({"android", "ios", "macos", "linux", "windows", "web"}),
}


@dataclass(slots=True)
class Spot:
    """A candidate folder before any detector has looked at it."""

    path: str
    reason: Reason
    manifests: tuple[str, ...]
    files: frozenset[str]
    dirs: frozenset[str]
    extensions: dict[str, int] = field(default_factory=dict)
    folders: list[str] = field(default_factory=list)
    notes: list[Evidence] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return 0 if self.path == "." else self.path.count("/") + 1


_EMBEDDED_NAMES = frozenset().union(*EMBEDDED.values())


def _embedded(tree: Tree, folder: Folder) -> bool:
    """Whether ``folder`` is a platform folder of the app in its parent folder."""
    name = folder.rel.rpartition("/")[2]
    if name not in _EMBEDDED_NAMES:
        return False
    files = tree.folders[folder.parent].files
    return any(name in names and marker in files for marker, names in EMBEDDED.items())


def _reason(folder: Folder, names: list[str], enclosing: Spot | None) -> Reason | None:
    if enclosing is None:
        if names:
            return "manifest"
        if any(ext in LANGUAGE_BY_EXTENSION for ext in folder.extensions):
            return "sources"
        return None
    outer = set(enclosing.manifests)
    # A fragment belongs to an enclosing project of the same build tool; anything else starts one.
    if any(n not in FRAGMENTS or outer.isdisjoint(FRAGMENT_FAMILIES[n]) for n in names):
        return "manifest"
    return None


# A manifest is small; a larger file under a manifest's name is judged by the detector.
_SHAPE_READ_LIMIT = 1 << 20
# A folder of records: a manifest-named file whose keys are those of the files beside it is one
# record among many (a registry's ``composer.json`` entry next to thousands of others). A few
# siblings of the same format are enough to tell; a project's own neighbours (``tsconfig.json``,
# ``package-lock.json``, ``ruff.toml``) never share its manifest's keys.
_RECORD_SIBLINGS = 3
_RECORD_AGREEMENT = 2
_RECORD_SIMILARITY = 0.75
_UNPARSED = object()


def _parse(tree: Tree, rel: str, fmt: str) -> object:
    """The parsed document at ``rel``, or ``_UNPARSED`` when it cannot be read or parsed."""
    outcome = read_limited(str(tree.root / rel), rel, _SHAPE_READ_LIMIT)
    if outcome.text is None:
        return _UNPARSED
    try:
        if fmt == "json":
            return jsonc_loads(outcome.text)
        if fmt == "toml":
            return tomllib.loads(outcome.text)
        return yaml_load(outcome.text)
    except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return _UNPARSED


def _same_keys(a: dict[object, object], b: object) -> bool:
    if not isinstance(b, dict) or not b:
        return False
    mine, theirs = set(a), set(b)
    return len(mine & theirs) / len(mine | theirs) >= _RECORD_SIMILARITY


def _record(tree: Tree, folder: Folder, name: str, data: dict[object, object]) -> bool:
    """Whether ``data`` is shaped like the other files of its format in ``folder``."""
    ext = name[name.rfind(".") :]
    siblings = [
        n for n in sorted(folder.files) if n != name and n.endswith(ext) and n not in SHAPES
    ]
    if len(siblings) < _RECORD_SIBLINGS:
        return False
    fmt = shape_format(name) or "json"
    alike = sum(
        _same_keys(data, _parse(tree, join(folder.rel, n), fmt))
        for n in siblings[:_RECORD_SIBLINGS]
    )
    return alike >= _RECORD_AGREEMENT


def _shaped(tree: Tree, folder: Folder, name: str) -> bool:
    """Whether the file ``name`` in ``folder`` looks like the manifest it is named for."""
    fmt = shape_format(name)
    if fmt is None:
        return True
    data = _parse(tree, join(folder.rel, name), fmt)
    if data is _UNPARSED:
        return True
    if not looks_like_manifest(name, data):
        return False
    return not (isinstance(data, dict) and data and _record(tree, folder, name, data))


def find_spots(tree: Tree) -> list[Spot]:
    """Candidate folders, parents before children."""
    spots: list[Spot] = []
    owner: list[int] = []  # per folder: index of the candidate it belongs to, or -1
    sealed: list[bool] = []  # per folder: inside an embedded platform folder
    for folder in tree.folders:
        above = owner[folder.parent] if folder.parent >= 0 else -1
        closed = folder.parent >= 0 and (sealed[folder.parent] or _embedded(tree, folder))
        sealed.append(closed)
        named = manifests_in(folder.files, folder.extensions)
        names = [n for n in named if _shaped(tree, folder, n)]
        reason = None if closed else _reason(folder, names, spots[above] if above >= 0 else None)
        if reason is not None:
            above = len(spots)
            spots.append(
                Spot(
                    path=folder.rel,
                    reason=reason,
                    manifests=tuple(names),
                    # a file named like a manifest but shaped otherwise is no manifest to anyone
                    files=frozenset(folder.files).difference(named).union(names),
                    dirs=frozenset(folder.dirs),
                )
            )
        owner.append(above)
        if above >= 0:
            spot = spots[above]
            spot.folders.append(folder.rel)
            counts = spot.extensions
            for ext, n in folder.extensions.items():
                counts[ext] = counts.get(ext, 0) + n
            spot.notes.extend(tree.notes.get(folder.rel, ()))
    return spots
