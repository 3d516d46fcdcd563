"""search: the web, with provider fallback."""

from __future__ import annotations

from sleuth.ops.base import Http, Op
from sleuth.session import AsyncSession
from sleuth.tools.builtin import WEB_SEARCH

SEARCH = Op(AsyncSession.search, http=Http("/api/v1/search", "Search the web"), tool=WEB_SEARCH)
