"""Sitemaps (plain, gzip, nested indexes) and RSS/Atom feeds, read bounded and forgiving.

Every read goes through the guarded client with a deadline and a byte cap, and asks
robots.txt (when given ``allowed``) at each redirect hop, not only the first URL. Bad
XML is parsed as far as it goes and reported; an index that points back at itself is
read once; a sitemap over the cap is cut at the cap and reported; a ``<loc>`` the HTTP
client cannot parse is a note. All the sitemaps of one map share one time budget. None
of it is fatal.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
from lxml import etree

from sleuth.crawl.urls import canonical, unusable
from sleuth.errors import SleuthError
from sleuth.net import deadline, read_body

MAX_SITEMAPS = 200  # documents read per map, indexes included
MAX_NESTING = 5  # index -> index -> ... deeper than this is a loop in disguise
MAX_HOPS = 5  # redirects followed for one sitemap or feed (RFC 9309 allows robots.txt five)
_FEED_ENDINGS: tuple[str, ...] = ("/feed", "/feed/", "/rss", "/rss/", ".rss", ".atom")
_FEED_ENDINGS += ("/atom.xml", "/rss.xml", "/feed.xml", "/index.xml", "/atom", "/atom/")


@dataclass
class Entry:
    url: str
    source: str  # sitemap | feed | links
    lastmod: str | None = None


@dataclass
class Notes:
    """What went wrong along the way, one line each, for stderr and the API."""

    lines: list[str] = field(default_factory=list)
    _summaries: int = field(default=0, init=False, repr=False)

    def add(self, line: str, *, always: bool = False) -> None:
        """Keep the first hundred lines; a summary line (``always``: the deadline, a host
        skipped, a count left out) is kept past them, and goes before the details, so a
        reader that shows only the first few lines shows it."""
        if always:
            self.lines.insert(self._summaries, line)
            self._summaries += 1
        elif len(self.lines) < 100:
            self.lines.append(line)


Allowed = Callable[[str], Awaitable[bool]]


def usable(url: str | None, source: str, notes: Notes) -> str | None:
    """``url`` canonical and requestable, or None (with a note when the site's URL was
    one the client cannot parse, such as ``http://1.2.3.256/``)."""
    if not url:
        return None
    found = canonical(url, source)
    if found is None:
        return None
    reason = unusable(found)
    if reason is not None:
        notes.add(f"{source}: skipped {found[:200]}: {reason}")
        return None
    return found


def looks_like_feed(url: str) -> bool:
    path = urlsplit(url).path.lower()
    return path.endswith(_FEED_ENDINGS)


def _gunzip(data: bytes, cap: int) -> tuple[bytes, bool]:
    """Decompress at most ``cap`` bytes; True when more was left (a gzip bomb or a big map)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, cap)
    except zlib.error:
        return b"", False
    return out, bool(inflater.unconsumed_tail)


async def read_document(
    client: httpx.AsyncClient,
    url: str,
    *,
    cap: int,
    seconds: float,
    notes: Notes,
    missing_ok: bool = False,
    allowed: Allowed | None = None,
) -> bytes | None:
    """The (decompressed) body of ``url``, at most ``cap`` bytes, or None with a note
    (none for a 404 when ``missing_ok``: most sites have no ``/sitemap.xml``).

    Redirects are followed here, hop by hop, so that ``allowed`` (robots.txt) is asked
    at every URL read, the first included."""
    try:
        async with deadline(seconds, url=url):
            request = client.build_request("GET", url)
            for _hop in range(MAX_HOPS + 1):
                target = str(request.url)
                if allowed is not None and not await allowed(target):
                    return None
                response = await client.send(request, stream=True, follow_redirects=False)
                try:
                    if response.next_request is not None:
                        request = response.next_request
                        continue
                    if response.status_code >= 400:
                        if missing_ok and response.status_code in (404, 410):
                            return None
                        notes.add(f"{url}: HTTP {response.status_code}")
                        return None
                    raw = await read_body(
                        response, max_bytes=cap, max_decoded_bytes=cap, truncate=True
                    )
                    break
                finally:
                    await response.aclose()
            else:
                notes.add(f"{url}: more than {MAX_HOPS} redirects")
                return None
    except SleuthError as exc:
        notes.add(f"{url}: {exc.message}")
        return None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        notes.add(f"{url}: {type(exc).__name__}: {exc}")
        return None
    if raw[:2] == b"\x1f\x8b":
        raw, more = _gunzip(raw, cap)
        if not raw:
            notes.add(f"{url}: not valid gzip")
            return None
        if more:
            notes.add(f"{url}: larger than {cap:,} bytes unpacked; read the first {cap:,}")
    elif len(raw) >= cap:
        notes.add(f"{url}: larger than {cap:,} bytes; read the first {cap:,}")
    return raw


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _child_text(element: etree._Element, name: str) -> str | None:
    for child in element:
        if _local(child.tag) == name and child.text and child.text.strip():
            return child.text.strip()
    return None


def parse_xml(data: bytes, url: str, notes: Notes) -> tuple[str, list[Entry], list[str]]:
    """``(kind, pages, child sitemaps)``; kind is urlset, sitemapindex, feed or unknown."""
    parser = etree.XMLParser(
        recover=True, resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        notes.add(f"{url}: not XML ({exc})")
        return "unknown", [], []
    if root is None:
        notes.add(f"{url}: not XML")
        return "unknown", [], []
    if len(parser.error_log):
        first = parser.error_log[0]
        notes.add(f"{url}: bad XML at line {first.line}: {first.message}; read what parsed")
    kind = _local(root.tag)
    pages: list[Entry] = []
    children: list[str] = []
    if kind == "sitemapindex":
        for node in root:
            loc = _child_text(node, "loc") if _local(node.tag) == "sitemap" else None
            found = usable(loc, url, notes)
            if found:
                children.append(found)
    elif kind == "urlset":
        for node in root:
            loc = _child_text(node, "loc") if _local(node.tag) == "url" else None
            found = usable(loc, url, notes)
            if found:
                pages.append(Entry(found, "sitemap", _child_text(node, "lastmod")))
    elif kind in ("rss", "rdf", "feed"):
        pages = _feed_entries(root, url, notes)
        kind = "feed"
    else:
        notes.add(f"{url}: a <{kind}> document is neither a sitemap nor a feed")
    return kind, pages, children


def _feed_entries(root: etree._Element, url: str, notes: Notes) -> list[Entry]:
    pages: list[Entry] = []
    for node in root.iter():
        name = _local(node.tag)
        if name == "item":  # RSS
            link = _child_text(node, "link")
            date = _child_text(node, "pubdate") or _child_text(node, "date")
        elif name == "entry":  # Atom
            link = next(
                (
                    child.get("href")
                    for child in node
                    if _local(child.tag) == "link" and child.get("rel", "alternate") == "alternate"
                ),
                None,
            )
            date = _child_text(node, "updated") or _child_text(node, "published")
        else:
            continue
        found = usable(link, url, notes)
        if found:
            pages.append(Entry(found, "feed", date))
    return pages


async def walk_sitemaps(
    client: httpx.AsyncClient,
    roots: list[str],
    *,
    cap: int,
    seconds: float,
    notes: Notes,
    total: float,
    quiet_missing: frozenset[str] = frozenset(),
    allowed: Allowed | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncIterator[Entry]:
    """Pages of every sitemap reachable from ``roots``: each document read once,
    nesting bounded, loops reported; ``allowed`` (robots.txt) is asked at each hop.

    One document gets at most ``seconds``, all of them together ``total``: a site of
    slow sitemaps costs ``total``, not ``seconds`` times :data:`MAX_SITEMAPS`."""
    seen: set[str] = set()
    queue: list[tuple[str, int]] = [(url, 0) for url in roots]
    ends = clock() + total
    while queue and len(seen) < MAX_SITEMAPS:
        left = ends - clock()
        if left <= 0:
            notes.add(f"sitemaps: stopped after {total:g}s; {len(queue)} not read")
            return
        url, depth = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        data = await read_document(
            client,
            url,
            cap=cap,
            seconds=min(seconds, left),
            notes=notes,
            missing_ok=url in quiet_missing,
            allowed=allowed,
        )
        if data is None:
            continue
        _kind, pages, children = parse_xml(data, url, notes)
        for page in pages:
            yield page
        for child in children:
            if child in seen:
                notes.add(f"{url}: sitemap index loop back to {child}; not read again")
            elif depth + 1 > MAX_NESTING:
                notes.add(f"{child}: sitemap indexes nested deeper than {MAX_NESTING}; skipped")
            else:
                queue.append((child, depth + 1))
    if queue:
        notes.add(f"stopped after {MAX_SITEMAPS} sitemap documents")
