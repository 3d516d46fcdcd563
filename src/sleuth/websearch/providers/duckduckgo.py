"""DuckDuckGo's key-less HTML endpoints: the default provider when nothing else is set up.

The HTML page is parsed first; the lite page (a plain table) is the second path
when the first fails or its layout no longer parses. DuckDuckGo signals "slow
down" with HTTP 202 or a bot-check page; sleuth backs off a few times and then
reports ``rate_limited`` so the chain can cool the provider down.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import lxml.etree
import lxml.html

from sleuth.config import NetSettings, SearchSettings
from sleuth.errors import RateLimited, SearchError, SleuthError
from sleuth.websearch.models import SearchHit, SearchQuery
from sleuth.websearch.provider import SearchProvider, recency_bucket, with_site_operators
from sleuth.websearch.results import RawHit, make_hits

Sleep = Callable[[float], Awaitable[None]]

_SAFE = {"strict": "1", "moderate": "-1", "off": "-2"}
_ENGLISH_COUNTRIES = frozenset({"us", "uk", "au", "ca", "ie", "nz", "in", "za", "sg", "ph"})
_CHALLENGE_MARKERS = ("anomaly-modal", "challenge-form", "bots use DuckDuckGo too")
_RATE_LIMIT_STATUSES = (202, 403, 429)


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def region_code(query: SearchQuery) -> str:
    """DuckDuckGo's ``kl``: ``country-language``, or ``wt-wt`` for no region."""
    country = query.country
    if country is None:
        return "wt-wt"
    country = "uk" if country == "gb" else country
    language = query.language or ("en" if country in _ENGLISH_COUNTRIES else country)
    return f"{country}-{language}"


def target_of(href: str | None) -> str | None:
    """The page a result link leads to; None for ads and DuckDuckGo's own pages."""
    if not href:
        return None
    absolute = f"https:{href}" if href.startswith("//") else href
    parts = urlsplit(absolute)
    host = (parts.hostname or "").lower()
    if host != "duckduckgo.com" and not host.endswith(".duckduckgo.com"):
        return absolute
    if parts.path.startswith("/l/"):
        # parse_qs decodes the whole uddg value once, including any %26 inside the target.
        targets = parse_qs(parts.query).get("uddg")
        return targets[0] if targets else None
    return None  # /y.js is an ad click, anything else is DuckDuckGo itself


def _markup(element: lxml.html.HtmlElement | None) -> str:
    """Inner markup of an element; text is decoded once, later, by ``plain_text``."""
    if element is None:
        return ""
    return str(lxml.html.tostring(element, encoding="unicode", with_tail=False))


def _document(text: str) -> lxml.html.HtmlElement | None:
    try:
        return lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError):
        return None


def parse_html_page(text: str) -> list[RawHit] | None:
    """Results of the HTML endpoint; None when the page has no results and no no-results note."""
    doc = _document(text)
    if doc is None:
        return None
    blocks = doc.xpath(f"//div[{_has_class('result')}]")
    if not blocks:
        return [] if doc.xpath(f"//*[{_has_class('no-results')}]") else None
    rows = []
    for block in blocks:
        if block.xpath(f"self::*[{_has_class('result--ad')}]"):
            continue
        links = block.xpath(f".//a[{_has_class('result__a')}]")
        if not links:
            continue
        target = target_of(links[0].get("href"))
        if target is None:
            continue
        snippets = block.xpath(f".//*[{_has_class('result__snippet')}]")
        rows.append(RawHit(_markup(links[0]), target, _markup(snippets[0] if snippets else None)))
    return rows


def _lite_rows(doc: lxml.html.HtmlElement) -> Iterator[RawHit]:
    # Links and snippets sit in sibling table rows; pair each snippet with the link before it.
    title, target, snippet = "", None, ""
    for element in doc.xpath(
        f"//a[{_has_class('result-link')}] | //td[{_has_class('result-snippet')}]"
    ):
        if element.tag == "a":
            if target:
                yield RawHit(title, target, snippet)
            sponsored = element.xpath(f"ancestor::tr[{_has_class('result-sponsored')}]")
            title, snippet = _markup(element), ""
            target = None if sponsored else target_of(element.get("href"))
        else:
            snippet = _markup(element)
    if target:
        yield RawHit(title, target, snippet)


def parse_lite_page(text: str) -> list[RawHit] | None:
    """Results of the lite endpoint; None when the page does not look like a result page."""
    doc = _document(text)
    if doc is None:
        return None
    rows = list(_lite_rows(doc))
    if rows or doc.xpath(f"//a[{_has_class('result-link')}]"):
        return rows
    return [] if "No results" in doc.text_content() else None


class DuckDuckGoProvider(SearchProvider):
    name = "duckduckgo"

    def __init__(
        self,
        settings: SearchSettings,
        net: NetSettings,
        *,
        retries: int = 2,
        backoff: float = 0.5,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        super().__init__(settings, net)
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep

    def is_configured(self, settings: SearchSettings) -> bool:
        return True

    @property
    def trusted_urls(self) -> list[str]:
        return [self.settings.duckduckgo_url, self.settings.duckduckgo_lite_url]

    def form(self, query: SearchQuery) -> dict[str, str]:
        form = {
            "q": with_site_operators(query),
            "kl": region_code(query),
            "kp": _SAFE[query.safe_search],
        }
        bucket = recency_bucket(query.recency_days) if query.recency_days else None
        if bucket:
            form["df"] = bucket[0]
        return form

    async def _page(
        self, client: httpx.AsyncClient, url: str, form: dict[str, str], retries: int
    ) -> str:
        """POST the form; back off exponentially (with jitter) while DuckDuckGo says slow down."""
        for attempt in range(retries + 1):
            response = await self.send(client, "POST", url, data=form)
            limited = response.status in _RATE_LIMIT_STATUSES or (
                response.status == 200
                and any(marker in response.text for marker in _CHALLENGE_MARKERS)
            )
            if not limited:
                self.check_status(response)
                return response.text
            if attempt < retries:
                await self.sleep(self.backoff * 2**attempt * random.uniform(1.0, 1.5))
        signal = "a bot-check page" if response.status == 200 else f"HTTP {response.status}"
        raise RateLimited(
            f"duckduckgo is rate limiting sleuth ({signal} after {retries + 1} tries)",
            hint="sleuth will use another provider while it cools down; configure one with "
            "BRAVE_API_KEY, TAVILY_API_KEY, SERPAPI_API_KEY or SEARXNG_URL",
        )

    async def search(self, query: SearchQuery, client: httpx.AsyncClient) -> list[SearchHit]:
        form = self.form(query)
        first_error: SleuthError | None = None
        rows: list[RawHit] | None = None
        try:
            html_page = await self._page(client, self.settings.duckduckgo_url, form, self.retries)
            rows = parse_html_page(html_page)
        except SleuthError as exc:
            first_error = exc
        if rows is None:
            try:
                lite_page = await self._page(client, self.settings.duckduckgo_lite_url, form, 0)
            except SleuthError:
                if first_error is not None:
                    raise first_error from None
                raise
            rows = parse_lite_page(lite_page)
        if rows is None:
            raise first_error or SearchError(
                "duckduckgo's result pages could not be read; their layout may have changed",
                provider=self.name,
                hint="configure another provider, or report this to sleuth",
                retryable=False,
            )
        return make_hits(self.name, rows)
