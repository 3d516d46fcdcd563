"""The cited research digest: search, read, rank paragraphs, quote them with citations.

>>> async with AsyncSleuth() as session:
...     digest = await session.research("what is new in python 3.13")
>>> print(render_markdown(digest))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth._lazy import later
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
__getattr__ = later(
    __name__,
    {
        "run_research": "pipeline",
    },
)


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
