"""map: a site's URLs from its sitemaps, feeds and start page (CLI and tool)."""

from __future__ import annotations

from sleuth.ops.base import Op
from sleuth.session import AsyncSession
from sleuth.tools.builtin import MAP_SITE

MAP = Op(AsyncSession.map, tool=MAP_SITE)
