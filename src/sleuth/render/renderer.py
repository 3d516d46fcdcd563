"""Rendering a page in headless Chromium for the pages that build their text in JavaScript.

One browser per :class:`Renderer`, started on the first render and reused; a
fresh context (cookies, storage, cache) per render; at most
``max_concurrent_renders`` at once; ``render_timeout`` seconds per render,
counted from when the render gets its slot.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Self
from urllib.parse import urlsplit

from sleuth.config import NetSettings, RenderSettings
from sleuth.errors import BlockedError, FetchTimeout, NetworkError
from sleuth.log import Stopwatch, event
from sleuth.render.browser import launch_browser
from sleuth.render.intercept import Interceptor
from sleuth.render.judge import Judged, judge

if TYPE_CHECKING:
    import httpx
    from playwright.async_api import Browser, Page, Playwright

# After DOMContentLoaded, scripts get up to this many seconds (and at most half
# of the time left) to reach network idle; a page that keeps polling is read as is.
SETTLE_CAP = 3.0

# WebRTC talks UDP outside the request interception, so pages get no constructor for it.
NO_WEBRTC_SCRIPT = """
for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"]) {
  try { Object.defineProperty(window, name, { value: undefined, configurable: false }); }
  catch (e) {}
}
"""


@dataclass(frozen=True)
class RenderedPage:
    """The DOM after scripts ran, for the same sanitise-and-extract pipeline as a plain fetch.

    ``html`` carries the browser's verdicts: every element it does not show has
    ``HIDDEN_MARK`` (see :mod:`sleuth.render.judge`). ``styles_unread`` lists the style
    sheets the browser never got (``{url, reason}``, reason an outcome code): what they
    hide, it shows.
    """

    url: str
    final_url: str
    status: int | None
    content_type: str | None
    html: str
    blocked_requests: list[str]  # URLs the guard refused
    styles_unread: list[dict[str, str]] = field(default_factory=list)
    # Fingerprints of the operator's credentials its requests carried (see net.sites).
    credentials: frozenset[str] = frozenset()


def _require_http(url: str) -> None:
    """Other schemes (file:, chrome:, ...) would never reach the interception."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise BlockedError(
            f"{url} is not an http or https URL",
            url=url,
            hint="sleuth renders only http and https pages",
        )


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class Renderer:
    """Headless Chromium whose every request goes through sleuth's SSRF guard: the
    browser's requests are made by ``client`` (the session's guarded one, which the
    renderer uses but does not close)."""

    def __init__(
        self, net: NetSettings, rendering: RenderSettings, *, client: httpx.AsyncClient
    ) -> None:
        self._net = net
        self._rendering = rendering
        self._client = client
        self._slots = asyncio.Semaphore(rendering.max_concurrent_renders)
        self._launch_lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._launching: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def render(self, url: str) -> RenderedPage:
        """Load ``url``, let its scripts build the page, and return the resulting DOM."""
        _require_http(url)
        if self._slots.locked():
            event("render_queued", url=url)
        async with self._slots:
            browser = await self._ensure_browser()
            watch = Stopwatch()
            rendered = await self._render(browser, url)
        event(
            "render",
            url=url,
            final_url=rendered.final_url,
            status=rendered.status,
            blocked=len(rendered.blocked_requests),
            latency_ms=watch.ms,
        )
        return rendered

    async def aclose(self) -> None:
        async with self._launch_lock:
            if self._launching is not None:  # a launch a cancelled render left running
                await asyncio.wait([self._launching])
                if not self._launching.cancelled():
                    self._launching.exception()  # seen here; the render that wanted it is gone
            await self._stop_browser()

    async def _ensure_browser(self) -> Browser:
        # The launch runs as its own task: a render cancelled mid-launch (a research
        # deadline) must not orphan the driver and browser; aclose() reaps them.
        async with self._launch_lock:
            launching = self._launching
            connected = self._browser is not None and self._browser.is_connected()
            if launching is None or (launching.done() and not connected):
                await self._stop_browser()
                launching = self._launching = asyncio.ensure_future(self._launch())
            await asyncio.shield(launching)
            assert self._browser is not None
            return self._browser

    async def _launch(self) -> None:
        self._playwright, self._browser = await launch_browser(self._rendering)

    async def _stop_browser(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        if browser is not None:
            await browser.close()
        if playwright is not None:
            await playwright.stop()

    async def _render(self, browser: Browser, url: str) -> RenderedPage:
        deadline = asyncio.get_running_loop().time() + self._rendering.render_timeout
        async with AsyncExitStack() as stack:
            context = await browser.new_context(
                service_workers="block",
                accept_downloads=False,
                user_agent=self._net.user_agent,
            )
            stack.push_async_callback(context.close)
            await context.add_init_script(NO_WEBRTC_SCRIPT)
            page = await context.new_page()
            interceptor = Interceptor(self._client, self._net, page.main_frame)
            stack.push_async_callback(interceptor.aclose)
            await context.route("**/*", interceptor.on_route)
            await context.route_web_socket("**/*", interceptor.on_websocket)
            try:
                async with asyncio.timeout_at(deadline):
                    rendered = await self._load(page, interceptor, url, deadline)
            except TimeoutError:
                raise FetchTimeout(
                    f"rendering {url} took longer than {self._rendering.render_timeout:g} s",
                    url=url,
                    hint="the page kept loading; try again or raise SLEUTH_RENDER_TIMEOUT",
                ) from None
        return rendered

    async def _load(
        self, page: Page, interceptor: Interceptor, url: str, deadline: float
    ) -> RenderedPage:
        """Navigate hop by hop (each main-frame redirect is a new guarded navigation)."""
        from playwright.async_api import Error as PlaywrightError

        target = url
        for _hop in range(self._net.max_redirects + 1):
            _require_http(target)
            interceptor.expect_document()
            try:
                # timeout=0: the one bound is the render deadline around this call.
                response = await page.goto(target, wait_until="domcontentloaded", timeout=0)
            except PlaywrightError as exc:
                if interceptor.redirect is None:
                    raise interceptor.document_error or NetworkError(
                        f"the browser could not load {target}: {_first_line(exc)}", url=target
                    ) from None
                target = interceptor.redirect
                continue
            await self._settle(page, deadline)
            judged = await _content(page)
            return RenderedPage(
                url=url,
                final_url=page.url,
                status=response.status if response else None,
                content_type=response.headers.get("content-type") if response else None,
                html=judged.html,
                blocked_requests=list(interceptor.blocked),
                styles_unread=_styles_unread(interceptor, judged),
                credentials=frozenset(interceptor.credentials),
            )
        raise NetworkError(f"{url} redirected more than {self._net.max_redirects} times", url=url)

    async def _settle(self, page: Page, deadline: float) -> None:
        """Let the style sheets arrive (a browser waits for them before it paints), then
        let scripts reach network idle; either wait is capped, and a page is read as is."""
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        for state in ("load", "networkidle"):
            left = deadline - asyncio.get_running_loop().time()
            with suppress(PlaywrightTimeout):
                await page.wait_for_load_state(
                    state,
                    timeout=max(min(SETTLE_CAP, left / 2), 0.001) * 1000,
                )


def _styles_unread(interceptor: Interceptor, judged: Judged) -> list[dict[str, str]]:
    """The sheets whose fetch failed, then those still not in when the page was judged."""
    unread = list(interceptor.styles_unread)
    named = {entry["url"] for entry in unread}
    unread += [
        {"url": url, "reason": "timeout"} for url in judged.unloaded_sheets if url not in named
    ]
    return unread


async def _content(page: Page) -> Judged:
    from playwright.async_api import Error as PlaywrightError

    try:
        return await judge(page)
    except PlaywrightError:
        # A script navigated meanwhile: judge the document it landed on.
        await page.wait_for_load_state("domcontentloaded")
        return await judge(page)
