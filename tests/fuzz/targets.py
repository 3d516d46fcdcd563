"""Every parser that takes outside input, as a fuzz target with its contract.

A target is a strategy (what to feed) and a function (what to run). The function raises
only what its contract allows: sleuth's own typed errors everywhere, plus ``ValueError``
where the parser documents it as its way of saying "not valid" (``parse_host``,
``canonical_url``, the manifest formats). Anything else, or an answer of the wrong shape,
is a crash. Network-facing parsers get their bytes through ``httpx.MockTransport`` (the
transport httpx ships for exactly this), since a loopback server per input would cost a
hundred times more; the loopback wire format itself is covered by the provider suites.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from hypothesis import strategies as st
from pydantic import BaseModel

from fuzz import seeds
from fuzz.mutate import mutated_json, mutated_text, window
from sleuth.errors import SleuthError


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    run: Callable[[Any], None]
    weight: float = 1.0  # share of the input budget
    allowed: tuple[type[BaseException], ...] = (SleuthError,)
    about: str = ""


class Violation(AssertionError):
    """A parser answered, but with something its callers cannot use."""


def check(condition: bool, what: str) -> None:
    if not condition:
        raise Violation(what)


# One event loop per worker process; a hang interrupts it, so it is rebuilt on demand.
_LOOP: list[asyncio.AbstractEventLoop] = []


def run_async(coro: Coroutine[Any, Any, Any]) -> Any:
    if not _LOOP or _LOOP[0].is_closed() or _LOOP[0].is_running():
        _LOOP[:] = [asyncio.new_event_loop()]
    try:
        return _LOOP[0].run_until_complete(coro)
    except BaseException:
        _LOOP[0].close() if not _LOOP[0].is_running() else None
        _LOOP.clear()
        raise


_SETTINGS: dict[str, Any] = {}


def _settings(**values: Any) -> Any:
    """Settings are read-only here, and building them scans the environment: build each once."""
    from sleuth.config import Settings

    key = json.dumps(values, sort_keys=True)
    if key not in _SETTINGS:
        _SETTINGS[key] = Settings(**values)
    return _SETTINGS[key]


# --- the guard ---------------------------------------------------------------------------

_hosts = st.one_of(
    mutated_text(seeds.HOSTS, seeds.HOST_TOKENS),
    st.text(alphabet="0123456789abcdefx.:%[]-_\uff10\u3002\u00fc", max_size=40),
)
_urls = st.one_of(
    mutated_text(seeds.URLS, seeds.URL_TOKENS),
    st.builds(lambda h: f"http://{h}/", _hosts),
    st.builds(lambda h, p: f"https://{h}:{p}/x", _hosts, st.integers(-1, 70000)),
)


def guard_parse_host(host: str) -> None:
    from ipaddress import IPv4Address, IPv6Address

    from sleuth.net.hosts import local_name_label, parse_host

    parsed = parse_host(host)
    check(isinstance(parsed, str | IPv4Address | IPv6Address), f"parse_host gave {parsed!r}")
    if isinstance(parsed, str):
        check(parsed.isascii() and parsed == parsed.lower(), f"name not canonical: {parsed!r}")
        local_name_label(parsed)


def guard_canonical_url(url: str) -> None:
    from sleuth.net.hosts import canonical_url

    out = canonical_url(url)
    check(isinstance(out, str), "canonical_url must give a string")


def _guard() -> Any:
    from sleuth.net.guard import Guard

    cached = _GUARD.get("guard")
    if cached is None:
        cached = _GUARD["guard"] = Guard(_settings().net)
    return cached


_GUARD: dict[str, Any] = {}


def guard_check_url(url: str) -> None:
    destination = _guard().check_url(url)
    check(0 <= destination.port <= 65535, f"port {destination.port} out of range")


def guard_allow_entry(entry: str) -> None:
    from sleuth.net.guard import Guard

    guard = Guard(_settings().model_copy(update={"allow_hosts": [entry]}).net)
    with contextlib.suppress(SleuthError):
        guard.check_url("https://example.com/")


def guard_redirect(location: str) -> None:
    try:
        request = httpx.Request("GET", "https://example.com/start")
        response = httpx.Response(302, headers={"Location": location}, request=request)
    except (httpx.InvalidURL, UnicodeEncodeError, TypeError, ValueError):
        return  # httpx itself would never hand sleuth such a response
    _guard().check_redirect(response)


def fetch_input_url(url: str) -> None:
    from sleuth.pages.fetcher import normalize_input_url

    out = normalize_input_url(url)
    check(out.startswith(("http://", "https://")), f"accepted {out!r}")


# --- HTML extraction ---------------------------------------------------------------------

HTML_TOKENS = [
    "<div>",
    "</div>",
    "<p>",
    "</p>",
    "<table><tr><td>",
    "<script>",
    "</script>",
    "<!--",
    "-->",
    "<![CDATA[",
    '<meta charset="x-unknown">',
    '<meta http-equiv="content-type" content="text/html; charset=utf-16">',
    '<script type="application/ld+json">{"@type":',
    '<article style="display:none">',
    '<span hidden aria-hidden="true">',
    "<br>",
    "<h1>",
    "<li>",
    "<pre>",
    "<code>",
    "<a href='javascript:x'>",
    '<img src="" alt="',
    "&nbsp;",
    "&#0;",
    "&#x110000;",
    "\u200b",
    "\u202e",
    "<svg><foreignObject>",
    "<template>",
    "<noscript>",
    "<frameset>",
    '<base href="//[::">',
    '<link rel="canonical" href="http://[">',
]


@st.composite
def _pages(draw: st.DrawFn) -> tuple[bytes, str, str, str | None]:
    corpus = seeds.pages()
    page = window(draw(st.sampled_from(corpus)), draw(st.floats(0, 1)), 40_000)
    text = draw(mutated_text([page], HTML_TOKENS, max_edits=8))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "latin-1", "utf-16", "cp1252"]))
    body = text.encode(encoding, errors="replace")
    output = draw(st.sampled_from(["text", "markdown", "html"]))
    content_type = draw(
        st.sampled_from([None, "text/html", "text/html; charset=utf-8", "text/plain", "x/y;;="])
    )
    url = draw(st.sampled_from(["https://example.com/a/b.html", "http://[::1/", "not a url"]))
    return body, output, url, content_type


def html_extract(case: tuple[bytes, str, str, str | None]) -> None:
    from sleuth.extract import extract

    body, output, url, content_type = case
    result = extract(body, url=url, output=output, content_type=content_type)  # type: ignore[arg-type]
    check(isinstance(result.text, str), "text must be a string")
    check(result.outcome in ("ok", "empty_extraction", "js_required", "block_page"), result.outcome)
    json.dumps(result.metadata)  # the metadata is served as JSON


# --- search providers ----------------------------------------------------------------------


def _search_seeds() -> dict[str, list[Any]]:
    from search import payloads

    return {
        "brave": [payloads.brave_payload(payloads.BRAVE_RESULTS), {"web": {"results": []}}],
        "tavily": [payloads.TAVILY_PAYLOAD],
        "serpapi": [payloads.SERPAPI_PAYLOAD],
        "searxng": [payloads.SEARXNG_PAYLOAD],
    }


def _ddg_seeds() -> list[str]:
    from search import payloads

    return [payloads.DDG_HTML, payloads.DDG_LITE, payloads.DDG_NO_RESULTS, payloads.DDG_ANOMALY]


@st.composite
def _search_reply(draw: st.DrawFn, provider: str) -> tuple[int, str, bytes]:
    status = draw(st.sampled_from([200, 200, 200, 200, 202, 301, 401, 429, 500, 503]))
    if provider == "duckduckgo":
        body = draw(mutated_text(_ddg_seeds(), [*HTML_TOKENS, "result__a", "uddg=", "%"]))
        kind = "text/html; charset=utf-8"
    else:
        document = draw(mutated_json(_search_seeds()[provider], max_edits=5))
        body = json.dumps(document)
        if draw(st.booleans()):
            body = draw(mutated_text([body], ["{", "}", '"', ",", "\\u0000", "[", "]"]))
        kind = draw(st.sampled_from(["application/json", "application/json; charset=bogus"]))
    encoded = body.encode("utf-8", errors="surrogatepass")
    return status, kind, encoded


_SEARCH_SETTINGS = {
    "brave": {"brave_api_key": "k"},
    "tavily": {"tavily_api_key": "k"},
    "serpapi": {"serpapi_api_key": "k"},
    "searxng": {"searxng_url": "https://searx.example"},
    "duckduckgo": {},
}


def _search(provider: str) -> Callable[[tuple[int, str, bytes]], None]:
    def run(reply: tuple[int, str, bytes]) -> None:
        from sleuth.websearch.models import SearchQuery
        from sleuth.websearch.registry import provider_class
        from sleuth.websearch.results import finalize

        status, kind, body = reply
        settings = _settings(**_SEARCH_SETTINGS[provider])
        cls = provider_class(provider)
        sections = (settings.search, settings.net)
        instance = (
            cls(*sections, retries=0)  # type: ignore[call-arg]
            if provider == "duckduckgo"
            else cls(*sections)
        )

        def answer(request: httpx.Request) -> httpx.Response:
            stream = httpx.ByteStream(body)
            return httpx.Response(status, headers={"content-type": kind}, stream=stream)

        async def go() -> list[Any]:
            transport = httpx.MockTransport(answer)
            async with httpx.AsyncClient(transport=transport) as client:
                return await instance.search(SearchQuery(query="python 3.13"), client)

        hits = run_async(go())
        for hit in hits:
            check(hit.url.startswith(("http://", "https://")), f"hit url {hit.url!r}")
            check(isinstance(hit.title, str) and isinstance(hit.snippet, str), "hit text")
        finalize(hits, SearchQuery(query="python 3.13", site_exclude=["example.com"]))

    return run


# --- robots.txt ----------------------------------------------------------------------------


def robots(case: tuple[str, str, str]) -> None:
    from sleuth.pages.robots import RobotsPolicy

    body, path, agent = case
    # The URL was checked before robots.txt is asked about it: only its path varies here.
    url = "https://example.com/" + path.removeprefix("/")
    allowed = RobotsPolicy("rules", body).allows(url, agent)
    check(isinstance(allowed, bool), "allows() must say yes or no")


_robots = st.tuples(
    mutated_text(seeds.ROBOTS, seeds.ROBOTS_TOKENS, max_edits=8),
    st.one_of(st.sampled_from(seeds.ROBOTS_PATHS), mutated_text(seeds.ROBOTS_PATHS, ["%", "*"])),
    st.sampled_from(["sleuth", "sleuth/1.0 (+https://x)", "", "*"]),
)


# --- LLM providers -------------------------------------------------------------------------


def _llm_seeds(provider: str) -> list[tuple[int, Any]]:
    from llm import (
        payloads_anthropic,
        payloads_gemini,
        payloads_ollama,
        payloads_openai,
        payloads_responses,
    )

    args = ("call_AbC123xyz", "web_search", {"query": "python 3.13"})
    bad_args = ("call_AbC123xyz", "web_search", '{"query": "py')
    module: Any = {
        "openai": payloads_openai,
        "openai-responses": payloads_responses,
        "anthropic": payloads_anthropic,
        "gemini": payloads_gemini,
        "ollama": payloads_ollama,
    }[provider]
    replies = [
        module.answer("Python 3.13 made the GIL optional [1]."),
        module.tool_call(*args),
        module.tool_call(*bad_args),
        module.rate_limited(2),
        module.malformed(),
    ]
    for extra in ("search_answer", "searched_answer", "paused", "overloaded", "blocked_prompt"):
        if hasattr(module, extra):
            replies.append(getattr(module, extra)())
    if provider == "gemini":
        replies += [module.finished("MALFORMED_FUNCTION_CALL"), module.invalid_key()]
    if provider == "anthropic":
        replies += [module.stopped("max_tokens", "cut"), module.search_failed()]
    out = []
    for reply in replies:
        body = reply.body.decode() if isinstance(reply.body, bytes) else reply.body
        try:
            out.append((reply.status, json.loads(body)))
        except ValueError:
            out.append((reply.status, body))
    return out


@st.composite
def _llm_reply(draw: st.DrawFn, provider: str) -> tuple[int, dict[str, str], str]:
    status, document = draw(st.sampled_from(_llm_seeds(provider)))
    status = draw(st.sampled_from([status, status, status, 200, 400, 401, 402, 413, 429, 500, 529]))
    if isinstance(document, str):
        body = draw(mutated_text([document]))
    else:
        body = json.dumps(draw(mutated_json([document], max_edits=5)))
        if draw(st.integers(0, 4)) == 0:
            body = draw(mutated_text([body], ["{", "}", '"', ",", "[", "]"]))
    headers = draw(
        st.dictionaries(
            st.sampled_from(["retry-after", "retry-after-ms", "content-type"]),
            st.sampled_from(["1", "-5", "1e9", "nan", "Wed, 21 Oct 2015 07:28:00 GMT", "", "x"]),
            max_size=2,
        )
    )
    return status, headers, body


class _OneReply:
    """A cassette that answers every request with the reply under test."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.records = False

    def replay(self, canonical: str) -> Any:
        return self.reply

    def record(self, canonical: str, response: Any) -> None:
        return None


