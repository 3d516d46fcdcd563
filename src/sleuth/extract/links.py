"""Links and images of a page, read from the sanitised tree so hidden ones never count.

A link a reader cannot see (``display:none``, ``hidden``, ``aria-hidden``) is a classic
crawler trap and injection carrier: the sanitiser has removed it before we look.
``in_content`` marks links whose block also made it into the main content; the
extractor drops ``href`` attributes, so blocks are matched by their text.

:func:`canonical` gives every URL one spelling (the crawler's seen set relies on it):
lower-case scheme and host, no default port, no fragment, dot segments resolved, known
tracking parameters and session identifiers dropped and the rest sorted.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from lxml import etree

from sleuth.extract.dom import text_of

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# Tracking parameters, after the query-stripping lists of Firefox and Brave, and session
# identifiers, which give one page a new URL per visitor: neither names a different page.
_TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_", "aspsessionid")
_TRACKING = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "gbraid",
        "wbraid",
        "dclid",
        "msclkid",
        "yclid",
        "ysclid",
        "igshid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "epik",
        "rb_clickid",
        "s_cid",
        "mc_cid",
        "mc_eid",
        "mkt_tok",
        "ml_subscriber",
        "ml_subscriber_hash",
        "ck_subscriber_id",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "__hsfp",
        "__hssc",
        "__hstc",
        "hsctatracking",
        "_openstat",
        "__s",
        "ref_src",
        "ref_url",
        "oly_anon_id",
        "oly_enc_id",
        "vero_conv",
        "vero_id",
        "wickedid",
        "srsltid",
        # session identifiers
        "sid",
        "sessionid",
        "session_id",
        "sessid",
        "phpsessid",
        "jsessionid",
        "cfid",
        "cftoken",
        "oscsid",
        "zenid",
    }
)
# ``/page;jsessionid=...``: a session in a path parameter (Java servlets and their kin).
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid|sessionid|sid)=[^/;?]*", re.IGNORECASE)


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
    return _canonical(url.strip(), base)


@lru_cache(maxsize=16384)
def _canonical(url: str, base: str | None) -> str | None:
    """Cached: a page repeats its menu's links, a crawl repeats every page's menu."""
    try:
        if base and not _SCHEME.match(url):
            if url.startswith("/") and not url.startswith("//"):  # the common case, cheaply
                url = _origin(base) + url
            else:
                url = urljoin(base, url)
        parts = urlsplit(url)
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
    path = parts.path
    if ";" in path:
        path = _PATH_SESSION.sub("", path)
    if not path or "/." in path or "//" in path:
        path = _path(path)
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode(sorted((name, value) for name, value in pairs if not is_tracking(name)))
    return urlunsplit((scheme, netloc, path, query, ""))


@lru_cache(maxsize=256)
def _origin(base: str) -> str:
    parts = urlsplit(base)
    return f"{parts.scheme}://{parts.netloc}"


_BLOCKS = frozenset(
    {
        "p",
        "li",
        "td",
        "th",
        "dd",
        "dt",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "figcaption",
        "caption",
        "nav",
        "header",
        "footer",
        "aside",
        "section",
        "article",
        "div",
        "body",
    }
)
# The feeds a map can read: RSS and Atom (a JSON Feed would need a reader of its own).
_FEED_TYPES = ("application/rss+xml", "application/atom+xml")
_MATCH_CHARS = 80  # enough of a block's text to find it again in the content


def _words(text: str) -> str:
    return " ".join(text.split())


def _block_text(anchor: etree._Element, seen: dict[etree._Element, str]) -> str:
    """The opening words of the link's nearest block, each block read once per page (a
    menu of 500 links in one ``div`` must not read the ``div`` 500 times)."""
    for ancestor in anchor.iterancestors():
        if isinstance(ancestor.tag, str) and ancestor.tag.lower() in _BLOCKS:
            found = seen.get(ancestor)
            if found is None:
                found = seen[ancestor] = _opening(ancestor)
            return found
    return ""


def _opening(element: etree._Element) -> str:
    """The first :data:`_MATCH_CHARS` characters of an element's text, words joined."""
    parts: list[str] = []
    size = 0
    for part in element.itertext():
        parts.append(str(part))
        size += len(part)
        if size > _MATCH_CHARS * 4:
            break
    return _words("".join(parts))[:_MATCH_CHARS]


@dataclass
class _Link:
    url: str
    text: str
    rel: str | None
    block: str
    type: str | None = None


def _base(root: etree._Element, url: str | None) -> str | None:
    for base in root.iter("base"):
        href = base.get("href")
        if href:
            return canonical(href, url) or url
    return url


def collect(root: etree._Element, url: str | None) -> tuple[list[_Link], list[dict[str, Any]]]:
    """Links (not yet judged in or out of the content) and images of a sanitised tree."""
    base = _base(root, url)
    links: dict[str, _Link] = {}
    images: dict[str, dict[str, Any]] = {}
    blocks: dict[etree._Element, str] = {}
    for element in root.iter("link"):  # feeds the page announces in its head
        kind = (element.get("type") or "").lower()
        relations = (element.get("rel") or "").lower().split()
        found = canonical(element.get("href") or "", base) if "alternate" in relations else None
        if found and kind in _FEED_TYPES and found not in links:
            title = _words(element.get("title") or "")
            links[found] = _Link(found, title, "alternate", "", kind)
    for element in root.iter("a", "area", "img"):
        if element.tag == "img":
            source = element.get("src") or element.get("data-src") or ""
            found = canonical(source, base) if source and not source.startswith("data:") else None
            if found and found not in images:
                images[found] = {"url": found, "alt": _words(element.get("alt") or "")}
            continue
        href = (element.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        found = canonical(href, base)
        if found is None:
            continue
        text = text_of(element) or _words(element.get("title") or element.get("alt") or "")
        if not text:
            alts = [img.get("alt") or "" for img in element.iter("img")]
            text = _words(" ".join(alts))
        rel = _words(element.get("rel") or "").lower() or None
        known = links.get(found)
        if known is None:
            links[found] = _Link(found, text, rel, _block_text(element, blocks))
        elif not known.text and text:
            known.text = text
    return list(links.values()), list(images.values())


def judge_links(links: list[_Link], content_text: str) -> list[dict[str, Any]]:
    """``{url, text, rel, in_content}`` per link: in the content when its block's
    opening words and its own text are both found in the main content's text."""
    content = _words(content_text)
    found: dict[str, bool] = {}  # each distinct block or text searched for once

    def contains(text: str) -> bool:
        known = found.get(text)
        if known is None:
            known = found[text] = text in content
        return known

    judged: list[dict[str, Any]] = []
    for link in links:
        block = link.block[:_MATCH_CHARS]
        inside = bool(content and block and contains(block) and contains(link.text))
        entry = {"url": link.url, "text": link.text, "rel": link.rel, "in_content": inside}
        if link.type:  # a feed from <link rel="alternate">: say which kind
            entry["type"] = link.type
        judged.append(entry)
    return judged
