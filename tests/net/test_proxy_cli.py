"""``sleuth`` as a subprocess behind a proxy set the way the ecosystem sets it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopback import Site, article, serve
from sleuth.errors import EXIT_CODES
from test_cli import run

from .proxy_servers import HTTPProxy, running

TEXT = "The cooperative publishes its hive records every year for anyone to study."


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running_site:
        running_site.add("/bees", article("Hive records", [TEXT, TEXT]))
        yield running_site


def env(site: Site, tmp_path: Path, proxy: str) -> dict[str, str]:
    return {
        "HTTP_PROXY": proxy,
        "SLEUTH_ALLOW_HOSTS": "docs.example:*",
        "SLEUTH_CACHE": "memory",
        "SLEUTH_RENDER": "never",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def fetch(site: Site, environment: dict[str, str]) -> tuple[int, str, str]:
    pin = f"docs.example:{site.port}:127.0.0.1"
    url = f"http://docs.example:{site.port}/bees"
    done = run("fetch", url, "--json", "--resolve", pin, env=environment)
    return done.returncode, done.stdout, done.stderr


def test_fetch_goes_through_the_proxy_named_by_http_proxy(site: Site, tmp_path: Path) -> None:
    with running(HTTPProxy()) as proxy:
        code, out, err = fetch(site, env(site, tmp_path, f"http://127.0.0.1:{proxy.port}"))
    assert code == 0, err
    assert json.loads(out)["title"] == "Hive records"
    targets = [asked.target for asked in proxy.asked]
    assert f"http://127.0.0.1:{site.port}/bees" in targets  # the pinned address, not the name
    assert f"http://127.0.0.1:{site.port}/robots.txt" in targets  # robots.txt too
    assert {seen.headers["Host"] for seen in site.requests} == {f"docs.example:{site.port}"}


def test_a_proxy_asking_for_credentials_is_a_network_error_naming_it(
    site: Site, tmp_path: Path
) -> None:
    with running(HTTPProxy(credentials=("alice", "right"))) as proxy:
        shown = f"http://alice:******@127.0.0.1:{proxy.port}"
        environment = env(site, tmp_path, f"http://alice:hunter2@127.0.0.1:{proxy.port}")
        code, out, err = fetch(site, environment)
        done = run("config", "show", "--json", env=environment)
    assert code == EXIT_CODES["network_error"]
    assert f"the proxy {shown} answered 407" in out + err
    assert "hunter2" not in out + err
    assert site.requests == []
    assert json.loads(done.stdout)["http_proxy"] == {"value": shown, "source": "env HTTP_PROXY"}
    assert "hunter2" not in done.stdout