def _llm(provider: str) -> Callable[[tuple[int, dict[str, str], str]], None]:
    def run(case: tuple[int, dict[str, str], str]) -> None:
        from sleuth.llm.cassette import RecordedResponse
        from sleuth.llm.http import LLMHttp
        from sleuth.llm.models import ChatRequest, Message, ToolSpec, Usage
        from sleuth.llm.providers import PROVIDERS
        from sleuth.net import Clients

        status, headers, body = case

        async def no_sleep(seconds: float) -> None:
            return None

        settings = _settings(llm_retries=1)
        http = LLMHttp(
            settings.llm,
            Clients(settings.net),
            provider=provider,
            base_url="https://llm.example/v1",
            timeout=5.0,
            cassette=_OneReply(RecordedResponse(status, headers, body)),  # type: ignore[arg-type]
            sleep=no_sleep,
        )
        model = PROVIDERS[provider](model="test-model", http=http, api_key="k")
        spec = ToolSpec("web_search", "search", {"type": "object", "properties": {}})
        request = ChatRequest([Message("user", "q")], tools=[spec], native_search=True)
        completion = run_async(model.complete(request))
        check(isinstance(completion.message.content, str), "content must be text")
        check(isinstance(completion.usage, Usage), "usage")
        check(isinstance(completion.model, str), "model must be a string")
        for call in completion.message.tool_calls:
            check(isinstance(call.id, str) and isinstance(call.name, str), f"tool call {call!r}")
            check(isinstance(call.arguments, dict), f"arguments {call.arguments!r}")
        for source in completion.sources:
            check(isinstance(source.url, str), f"source {source!r}")
        for note in completion.annotations:
            check(isinstance(note.end, int) and isinstance(note.source.url, str), f"{note!r}")
        completion.usage + completion.usage  # the meter adds them up

    return run


