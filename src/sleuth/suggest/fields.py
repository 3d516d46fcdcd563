"""What a suggestion may hold: each invalid field is cleared on its own, never the whole answer.

Suggestions are advice for a form a person still edits, so one bad field
(a slug with a space, a reserved word, a title too long) costs that field
only; the rest of what the model said stays useful.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from sleuth.suggest.prompt import (
    MAX_DESCRIPTION_LENGTH,
    MAX_SLUG_LENGTH,
    MAX_TAGS,
    MAX_TITLE_LENGTH,
    MIN_TAGS,
)

SLUG = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?")
KEYS = ("slug", "title", "description", "tags")


class Suggestion(BaseModel):
    """The answer of ``POST /api/v1/links/suggest`` and ``sleuth suggest --json``."""

    slug: str = ""
    title: str = ""
    description: str = ""
    tags: list[str] = Field(default_factory=list)


def clean(reply: dict[str, Any], reserved: Iterable[str]) -> tuple[Suggestion, list[str]]:
    """The reply with every invalid field emptied, and the names of the fields cleared."""
    cleared: list[str] = []
    slug = _text(reply.get("slug"))
    if slug and not valid_slug(slug, reserved):
        cleared.append("slug")
        slug = ""
    title = _text(reply.get("title"))
    if len(title) > MAX_TITLE_LENGTH:
        cleared.append("title")
        title = ""
    description = _text(reply.get("description"))
    if len(description) > MAX_DESCRIPTION_LENGTH:
        cleared.append("description")
        description = ""
    tags = clean_tags(reply.get("tags"))
    if reply.get("tags") and not tags:
        cleared.append("tags")
    for key in ("slug", "title", "description"):
        if (
            key not in cleared
            and reply.get(key) not in (None, "")
            and not isinstance(reply.get(key), str)
        ):
            cleared.append(key)
    return Suggestion(slug=slug, title=title, description=description, tags=tags), cleared


def valid_slug(slug: str, reserved: Iterable[str]) -> bool:
    return (
        len(slug) <= MAX_SLUG_LENGTH
        and SLUG.fullmatch(slug) is not None
        and slug not in {word.strip().lower() for word in reserved}
    )


def clean_tags(value: Any) -> list[str]:
    """Lower-cased slug-like words, duplicates merged, at most five; fewer than two is none."""
    if not isinstance(value, list):
        return []
    tags: list[str] = []
    for item in value:
        if not isinstance(item, str):
            continue
        tag = item.strip().lower()
        if len(tag) <= MAX_SLUG_LENGTH and SLUG.fullmatch(tag) and tag not in tags:
            tags.append(tag)
    tags = tags[:MAX_TAGS]
    return tags if len(tags) >= MIN_TAGS else []


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
