"""The browser's requests carry the operator's [[sites]] credentials to their origin only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopback import Site, serve
from sleuth.config import Settings

from .conftest import renderer_for

TOKEN = "Bearer render-secret"


@pytest.fixture
def other() -> Iterator[Site]:
    with serve() as running:
        yield running


async def test_a_render_carries_the_sites_cookie_to_its_origin_only(
    site: Site, other: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RENDER_TOKEN", TOKEN)
    later = int(time.time()) + 3600
    cookies = tmp_path / "cookies.txt"
    cookies.write_text(
        f"# Netscape HTTP Cookie File\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t{later}\tsid\tabc\n",
        encoding="utf-8",
    )
    for server in (site, other):
        server.add("/style.css", "p { color: black }", headers={"Content-Type": "text/css"})
    site.add(
        "/page",
        "<!doctype html><html><head><title>Members</title>"
        f"<link rel='stylesheet' href='/style.css'>"
        f"<link rel='stylesheet' href='{other.origin}/style.css'></head>"
        "<body><article><p>Only members read this page.</p></article></body></html>",
    )
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}", f"127.0.0.1:{other.port}"],
        sites=[
            {
                "origin": site.origin,
                "headers": {"Authorization": "env:RENDER_TOKEN"},
                "cookies_file": str(cookies),
                "allow_http": True,
            }
        ],
    )
    async with renderer_for(settings) as renderer:
        page = await renderer.render(site.origin + "/page")
    assert "Only members" in page.html
    assert page.credentials  # a fingerprint, never the secret
    assert TOKEN not in "".join(page.credentials)
    for path in ("/page", "/style.css"):
        (headers,) = [r.headers for r in site.requests if r.path == path]
        lowered = {name.lower(): value for name, value in headers.items()}
        assert lowered["cookie"] == "sid=abc"
        assert lowered["authorization"] == TOKEN
    (theirs,) = [r.headers for r in other.requests if r.path == "/style.css"]
    assert not {name.lower() for name in theirs} & {"cookie", "authorization"}
