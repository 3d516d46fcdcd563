"""``sleuth serve``: checks that must pass before the port opens, then uvicorn.

Without tokens the server answers anyone who can reach it, so it binds only
to loopback then; elsewhere it needs tokens or an explicit
``--insecure-no-auth``. SIGTERM stops accepting connections at once and gives
requests in flight ``SLEUTH_SHUTDOWN_GRACE`` seconds to finish.
"""

from __future__ import annotations

import asyncio
import math
import socket
import sys

import uvicorn
from uvicorn.supervisors import Multiprocess

from sleuth.config import Settings, load_settings
from sleuth.errors import ConfigError, Ref, UsageError
from sleuth.server import crawl as crawl_jobs
from sleuth.server.app import check_settings, create_app
from sleuth.server.guard import is_loopback_name
from sleuth.server.mcp import listen, stop_on_signals

READY = "sleuth: serving on "
STOPPING = "sleuth: stopping: "


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    *,
    workers: int = 1,
    insecure_no_auth: bool = False,
    settings: Settings | None = None,
) -> None:
    if not 0 <= port <= 65535:
        raise UsageError(f"the port must be 0-65535, not {port}")
    if workers < 1:
        raise UsageError(
            f"{{workers}} must be 1 or more, not {workers}",
            refs={"workers": Ref("workers")},
        )
    settings = settings or load_settings()
    tokens = check_settings(settings)
    local = is_loopback_name(host)
    if not tokens.enabled and not local and not insecure_no_auth:
        raise ConfigError(
            f"refusing to serve on {host} without tokens: anyone who can reach it could use "
            "this server's search budget, network position and model",
            hint="set SLEUTH_API_TOKENS (a comma list, or @path to sha256 hashes), bind to "
            "127.0.0.1, or pass {insecure} if that is really what you want",
            refs={"insecure": Ref("insecure_no_auth", words="insecure_no_auth=True")},
        )
    if not tokens.enabled:
        where = "loopback only" if local else f"{host}, reachable by anyone (--insecure-no-auth)"
        sys.stderr.write(f"sleuth: no SLEUTH_API_TOKENS set: serving without auth, on {where}\n")
        if not local and not settings.server_hosts:
            # Without tokens the Host must be a loopback name: a page in a browser could
            # otherwise reach this server through DNS rebinding.
            sys.stderr.write(
                "sleuth: requests must name this server as localhost or a loopback address "
                "(421 otherwise); list the names it answers to in SLEUTH_SERVER_HOSTS\n"
            )
    config_args = {
        "log_level": "warning",
        "access_log": False,
        "lifespan": "on",
        "server_header": False,
        "timeout_graceful_shutdown": math.ceil(settings.shutdown_grace),
        "timeout_keep_alive": 5,
    }
    listener = listen(host, port)
    bound_host, bound_port = listener.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    if workers == 1:
        app = create_app(settings)
        web = _Server(uvicorn.Config(app, **config_args))  # type: ignore[arg-type]
        _announce(shown, bound_port, workers)
        with stop_on_signals(web):
            asyncio.run(web.serve(sockets=[listener]))
        return
    off = crawl_jobs.shared_or_off(settings, workers)
    if off is not None:  # said once here, not by each worker process
        sys.stderr.write(f"sleuth: note: crawl jobs answer 503: {off.message}; {off.hint}\n")
    # Each worker builds its own app from the same environment (and SLEUTH_CONFIG).
    config = uvicorn.Config(
        "sleuth.server.run:worker_app",
        factory=True,
        workers=workers,
        **config_args,  # type: ignore[arg-type]
    )
    _announce(shown, bound_port, workers)
    Multiprocess(config, sockets=[listener]).run()


class _Server(uvicorn.Server):
    """uvicorn's server, saying on stderr when it stops taking connections and why."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:  # refuse new connections first (uvicorn does it again)
            server.close()
        for sock in sockets or []:
            sock.close()
        busy = len(self.server_state.connections)
        grace = self.config.timeout_graceful_shutdown
        sys.stderr.write(
            f"{STOPPING}new connections are refused; {busy} open connection(s) get "
            f"{'as long as they need' if grace is None else f'up to {grace} s'} to finish\n"
        )
        sys.stderr.flush()
        await super().shutdown(sockets)


def worker_app() -> object:
    """The app of one worker process under ``--workers N`` (settings from the environment)."""
    from sleuth import log

    settings = load_settings()
    log.configure(settings.log_format, settings.log_level or "warning")
    return create_app(settings, processes=2)  # one of several: jobs need a shared Redis


def _announce(host: str, port: int, workers: int) -> None:
    plural = "" if workers == 1 else f" ({workers} workers)"
    # The socket already listens, so a client may connect from this line on.
    sys.stderr.write(f"{READY}http://{host}:{port}{plural}\n")
    sys.stderr.flush()
