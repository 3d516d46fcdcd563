"""``GET /api/v1/info``: what the web page needs before it asks anything, open to any caller
the Host and Origin guard lets in, and never a secret."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from sleuth import log
from sleuth._version import __version__
from sleuth.config import Settings
from sleuth.server.app import create_app

KEYS = {"version", "auth_required", "llm_configured", "search_providers"}
SECRETS = ("tok-info-secret", "sk-info-secret", "brave-info-secret")


@pytest.fixture
def make_client() -> Iterator[Any]:
    opened: list[TestClient] = []

    def make(**extra: Any) -> TestClient:
        settings = Settings(cache="memory", **extra)
        client = TestClient(create_app(settings), base_url="http://127.0.0.1:8080")
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)
    log.configure()


def test_a_bare_server_says_no_token_no_model_and_its_free_search(make_client: Any) -> None:
    answer = make_client().get("/api/v1/info")
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == KEYS
    assert body["version"] == __version__
    assert body["auth_required"] is False
    assert body["llm_configured"] is False
    assert body["search_providers"] == ["duckduckgo"]  # nothing keyed is set up


def test_with_tokens_a_model_and_keys_it_answers_without_a_token_and_shows_no_secret(
    make_client: Any,
) -> None:
    client = make_client(
        api_tokens=SECRETS[0],
        llm_provider="openai",
        llm_api_key=SECRETS[1],
        llm_base_url="http://127.0.0.1:9/v1",
        brave_api_key=SECRETS[2],
        searxng_url="http://127.0.0.1:9/search",
    )
    assert client.post("/api/v1/search", json={"query": "x"}).status_code == 401
    answer = client.get("/api/v1/info")
    assert answer.status_code == 200
    body = answer.json()
    assert body["auth_required"] is True
    assert body["llm_configured"] is True
    assert {"brave", "searxng"} <= set(body["search_providers"])
    for secret in SECRETS:
        assert secret not in answer.text
    assert "127.0.0.1:9" not in answer.text  # no endpoint either


def test_the_provider_list_follows_the_configured_order(make_client: Any) -> None:
    client = make_client(search_providers="searxng,brave", searxng_url="http://127.0.0.1:9/search")
    assert client.get("/api/v1/info").json()["search_providers"] == ["searxng", "brave"]


def test_the_guard_stands_in_front_of_it(make_client: Any) -> None:
    client = make_client()
    foreign_host = client.get("/api/v1/info", headers={"Host": "evil.example"})
    assert foreign_host.status_code == 421
    assert foreign_host.json()["code"] == "MISDIRECTED_REQUEST"
    foreign_page = client.get("/api/v1/info", headers={"Origin": "https://evil.example"})
    assert foreign_page.status_code == 403
    assert foreign_page.json()["code"] == "ORIGIN_NOT_ALLOWED"
    assert client.post("/api/v1/info").status_code == 405
