"""What tools and the agent loop use of a session, as a protocol that lives below them.

Tools search, fetch, research, detect, map and crawl; the loop also needs the settings,
the web (whose clients reach the model) and the cache. Naming only these keeps the data
path one way: ``sleuth.api`` on top, ``sleuth.agent`` and ``sleuth.toolkit`` beneath it, the session
core (:class:`sleuth.session.AsyncSession`, which satisfies :class:`Services`
structurally: nothing registers) beneath those. Tests and other callers may pass any
object with these members.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from sleuth.cache import Cache
    from sleuth.config import Settings
    from sleuth.crawl.run import CrawlRun, SiteMap
    from sleuth.digest import Digest
    from sleuth.pages import FetchResult
    from sleuth.stack import Project
    from sleuth.web import Web
    from sleuth.websearch import SearchResponse


@runtime_checkable
class Services(Protocol):
    """The part of a session that tools and the loop call."""

    @property
    def settings(self) -> Settings: ...

    @property
    def web(self) -> Web:
        """The session's :class:`~sleuth.web.Web`: its clients reach the model too."""
        ...

    @property
    def cache(self) -> Cache: ...

    # The operations, by name only: their parameters are declared once, on the session
    # (``sleuth.session``); a tool passes them what the declaration's tool surface offers.
    @property
    def search(self) -> Callable[..., Awaitable[SearchResponse]]: ...

    @property
    def fetch(self) -> Callable[..., Awaitable[FetchResult]]: ...

    @property
    def research(self) -> Callable[..., Awaitable[Digest]]: ...

    @property
    def detect(self) -> Callable[..., Awaitable[list[Project]]]: ...

    @property
    def map(self) -> Callable[..., Awaitable[SiteMap]]: ...

    @property
    def crawl(self) -> Callable[..., CrawlRun]: ...
