"""The digest: the one result shape of ``research`` for Python, CLI, HTTP and MCP.

Every bullet is a verbatim span of a fetched page (``quote`` at
``source_offset`` of the first cited page's extracted text); ``text`` is the
same words with whitespace collapsed. A quote lies inside one paragraph,
list item or table cell and holds none of extraction's marks (list bullets,
cell separators), so it is also found in the page's visible text once
whitespace runs are collapsed. Citation ids run 1..n in order of first use
and only cited pages are listed.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

SCHEMA_VERSION = 1


class Bullet(BaseModel):
    text: str
    citations: list[int] = Field(min_length=1)
    quote: str
    source_offset: int = Field(ge=0)
    # For a quote from a PDF: the page it is on (from 1) and the address that opens it there.
    # Absent for web pages, so a bullet's shape changes only where a document is quoted.
    page: int | None = Field(default=None, ge=1)
    locator: str | None = None

    @model_serializer(mode="wrap")
    def _without_empty_locators(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("page") is None:
            data.pop("page", None)
            data.pop("locator", None)
        return data


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
