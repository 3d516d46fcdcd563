"""The record ``sleuth detect`` prints for each project, fields in output order.

Paths in ``manifests`` and ``evidence`` are relative to the scanned root, so they can be opened
without knowing which project they belong to. ``build.commands``, ``build.cache_dirs`` and
``run.command`` are meant to run from the project's own folder (``path``); cache folders in the
home directory start with ``~``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Source = Literal["static", "llm"]

# What a piece of evidence says about the project; confidence weighs each kind differently.
EvidenceKind = Literal[
    "manifest",  # a manifest this ecosystem owns, parsed
    "weak_manifest",  # a manifest that fits many ecosystems (a bare Makefile)
    "lockfile",
    "sources",  # source files in the detected language; strength = their share of sources
    "dependency",  # a declared dependency that names the framework
    "config",  # a setting read from a config file
    "workspace",  # declares or belongs to a workspace
    "marker",  # a file that only this ecosystem uses (gradlew, manage.py, tsconfig.json)
    "guess",  # language guessed from file extensions alone; strength = share of sources
    "problem",  # a manifest that could not be read or parsed
    "skipped",  # a file left unread because it is too large
    "note",  # context that does not change confidence (framework defaults)
]


class Evidence(BaseModel):
    """One file and what it showed; ``kind`` and ``strength`` feed confidence, not the output."""

    model_config = ConfigDict(frozen=True)

    file: str
    reason: str
    kind: EvidenceKind = Field(default="note", exclude=True, repr=False)
    strength: float = Field(default=1.0, ge=0.0, le=1.0, exclude=True, repr=False)


class Build(BaseModel):
    commands: list[str] = Field(default_factory=list)
    cache_dirs: list[str] = Field(default_factory=list)

    @field_validator("cache_dirs")
    @classmethod
    def _folders_look_like_folders(cls, value: list[str]) -> list[str]:
        """Project folders end with ``/`` (``target/``) whoever named them; no duplicates."""
        out: list[str] = []
        for raw in value:
            folder = raw.strip()
            if folder and not folder.startswith(("~", "/")) and not folder.endswith("/"):
                folder += "/"
            if folder and folder not in out:
                out.append(folder)
        return out


class Run(BaseModel):
    command: str | None = None
    ports: list[int] = Field(default_factory=list)
    health_endpoint: str | None = None


class Project(BaseModel):
    """One project: a service, app, library or workspace root."""

    project_name: str
    path: str
    language: str | None = None
    build_system: str | None = None
    framework: str | None = None
    runtime: str | None = None
    orchestrator: str | None = None
    manifests: list[str] = Field(default_factory=list)
    build: Build = Field(default_factory=Build)
    run: Run = Field(default_factory=Run)
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: list[Evidence] = Field(default_factory=list)
    source: Source = "static"
