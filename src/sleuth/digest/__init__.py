"""The cited research digest: search, read, rank paragraphs, quote them with citations.

>>> async with AsyncSleuth() as session:
...     digest = await session.research("what is new in python 3.13")
>>> print(render_markdown(digest))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from sleuth.digest.markdown import render_markdown
from sleuth.digest.models import (
    SCHEMA_VERSION,
    Bullet,
    Citation,
    Digest,
    DigestError,
    DigestMeta,
)

if TYPE_CHECKING:
    from sleuth.digest.pipeline import run_research

# The pipeline (search, fetch, rank) loads when first named, not with the models.
_LATER = {
    "run_research": "pipeline",
}


def __getattr__(name: str) -> object:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LATER[name]}"), name)


__all__ = [
    "SCHEMA_VERSION",
    "Bullet",
    "Citation",
    "Digest",
    "DigestError",
    "DigestMeta",
    "render_markdown",
    "run_research",
]
