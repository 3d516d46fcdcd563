"""The headless-browser fallback: Chromium whose every request passes sleuth's SSRF guard.

Needs the ``render`` extra (Playwright) and a system Chromium; both are looked
for only when a render is asked for.
"""

from sleuth.render.browser import find_chromium
from sleuth.render.judge import HIDDEN_MARK
from sleuth.render.renderer import RenderedPage, Renderer

__all__ = ["HIDDEN_MARK", "RenderedPage", "Renderer", "find_chromium"]
