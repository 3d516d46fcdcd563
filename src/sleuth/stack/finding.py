"""What one detector concluded about one candidate folder: a project still missing its place.

Paths in a finding (``manifests``, ``evidence[].file``) are relative to the candidate folder and
may climb to a workspace root (``../../Cargo.lock``); the walker rewrites them relative to the
scanned root. Leave ``confidence`` as None to have it derived from the evidence.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sleuth.stack.model import Build, Evidence, Run


class Workspace(BaseModel):
    """A folder that declares member projects, e.g. a Cargo ``[workspace]`` or npm ``workspaces``.

    ``members`` are globs relative to the declaring folder (``*`` stays within one folder, ``**``
    crosses folders); a leading ``!`` excludes. A member folder must also hold one of
    ``member_manifests`` (file names, ``*`` allowed) unless that is None.
    """

    orchestrator: str
    members: list[str] = Field(default_factory=list)
    member_manifests: list[str] | None = None


class Finding(BaseModel):
    """A partial :class:`~sleuth.stack.model.Project`; every field may stay unset."""

    model_config = ConfigDict(extra="ignore")

    project_name: str | None = None
    language: str | None = None
    build_system: str | None = None
    framework: str | None = None
    runtime: str | None = None
    orchestrator: str | None = None
    manifests: list[str] = Field(default_factory=list)
    build: Build = Field(default_factory=Build)
    run: Run = Field(default_factory=Run)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    evidence: list[Evidence] = Field(default_factory=list)
    workspace: Workspace | None = None
