"""Canonical URLs: one spelling per page, so a crawl reads it once and a map lists it once.

Lower-case scheme and host, no default port, no fragment, dot segments resolved, known
tracking parameters dropped and the rest sorted. The code lives with link extraction
(:mod:`sleuth.extract.links`), beneath the crawler, which reads it from here.
"""

from sleuth.extract.links import canonical

__all__ = ["canonical"]
