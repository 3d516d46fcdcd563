"""The answer of ``discover``: one shape for Python, ``--json``, MCP and the HTTP server."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1
Stage = Literal["registry", "ecosystem", "llm", "from"]
STAGES: tuple[str, ...] = ("registry", "ecosystem", "llm")

# The builders sleuth names sources for, and the spellings people also use for them.
BUILDERS: tuple[str, ...] = (
    "github",
    "crates.io",
    "npm",
    "pypi",
    "rubygems",
    "go",
    "homebrew",
    "cask",
    "cpan",
)
BUILDER_ALIASES: dict[str, str] = {
    "cargo": "crates.io",
    "crates": "crates.io",
    "crate": "crates.io",
    "brew": "homebrew",
    "gem": "rubygems",
    "gems": "rubygems",
    "pip": "pypi",
    "pipx": "pypi",
    "golang": "go",
    "gh": "github",
}


class ProbeResult(BaseModel):
    """What one ecosystem registry said about a name, in ``builder:source`` form."""

    source: str
    downloads: int = 0
    version_count: int = 0
    has_repository: bool = False


class RepoMetadata(BaseModel):
    """What GitHub says about a repository (or what is known without asking it)."""

    stars: int | None = None
    is_fork: bool = False
    parent: str | None = None
    parent_stars: int | None = None
    archived: bool = False
    created_at: str | None = None
    last_push_days: int | None = None
    owner: str | None = None
    owner_type: str | None = None
    description: str | None = None
    verification_skipped: bool = False


class Instructions(BaseModel):
    """An install page the model found when no builder fits; shown, never executed."""

    url: str
    text: str


class DiscoveryUsage(BaseModel):
    """Model usage and cost of one discovery (zero when no model was asked)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    web_search_requests: int = 0
    llm_calls: int = 0
    cost_usd: float | None = 0.0
    cost_estimated: bool = False
    provider: str | None = None
    model: str | None = None
    stage_ms: dict[str, int] = Field(default_factory=dict)


class DiscoveryResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    tool: str
    builder: str
    source: str
    stage: Stage
    confidence_score: int = Field(ge=0, le=100)
    selection_reason: str
    high_risk: bool = False
    alternatives: list[str] = Field(default_factory=list)
    downloads_ratio: float | None = None
    probe_results: list[ProbeResult] = Field(default_factory=list)
    metadata: RepoMetadata = Field(default_factory=RepoMetadata)
    evidence: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    install_hint: str = ""
    usage: DiscoveryUsage = Field(default_factory=DiscoveryUsage)
    confirmation_required: bool = False
    confirmation_reason: str | None = None
    instructions: Instructions | None = None
    description: str | None = None
    homepage: str | None = None
    disambiguation: str | None = None

    @property
    def spec(self) -> str:
        """``builder:source``, the form ``--from`` takes."""
        return f"{self.builder}:{self.source}"

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object of ``sleuth discover``."""
        return self.model_dump(mode="json")
