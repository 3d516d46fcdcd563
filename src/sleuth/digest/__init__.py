"""The cited research digest: search, read, rank paragraphs, quote them with citations.

>>> async with AsyncSleuth() as session:
...     digest = await session.research("what is new in python 3.13")
>>> print(render_markdown(digest))
"""

from sleuth.digest.markdown import render_markdown
from sleuth.digest.models import (
    SCHEMA_VERSION,
    Bullet,
    Citation,
    Digest,
    DigestError,
    DigestMeta,
)
from sleuth.digest.pipeline import run_research

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
