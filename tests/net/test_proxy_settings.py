"""Which proxy applies: the variables in either case, their precedence, curl's NO_PROXY."""

from __future__ import annotations

from ipaddress import ip_address

import httpcore
import pytest

from sleuth.config import describe, load_settings
from sleuth.errors import ConfigError
from sleuth.net.proxy import Proxies, parse_no_proxy


def proxies(monkeypatch: pytest.MonkeyPatch, **env: str) -> Proxies:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    found = Proxies.from_settings(load_settings().net)
    assert found is not None
    return found


def origin(url: str) -> httpcore.Origin:
    return httpcore.URL(url).origin


def test_no_variable_means_no_proxy() -> None:
    assert Proxies.from_settings(load_settings().net) is None


def test_each_scheme_takes_its_variable_then_all_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    found = proxies(monkeypatch, HTTPS_PROXY="http://secure:3128", ALL_PROXY="socks5://all:1080")
    assert found.https is not None
    assert (found.https.host, found.https.port) == ("secure", 3128)
    assert found.http is not None
    assert (found.http.scheme, found.http.host) == ("socks5", "all")


def test_sleuth_proxy_overrides_the_usual_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    found = proxies(
        monkeypatch, SLEUTH_PROXY="http://mine:8080", HTTP_PROXY="http://a:1", HTTPS_PROXY="b:2"
    )
    assert found.http == found.https
    assert found.http is not None
    assert found.http.host == "mine"


def test_lower_case_wins_and_a_bare_host_is_http(monkeypatch: pytest.MonkeyPatch) -> None:
    found = proxies(
        monkeypatch,
        HTTPS_PROXY="http://upper:1",
        https_proxy="lower:3128",
        NO_PROXY="upper.example",
        no_proxy="lower.example",
    )
    assert found.https is not None
    assert (found.https.scheme, found.https.host) == ("http", "lower")
    assert found.route(origin("https://lower.example/")) is None
    assert found.route(origin("https://upper.example/")) == found.https


def test_sleuth_no_proxy_adds_to_no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    found = proxies(
        monkeypatch, HTTPS_PROXY="http://p:1", NO_PROXY="a.example", SLEUTH_NO_PROXY="b.example"
    )
    assert found.route(origin("https://a.example/")) is None
    assert found.route(origin("https://b.example/")) is None
    assert found.route(origin("https://c.example/")) is not None
    assert found.route(origin("https://127.0.0.1/")) is not None  # the list replaced the default


def test_loopback_and_localhost_bypass_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    found = proxies(monkeypatch, ALL_PROXY="http://p:1")
    for url in ("http://localhost:11434/", "http://127.0.0.9/", "http://[::1]:8888/"):
        assert found.route(origin(url)) is None, url
    assert found.route(origin("http://example.com/")) is not None


def test_no_proxy_reads_like_curl() -> None:
    entries = parse_no_proxy(
        [
            ".corp.example",
            "*.wild.example",
            "10.0.0.0/8",
            "192.0.2.1",
            "[::1]:8080",
            "api.example:8443",
        ]
    )

    def bypassed(host: str, port: int = 443) -> bool:
        parsed = host if host[0].isalpha() else ip_address(host)
        return any(entry.matches(parsed, port) for entry in entries)

    assert bypassed("corp.example")
    assert bypassed("a.b.corp.example")
    assert not bypassed("notcorp.example")
    assert bypassed("wild.example")
    assert bypassed("x.wild.example")
    assert bypassed("10.1.2.3")
    assert not bypassed("11.0.0.1")
    assert bypassed("192.0.2.1")
    assert not bypassed("192.0.2.2")
    assert bypassed("::1", 8080)
    assert not bypassed("::1", 443)
    assert bypassed("api.example", 8443)
    assert not bypassed("api.example", 443)
    assert all(entry.matches("anything.example", 1) for entry in parse_no_proxy(["*"]))


def test_a_bad_proxy_is_a_config_error_that_hides_the_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "ftp://user:hunter2@p:21")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "hunter2" not in str(caught.value)
    assert "HTTPS_PROXY" in (caught.value.hint or "")


def test_config_show_masks_proxy_passwords_and_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("all_proxy", "socks5://alice:hunter2@p:1080")
    monkeypatch.setenv("SLEUTH_PROXY", "http://bob:swordfish@q:3128")
    rows = {name: (shown, source) for name, shown, source in describe(load_settings())}
    assert rows["all_proxy"] == ("socks5://alice:******@p:1080", "env all_proxy")
    assert rows["proxy"] == ("http://bob:******@q:3128", "env SLEUTH_PROXY")
