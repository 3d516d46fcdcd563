"""What the agent loop and discovery use of a session, as a protocol that lives below them.

The loop needs the settings, the web (whose clients reach the model) and the cache; the
tools themselves are the operations' (:mod:`sleuth.ops`), which run on the session core.
Naming only these keeps the data path one way: ``sleuth.ops`` above, ``sleuth.agent``,
``sleuth.discovery`` and ``sleuth.toolkit`` beneath it, the session core
(:class:`sleuth.session.AsyncSession`, which satisfies :class:`Services` structurally:
nothing registers) beneath those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from sleuth.cache import Cache
    from sleuth.config import Settings
    from sleuth.web import Web


@runtime_checkable
class Services(Protocol):
    """The part of a session that the agent loop and discovery read."""

    @property
    def settings(self) -> Settings: ...

    @property
    def web(self) -> Web:
        """The session's :class:`~sleuth.web.Web`: its clients reach the model too."""
        ...

    @property
    def cache(self) -> Cache: ...
