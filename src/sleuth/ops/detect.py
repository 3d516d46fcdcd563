"""detect: every project in a local repository and its stack (never served over HTTP)."""

from __future__ import annotations

from sleuth.api import AsyncSleuth
from sleuth.ops.base import Op
from sleuth.tools.repo import DETECT as DETECT_TOOL

DETECT = Op(AsyncSleuth.detect, tool=DETECT_TOOL)
