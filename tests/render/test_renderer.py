"""Rendering JavaScript pages in real headless Chromium, served from a loopback site."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from loopback import Site
from sleuth.errors import FetchTimeout, TooLarge, UnsupportedType
from sleuth.render import Renderer
from sleuth.render.browser import launch_browser

from .conftest import EventLog, renderer_for, site_settings

pytestmark = pytest.mark.chromium

ARTICLE = "The keepers logged every storm along the northern coast for a century."


def page(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"


async def test_article_built_by_inline_script(site: Site, renderer: Renderer) -> None:
    url = site.add(
        "/inline",
        page(
            "<div id='app'>Loading…</div><img src='/pic.png'>"
            "<script>document.body.innerHTML = "
            f"'<article><h1>Storms</h1><p>{ARTICLE}</p></article>';</script>",
            head="<link rel='stylesheet' href='/style.css'>",
        ),
    )
    rendered = await renderer.render(url)
    assert ARTICLE in rendered.html
    assert "Loading…" not in rendered.html
    assert rendered.status == 200
    assert rendered.final_url == url
    assert rendered.content_type == "text/html; charset=utf-8"
    assert rendered.blocked_requests == []
    # Images are not needed for text: never fetched. Style sheets are: the browser judges
    # with them.
    assert site.paths() == ["/inline", "/style.css"]
    assert rendered.styles_unread == [{"url": f"{site.origin}/style.css", "reason": "http_error"}]


async def test_article_loaded_with_fetch_from_same_origin(site: Site, renderer: Renderer) -> None:
    site.add(
        "/api/article.json",
        json.dumps({"title": "Storms", "text": ARTICLE}),
        headers={"Content-Type": "application/json"},
    )
    url = site.add(
        "/spa",
        page(
            "<main id='root'></main><script>"
            "fetch('/api/article.json').then(r => r.json()).then(d => {"
            "document.getElementById('root').innerHTML ="
            " '<article><h1>' + d.title + '</h1><p>' + d.text + '</p></article>'; });"
            "</script>"
        ),
    )
    rendered = await renderer.render(url)
    assert ARTICLE in rendered.html
    assert site.paths() == ["/spa", "/api/article.json"]
    # Every request came through sleuth's client, none from the browser's own stack.
    agents = {seen.headers.get("User-Agent", "") for seen in site.requests}
    assert all(agent.startswith("sleuth/") for agent in agents), agents


async def test_same_origin_redirect_is_followed_hop_by_hop(site: Site, renderer: Renderer) -> None:
    site.add(
        "/data.json", json.dumps({"text": ARTICLE}), headers={"Content-Type": "application/json"}
    )
    site.add("/old", "", status=302, headers={"Location": "/new"})
    new = site.add(
        "/new",
        page(
            "<p id='out'></p><script>fetch('data.json').then(r => r.json())"
            ".then(d => { document.getElementById('out').textContent = d.text; });</script>"
        ),
    )
    rendered = await renderer.render(site.origin + "/old")
    assert rendered.final_url == new
    assert rendered.url == site.origin + "/old"
    assert ARTICLE in rendered.html
    assert site.paths() == ["/old", "/new", "/data.json"]


async def test_redirect_loop_is_cut(site: Site, renderer: Renderer) -> None:
    site.add("/a", "", status=302, headers={"Location": "/b"})
    site.add("/b", "", status=302, headers={"Location": "/a"})
    with pytest.raises(Exception, match="redirected more than") as caught:
        await renderer.render(site.origin + "/a")
    assert caught.value.code == "network_error"  # type: ignore[attr-defined]


async def test_error_status_is_reported_not_raised(site: Site, renderer: Renderer) -> None:
    url = site.add("/gone", page("<p>This page is gone.</p>"), status=404)
    rendered = await renderer.render(url)
    assert rendered.status == 404
    assert "This page is gone." in rendered.html


def _two_cookies(request: BaseHTTPRequestHandler) -> None:
    body = page(
        "<p id='out'></p><script>fetch('/echo').then(r => r.text()).then(t => {"
        "document.getElementById('out').textContent = 'cookies:' + t; });</script>"
    ).encode()
    request.send_response(200)
    request.send_header("Content-Type", "text/html")
    request.send_header("Set-Cookie", "first=one; Path=/")
    request.send_header("Set-Cookie", "second=two; Path=/")
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def _echo_cookie(request: BaseHTTPRequestHandler) -> None:
    body = (request.headers.get("Cookie") or "none").encode()
    request.send_response(200)
    request.send_header("Content-Type", "text/plain")
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


async def test_cookies_set_by_the_page_reach_its_requests(site: Site, renderer: Renderer) -> None:
    url = site.add("/cookies", handler=_two_cookies)
    site.add("/echo", handler=_echo_cookie)
    rendered = await renderer.render(url)
    assert "cookies:first=one; second=two" in rendered.html


async def test_document_over_the_byte_limit_is_too_large(site: Site) -> None:
    url = site.add("/big", page("<p>" + "x" * 50_000 + "</p>"))
    async with renderer_for(site_settings(site, max_bytes=10_000)) as renderer:
        with pytest.raises(TooLarge):
            await renderer.render(url)


async def test_subresources_share_one_budget(site: Site) -> None:
    # Each part fits the per-response limit; five of them overdraw the render's total.
    for n in range(5):
        site.add(f"/part{n}.txt", "y" * 9_000, headers={"Content-Type": "text/plain"})
    url = site.add(
        "/budget",
        page(
            "<p id='out'>pending</p><script>(async () => { const seen = [];"
            "for (let n = 0; n < 5; n++) {"
            "  try { await (await fetch('/part' + n + '.txt')).text(); seen.push('ok'); }"
            "  catch (e) { seen.push('failed'); } }"
            "document.getElementById('out').textContent = 'parts:' + seen.join(','); })();"
            "</script>"
        ),
    )
    async with renderer_for(site_settings(site, max_bytes=10_000)) as renderer:
        rendered = await renderer.render(url)
    assert "parts:ok,ok,ok,ok,failed" in rendered.html


async def test_non_page_document_is_unsupported(site: Site, renderer: Renderer) -> None:
    url = site.add("/paper.pdf", b"%PDF-1.7 ...", headers={"Content-Type": "application/pdf"})
    with pytest.raises(UnsupportedType):
        await renderer.render(url)


def _trickle_forever(site: Site) -> object:
    def handler(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "text/html")
        request.send_header("Content-Length", "100000")
        request.end_headers()
        request.wfile.write(b"<!doctype html><html><body><p>first part")
        request.wfile.flush()
        site.release.wait(60)

    return handler


@pytest.mark.parametrize("stuck", ["document", "script"])
async def test_page_that_never_finishes_loading_times_out(site: Site, stuck: str) -> None:
    if stuck == "document":
        url = site.add("/stuck", handler=_trickle_forever(site))
    else:
        # A parser-blocking script that never arrives holds DOMContentLoaded forever.
        site.add("/stuck.js", "", stall=threading.Event())
        url = site.add("/stuck", page("<p>text</p>", head="<script src='/stuck.js'></script>"))
    fine = site.add("/fine", page(f"<p>{ARTICLE}</p>"))
    async with renderer_for(site_settings(site, render_timeout=3.0)) as renderer:
        with pytest.raises(FetchTimeout) as caught:
            await renderer.render(url)
        assert caught.value.retryable
        # The renderer is still usable after a timed-out render.
        assert ARTICLE in (await renderer.render(fine)).html


class DocumentGate:
    """Holds document requests until released, remembering how many were held at once."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.release = threading.Event()
        self.in_flight = 0
        self.peak = 0
        self.served = 0

    def __call__(self, request: BaseHTTPRequestHandler) -> None:
        with self.condition:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            self.condition.notify_all()
        self.release.wait(60)
        with self.condition:
            # Counted out before answering: once the body is sent the render may end
            # and the next one start while this thread is still running.
            self.in_flight -= 1
            self.served += 1
        body = page(f"<p>{ARTICLE}</p>").encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/html")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    def wait_in_flight(self, count: int) -> bool:
        with self.condition:
            return self.condition.wait_for(lambda: self.in_flight >= count, timeout=60)


