"""Every route of ``sleuth serve`` through real HTTP on loopback, the server in its own process.

The web it reads is a loopback site speaking SearXNG's JSON search API; the
answers are compared with what the CLI prints with ``--json`` for the same
settings, because the routes promise exactly that object.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx

from server.harness import OTHER_TOKEN, QUESTION, TOKEN, SearxngWeb, ServerProcess, build_web

Launch = Callable[..., ServerProcess]


def cli_json(web: SearxngWeb, home: Path, *args: str) -> object:
    """What ``sleuth ... --json`` prints with the same settings as the server."""
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", *args, "--json"],
        env={**os.environ, **web.env(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return json.loads(done.stdout)


def test_health_readiness_docs_and_openapi_need_no_token(launch: Launch) -> None:
    server = launch()
    assert server.get("/healthz", token=None).json() == {"status": "ok"}
    ready = server.get("/readyz", token=None)
    assert ready.status_code == 200
    assert ready.json()["cache"] == {"backend": "memory", "reachable": True, "fallback": False}
    spec = server.get("/openapi.json", token=None).json()
    assert spec["openapi"].startswith("3.1")
    assert {"/api/v1/search", "/api/v1/links/suggest", "/api/v1/discover"} <= set(spec["paths"])
    suggest_body = spec["paths"]["/api/v1/links/suggest"]["post"]["requestBody"]
    ref = suggest_body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "url" in spec["components"]["schemas"][ref]["properties"]
    docs = server.get("/docs", token=None)
    assert docs.headers["content-type"].startswith("text/html")
    assert "openapi.json" in docs.text


def test_search_answers_the_cli_json_object(
    launch: Launch, web: SearxngWeb, tmp_path: Path
) -> None:
    server = launch()
    answer = server.post("/api/v1/search", {"query": "nimbus timeout", "max_results": 2})
    assert answer.status_code == 200
    got = answer.json()
    expected = cli_json(web, tmp_path, "search", "nimbus timeout", "-n", "2")
    assert isinstance(expected, dict)
    assert set(got) == set(expected)
    assert got["results"] == expected["results"]
    assert [r["title"] for r in got["results"]] == ["Nimbus timeouts", "Moving to Nimbus"]


def test_fetch_answers_the_cli_json_object_and_refuses_what_the_guard_refuses(
    launch: Launch, web: SearxngWeb, tmp_path: Path
) -> None:
    server = launch()
    url = web.site.origin + "/docs/timeouts"
    page = server.post("/api/v1/fetch", {"url": url, "format": "markdown"}).json()
    expected = cli_json(web, tmp_path, "fetch", url, "--format", "markdown")
    assert isinstance(expected, dict)
    assert set(page) == set(expected)
    assert page["text"] == expected["text"]
    assert page["outcome"] == "ok"
    assert "default timeout of five seconds" in page["text"]

    blocked = server.post("/api/v1/fetch", {"url": "http://10.1.2.3/admin"})
    assert blocked.status_code == 403
    assert blocked.json()["code"] == "BLOCKED"
    assert blocked.json()["retryable"] is False

    robots = server.post("/api/v1/fetch", {"url": web.site.origin + "/private/calendar"})
    assert robots.status_code == 403
    assert robots.json()["code"] == "ROBOTS_DISALLOWED"
    assert "/private/calendar" not in web.page_paths()

    missing = server.post("/api/v1/fetch", {"url": web.site.origin + "/gone"})
    assert missing.status_code == 502
    assert missing.json() | {"error": ""} == {
        "error": "",
        "code": "HTTP_ERROR",
        "retryable": False,
        "url": web.site.origin + "/gone",
        "status": 404,
    }

    sneaky = server.post("/api/v1/fetch", {"url": url, "ignore_robots": True})
    assert sneaky.status_code == 400
    assert "robots.txt is always obeyed" in sneaky.json()["error"]


def test_research_answers_the_digest_and_streams_progress(launch: Launch) -> None:
    server = launch()
    digest = server.post("/api/v1/research", {"question": QUESTION, "max_pages": 2}).json()
    assert digest["meta"]["fetched_pages"] == 2
    assert any("five seconds" in bullet["text"] for bullet in digest["bullets"])

    events: list[tuple[str, dict[str, object]]] = []
    with (
        server.client() as client,
        client.stream(
            "POST",
            "/api/v1/research",
            json={"question": QUESTION, "max_pages": 2, "focus": "defaults"},
            headers={"Accept": "text/event-stream"},
        ) as stream,
    ):
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        kind = ""
        for line in stream.iter_lines():
            if line.startswith("event: "):
                kind = line[len("event: ") :]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[len("data: ") :])))
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "result"
    assert kinds.count("result") == 1
    assert set(kinds[:-1]) == {"progress"}
    stages = [data["stage"] for kind, data in events if kind == "progress"]
    assert "reading" in stages
    assert "ranking" in stages
    result = events[-1][1]
    assert result["query"] == QUESTION
    assert result["meta"]["fetched_pages"] == 2  # type: ignore[index]


def test_research_input_is_refused_before_any_stream(launch: Launch) -> None:
    server = launch()
    with server.client() as client:  # a bad option fails before any stream: a JSON 400
        bad = client.post(
            "/api/v1/research",
            json={"question": QUESTION, "max_pages": 0},
            headers={"Accept": "text/event-stream"},
        )
    assert bad.status_code == 400
    assert bad.json()["code"] == "USAGE_ERROR"
    with server.client() as client:
        for question in ("   ", "x" * 401):  # blank, or longer than research searches
            refused = client.post(
                "/api/v1/research",
                json={"question": question},
                headers={"Accept": "text/event-stream"},
            )
            assert refused.status_code == 400, question
            assert refused.headers["content-type"] == "application/json"


def test_tokens_are_required_and_checked(launch: Launch, tmp_path: Path) -> None:
    server = launch()
    for token in (None, "tok-wrong"):
        refused = server.post("/api/v1/search", {"query": "nimbus"}, token=token)
        assert refused.status_code == 401
        assert refused.json()["code"] == "UNAUTHORIZED"
        assert refused.headers["www-authenticate"].startswith("Bearer")
    with server.client(None) as client:
        basic = client.post(
            "/api/v1/search", json={"query": "x"}, headers={"Authorization": f"Basic {TOKEN}"}
        )
    assert basic.status_code == 401
    assert server.post("/api/v1/search", {"query": "nimbus"}, token=OTHER_TOKEN).status_code == 200
    assert server.get("/metrics", token=None).status_code == 401

    import hashlib

    hashes = tmp_path / "tokens.sha256"
    digest = hashlib.sha256(b"from-a-file").hexdigest()
    hashes.write_text(f"# the team's tokens\n{digest}\n")
    filed = launch(SLEUTH_API_TOKENS=f"@{hashes}")
    assert filed.post("/api/v1/search", {"query": "n"}, token="from-a-file").status_code == 200
    assert filed.post("/api/v1/search", {"query": "n"}, token=TOKEN).status_code == 401


def test_bad_bodies_are_400_with_what_went_wrong(launch: Launch) -> None:
    server = launch(SLEUTH_MAX_BODY_BYTES="2048")
    cases = {
        b"{not json": "not valid JSON",
        b"[1, 2]": "must be a JSON object",
        b"": "body is empty",
        json.dumps({"query": "x", "colour": "red"}).encode(): "colour",
        json.dumps({"query": "x", "max_results": 99}).encode(): "max_results",
        b"[" * 1000 + b"]" * 1000: "nests deeper than 32 levels",  # 2 KB: a RecursionError once
        b'{"query": ' + b"[" * 40 + b"]" * 40 + b"}": "nests deeper than 32 levels",
    }
    for body, message in cases.items():
        reply = server.post("/api/v1/search", body, headers={"Content-Type": "application/json"})
        assert reply.status_code == 400, body
        assert reply.json()["code"] == "USAGE_ERROR"
        assert message in reply.json()["error"]

    too_large = server.post("/api/v1/search", {"query": "x" * 4000})
    assert too_large.status_code == 413
    assert too_large.json() | {"error": ""} == {
        "error": "",
        "code": "BODY_TOO_LARGE",
        "retryable": False,
    }
    assert "over the 2048-byte limit" in too_large.json()["error"]

    def chunks() -> object:  # no Content-Length: the cap holds while reading
        for _ in range(10):
            yield b" " * 1000

    with server.client() as client:
        streamed = client.post(
            "/api/v1/search",
            content=chunks(),  # type: ignore[arg-type]
            headers={"Content-Type": "application/json"},
        )
    assert streamed.status_code == 413
    assert "over the 2048-byte limit" in streamed.json()["error"]
    assert "Traceback" not in server.log


def test_unknown_routes_and_methods(launch: Launch) -> None:
    server = launch()
    assert server.get("/api/v1/nothing").status_code == 404
    assert server.get("/api/v1/nothing").json()["code"] == "NOT_FOUND"
    wrong = server.get("/api/v1/search")
    assert wrong.status_code == 405
    assert wrong.json()["code"] == "METHOD_NOT_ALLOWED"
    assert wrong.headers["allow"] == "POST"  # RFC 9110: every 405 names what is allowed
    with server.client() as client:
        assert client.delete("/healthz").headers["allow"] == "GET, HEAD"
        static = client.post("/static/app.js")
        assert (static.status_code, static.headers["allow"]) == (405, "GET, HEAD")
        assert static.json()["code"] == "METHOD_NOT_ALLOWED"
        # Stateless MCP: GET would open a stream that never carries anything.
        for method in ("GET", "DELETE", "PUT"):
            mcp = client.request(method, "/mcp", headers={"Accept": "text/event-stream"})
            assert (mcp.status_code, mcp.headers["allow"]) == (405, "POST"), method
            assert mcp.json()["code"] == "METHOD_NOT_ALLOWED"


def test_ask_without_a_model_is_503(launch: Launch) -> None:
    server = launch()
    reply = server.post("/api/v1/ask", {"question": QUESTION})
    assert reply.status_code == 503
    assert reply.json()["code"] == "LLM_NOT_CONFIGURED"


def test_metrics_count_routes_statuses_latency_and_cache(launch: Launch, web: SearxngWeb) -> None:
    server = launch()
    url = web.site.origin + "/docs/timeouts"
    assert server.post("/api/v1/fetch", {"url": url}).json()["cache"] == "miss"
    assert server.post("/api/v1/fetch", {"url": url}).json()["cache"] == "hit"
    server.post("/api/v1/fetch", {"url": "ftp://example.org/"})
    text = server.get("/metrics").text
    lines = text.splitlines()
    assert 'sleuth_http_requests_total{method="POST",route="/api/v1/fetch",status="200"} 2' in lines
    assert 'sleuth_http_requests_total{method="POST",route="/api/v1/fetch",status="403"} 1' in lines
    assert 'sleuth_cache_requests_total{kind="page",result="hit"} 1' in lines
    assert any(
        line.startswith(
            'sleuth_http_request_duration_seconds_bucket{route="/api/v1/fetch",le="+Inf"} 3'
        )
        for line in lines
    )
    assert "# TYPE sleuth_http_request_duration_seconds histogram" in lines


def test_cors_lets_listed_origins_in_only(launch: Launch) -> None:
    extension = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
    server = launch(SLEUTH_CORS_ORIGINS=f"{extension},moz-extension://1234-abcd")
    with httpx.Client(base_url=server.url) as client:
        preflight = client.options(
            "/api/v1/links/suggest",
            headers={
                "Origin": extension,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == extension
        allowed = preflight.headers["access-control-allow-headers"].lower()
        assert "authorization" in allowed
        assert "content-type" in allowed
        stranger = client.options(
            "/api/v1/links/suggest",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        assert "access-control-allow-origin" not in stranger.headers
        simple = client.post(
            "/api/v1/search",
            json={"query": "nimbus"},
            headers={"Origin": extension, "Authorization": f"Bearer {TOKEN}"},
        )
        assert simple.headers["access-control-allow-origin"] == extension

    plain = launch()  # no SLEUTH_CORS_ORIGINS: no CORS headers at all
    with httpx.Client(base_url=plain.url) as client:
        reply = client.options(
            "/api/v1/search",
            headers={"Origin": extension, "Access-Control-Request-Method": "POST"},
        )
    assert "access-control-allow-origin" not in reply.headers


def test_the_web_page_and_static_files_need_no_token(launch: Launch) -> None:
    server = launch()
    static = Path(__file__).parents[2] / "src" / "sleuth" / "server" / "static"
    page = server.get("/", token=None)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.text == (static / "index.html").read_text()
    script = server.get("/static/app.js", token=None)
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.text == (static / "app.js").read_text()
    for escape in ("/static/../../config.py", "/static/%2e%2e/%2e%2e/config.py", "/static/nope.js"):
        assert server.get(escape, token=None).status_code == 404, escape
    assert server.post("/api/v1/detect", {"path": "/"}).status_code == 404  # never served


def test_second_web_is_independent(tmp_path: Path) -> None:
    """build_web makes a fresh site each time (guards the fixtures above)."""
    from loopback import serve

    with serve() as site:
        web = build_web(site)
        assert web.env(tmp_path)["SLEUTH_ALLOW_PORTS"] == str(site.port)


def test_ask_answers_the_cli_json_object(launch: Launch, tmp_path: Path, web: SearxngWeb) -> None:
    from llm import payloads_openai
    from search.wire import Wire, start
    from server.harness import model_env

    wire = Wire()
    model, thread = start(wire)
    try:
        wire.on("/v1" + payloads_openai.PATH, payloads_openai.answer("Five seconds."))
        env = model_env("openai", wire.url("/v1"))
        server = launch(**env)
        reply = server.post("/api/v1/ask", {"question": QUESTION, "max_turns": 2})
        assert reply.status_code == 200, reply.text
        done = subprocess.run(
            [sys.executable, "-m", "sleuth", "ask", QUESTION, "--max-turns", "2", "--json"],
            env={**os.environ, **web.env(tmp_path), **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        expected = json.loads(done.stdout)
        got = reply.json()
        assert set(got) == set(expected)
        assert got["answer"] == expected["answer"] == "Five seconds."
        assert got["usage"] == expected["usage"]
        metrics = server.get("/metrics").text.splitlines()
        assert 'sleuth_llm_calls_total{provider="openai",route="/api/v1/ask"} 1' in metrics
        assert 'sleuth_llm_tokens_total{kind="output",route="/api/v1/ask"} 46' in metrics
        bad = server.post("/api/v1/ask", {"question": QUESTION, "max_turns": 0})
        assert bad.status_code == 400
    finally:
        model.shutdown()
        model.server_close()
        thread.join(10)


def test_discover_answers_the_cli_json_object_and_never_prompts(
    launch: Launch, web: SearxngWeb, tmp_path: Path
) -> None:
    server = launch()
    body = {"name": "ripgrep", "stages": ["registry"]}
    reply = server.post("/api/v1/discover", body)
    assert reply.status_code == 200, reply.text
    expected = cli_json(web, tmp_path, "discover", "ripgrep", "--stages", "registry")
    assert isinstance(expected, dict)
    got = reply.json()
    assert set(got) == set(expected)
    assert {k: v for k, v in got.items() if k != "usage"} == {
        k: v for k, v in expected.items() if k != "usage"
    }
    assert got["confirmation_required"] is False

    missing = server.post("/api/v1/discover", {"name": "zzz-no-such-tool", "stages": ["registry"]})
    assert missing.status_code == 404
    assert missing.json()["code"] == "NOT_FOUND"
    bad = server.post("/api/v1/discover", {"name": "ripgrep", "from": 5})
    assert bad.status_code == 400


def test_discover_answers_an_ambiguous_name_with_its_choices(
    launch: Launch, tmp_path: Path
) -> None:
    from discover.registries import registries

    with registries() as regs:
        regs.npm("thing", downloads=1_000, versions=2, repository="https://github.com/x/y")
        regs.crate("thing", downloads=100, versions=6, repository=None)
        server = launch(
            SLEUTH_DISCOVER_REGISTRY=str(tmp_path / "no-registry"),
            SLEUTH_ALLOW_HOSTS="127.0.0.1",
            **regs.env(),
        )
        ambiguous = server.post("/api/v1/discover", {"name": "thing"})
        batch = server.post("/api/v1/discover", {"name": "thing", "batch": True})
    assert ambiguous.status_code == 409
    body = ambiguous.json()
    assert body["code"] == "AMBIGUOUS"
    assert body["choices"] == ["npm:thing", "crates.io:thing"]
    # The way out in the HTTP caller's words: the field, never the CLI's flag.
    assert 'from: "npm:thing"' in body["error"]
    assert "--" not in body["error"]
    assert "sleuth discover" not in body["error"]
    assert batch.status_code == 200
    assert batch.json()["builder"] == "npm"
    assert batch.json()["high_risk"] is True


def test_what_the_description_refuses_the_server_refuses(launch: Launch, web: SearxngWeb) -> None:
    """The cases the OpenAPI description once let through while the server said 400."""
    server = launch()
    unknown = server.post("/api/v1/search", {"query": "nimbus", "provider": "google"})
    assert unknown.status_code == 400  # a bad option, as on /ask, not a bad setting (503)
    assert unknown.json()["code"] == "USAGE_ERROR"
    assert "known providers: brave" in unknown.json()["error"]
    for body in ({"query": "   "}, {"query": "n", "site": [" "]}):
        assert server.post("/api/v1/search", body).status_code == 400, body
    assert server.post("/api/v1/research", {"question": " \t"}).status_code == 400
    for url in ("http://exa mple.org/", " http://example.org/", "http://example.org/é"):
        reply = server.post("/api/v1/fetch", {"url": url})
        assert reply.status_code == 400, url
        assert "url is not a URI" in reply.json()["error"]
    assert web.page_paths() == []
    page = web.site.origin + "/docs/timeouts"
    past = server.post("/api/v1/fetch", {"url": page, "start_index": 100_000})
    assert past.status_code == 422  # well formed; the page is shorter
    assert past.json()["code"] == "START_PAST_END"
    assert "start_index 100000 is past the end" in past.json()["error"]
