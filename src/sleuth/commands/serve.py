"""``sleuth serve`` (HTTP API, link suggestions and MCP) and ``sleuth mcp``.

Each server is imported when its command runs, so the CLI works without the extras.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any

import typer

from sleuth.commands.options import STATE, settings
from sleuth.errors import UsageError


def _entry(name: str) -> Callable[..., Any]:
    if name == "mcp":
        from sleuth.server.mcp import run

        return run
    from sleuth.server.run import serve as run_server

    return run_server


def _load(name: str, what: str) -> Callable[..., Any]:
    try:
        return _entry(name)
    except ImportError as exc:
        raise UsageError(
            f"{what} needs the {name} extra ({exc.name} is missing)",
            hint=f"pip install 'sleuth[{name}]'",
        ) from None


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(metavar="PORT", min=0, max=65535, help="Port to listen on.")
    ] = 8080,
    workers: Annotated[int, typer.Option(metavar="N", min=1, max=64, help="Worker processes.")] = 1,
    insecure_no_auth: Annotated[
        bool,
        typer.Option("--insecure-no-auth", help="Serve beyond loopback without SLEUTH_API_TOKENS."),
    ] = False,
) -> None:
    """Serve the HTTP API, link suggestions and MCP.

    Needs sleuth[server]. See docs/server.md.
    """
    run_server = _load("server", "the server")
    if STATE.config is not None:
        os.environ["SLEUTH_CONFIG"] = str(STATE.config)  # worker processes read it too
    loaded = settings()
    run_server(host, port, workers=workers, insecure_no_auth=insecure_no_auth, settings=loaded)


def mcp(
    transport: Annotated[
        Transport, typer.Option(help="stdio for a client that starts sleuth; http to serve.")
    ] = Transport.stdio,
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on (http).")] = (
        "127.0.0.1"
    ),
    port: Annotated[
        int, typer.Option(metavar="PORT", min=1, max=65535, help="Port to listen on (http).")
    ] = 8765,
) -> None:
    """Serve the web tools over MCP (needs sleuth[mcp])."""
    run = _load("mcp", "the MCP server")
    run(transport.value, host=host, port=port, settings=settings())
