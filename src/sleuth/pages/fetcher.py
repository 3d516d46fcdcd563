"""One URL in, one typed :class:`FetchResult` out.

The path reads top to bottom, the same for every caller: canonical URL, the
guard (names, addresses after a lookup through the transports' own resolver,
ports, the allowlist), robots.txt unless this caller may ignore it, then the
cache, the guarded HTTP request with body limits, sanitise-and-extract, the
browser fallback when the page needs it, cache write, paging. The cache sits
inside that path: a stored page is served only to a caller whose policy
admits the URL and every hop that led to it, so a page fetched under another
caller's allowlist or ``--ignore-robots`` is never handed to one without.
Every failure becomes an outcome on the result, never an empty success; only
bad input from the caller raises.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

import httpx

from sleuth.cache.base import Cache, cache_key, get_json, set_json
from sleuth.config import DocumentSettings, FetchSettings, NetSettings, StyleSettings
from sleuth.documents import (
    GENERIC_TYPES,
    PDF_TYPES,
    READABLE_TYPES,
    binary_type,
    is_document,
    is_pdf,
    media_type,
    sniff,
)
from sleuth.documents import read as read_document
from sleuth.errors import (
    BlockedError,
    BlockPage,
    ContentSignalRefused,
    EmptyExtraction,
    FetchTimeout,
    HTTPStatusError,
    JSRequired,
    NetworkError,
    RateLimited,
    Ref,
    RenderUnavailable,
    SleuthError,
    StylesUnread,
    TooLarge,
    UnsupportedType,
    UsageError,
)
from sleuth.extract import Extraction
from sleuth.extract.decode import decode
from sleuth.extract.styles import Styles, may_use_sheets
from sleuth.log import Stopwatch, event
from sleuth.net import canonical_url, deadline
from sleuth.net.body import read_body
from sleuth.net.sites import Sites, used
from sleuth.pages.paging import page_text
from sleuth.pages.result import ErrorInfo, FetchResult, Outcome, utc_now
from sleuth.pages.robots import RobotsChecker, robots_url
from sleuth.pages.stylesheets import INERT, SheetReader

if TYPE_CHECKING:
    from sleuth.render import Renderer

OutputFormat = Literal["text", "markdown", "html"]
RenderMode = Literal["auto", "always", "never"]
# A caller's rule for a page's redirects: (from, to), raising a SleuthError to refuse the hop.
RedirectPolicy = Callable[[str, str], Awaitable[None]]

# Web pages, PDFs and the text family (sleuth.documents); a generic type is sniffed.
ACCEPTED_TYPES = tuple(sorted(READABLE_TYPES - {""}))
# What a browser asks for, no more: a site that answers agents with a text of their own
# (text/markdown) must not hand a model what no reader of the page sees.
ACCEPT_HEADER = (
    "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.8,*/*;q=0.1"
)
_RENDERED_IN_VAIN = "the browser rendered the page and it still shows no readable text"
_EXTRACTION_ERRORS: dict[str, type[SleuthError]] = {
    "js_required": JSRequired,
    "empty_extraction": EmptyExtraction,
    "block_page": BlockPage,
}


_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):(.?)")


def normalize_input_url(url: str) -> str:
    """Accept ``example.com/page`` from a person; refuse what is not a web URL at all.

    Raises UsageError for text that is no URL and BlockedError for other schemes
    (``file:``, ``javascript:``, ``data:``), so neither ends in a traceback.
    """
    url = url.strip()
    if not url or any(ch.isspace() for ch in url):
        raise UsageError(f"{url!r} is not a URL", hint="pass an absolute http(s) URL")
    scheme = _SCHEME.match(url)
    if scheme and not scheme.group(2).isdigit():  # "host:8080/..." has a port, not a scheme
        name = scheme.group(1).lower()
        if name not in ("http", "https"):
            # No allow-list opens another scheme, so the usual hint would mislead.
            hint = "only http and https are fetched" + (
                "; a local file is read with extract" if name == "file" else ""
            )
            raise BlockedError(
                f"refused {url[:200]}: the {name} scheme is refused; use http or https",
                url=url,
                hint=hint,
            )
        if not url[scheme.end(1) :].startswith("://"):
            raise UsageError(f"{url!r} is malformed", hint=f"write {name}://host/path")
    else:  # no scheme, even when "://" appears later ("example.com/?next=https://...")
        url = ("https:" if url.startswith("//") else "https://") + url
    try:
        url = canonical_url(url) if urlsplit(url).hostname else ""
        _ = httpx.URL(url).host  # what the client will parse: ports, length, IDNA labels
    except (ValueError, httpx.InvalidURL) as exc:
        raise UsageError(
            f"{url[:200]!r} is not a valid URL: {exc}", hint="pass an absolute http(s) URL"
        ) from None
    if not url:
        raise UsageError("the URL has no host name", hint="pass an absolute http(s) URL")
    return url


class _Document:
    """What the network (or the browser) gave us, before extraction."""

    __slots__ = (
        "body",
        "content_type",
        "credentials",
        "final_url",
        "rendered",
        "status",
        "styles_unread",
        "via",
    )

    def __init__(
        self,
        body: bytes,
        content_type: str | None,
        final_url: str,
        status: int | None,
        *,
        rendered: bool = False,
    ) -> None:
        self.body = body
        self.content_type = content_type
        self.final_url = final_url
        self.status = status
        self.rendered = rendered
        self.via: tuple[str, ...] = (final_url,)  # every URL asked for on the way, in order
        # the sheets the browser could not get, for a rendered page
        self.styles_unread: list[dict[str, str]] = []
        # fingerprints of the operator's credentials sent for it (see sleuth.net.sites)
        self.credentials: set[str] = set()


async def _extract(
    document: _Document,
    output: OutputFormat,
    documents: DocumentSettings | None = None,
    styles: Styles | None = None,
) -> Extraction:
    """Extraction is CPU work: off the event loop, so deadlines and other fetches keep running.

    Pages go to the HTML extractor, PDFs and text files to :mod:`sleuth.documents`. A
    rendered page carries the browser's own verdict on what it hides.
    """
    judged_by = None
    if document.rendered:
        from sleuth.render import HIDDEN_MARK

        judged_by = HIDDEN_MARK
        if document.styles_unread:
            styles = Styles(None, lambda _: None, list(document.styles_unread))
    return await asyncio.to_thread(
        read_document,
        document.body,
        url=document.final_url,
        output=output,
        content_type=document.content_type,
        max_pages=documents.max_document_pages if documents else 200,
        timeout=documents.document_timeout if documents else 10.0,
        links=True,
        styles=styles,
        judged_by=judged_by,
    )


def _styles_unknown(styles: Styles) -> bool:
    """A sheet went unread for a reason a browser would not share (not a 404)."""
    return any(item["reason"] not in INERT for item in styles.unread)


@dataclasses.dataclass(frozen=True)
class _Manners:
    """What one caller asks of its page requests beyond the path itself (see fetch)."""

    redirects: RedirectPolicy | None = None
    retry_after: Callable[[str], None] | None = None


class _RobotsGate:
    """robots.txt for one fetch: every URL it visits, refused ones named as the user wrote."""

    def __init__(self, checker: RobotsChecker, refresh: bool) -> None:
        self._checker = checker
        self._refresh = refresh

    async def check(self, url: str) -> None:
        try:
            await self._checker.check(url, refresh=self._refresh)
        except (BlockedError, NetworkError, FetchTimeout) as exc:
            # The guard refused robots.txt, or its host did not answer: either way it is the
            # page the person asked for that cannot be read, so the error names the page.
            exc.message = exc.message.replace(robots_url(url), url)
            exc.url = url
            raise


async def _checked(url: str, document: _Document, retry_after: str | None = None) -> _Document:
    """Error statuses become outcomes, the same way for downloaded and rendered pages."""
    status = document.status or 200
    if status == 429:
        wait = f" (Retry-After: {retry_after.strip()[:40]})" if retry_after else ""
        raise RateLimited(f"{url} answered 429 Too Many Requests{wait}", status=status, url=url)
    if status >= 400:
        if status in (403, 503):
            # Often bot-check interstitials: tell them apart from plain errors.
            verdict = await _extract(document, "text")
            if verdict.outcome == "block_page":
                raise BlockPage(
                    verdict.reason or f"{url} served a bot check", status=status, url=url
                )
        raise HTTPStatusError(f"{url} answered HTTP {status}", status=status, url=url)
    return document


class Fetcher:
    """Fetches pages for people and agents; a session's :class:`~sleuth.web.Web` builds
    the one it shares, over its client, robots checker and browser (it owns none).

    ``admit`` is the network's own decision on a URL (the guard, lookup included), put
    to every URL before the cache is asked; ``renderer`` gives the browser when a page
    first needs it.
    """

    def __init__(
        self,
        *,
        fetching: FetchSettings,
        net: NetSettings,
        styles: StyleSettings,
        documents: DocumentSettings,
        render: RenderMode,
        cache: Cache,
        client: httpx.AsyncClient,
        robots: RobotsChecker,
        admit: Callable[[str], Awaitable[None]],
        renderer: Callable[[], Renderer],
        sites: Sites | None = None,
    ) -> None:
        self.fetching = fetching
        self._sites = sites or Sites()
        self.net = net
        self.styles = styles
        self.documents = documents
        self.render = render
        self.cache = cache
        self._client = client
        self._robots = robots
        self._admit_address = admit
        self._renderer = renderer
        self._slots = asyncio.Semaphore(fetching.max_concurrent_fetches)

    def _key(self, url: str, output: OutputFormat, render: RenderMode) -> str:
        # A page read with an unread sheet is ok for most callers, styles_unread for a
        # strict one: the two never share an entry (the default keeps its key). A page
        # read with the operator's credentials is kept under their fingerprint, so a
        # caller without the same [[sites]] entry never finds it.
        parts: list[str] = []
        if self.styles.strict_visibility:
            parts.append("strict-visibility")
        mine = self._sites.fingerprint(url)
        if mine:
            parts.append(f"credentials={mine}")
        return cache_key("page", url, output, render, *parts)

    async def is_cached(
        self,
        url: str,
        output: OutputFormat = "text",
        render: RenderMode | None = None,
        *,
        respect_robots: bool = True,
    ) -> bool:
        """Whether :meth:`fetch` would answer from the cache for this caller.

        Only a stored page is put to the policy, so asking about pages that were
        never fetched costs no lookup and no robots.txt request.
        """
        url = normalize_input_url(url)
        key = self._key(url, output, render or self.render)
        if await self.cache.get(key) is None:
            return False
        robots = _RobotsGate(self._robots, False) if respect_robots else None
        try:
            await self._admit(url, robots)
        except SleuthError:
            return False
        return await self._cached(key, url, robots) is not None

    async def fetch(
        self,
        url: str,
        *,
        output: OutputFormat = "text",
        render: RenderMode | None = None,
        refresh: bool = False,
        respect_robots: bool = True,
        max_chars: int | None = None,
        start_index: int = 0,
        redirects: RedirectPolicy | None = None,
        slots: asyncio.Semaphore | None = None,
        retry_after: Callable[[str], None] | None = None,
        for_model: bool = False,
    ) -> FetchResult:
        """The one policy path: every read of a web page, cached or not, goes through here.

        A crawl's needs are arguments: ``redirects`` may refuse a hop of the page request
        (out of its scope), ``slots`` bounds its requests in flight instead of the
        fetcher's own, and ``retry_after`` hears the ``Retry-After`` of a 429 or 503.

        The site's content signals (robots.txt's ``Content-Signal``) are reported in
        ``metadata.content_signals`` whenever robots.txt was read. A caller whose page
        goes to a model passes ``for_model``: robots.txt is then read even when ignored,
        and a site that says ``ai-input=no`` ends the fetch as ``content_signal``, before
        the page is read, cached or not.
        """
        if start_index < 0 or (max_chars is not None and max_chars <= 0):
            raise UsageError(
                "{start_index} must be >= 0 and {max_chars} > 0",
                refs={"start_index": Ref("start_index"), "max_chars": Ref("max_chars")},
            )
        try:
            url = normalize_input_url(url)
        except BlockedError as error:  # file:, javascript: ... end as outcomes like any refusal
            return self._failure(url, error, None, None)
        mode: RenderMode = render or self.render
        clock = Stopwatch()
        key = self._key(url, output, mode)
        robots = _RobotsGate(self._robots, refresh) if respect_robots else None

        try:
            await self._admit(url, robots)  # before the cache: it decides for this caller
            if for_model:
                await self._signals_admit(url)
            stored = None if refresh else await self._cached(key, url, robots)
        except ContentSignalRefused as error:
            result = self._failure(url, error, None, None)
            result.metadata["content_signals"] = await self._signals(url)
        except SleuthError as error:
            result = self._failure(url, error, None, None)
        else:
            if stored is not None:
                result = await self._signed(stored, robots, for_model)
                event("cache_hit", url=url, outcome=result.outcome, latency_ms=clock.ms)
                return page_text(result, start_index=start_index, max_chars=max_chars)
            async with slots or self._slots:
                result, via, credentials = await self._fetch_uncached(
                    url, output, mode, robots, _Manners(redirects, retry_after)
                )
            # Kept only when read with no credentials but its own origin's (under whose
            # fingerprint the key is): never another origin's, reached by a redirect.
            if result.ok and credentials <= {self._sites.fingerprint(url)}:
                stored_value = {**result.model_dump(), "via": list(via)}
                await set_json(self.cache, key, stored_value, self.fetching.cache_ttl)
            result = await self._signed(result, robots, for_model)
        if result.ok:
            event(
                "fetch",
                url=url,
                outcome=result.outcome,
                status=result.status,
                rendered=result.rendered,
                latency_ms=clock.ms,
            )
        else:
            event(
                "fetch_error",
                url=url,
                outcome=result.outcome,
                status=result.status,
                error=result.error.message if result.error else None,
                latency_ms=clock.ms,
            )
        return page_text(result, start_index=start_index, max_chars=max_chars)

    async def _signals(self, url: str) -> dict[str, str]:
        """The content signals of ``url``'s site; none when its robots.txt cannot be had."""
        try:
            policy = await self._robots.policy(url)
        except SleuthError:
            return {}
        return dict(policy.content_signals)

    async def _signals_admit(self, url: str) -> None:
        """Raise unless ``url``'s site lets its pages be a model's input."""
        if (await self._signals(url)).get("ai-input") == "no":
            host = urlsplit(url).netloc
            raise ContentSignalRefused(
                f"robots.txt of {host} says Content-Signal: ai-input=no; {url} is not "
                "given to a model",
                url=url,
            )

    async def _signed(
        self, result: FetchResult, robots: _RobotsGate | None, for_model: bool
    ) -> FetchResult:
        """``result`` with its site's signals as robots.txt says them now (never as the
        cache kept them); for a model, a page that landed on a site saying ``ai-input=no``
        (through a redirect) ends as ``content_signal``."""
        if robots is None and not for_model:
            return result
        landed = result.final_url or result.url
        if for_model and result.ok and landed != result.url:
            try:
                await self._signals_admit(landed)
            except ContentSignalRefused as error:
                return self._failure(result.url, error, None, None)
        signals = await self._signals(landed)
        metadata = {k: v for k, v in result.metadata.items() if k != "content_signals"}
        if signals:
            metadata["content_signals"] = signals
        return result.model_copy(update={"metadata": metadata})

    async def _admit(self, url: str, robots: _RobotsGate | None) -> None:
        """Raise unless this caller may fetch ``url``: the guard, then robots.txt.

        The guard runs as the transport would run it, lookup included, so a stored
        page is refused exactly where the network would have refused the fetch.
        """
        await self._admit_address(url)
        if robots:
            await robots.check(url)

    async def _cached(self, key: str, url: str, robots: _RobotsGate | None) -> FetchResult | None:
        """The stored page, if this caller may have every URL that led to it.

        ``url`` itself has been admitted; each redirect hop and the final URL are
        put to the same policy. A page the caller may not have reads as a miss:
        the network path then decides afresh, with the same rules.
        """
        stored = await get_json(self.cache, key)
        if not isinstance(stored, dict):
            return None
        try:
            result = FetchResult.model_validate({**stored, "cache": "hit"})
        except ValueError:  # an entry from another version: fetch again
            return None
        via = stored.get("via")
        hops = [hop for hop in via if isinstance(hop, str)] if isinstance(via, list) else []
        mine = self._sites.fingerprint(url)
        for hop in dict.fromkeys([*hops, result.final_url or url]):
            if hop == url:
                continue
            if self._sites.fingerprint(hop) not in (None, mine):
                return None  # this caller would send credentials the stored read had not
            try:
                await self._admit(hop, robots)
            except SleuthError as exc:
                event("cache_refused", url=url, hop=hop, outcome=exc.code)
                return None
        return result

    async def _fetch_uncached(
        self,
        url: str,
        output: OutputFormat,
        mode: RenderMode,
        robots: _RobotsGate | None,
        manners: _Manners,
    ) -> tuple[FetchResult, tuple[str, ...], set[str]]:
        """The network half of the path; ``url`` has been admitted. Returns the hops too,
        and the fingerprints of the operator's credentials any request carried."""
        clock = Stopwatch()
        document: _Document | None = None
        extraction: Extraction | None = None
        credentials: set[str] = set()
        try:
            if mode == "always":
                document = await self._render(url)
                await _checked(url, document)
                if robots and document.final_url != url:
                    await robots.check(document.final_url)
            else:
                document = await self._download(url, robots, manners)
            styles = await self._stylesheets(document, robots, clock)
            credentials |= document.credentials
            extraction = await _extract(document, output, self.documents, styles)
            if styles is not None and _styles_unknown(styles):
                document, extraction = await self._judge_in_browser(
                    url,
                    output=output,
                    mode=mode,
                    document=document,
                    extraction=extraction,
                    robots=robots,
                )
            if (
                mode == "auto"
                and extraction.outcome in ("js_required", "empty_extraction")
                and not document.rendered
                and not is_document(extraction)  # a PDF or a text file has no scripts
            ):
                document, extraction = await self._render_fallback(
                    url, output, document, extraction, robots
                )
            credentials |= document.credentials
            if extraction.outcome != "ok":
                # Never suggest the browser for a page the browser already rendered.
                rendered_in_vain = document.rendered and extraction.outcome == "js_required"
                raise _EXTRACTION_ERRORS[extraction.outcome](
                    extraction.reason or f"extraction gave {extraction.outcome}",
                    url=url,
                    hint=_RENDERED_IN_VAIN if rendered_in_vain else None,
                )
        except SleuthError as error:
            return self._failure(url, error, document, extraction), (), credentials
        result = FetchResult(
            url=url,
            final_url=document.final_url,
            status=document.status,
            content_type=document.content_type,
            outcome=Outcome.OK,
            title=extraction.title,
            text=extraction.text,
            metadata={
                **extraction.metadata,
                "extractor": extraction.method,
                **({"credentials": True} if credentials else {}),  # never which
            },
            fetched_at=utc_now(),
            rendered=document.rendered,
            links=extraction.links,
            images=extraction.images,
        )
        return result, document.via, credentials

    def _failure(
        self,
        url: str,
        error: SleuthError,
        document: _Document | None,
        extraction: Extraction | None,
    ) -> FetchResult:
        return FetchResult(
            url=url,
            final_url=document.final_url if document else None,
            status=getattr(error, "status", None) or (document.status if document else None),
            content_type=document.content_type if document else None,
            outcome=error.code,
            title=extraction.title if extraction else None,
            metadata=extraction.metadata if extraction else {},
            rendered=bool(document and document.rendered),
            error=ErrorInfo.from_error(error),
            # A page read but too thin to be content (a hub of links) still has its links.
            links=extraction.links if extraction else [],
            images=extraction.images if extraction else [],
        )

    async def _download(self, url: str, robots: _RobotsGate | None, manners: _Manners) -> _Document:
        """GET ``url``, following redirects here so robots.txt is asked at every hop.

        The document remembers every URL asked for, so that a cached copy can be
        put to the next caller's policy hop by hop.
        """
        try:
            async with deadline(self.fetching.fetch_deadline, url=url):
                request = self._client.build_request("GET", url, headers={"Accept": ACCEPT_HEADER})
                via: list[str] = []
                credentials: set[str] = set()
                for hop in range(self.net.max_redirects + 1):
                    via.append(str(request.url))
                    if hop and robots:
                        await robots.check(str(request.url))
                    response = await self._client.send(request, stream=True, follow_redirects=False)
                    credentials |= used([response])
                    try:
                        if manners.retry_after and response.status_code in (429, 503):
                            wait = response.headers.get("retry-after")
                            if wait is not None:
                                manners.retry_after(wait)
                        if response.next_request is None:
                            document = await self._read(url, response)
                            document.via = (*via, document.final_url)
                            document.credentials = credentials
                            return document
                        if manners.redirects:
                            target = str(response.next_request.url)
                            await manners.redirects(str(request.url), target)
                        request = response.next_request
                    finally:
                        await response.aclose()
            raise NetworkError(
                f"{url} redirected more than {self.net.max_redirects} times",
                url=url,
                retryable=False,
            )
        except httpx.HTTPError as exc:
            raise NetworkError(f"{url} could not be fetched: {exc}", url=url) from None

    async def _read(self, url: str, response: httpx.Response) -> _Document:
        status = response.status_code
        content_type = response.headers.get("content-type")
        media = media_type(content_type)
        if status >= 400 and status not in (403, 503):  # no body worth reading
            await _checked(
                url,
                _Document(b"", content_type, str(response.url), status),
                response.headers.get("retry-after"),
            )
        if media and media not in ACCEPTED_TYPES:
            raise UnsupportedType(f"{url} is {media}, not a web page or a document", url=url)
        # A PDF, or a generic type that may hold one, may be as large as a document.
        document = media in PDF_TYPES or media in GENERIC_TYPES
        net, most = self.net, self.documents.max_document_bytes
        body = await read_body(
            response,
            max_bytes=most if document else net.max_bytes,
            max_decoded_bytes=max(most, net.max_decoded_bytes)
            if document
            else net.max_decoded_bytes,
        )
        if media in GENERIC_TYPES and not is_pdf(body):
            found = binary_type(body)
            if found is not None:
                raise UnsupportedType(
                    f"{url} sent {media or 'no content type'} and the content is {found}", url=url
                )
            if not media and body.lstrip()[:1] not in (b"<", b""):
                raise UnsupportedType(
                    f"{url} sent no content type and does not look like HTML", url=url
                )
            if len(body) > net.max_bytes:
                raise TooLarge(f"{url} sent more than {net.max_bytes} bytes", url=url)
        return await _checked(url, _Document(body, content_type, str(response.url), status))

    async def _stylesheets(
        self, document: _Document, robots: _RobotsGate | None, clock: Stopwatch
    ) -> Styles | None:
        """The sheets a downloaded HTML page links, read for this caller (see
        :mod:`.stylesheets`), within the stylesheet timeout and the fetch deadline."""
        if document.rendered or sniff(document.body, document.content_type) != "html":
            return None
        html = decode(document.body, document.content_type)
        if not may_use_sheets(html):
            return None

        async def admit(sheet: str) -> None:
            await self._admit(sheet, robots)

        left = self.fetching.fetch_deadline - clock.ms / 1000
        seconds = min(self.styles.stylesheet_timeout, left)
        reader = SheetReader(
            self._client,
            self.cache,
            admit,
            styles=self.styles,
            fetching=self.fetching,
            net=self.net,
            sites=self._sites,
        )
        styles = await reader.read(html, document.final_url, seconds)
        document.credentials |= reader.credentials
        return styles

    async def _judge_in_browser(
        self,
        url: str,
        *,
        output: OutputFormat,
        mode: RenderMode,
        document: _Document,
        extraction: Extraction,
        robots: _RobotsGate | None,
    ) -> tuple[_Document, Extraction]:
        """A sheet that could not be read may hide anything: the browser judges the page
        when it may; otherwise strict visibility refuses it, or the static reading stands
        with the unread sheets listed."""
        if mode != "never":
            try:
                rendered = await _checked(url, await self._render(url))
                if robots and rendered.final_url != url:
                    await robots.check(rendered.final_url)
            except RenderUnavailable as exc:
                event("render_unavailable", url=url, error=exc.message)
            except SleuthError as exc:
                event("render_failed", url=url, error=exc.code)
            else:
                judged = await _extract(rendered, output, self.documents)
                if not any(item["reason"] not in INERT for item in rendered.styles_unread) and (
                    judged.outcome == "ok" or extraction.outcome != "ok"
                ):
                    return rendered, judged
                if judged.outcome == "ok":  # the browser too went without a sheet
                    document, extraction = rendered, judged
        if self.styles.strict_visibility:
            unread = ", ".join(
                f"{item['url']} ({item['reason']})"
                for item in extraction.metadata.get("styles_unread", [])
            )
            raise StylesUnread(
                f"{url}: what the page hides is unknown; unread style sheets: {unread}", url=url
            )
        return document, extraction

    async def _render_fallback(
        self,
        url: str,
        output: OutputFormat,
        document: _Document,
        extraction: Extraction,
        robots: _RobotsGate | None,
    ) -> tuple[_Document, Extraction]:
        event("render_fallback", url=url, outcome=extraction.outcome, reason=extraction.reason)
        try:
            rendered = await _checked(url, await self._render(url))
            if robots and rendered.final_url != url:  # a script or meta refresh moved it
                await robots.check(rendered.final_url)
        except RenderUnavailable as exc:
            event("render_unavailable", url=url, error=exc.message)
            reason = (
                f"{extraction.reason or extraction.outcome}; the browser fallback is off: {exc}"
            )
            return document, dataclasses.replace(extraction, reason=reason)
        except SleuthError as exc:  # the first answer stands; the browser fared worse
            event("render_failed", url=url, error=exc.code)
            return document, extraction
        second = await _extract(rendered, output, self.documents)
        return (rendered, second) if second.outcome == "ok" else (document, extraction)

    async def _render(self, url: str) -> _Document:
        page = await self._renderer().render(url)
        document = _Document(
            page.html.encode("utf-8"),
            "text/html; charset=utf-8",
            page.final_url,
            page.status,
            rendered=True,
        )
        document.via = (url, page.final_url)
        document.styles_unread = list(page.styles_unread)
        document.credentials = set(page.credentials)
        return document
