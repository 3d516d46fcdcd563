"""``--render always`` judges the page the browser rendered, and never hints at itself."""

from __future__ import annotations

import pytest

from loopback import Site
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.pages import Fetcher
from sleuth.pages.result import Outcome

STORY = (
    "The harbour master logged every ship that entered the bay for forty years, and the "
    "ledgers now show how the trade routes shifted after the railway reached the coast."
)
# A Create-React-App shell: a noscript notice, an empty root a script fills.
SHELL = """<!doctype html><html><head><title>Harbour</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script>{script}</script>
</body></html>"""
FILLS = (
    "document.getElementById('root').innerHTML = "
    + repr("<main><h1>Harbour ledgers</h1>" + f"<p>{STORY}</p>" * 3 + "</main>")
    + ";"
)


@pytest.mark.chromium
async def test_a_rendered_app_is_read_as_the_browser_shows_it(site: Site) -> None:
    url = site.add("/app", SHELL.format(script=FILLS))
    settings = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory")
    async with Fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False, render="always")
    assert result.outcome == Outcome.OK, result.error
    assert result.rendered
    assert "trade routes shifted" in result.text
    assert "enable JavaScript" not in result.text


@pytest.mark.chromium
async def test_a_page_empty_even_in_the_browser_does_not_suggest_the_browser(
    site: Site,
) -> None:
    url = site.add("/empty-app", SHELL.format(script="/* the app never mounts */"))
    settings = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory")
    async with Fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False, render="always")
    assert result.outcome == Outcome.JS_REQUIRED
    assert result.error is not None
    assert "--render" not in result.error.message
    assert "the browser rendered the page" in result.error.message
