"""Which workspace a folder belongs to, once the folders above it have been recognised.

Workspace roots are recognised before their members (the walker goes shallow to deep), so
a member's detector already knows its workspace: where the lockfile is, which wrapper script
to call. A folder belongs to the deepest workspace whose member patterns match it and whose
member manifests it holds; a nested workspace root keeps its own orchestrator.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from fnmatch import fnmatchcase

from sleuth.stack.candidate import WorkspaceContext
from sleuth.stack.finding import Workspace
from sleuth.stack.globs import MemberGlobs


@dataclass(frozen=True, slots=True)
class Declared:
    root: str
    orchestrator: str
    build_system: str | None
    files: frozenset[str]
    globs: MemberGlobs
    member_manifests: tuple[str, ...] | None
    evidence_file: str  # what a member's evidence points at: the declaring manifest or folder


def _depth(rel: str) -> int:
    return 0 if rel == "." else rel.count("/") + 1


class Workspaces:
    """The workspaces declared so far in one run."""

    def __init__(self) -> None:
        self._declared: list[Declared] = []

    def declare(
        self,
        root: str,
        workspace: Workspace,
        *,
        build_system: str | None,
        files: frozenset[str],
        evidence_file: str,
    ) -> None:
        manifests = workspace.member_manifests
        self._declared.append(
            Declared(
                root=root,
                orchestrator=workspace.orchestrator,
                build_system=build_system,
                files=files,
                globs=MemberGlobs(root, workspace.members),
                member_manifests=tuple(manifests) if manifests is not None else None,
                evidence_file=evidence_file,
            )
        )

    def owner(self, path: str, files: frozenset[str]) -> Declared | None:
        """The deepest workspace that claims the folder ``path`` holding ``files``."""
        best: Declared | None = None
        for declared in self._declared:
            if declared.root == path or not declared.globs.matches(path):
                continue
            wanted = declared.member_manifests
            if wanted is not None and not any(
                fnmatchcase(name, pattern) for name in files for pattern in wanted
            ):
                continue
            if best is None or _depth(declared.root) > _depth(best.root):
                best = declared
        return best

    @staticmethod
    def context(declared: Declared, path: str) -> WorkspaceContext:
        return WorkspaceContext(
            root=declared.root,
            up=posixpath.relpath(declared.root, path),
            orchestrator=declared.orchestrator,
            build_system=declared.build_system,
            files=declared.files,
        )
