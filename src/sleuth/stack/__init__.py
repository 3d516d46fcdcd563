"""``sleuth detect``: every project in a repository, how to build it and how to run it.

Deterministic detectors (one per ecosystem, :mod:`sleuth.stack.ecosystems`) answer first;
an LLM-backed :class:`FallbackDetector` registered last is awaited only for folders they
cannot place. Both speak through :class:`Detector`'s one method, so the walk
(:func:`detect_projects`) never knows which kind answered; ``Project.source`` records it.

Workspaces: a workspace root (a Cargo ``[workspace]``, npm/Yarn/pnpm ``workspaces``, a Maven
aggregator, Gradle ``include``, ``go.work``, a Turborepo/Nx/Lerna/Rush repo, a .NET
solution) is reported as a project of its own, with the workspace's ``orchestrator``.
Each member is reported too and carries the orchestrator of the innermost workspace that
lists it; a member that is itself a workspace root keeps its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth._lazy import later
from sleuth.stack.model import Build, Evidence, Project, Run, Source
from sleuth.stack.modes import MODES, Mode, normalize_mode
from sleuth.stack.render import render_json, render_table

if TYPE_CHECKING:
    from sleuth.stack.candidate import Candidate, WorkspaceContext
    from sleuth.stack.confidence import CONFIDENT
    from sleuth.stack.detector import Detector, FallbackDetector
    from sleuth.stack.finding import Finding, Workspace
    from sleuth.stack.registry import default_detectors
    from sleuth.stack.walk import DEFAULT_MAX_FILE_BYTES, detect_path, detect_projects

# The walk, the detectors and their findings load when first named, not with the models.
__getattr__ = later(
    __name__,
    {
        "Candidate": "candidate",
        "WorkspaceContext": "candidate",
        "CONFIDENT": "confidence",
        "Detector": "detector",
        "FallbackDetector": "detector",
        "Finding": "finding",
        "Workspace": "finding",
        "default_detectors": "registry",
        "DEFAULT_MAX_FILE_BYTES": "walk",
        "detect_path": "walk",
        "detect_projects": "walk",
    },
)


__all__ = [
    "CONFIDENT",
    "DEFAULT_MAX_FILE_BYTES",
    "MODES",
    "Build",
    "Candidate",
    "Detector",
    "Evidence",
    "FallbackDetector",
    "Finding",
    "Mode",
    "Project",
    "Run",
    "Source",
    "Workspace",
    "WorkspaceContext",
    "default_detectors",
    "detect_path",
    "detect_projects",
    "normalize_mode",
    "render_json",
    "render_table",
]
