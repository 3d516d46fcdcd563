"""The digest: the one result shape of ``research`` for Python, CLI, HTTP and MCP.

Every bullet is a verbatim span of a fetched page (``quote`` at
``source_offset`` of the first cited page's extracted text); ``text`` is the
same words with whitespace collapsed. Citation ids run 1..n in order of
first use and only cited pages are listed.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1


class Bullet(BaseModel):
    text: str
    citations: list[int] = Field(min_length=1)
    quote: str
    source_offset: int = Field(ge=0)


class Citation(BaseModel):
    id: int = Field(ge=1)
    title: str
    url: str
    domain: str
    published: str | None = None
    fetched_at: str


class DigestError(BaseModel):
    """Why a page was not read, or why the digest is empty (then ``url`` is None)."""

    code: str
    message: str
    url: str | None = None


class DigestMeta(BaseModel):
    providers_tried: list[str] = Field(default_factory=list)
    fetched_pages: int = 0
    cache_hits: int = 0
    elapsed_ms: int = 0
    deadline_hit: bool = False


class Digest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    query: str
    bullets: list[Bullet] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    errors: list[DigestError] = Field(default_factory=list)
    meta: DigestMeta = Field(default_factory=DigestMeta)