class _Verdict(BaseModel):
    answer: str
    confidence: float
    sources: list[int] = []


def json_reply(text: str) -> None:
    from sleuth.llm.jsonreply import find_json, parse_reply

    with contextlib.suppress(SleuthError):
        find_json(text)
    parse_reply(text, _Verdict)


_json_reply = mutated_text(
    [
        '<think>let me see {"a": 1}</think>\n```json\n{"answer": "x", "confidence": 0.9}\n```',
        'Sure! The JSON: {"answer": "y", "confidence": 1, "sources": [1, 2]} Hope it helps.',
        '[{"answer": "z"}]',
        "<reasoning>cut off mid-thought {",
        '```\n{"answer": "w", "confidence": "high"}\n```',
    ],
    ["{", "}", "[", "]", '"', "```", "<think>", "</think>", "\\", ",", ":", "1e999"],
)


def stack_reply(text: str) -> None:
    from sleuth.llm.jsonreply import parse_reply
    from sleuth.stack.llm import StackReply

    reply = parse_reply(text, StackReply)
    check(0.0 <= reply.confidence <= 1.0, f"confidence {reply.confidence}")


_STACK_REPLY = {
    "project_name": "api",
    "language": "Rust",
    "build_system": "Cargo",
    "framework": "Axum",
    "runtime": None,
    "build_commands": ["cargo build --release"],
    "cache_dirs": ["target"],
    "run_command": "cargo run",
    "ports": [8080],
    "health_endpoint": "/health",
    "confidence": 0.8,
    "evidence": [{"file": "Cargo.toml", "reason": "declares axum"}],
}
_stack_replies = st.one_of(
    st.builds(json.dumps, mutated_json([_STACK_REPLY], max_edits=4)),
    st.builds(
        lambda body: f"<think>hmm</think>```json\n{body}\n```",
        st.builds(json.dumps, mutated_json([_STACK_REPLY], max_edits=2)),
    ),
    mutated_text([json.dumps(_STACK_REPLY)], ["{", "}", '"', ",", "[", "]", "1e999", "-0"]),
)


