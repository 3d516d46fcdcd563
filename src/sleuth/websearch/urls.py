"""One spelling per page, so the same page found twice is cited once."""

from __future__ import annotations

from urllib.parse import unquote_plus, urlsplit, urlunsplit

from sleuth.net import canonical_url

# Parameters that identify the click, not the page.
TRACKING_PARAMS = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "igshid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "ref_src",
        "ref_url",
        "spm",
        "srsltid",
    }
)
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_")
DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_tracker(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES)


def normalize_url(url: str) -> str:
    """Lowercase scheme and host, drop default ports, trackers, fragment and a trailing slash."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:  # IPv6 literals keep their brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None or DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    # Filter the raw pairs so the parameters that stay keep their exact spelling.
    query = "&".join(
        pair
        for pair in parts.query.split("&")
        if pair and not _is_tracker(unquote_plus(pair.split("=")[0]))
    )
    return urlunsplit((scheme, netloc, path, query, ""))


def is_web_url(url: str) -> bool:
    """True for an absolute http(s) URL a page fetch accepts: no spaces, a real host and port.

    A search engine can hand back ``http://999.1.1.1/`` or a host with a space
    in it; such a hit could never be read, so it is better dropped than shown.
    """
    if not url or any(ch.isspace() for ch in url):
        return False
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() not in DEFAULT_PORTS or not parts.hostname:
            return False
        _ = parts.port  # raises for a port out of range or not a number
        canonical_url(url)  # raises for a host no resolver could take
    except ValueError:
        return False
    return True


def domain_of(url: str) -> str:
    """The host a reader recognises: lowercased, without ``www.``."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    return host.removeprefix("www.")


def on_site(domain: str, site: str) -> bool:
    """True when ``domain`` is ``site`` or one of its subdomains."""
    return domain == site or domain.endswith("." + site)
