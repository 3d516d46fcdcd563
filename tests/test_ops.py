"""The registry of operations is the one list every surface iterates, and each surface says
what the operation's declaration says."""

from __future__ import annotations

from sleuth.config import Settings
from sleuth.errors import ERRORS
from sleuth.ops import REGISTRY, served
from sleuth.ops.base import TRANSPORT_STATUSES
from sleuth.server.app import ROUTE_LABELS, create_app
from sleuth.server.openapi import build_spec
from sleuth.toolset import offered_registry


def test_each_operation_is_registered_once() -> None:
    names = [op.name for op in REGISTRY]
    assert len(names) == len(set(names))
    assert all(op.operation.surfaces >= {"python"} for op in REGISTRY)


def test_openapi_error_statuses_are_the_declared_errors() -> None:
    """A route documents the transport's statuses and those of the errors its operation
    declares; nothing else (research declared budget_exceeded, which it cannot raise)."""
    paths = build_spec(Settings(cache="memory"))["paths"]
    for op in served():
        assert op.http is not None
        responses = paths[op.http.path]["post"]["responses"]
        shown = {int(status) for status in responses if int(status) >= 400}
        declared = {ERRORS[code].http_status for code in op.operation.errors}
        assert shown == {*TRANSPORT_STATUSES, *declared}, op.name
    assert (
        "budget_exceeded"
        not in next(op for op in REGISTRY if op.name == "research").operation.errors
    )


def test_routes_labels_and_tools_come_from_the_registry() -> None:
    app = create_app(Settings(cache="memory"))
    paths = {getattr(route, "path", None) for route in app.routes}
    for op in served():
        assert op.http is not None
        assert op.http.path in paths
        assert op.http.path in ROUTE_LABELS
    tools = [op.tool.name for op in REGISTRY if op.tool is not None]
    assert offered_registry().names() == tools


def test_the_progress_line_is_the_operations_own() -> None:
    from sleuth.ops import wording
    from sleuth.ops.research import RESEARCH

    assert wording("research") is RESEARCH.progress
    assert RESEARCH.progress("reading", {"pages": 2}) == "reading 2 pages"
    assert wording("web_search")("custom", {"n": 2}) == "custom n=2"