# --- cassettes -------------------------------------------------------------------------------

_WORK: dict[str, Path] = {}


def _scratch(name: str) -> Path:
    """A fresh, empty folder for this input (one per target and worker)."""
    folder = _WORK.get(name)
    if folder is None:
        folder = _WORK[name] = Path(tempfile.mkdtemp(prefix=f"sleuth-fuzz-{name}-"))
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def cassette(text: str) -> None:
    from sleuth.llm.cassette import Cassette, RecordedResponse

    folder = _scratch("cassette")
    tape = Cassette("replay", folder, "openai")
    canonical = '{"method": "POST"}'
    path = folder / "openai" / f"{tape.key(canonical)}.json"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    for _ in range(2):
        recorded = tape.replay(canonical)
        check(isinstance(recorded, RecordedResponse), f"replay gave {recorded!r}")
        assert recorded is not None
        check(isinstance(recorded.status, int), "status must be a number")
        check(isinstance(recorded.body, str), "body must be text")
        check(
            all(isinstance(k, str) and isinstance(v, str) for k, v in recorded.headers.items()),
            f"headers {recorded.headers!r}",
        )


_CASSETTE_SEEDS = [
    {
        "version": 1,
        "provider": "openai",
        "request": {"method": "POST", "path": "/chat/completions", "body": {}},
        "responses": [
            {"status": 429, "headers": {"retry-after": "1"}, "json": {"error": {"message": "x"}}},
            {"status": 200, "headers": {"content-type": "application/json"}, "json": {"a": [1]}},
            {"status": 502, "headers": {}, "text": "<html>bad gateway</html>"},
        ],
    }
]
_cassettes = st.one_of(
    st.builds(json.dumps, mutated_json(_CASSETTE_SEEDS, max_edits=5)),
    mutated_text([json.dumps(_CASSETTE_SEEDS[0], indent=1)], ["{", "}", '"', ",", "[", "]"]),
)


