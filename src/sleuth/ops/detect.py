"""detect: every project in a local repository and its stack (never served over HTTP)."""

from __future__ import annotations

from sleuth.ops.base import Op
from sleuth.session import AsyncSession
from sleuth.tools.repo import DETECT as DETECT_TOOL

DETECT = Op(AsyncSession.detect, tool=DETECT_TOOL)
