"""extract: text from local HTML, PDF and text files (the CLI only)."""

from __future__ import annotations

from sleuth.api import AsyncSleuth
from sleuth.ops.base import Op

EXTRACT = Op(AsyncSleuth.extract)