# --- the config file ------------------------------------------------------------------------


def config_file(text: str) -> None:
    from sleuth.config import describe, load_settings

    folder = _scratch("config")
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    settings = load_settings(path)
    describe(settings)  # `sleuth config show` must be able to print whatever loaded


def _toml_values() -> st.SearchStrategy[str]:
    from sleuth.config import Settings

    names = sorted(Settings.model_fields)
    scalar = st.one_of(
        st.integers(-(2**65), 2**65).map(str),
        st.floats(allow_nan=True).map(lambda f: repr(f).replace("nan", "nan").lower()),
        st.text(max_size=20).map(json.dumps),
        st.sampled_from(["true", "false", "[]", "{}", '["a", 1]', "1979-05-27T07:32:00Z", "inf"]),
    )
    line = st.builds(lambda k, v: f"{k} = {v}", st.sampled_from(names), scalar)
    return st.lists(line, max_size=6).map("\n".join)


_config = st.one_of(
    mutated_text(seeds.CONFIG, seeds.CONFIG_TOKENS),
    _toml_values(),
    _toml_values().map(lambda body: "[sleuth]\n" + body),
)


# --- detect: the manifest formats and the detectors -----------------------------------------


def jsonc(text: str) -> None:
    from sleuth.stack.formats.jsonc import loads

    loads(text)


def yaml_lite(text: str) -> None:
    from sleuth.stack.formats.yaml_lite import load, lookup

    data = load(text)
    lookup(data, "server.port")
    lookup(data, "spring.profiles.active")


def xml_manifest(text: str) -> None:
    from sleuth.stack.formats.xmlfile import parse_xml, text_of

    root = parse_xml(text)
    text_of(root, "parent", "artifactId")


def properties(text: str) -> None:
    from sleuth.stack.formats.properties import parse_properties

    out = parse_properties(text)
    check(all(isinstance(k, str) and isinstance(v, str) for k, v in out.items()), "properties")


def dockerfile(text: str) -> None:
    from sleuth.stack.formats.dockerfile import exposed_ports

    ports = exposed_ports(text)
    check(all(isinstance(p, int) and 0 < p < 65536 for p in ports), f"ports {ports!r}")


def _format_text(*names: str) -> st.SearchStrategy[str]:
    return mutated_text([seeds.MANIFESTS[name] for name in names], seeds.MANIFEST_TOKENS, 8)