async def test_no_more_than_two_renders_at_once(site: Site, events: EventLog) -> None:
    gate = DocumentGate()
    site.add("/slow", handler=gate)
    async with renderer_for(site_settings(site)) as renderer:
        renders = [
            asyncio.create_task(renderer.render(f"{site.origin}/slow?n={n}")) for n in range(4)
        ]
        # Two renders wait for a slot while the other two are held inside the server.
        await events.wait_for("render_queued", 2)
        assert await asyncio.to_thread(gate.wait_in_flight, 2)
        gate.release.set()
        pages = await asyncio.gather(*renders)
    assert gate.peak == 2
    assert gate.served == 4
    assert all(ARTICLE in rendered.html for rendered in pages)


async def test_browser_cannot_reach_the_network_without_interception(site: Site) -> None:
    """Defence in depth: even an unintercepted request to a loopback IP literal fails."""
    url = site.add("/direct", page("<p>reached directly</p>"))
    playwright, browser = await launch_browser(site_settings(site).browser)
    try:
        context = await browser.new_context()
        direct = await context.new_page()
        with pytest.raises(Exception, match="ERR_NAME_NOT_RESOLVED"):
            await direct.goto(url)
        await context.route(
            "**/*", lambda route: route.fulfill(status=200, body="<p>fulfilled</p>")
        )
        await direct.goto(url)
        assert "fulfilled" in await direct.content()
    finally:
        await browser.close()
        await playwright.stop()
    assert site.paths() == []


async def test_service_workers_are_never_installed(site: Site, renderer: Renderer) -> None:
    site.add("/sw.js", "self.onfetch = () => {};", headers={"Content-Type": "text/javascript"})
    url = site.add(
        "/worker",
        page(
            "<p id='out'>pending</p><script>navigator.serviceWorker.register('/sw.js')"
            ".then(() => navigator.serviceWorker.getRegistrations())"
            ".then(found => { document.getElementById('out').textContent ="
            " 'workers:' + found.length; });</script>"
        ),
    )
    rendered = await renderer.render(url)
    assert "workers:0" in rendered.html
    assert "/sw.js" not in site.paths()


def _child_processes() -> set[int]:
    children: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        text = (task / "children").read_text().split()
        children.update(int(pid) for pid in text)
    return {pid for pid in children if Path(f"/proc/{pid}").exists()}


async def test_a_render_cancelled_during_launch_leaves_no_processes(site: Site) -> None:
    before = _child_processes()
    site.add("/page", "<html><body><p>hello</p></body></html>")
    async with renderer_for(site_settings(site)) as renderer:
        render = asyncio.create_task(renderer.render(site.origin + "/page"))
        while renderer._launching is None:  # yield to the loop until the launch has begun
            await asyncio.sleep(0)
        render.cancel()
        with pytest.raises(asyncio.CancelledError):
            await render
        await renderer.aclose()
    leftover = {pid for pid in _child_processes() - before if not _is_zombie(pid)}
    assert leftover == set()


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True
