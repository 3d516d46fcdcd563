"""``discover``: the official source of a developer tool, and how to install it.

A chain of three stages, first answer wins: the registry (bundled, generated from
the aqua registry, plus folders of your own), the package ecosystems probed in
parallel, and an LLM that searches the web and whose answer sleuth verifies
against GitHub. See :func:`sleuth.discover.chain.discover`.
"""

import sys
import types
from typing import Any

from sleuth.discover.chain import Chooser, discover
from sleuth.discover.models import (
    BUILDERS,
    STAGES,
    DiscoveryResult,
    DiscoveryUsage,
    Instructions,
    ProbeResult,
    RepoMetadata,
)

__all__ = [
    "BUILDERS",
    "STAGES",
    "Chooser",
    "DiscoveryResult",
    "DiscoveryUsage",
    "Instructions",
    "ProbeResult",
    "RepoMetadata",
    "discover",
]


class _CallableModule(types.ModuleType):
    """``sleuth.discover`` names this package and the one-shot ``sleuth.discover(name)``;
    once the package is imported, Python binds the name to it, so it answers calls too."""

    def __call__(self, name: str, **kwargs: Any) -> DiscoveryResult:
        from sleuth.api import discover as one_shot

        return one_shot(name, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
