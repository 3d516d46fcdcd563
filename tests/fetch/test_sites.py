"""The operator's [[sites]] credentials: exactly their origin, cached apart, never shown.

Two loopback servers on two ports are two origins; both log the headers they were sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from http.cookiejar import Cookie
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import PARAGRAPHS
from loopback import Site, article, serve
from sleuth.cache import FileCache, MemoryCache
from sleuth.config import Settings, describe, load_settings
from sleuth.errors import ConfigError
from sleuth.net.sites import Sites
from sleuth.web import Web

TOKEN = "Bearer s3cret-token-value"
COOKIE_VALUE = "c00kie-secret"
ROBOTS = "User-agent: *\nAllow: /\n"


@pytest.fixture
def other() -> Iterator[Site]:
    with serve() as running:
        yield running


def cookies_text(host: str) -> str:
    later = int(time.time()) + 86400
    return "\n".join(
        [
            "# Netscape HTTP Cookie File",
            f"{host}\tFALSE\t/\tFALSE\t{later}\tsid\t{COOKIE_VALUE}",
            f"#HttpOnly_{host}\tFALSE\t/\tFALSE\t0\thttponly\tyes",
            f"{host}\tFALSE\t/elsewhere\tFALSE\t{later}\tpathed\tno",
            f"{host}\tFALSE\t/\tTRUE\t{later}\tsecure\tno",
            f"{host}\tFALSE\t/\tFALSE\t1000\texpired\tno",
            f"other.example\tFALSE\t/\tFALSE\t{later}\tforeign\tno",
            "",
        ]
    )


def entry(site: Site, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    path = tmp_path / "cookies.txt"
    path.write_text(cookies_text("127.0.0.1"), encoding="utf-8")
    return {
        "origin": site.origin,
        "headers": {"Authorization": "env:SITE_TOKEN", "X-Plain": "plain-secret"},
        "cookies_file": str(path),
        "allow_http": True,
        **extra,
    }


def settings_for(*sites: Site, entries: list[dict[str, Any]], **extra: Any) -> Settings:
    return Settings(
        allow_hosts=[f"127.0.0.1:{site.port}" for site in sites],
        render="never",
        sites=entries,
        **extra,
    )


def seen(site: Site, path: str) -> list[dict[str, str]]:
    return [
        {name.lower(): value for name, value in request.headers.items()}
        for request in site.requests
        if request.path == path
    ]


def carried(headers: dict[str, str]) -> bool:
    return "authorization" in headers or "x-plain" in headers or "cookie" in headers


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITE_TOKEN", TOKEN)


async def test_credentials_reach_exactly_their_origin(
    site: Site, other: Site, tmp_path: Path
) -> None:
    for server in (site, other):
        server.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
        server.add("/style.css", "p { color: black }", headers={"Content-Type": "text/css"})
    head = (
        f"<link rel='stylesheet' href='{site.origin}/style.css'>"
        f"<link rel='stylesheet' href='{other.origin}/style.css'>"
    )
    site.add("/page", article("Logbooks", PARAGRAPHS, head))
    other.add("/page", article("Logbooks", PARAGRAPHS))
    settings = settings_for(site, other, entries=[entry(site, tmp_path)])
    async with Web(settings, MemoryCache(100)) as web:
        mine = await web.fetcher.fetch(site.origin + "/page")
        theirs = await web.fetcher.fetch(other.origin + "/page")
        # a search provider's or a model's client comes from the same factory, bare
        async with web.clients(trusted_urls=[site.origin]) as bare:
            await bare.get(site.origin + "/robots.txt")
    assert mine.ok
    assert theirs.ok
    assert mine.metadata["credentials"] is True
    assert "credentials" not in theirs.metadata
    for path in ("/page", "/robots.txt", "/style.css"):
        sent = seen(site, path)[0]
        assert sent["authorization"] == TOKEN
        assert sent["x-plain"] == "plain-secret"
        # the path, secure flag, expiry and domain of each cookie decide; HttpOnly lines count
        assert sent["cookie"] == f"sid={COOKIE_VALUE}; httponly=yes"
    assert not carried(seen(site, "/robots.txt")[-1])  # the bare client's request
    for path in ("/page", "/robots.txt", "/style.css"):
        assert [carried(headers) for headers in seen(other, path)] == [False]
    assert TOKEN not in mine.model_dump_json()
    assert COOKIE_VALUE not in mine.model_dump_json()


async def test_a_redirect_to_another_origin_carries_none(
    site: Site, other: Site, tmp_path: Path
) -> None:
    other.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    other.add("/landing", article("Landing", PARAGRAPHS))
    site.add("/away", status=302, headers={"Location": other.origin + "/landing"})
    settings = settings_for(site, other, entries=[entry(site, tmp_path)])
    async with Web(settings, MemoryCache(100)) as web:
        result = await web.fetcher.fetch(site.origin + "/away")
    assert result.ok
    assert result.final_url == other.origin + "/landing"
    assert carried(seen(site, "/away")[0])
    assert [carried(headers) for headers in seen(other, "/landing")] == [False]


def _varying(site: Site, path: str, secret: str, public: str) -> None:
    """A route whose body depends on whether the request carried the token."""

    def handler(request: BaseHTTPRequestHandler) -> None:
        signed_in = request.headers.get("Authorization") == TOKEN
        body = article(secret if signed_in else public, PARAGRAPHS).encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    site.add(path, handler=handler)


async def test_the_cache_keeps_pages_read_with_credentials_apart(
    site: Site, other: Site, tmp_path: Path
) -> None:
    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    other.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    site.add("/style.css", "p { color: black }", headers={"Content-Type": "text/css"})
    _varying(site, "/private", "Members only", "Please sign in")
    other.add("/into", status=302, headers={"Location": site.origin + "/private"})
    with_entry = settings_for(site, other, entries=[entry(site, tmp_path)], cache="file")
    without = settings_for(site, other, entries=[], cache="file")
    shared = tmp_path / "cache"
    async with Web(with_entry, FileCache(shared)) as web:
        first = await web.fetcher.fetch(site.origin + "/private")
        through = await web.fetcher.fetch(other.origin + "/into")
        again = await web.fetcher.fetch(site.origin + "/private")
    assert first.title == through.title == again.title == "Members only"
    assert again.cache == "hit"
    assert again.metadata["credentials"] is True
    assert through.metadata["credentials"] is True
    async with Web(without, FileCache(shared)) as web:
        plain = await web.fetcher.fetch(site.origin + "/private")
        redirected = await web.fetcher.fetch(other.origin + "/into")
    # the process without the entry read the pages itself, never the credentialed copies
    assert plain.title == redirected.title == "Please sign in"
    assert plain.cache == redirected.cache == "miss"
    assert "credentials" not in plain.metadata
    assert len(seen(site, "/robots.txt")) == 2  # robots.txt read with credentials, kept apart
    assert [carried(headers) for headers in seen(site, "/robots.txt")] == [True, False]
    for path in shared.rglob("*"):
        if path.is_file():
            stored = path.read_bytes()
            assert TOKEN.encode() not in stored
            assert COOKIE_VALUE.encode() not in stored
            assert b"plain-secret" not in stored


async def test_style_sheets_read_with_credentials_are_cached_apart(
    site: Site, tmp_path: Path
) -> None:
    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    site.add("/style.css", "p { color: black }", headers={"Content-Type": "text/css"})
    head = f"<link rel='stylesheet' href='{site.origin}/style.css'>"
    site.add("/page", article("Logbooks", PARAGRAPHS, head))
    shared = tmp_path / "cache"
    for entries in ([entry(site, tmp_path)], []):
        settings = settings_for(site, entries=entries, cache="file")
        async with Web(settings, FileCache(shared)) as web:
            # a page of its own output format, so only the sheet could come from the cache
            await web.fetcher.fetch(site.origin + "/page", output="markdown" if entries else "text")
    assert [carried(headers) for headers in seen(site, "/style.css")] == [True, False]


def test_cookies_match_domain_path_secure_and_expiry(tmp_path: Path) -> None:
    later = time.time() + 3600

    def cookie(name: str, domain: str, path: str = "/", secure: bool = False, expires: Any = None):
        dotted = domain.startswith(".")
        return Cookie(
            0, name, "v", None, False, domain, dotted, dotted, path, False, secure,
            expires, expires is None, None, None, {},
        )  # fmt: skip

    path = tmp_path / "c.txt"
    path.write_text("# Netscape HTTP Cookie File\n", encoding="utf-8")
    settings = Settings(sites=[{"origin": "https://docs.example", "cookies_file": str(path)}])
    sites = Sites(settings.net.sites)
    site = sites.site("https://docs.example/a/b")
    assert site is not None
    site.cookies = (
        cookie("host", "docs.example"),
        cookie("domain", ".example"),
        cookie("sub", "sub.docs.example"),
        cookie("apath", "docs.example", "/a"),
        cookie("aprefix", "docs.example", "/a/b/c"),
        cookie("near", "docs.example", "/ab"),
        cookie("secure", "docs.example", secure=True),
        cookie("old", "docs.example", expires=int(time.time()) - 10),
        cookie("fresh", "docs.example", expires=int(later)),
    )
    found = site.cookie_header(httpx.URL("https://docs.example/a/b"), time.time())
    assert found is not None
    assert sorted(found.split("; ")) == sorted(
        ["host=v", "domain=v", "apath=v", "secure=v", "fresh=v"]
    )
    assert found.startswith("apath=v")  # the longest path first
    plain = site.cookie_header(httpx.URL("http://docs.example/"), time.time())
    assert plain is not None
    assert "secure=v" not in plain
    # only the exact origin: another port, scheme or a subdomain has no entry
    for url in ("https://docs.example:8443/", "http://docs.example/", "https://a.docs.example/"):
        assert sites.site(url) is None
    assert sites.fingerprint("https://DOCS.example:443/x") == site.fingerprint


def test_a_plain_http_origin_needs_allow_http(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"http://127\.0\.0\.1:8080.*allow_http"):
        load_settings(_toml(tmp_path, 'origin = "http://127.0.0.1:8080"'))


def _toml(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text("[[sites]]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        (['headers = { Authorization = "env:NOT_SET_ANYWHERE" }'], "NOT_SET_ANYWHERE"),
        (['cookies_file = "~/missing-cookies.txt"'], "does not exist"),
        (['cookies_file = "COOKIES"'], "not a Netscape cookies.txt"),
        (['path = "/x"'], "path"),
    ],
)
def test_a_bad_entry_is_a_config_error_naming_its_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], words: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    bad = tmp_path / "bad.txt"
    bad.write_text(f"# Netscape HTTP Cookie File\nonly\ttwo-{COOKIE_VALUE}\n", encoding="utf-8")
    text = [line.replace("COOKIES", str(bad)) for line in lines]
    with pytest.raises(ConfigError) as caught:
        load_settings(_toml(tmp_path, 'origin = "https://docs.example"', *text))
    message = str(caught.value)
    assert words in message
    if "path" not in words:
        assert "https://docs.example" in message
    assert COOKIE_VALUE not in message


def test_home_is_expanded_and_config_show_masks_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "c.txt").write_text(cookies_text("docs.example"), encoding="utf-8")
    settings = load_settings(
        _toml(
            tmp_path,
            'origin = "https://docs.example"',
            'headers = { Authorization = "env:SITE_TOKEN", X-Plain = "plain-secret" }',
            'cookies_file = "~/c.txt"',
        )
    )
    (site,) = settings.net.sites
    assert site.cookies_file == tmp_path / "c.txt"
    assert site.header_values["Authorization"] == TOKEN
    shown = {name: value for name, value, _ in describe(settings)}["sites"]
    for part in ("https://docs.example", "Authorization", "X-Plain"):
        assert part in shown
    for secret in (TOKEN, "plain-secret", COOKIE_VALUE, "env:SITE_TOKEN"):
        assert secret not in shown
        assert secret not in repr(settings)
        assert secret not in str(settings.model_dump())


def test_sites_come_from_the_file_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLEUTH_SITES", '[{"origin": "https://docs.example"}]')
    monkeypatch.setenv("SITES", '[{"origin": "https://docs.example"}]')
    assert load_settings().net.sites == []


def test_no_request_argument_can_set_headers_or_cookies() -> None:
    """Only the operator's file gives credentials: no HTTP body or tool call takes any
    (an unknown field is refused, or ignored by a lenient body, never passed on)."""
    from sleuth.ops import REGISTRY

    words = {"headers", "header", "cookies", "cookie", "cookies_file", "credentials"}
    for op in REGISTRY:
        for surface in ("http", "tool"):
            if surface == "tool" and op.operation.tool is None:
                continue
            model = op.operation.model(surface)
            assert model.model_config.get("extra") in ("forbid", "ignore")
            assert not words & set(model.model_fields), (op.operation.name, surface)


async def test_a_map_reads_robots_and_sitemaps_with_the_sites_credentials(
    site: Site, tmp_path: Path
) -> None:
    from webs import site_map

    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    sitemap = (
        "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
        f"<url><loc>{site.origin}/a</loc></url></urlset>"
    )
    site.add("/sitemap.xml", sitemap, headers={"Content-Type": "application/xml"})
    site.add("/", article("Home", PARAGRAPHS))
    settings = settings_for(site, entries=[entry(site, tmp_path)])
    found = await site_map(settings, MemoryCache(100), site.origin + "/")
    assert site.origin + "/a" in [item.url for item in found.entries]
    for path in ("/robots.txt", "/sitemap.xml"):
        assert [carried(headers) for headers in seen(site, path)] == [True]


def test_two_processes_sharing_a_file_cache_keep_credentialed_pages_apart(
    site: Site, tmp_path: Path
) -> None:
    """The same split as above, across two `sleuth fetch` processes with different files."""
    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    _varying(site, "/private", "Members only", "Please sign in")
    cookies = tmp_path / "cookies.txt"
    cookies.write_text(cookies_text("127.0.0.1"), encoding="utf-8")
    signed = tmp_path / "signed.toml"
    signed.write_text(
        "[[sites]]\n"
        f'origin = "{site.origin}"\n'
        'headers = { Authorization = "env:SITE_TOKEN" }\n'
        f'cookies_file = "{cookies}"\n'
        "allow_http = true\n",
        encoding="utf-8",
    )
    anonymous = tmp_path / "anonymous.toml"
    anonymous.write_text("", encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    base = {
        **clean,
        "SITE_TOKEN": TOKEN,
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_RENDER": "never",
        "SLEUTH_CACHE": "file",
        "SLEUTH_CACHE_DIR": str(tmp_path / "cache"),
    }

    def fetch(config: Path) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "sleuth", "fetch", site.origin + "/private", "--json"],
            capture_output=True,
            text=True,
            env={**base, "SLEUTH_CONFIG": str(config)},
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer

    first = fetch(signed)
    other = fetch(anonymous)
    again = fetch(signed)
    assert first["title"] == again["title"] == "Members only"
    assert other["title"] == "Please sign in"
    assert other["cache"] == "miss"  # never the signed-in copy
    assert again["cache"] == "hit"
    assert [carried(headers) for headers in seen(site, "/private")] == [True, False]
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes()
            assert COOKIE_VALUE.encode() not in path.read_bytes()
