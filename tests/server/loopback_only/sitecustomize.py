"""Loaded by the server process of the conformance run: a machine whose only network is
loopback, whatever the sandbox around the tests allows.

Generated requests name arbitrary URLs and providers. sleuth's own guard refuses
most of them; this is the floor under it. A name other than ``localhost`` does
not resolve (no resolver is asked), and a connection to an address other than
loopback is refused before any packet leaves, with a line on stderr the test
looks for. Only the test's server process loads this file.
"""

import ipaddress
import socket
import sys

MARK = "LOOPBACK-ONLY: refused "
_real_getaddrinfo = socket.getaddrinfo
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _literal(name):  # type: ignore[no-untyped-def]
    try:
        return ipaddress.ip_address(name.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def _getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    name = host.decode() if isinstance(host, bytes) else host
    if name is None or name == "localhost" or _literal(name) is not None:
        return _real_getaddrinfo(host, *args, **kwargs)
    raise socket.gaierror(socket.EAI_NONAME, f"{name} is not resolved in this test")


def _allowed(address):  # type: ignore[no-untyped-def]
    if not isinstance(address, tuple):  # a Unix socket
        return True
    ip = _literal(str(address[0]))
    return ip is not None and ip.is_loopback


def _connect(self, address):  # type: ignore[no-untyped-def]
    if not _allowed(address):
        sys.stderr.write(f"{MARK}{address!r}\n")
        raise ConnectionRefusedError(f"{address!r} is not loopback")
    return _real_connect(self, address)


def _connect_ex(self, address):  # type: ignore[no-untyped-def]
    if not _allowed(address):
        sys.stderr.write(f"{MARK}{address!r}\n")
        return 111  # ECONNREFUSED
    return _real_connect_ex(self, address)


socket.getaddrinfo = _getaddrinfo
socket.socket.connect = _connect  # type: ignore[method-assign]
socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
