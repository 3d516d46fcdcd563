"""A throwaway ``redis-server`` on loopback for tests: real server, own temp dir, free port.

Import it from any test directory (``from redis_server import running_redis``);
a missing binary is an error, never a skip, because CI installs it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

FALLBACK_BINARY = "/usr/bin/redis-server"
_ATTEMPTS = 3  # a port picked as free can be taken before redis binds it


@dataclass
class RedisServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        """Terminate the server (idempotent); tests call it to simulate an outage."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _binary() -> str:
    found = shutil.which("redis-server") or (
        FALLBACK_BINARY if Path(FALLBACK_BINARY).is_file() else None
    )
    if found is None:
        raise RuntimeError(
            "redis-server is not installed (looked on PATH and at /usr/bin/redis-server); "
            "install it with `apt-get install redis-server`: the Redis tests need a real server"
        )
    return found


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _start(binary: str, directory: Path, timeout: float) -> RedisServer | None:
    """A ready server, or None if its port was taken; raises if it fails otherwise."""
    port = free_port()
    log = directory / f"redis-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *(binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)),
                *("--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", ""),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = RedisServer(process, port, log)
    deadline = time.monotonic() + timeout
    while not _answers_ping(port):
        try:
            # Doubles as the pause between probes and the check that it has not died.
            process.wait(timeout=0.02)
        except subprocess.TimeoutExpired:
            if time.monotonic() < deadline:
                continue
            server.stop()
            raise RuntimeError(f"redis-server did not answer PING within {timeout}s") from None
        text = log.read_text(errors="replace")
        if "Address already in use" in text:
            return None
        raise RuntimeError(f"redis-server exited with {process.returncode}:\n{text}")
    return server


@contextmanager
def running_redis(timeout: float = 10.0) -> Iterator[RedisServer]:
    """Start a server, yield it once it answers PING, stop it afterwards."""
    binary = _binary()
    with tempfile.TemporaryDirectory(prefix="sleuth-redis-") as tmp:
        for _ in range(_ATTEMPTS):
            server = _start(binary, Path(tmp), timeout)
            if server is not None:
                break
        else:
            raise RuntimeError(f"no free loopback port for redis-server after {_ATTEMPTS} tries")
        try:
            yield server
        finally:
            server.stop()