class _Recorder:
    """Wraps a detector so an exception is seen here, not turned into evidence by the walk."""

    def __init__(self, inner: Any, failures: list[BaseException]) -> None:
        self.inner = inner
        self.failures = failures
        self.name = inner.name
        self.source = inner.source

    def detect(self, candidate: Any) -> Any:
        try:
            return self.inner.detect(candidate)
        except SleuthError:
            raise
        except Exception as exc:
            self.failures.append(exc)
            raise


@st.composite
def _repository(draw: st.DrawFn) -> dict[str, str]:
    """A folder with one to three manifests, at least one of them mutated."""
    names = sorted(seeds.MANIFESTS)
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    files = {}
    for index, name in enumerate(chosen):
        text = seeds.MANIFESTS[name]
        if index == 0 or draw(st.booleans()):
            text = draw(mutated_text([text], seeds.MANIFEST_TOKENS, 8))
        files[name] = text
    if draw(st.booleans()):  # a member folder, so workspace globs have something to match
        files["packages/a/" + draw(st.sampled_from(names))] = draw(
            st.sampled_from(list(seeds.MANIFESTS.values()))
        )
    return files


def detect_repository(files: dict[str, str]) -> None:
    from sleuth.stack import default_detectors, detect_path, render_json, render_table

    root = _scratch("detect")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    failures: list[BaseException] = []
    detectors = [_Recorder(detector, failures) for detector in default_detectors()]
    projects = detect_path(root, "static", detectors=detectors)  # type: ignore[arg-type]
    if failures:
        raise failures[0]
    render_json(projects)
    render_table(projects)


# --- the registry ----------------------------------------------------------------------------


def _all() -> list[Target]:
    targets = [
        Target("guard.parse_host", _hosts, guard_parse_host, 2, (SleuthError, ValueError)),
        Target("guard.canonical_url", _urls, guard_canonical_url, 1, (SleuthError, ValueError)),
        Target("guard.check_url", _urls, guard_check_url, 2),
        Target(
            "guard.allow_hosts",
            st.one_of(
                mutated_text(seeds.ALLOW_ENTRIES, [*seeds.HOST_TOKENS, "*", "/", "*."]), _hosts
            ),
            guard_allow_entry,
            1,
        ),
        # An unjoinable Location is an httpx.HTTPError, which every fetch maps to network_error.
        Target(
            "guard.redirect",
            _urls,
            guard_redirect,
            1,
            (SleuthError, httpx.RemoteProtocolError),
        ),
        Target("fetch.input_url", _urls, fetch_input_url, 1),
        Target("extract.html", _pages(), html_extract, 1.2, about="slowest: whole pages"),
    ]
    for provider in ("brave", "tavily", "serpapi", "searxng", "duckduckgo"):
        targets.append(
            Target(f"search.{provider}", _search_reply(provider), _search(provider), 0.8)
        )
    targets.append(Target("robots", _robots, robots, 1.5))
    for provider in ("openai", "openai-responses", "anthropic", "gemini", "ollama"):
        targets.append(Target(f"llm.{provider}", _llm_reply(provider), _llm(provider), 1.2))
    targets += [
        Target("llm.json_reply", _json_reply, json_reply, 1),
        Target("llm.cassette", _cassettes, cassette, 1),
        Target("detect.llm_reply", _stack_replies, stack_reply, 0.7),
        Target("config.toml", _config, config_file, 1),
        Target(
            "detect.jsonc",
            _format_text("deno.json", "rush.json", "turbo.json", "package.json"),
            jsonc,
            1,
            (SleuthError, ValueError),
        ),
        Target(
            "detect.yaml",
            _format_text(
                "pnpm-workspace.yaml", "pubspec.yaml", "src/main/resources/application.yml"
            ),
            yaml_lite,
            1,
        ),
        Target(
            "detect.xml",
            _format_text("pom.xml", "app.csproj"),
            xml_manifest,
            1,
            (SleuthError, ValueError),
        ),
        Target(
            "detect.properties",
            _format_text("src/main/resources/application.properties"),
            properties,
            0.5,
        ),
        Target("detect.dockerfile", _format_text("Dockerfile"), dockerfile, 0.5),
        Target("detect.manifests", _repository(), detect_repository, 4),
    ]
    return targets


TARGETS: dict[str, Target] = {target.name: target for target in _all()}

__all__ = ["TARGETS", "Target", "Violation"]
