"""``discover``: the official source of a developer tool, and how to install it.

A chain of three stages, first answer wins: the registry (bundled, generated from
the aqua registry, plus folders of your own), the package ecosystems probed in
parallel, and an LLM that searches the web and whose answer sleuth verifies
against GitHub. See :func:`sleuth.discovery.chain.discover`.
"""

from sleuth.discovery.chain import Chooser, discover
from sleuth.discovery.models import (
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
