"""Loaded by the server processes of the budget tests: names in ``TEST_HOSTMAP`` resolve to
loopback, as an /etc/hosts line would, so a model server on 127.0.0.1 can stand for a paid
cloud API (whose calls cost money) without any network. Only test processes load this file.
"""

import os
import socket

_MAP = dict(
    pair.split("=", 1) for pair in os.environ.get("TEST_HOSTMAP", "").split(",") if "=" in pair
)
if _MAP:
    _real = socket.getaddrinfo

    def _getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        name = host.decode() if isinstance(host, bytes) else host
        return _real(_MAP.get(name, host), *args, **kwargs)

    socket.getaddrinfo = _getaddrinfo
