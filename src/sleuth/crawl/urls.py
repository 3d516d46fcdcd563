"""Canonical URLs: one spelling per page, so a crawl reads it once and a map lists it once.

Standard library only (the extractor imports it for every page's links): lower-case
scheme and host, no default port, no fragment, dot segments resolved, known tracking
parameters dropped and the rest sorted.
"""

from __future__ import annotations

import posixpath
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_")
_TRACKING = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "msclkid",
        "yclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "ref_src",
        "ref_url",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "wickedid",
        "twclid",
        "srsltid",
    }
)


def is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in _TRACKING or lowered.startswith(_TRACKING_PREFIXES)


def _path(path: str) -> str:
    if not path:
        return "/"
    resolved = posixpath.normpath(path)
    if resolved.startswith("//"):  # normpath keeps a leading "//" (POSIX), URLs do not
        resolved = "/" + resolved.lstrip("/")
    if path.endswith("/") and resolved != "/":
        resolved += "/"
    return resolved if resolved != "." else "/"


def canonical(url: str, base: str | None = None) -> str | None:
    """The canonical form of ``url`` (resolved against ``base``), or None when it is
    not an http(s) URL with a host."""
    try:
        joined = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(joined)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            return None
        host = parts.hostname.rstrip(".")
        if ":" in host:
            host = f"[{host}]"
        port = parts.port
    except ValueError:
        return None
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username or parts.password:  # credentials in a link are a trap, not a page
        return None
    query = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not is_tracking(name)
    ]
    return urlunsplit((scheme, netloc, _path(parts.path), urlencode(sorted(query)), ""))
