"""discover: a developer tool's official source and how to install it."""

from __future__ import annotations

from sleuth.api import AsyncSleuth
from sleuth.discovery.models import DiscoveryResult
from sleuth.discovery.tool import run
from sleuth.ops.base import Http, Op
from sleuth.tools import Tool

DISCOVER = Op(
    AsyncSleuth.discover,
    http=Http(
        "/api/v1/discover",
        "Find where a developer tool comes from",
        "Never prompts: a source a person should confirm comes back with "
        "confirmation_required and confirmation_reason (send yes: true to accept); several "
        "equally good sources are a 409 AMBIGUOUS whose choices are the from strings.",
        present=lambda result: result.to_json(),
    ),
    tool=Tool.declared(AsyncSleuth.discover, run, DiscoveryResult),
)
