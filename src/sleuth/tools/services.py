"""What tools and the agent loop use of a session, as a protocol that lives below them.

Tools search, fetch, research and detect; the loop also needs the settings,
the resolver and the cache. Naming only these keeps the data path one way:
``sleuth.api`` on top, ``sleuth.agent`` and ``sleuth.tools`` beneath it, the session
core (:class:`sleuth.session.AsyncSession`, which satisfies :class:`Services`
structurally: nothing registers) beneath those. Tests and other callers may pass any
object with these members.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sleuth.log import Progress

if TYPE_CHECKING:
    from sleuth.cache import Cache
    from sleuth.config import Settings
    from sleuth.digest import Digest
    from sleuth.pages import FetchResult
    from sleuth.stack import Project
    from sleuth.websearch import SearchResponse


@runtime_checkable
class Services(Protocol):
    """The part of a session that tools and the loop call."""

    @property
    def settings(self) -> Settings: ...

    @property
    def resolver(self) -> Any:
        """The :class:`~sleuth.net.Resolver` every client of the session uses, or None."""
        ...

    @property
    def cache(self) -> Cache: ...

    async def search(
        self,
        query: str,
        *,
        max_results: int | None = None,
        recency_days: int | None = None,
        sites: Sequence[str] = (),
    ) -> SearchResponse: ...

    async def fetch(
        self,
        url: str,
        *,
        respect_robots: bool = True,
        max_chars: int | None = None,
        start_index: int = 0,
    ) -> FetchResult: ...

    async def research(
        self,
        question: str,
        *,
        focus: str | None = None,
        max_pages: int | None = None,
        recency_days: int | None = None,
        on_progress: Progress | None = None,
    ) -> Digest: ...

    async def detect(self, path: Path | str = ".", *, mode: str | None = None) -> list[Project]: ...
