"""One test per crash the fuzzer found: the input that crashed, and what must happen instead.

Each runs the same target function ``scripts/fuzz`` runs (so the contract checked is the
fuzzer's), then asserts the behaviour a caller relies on.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import strategies as st

from fuzz.harness import run_inputs, run_target
from fuzz.targets import TARGETS, Target, Violation
from sleuth.config import Settings
from sleuth.errors import BlockedError, LLMQuotaExceeded, MalformedReply, ReplayMiss, UsageError
from sleuth.extract import extract
from sleuth.llm.cassette import Cassette
from sleuth.net.guard import Guard

CANONICAL = '{"method": "POST"}'


def _recording(tmp_path: Path, document: Any) -> Cassette:
    tape = Cassette("replay", tmp_path, "openai")
    path = tmp_path / "openai" / f"{tape.key(CANONICAL)}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return tape


@pytest.mark.parametrize(
    "responses",
    [
        [],  # IndexError: responses[-1]
        [{"status": [], "headers": {}, "json": {}}],  # TypeError: int([])
        [{"status": 429, "headers": {"retry-after": {"": -1}}, "json": {}}],  # header not text
        "not a list",  # TypeError: str indices
        [["status", 200]],  # a list where a response object belongs
    ],
)
def test_a_corrupt_recording_is_a_replay_miss_not_a_crash(tmp_path: Path, responses: Any) -> None:
    tape = _recording(tmp_path, {"version": 1, "responses": responses})
    with pytest.raises(ReplayMiss) as caught:
        tape.replay(CANONICAL)
    assert caught.value.exit_code == 52
    # In auto mode the same file means "ask the server and record again".
    assert Cassette("auto", tmp_path, "openai").replay(CANONICAL) is None


def test_a_good_recording_still_replays_in_order(tmp_path: Path) -> None:
    responses = [
        {"status": 429, "headers": {"retry-after": "1"}, "json": {"error": "slow"}},
        {"status": 200, "headers": {}, "text": "ok"},
    ]
    tape = _recording(tmp_path, {"version": 1, "responses": responses})
    first, second, third = (tape.replay(CANONICAL) for _ in range(3))
    assert first is not None
    assert (first.status, first.headers) == (429, {"retry-after": "1"})
    assert second is not None
    assert third is not None
    assert (second.status, second.body, third.body) == (200, "ok", "ok")


def test_an_unparsable_caller_url_is_a_usage_error() -> None:
    page = "<html><body><article><p>" + "Words worth reading here. " * 20 + "</p></article>"
    with pytest.raises(UsageError, match="not a valid URL") as caught:
        extract(page, url="http://[::1/")
    assert caught.value.exit_code == 2
    assert extract(page, url="https://example.com/a").outcome == "ok"


def test_the_cli_says_an_unparsable_url_is_bad_input_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "extract", "--url", "http://[::1/"],
        input=b"<p>hi</p>",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode().startswith("sleuth: error: --url 'http://[::1/' is not")
    assert b"Traceback" not in done.stderr


def test_an_unparsable_canonical_link_is_dropped() -> None:
    page = (
        '<html><head><link rel="canonical" href="http://[oops/"><title>T</title></head><body>'
        "<article><p>" + "A sentence with some length to it. " * 20 + "</p></article></body>"
    )
    result = extract(page, url="https://example.com/a")
    assert result.outcome == "ok"
    assert "canonical_url" not in result.metadata
    good = page.replace("http://[oops/", "/b")
    assert extract(good, url="https://example.com/a").metadata["canonical_url"] == (
        "https://example.com/b"
    )


def test_a_redirect_to_an_unjoinable_location_is_a_protocol_error() -> None:
    request = httpx.Request("GET", "https://example.com/start")
    response = httpx.Response(302, headers={"Location": ":http://exampl:e.com]"}, request=request)
    # An httpx.HTTPError is what every fetch path turns into the network_error outcome.
    with pytest.raises(httpx.RemoteProtocolError, match="Location"):
        Guard(Settings().net).check_redirect(response)


def test_a_tool_call_whose_name_is_not_text_is_a_malformed_reply() -> None:
    body = {
        "model": "qwen3:8b",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": ["web_search"], "arguments": {}}}],
        },
        "done": True,
        "done_reason": "stop",
    }
    for provider in ("llm.ollama",):
        with pytest.raises(MalformedReply, match="name is a list"):
            TARGETS[provider].run((200, {}, json.dumps(body)))


def test_a_numeric_tool_call_id_becomes_text() -> None:
    choice = {
        "message": {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": 7, "function": {"name": "web_search", "arguments": "{}"}}],
        },
        "finish_reason": "tool_calls",
    }
    TARGETS["llm.openai"].run((200, {}, json.dumps({"choices": [choice], "model": "m"})))


# --- the harness itself -------------------------------------------------------------------


def _boom(value: int) -> None:
    if value % 6 == 3:
        raise KeyError("three")
    if value % 6 == 4:
        raise Violation("four")


def _spin(value: int) -> None:
    while value >= 0:
        value += 1


def test_the_harness_counts_inputs_and_keeps_each_crash_once(tmp_path: Path) -> None:
    target = Target("toy", st.integers(0, 10**9), _boom)
    outcome = run_inputs(target, 300, 5.0, 1, tmp_path / "last")
    assert outcome.inputs == 300
    kinds = sorted(signature.split()[0] for signature in outcome.crashes)
    assert kinds == ["KeyError", "Violation"]
    assert all(crash.count >= 1 for crash in outcome.crashes.values())


def test_the_harness_stops_a_hang_at_the_time_limit(tmp_path: Path) -> None:
    target = Target("spin", st.just(0), _spin)
    outcome = run_inputs(target, 1, 0.2, 1, tmp_path / "last")
    assert outcome.inputs == 1
    assert [signature.split()[0] for signature in outcome.crashes] == ["hang"]


@pytest.mark.parametrize("violations", [[["x"], "y"], "PerDay", {"quotaId": "PerDay"}])
def test_quota_details_of_any_shape_are_read_without_a_crash(violations: Any) -> None:
    body = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "message": "You exceeded your current quota, please check your plan and billing.",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": violations}
            ],
        }
    }
    # Nothing readable says the limit passes, so it stays an empty account (exit 43).
    with pytest.raises(LLMQuotaExceeded) as caught:
        TARGETS["llm.gemini"].run((429, {}, json.dumps(body)))
    assert caught.value.exit_code == 43


def test_robots_rules_are_matched_against_odd_paths() -> None:
    from sleuth.pages.robots import RobotsPolicy

    policy = RobotsPolicy("rules", "User-agent: *\nDisallow: /[\nDisallow: /%7A\n")
    verdicts = {path: policy.allows("https://example.com" + path) for path in ("/[x", "/z", "/a")}
    assert verdicts == {"/[x": False, "/z": False, "/a": True}


def _hold_the_interpreter(value: int) -> None:
    sum(range(10**15))  # C code that never looks at signals: only the watchdog can stop it


def test_a_hang_inside_c_code_ends_the_worker_and_is_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        TARGETS, "toy.c_hang", Target("toy.c_hang", st.integers(), _hold_the_interpreter)
    )
    outcome = run_target("toy.c_hang", 1, 0.2, 1)
    assert outcome.inputs == 1
    [crash] = outcome.crashes.values()
    assert crash.signature.startswith("hang (worker exit")
    assert crash.example != "?"  # the input the worker saved before it started


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("//le.com/relative://", "https://le.com/relative://"),
        (
            "example.com/?next=https://other.example/",
            "https://example.com/?next=https://other.example/",
        ),
        ("example.com:8080/a", "https://example.com:8080/a"),
    ],
)
def test_a_url_without_a_scheme_gets_https_even_with_a_scheme_later_in_it(
    typed: str, expected: str
) -> None:
    from sleuth.pages.fetcher import normalize_input_url

    assert normalize_input_url(typed) == expected


@pytest.mark.parametrize("char", ["\x0c", "\x0b", "\x01", "\x1f", "\x00", "\ufffe"])
def test_control_characters_beside_removed_elements_do_not_crash_extraction(char: str) -> None:
    # lxml reads these from HTML but refuses them when a removed element's tail is moved.
    body = "<p>" + "Words here and there. " * 60 + "</p>"
    page = f"<html><body><article>{body}<p>lead <span hidden>x</span>{char} tail</p>{body}"
    result = extract(page)
    assert result.outcome == "ok"
    assert "lead" in result.text
    assert "tail" in result.text
    assert char not in result.text


def test_a_non_ascii_ipv6_zone_id_is_refused_with_a_reason() -> None:
    guard = Guard(Settings().net)
    with pytest.raises(BlockedError, match="invalid IPv6 zone id"):
        guard.check_url("http://[2001:db8::1%25\u00e9en0]/")
    with pytest.raises(UsageError, match="port 99999999 does not exist"):
        guard.check_url("http://[2001:db8::1%25\u00e9en0]:99999999/")


def test_a_url_whose_credentials_cannot_be_cut_out_is_refused_without_showing_them() -> None:
    with pytest.raises(BlockedError) as caught:
        Guard(Settings().net).check_url("://hunter2@://://exam")
    assert "hunter2" not in str(caught.value)
    assert "not shown" in str(caught.value)


@pytest.mark.parametrize(
    ("url", "port"), [("https://xn--bch:65537/x", 65537), ("https://xn--kva.example:0/x", 0)]
)
def test_a_bad_port_on_a_host_that_is_not_valid_punycode_is_named(url: str, port: int) -> None:
    with pytest.raises(UsageError, match=f"port {port} does not exist"):
        Guard(Settings().net).check_url(url)


def test_a_gitignore_line_of_many_stars_is_read_as_git_reads_it_and_fast(tmp_path: Path) -> None:
    from sleuth.stack import detect_path

    stars = "*" * 60
    (tmp_path / ".gitignore").write_text(f"{stars}.log\nbuild/{stars}/x\n", encoding="utf-8")
    (tmp_path / "package.json").write_text('{"name": "web"}', encoding="utf-8")
    (tmp_path / "a-very-long-file-name-that-backtracking-would-choke-on-forever.txt").write_text("")
    (tmp_path / "debug.log").write_text("")
    [project] = detect_path(tmp_path, "static")  # minutes of backtracking before the fix
    assert project.language == "JavaScript"

    from sleuth.stack.ignore import parse_ignore

    rules = parse_ignore(f"{stars}.log\na/***/b\n!keep/**\n")
    assert rules is not None
    assert rules.verdict("debug.log") is True
    assert rules.verdict("a/x/y/b") is True
    assert rules.verdict("notes.txt") is None


def test_a_gitignore_line_of_many_separate_stars_is_set_aside_not_matched() -> None:
    from sleuth.stack.ignore import MAX_STARS_PER_SEGMENT, parse_ignore

    hostile = "*a" * 10 + "*.log"  # about 44 ** 10 steps per miss for a backtracking matcher
    rules = parse_ignore(f"{hostile}\n*.tmp\n")
    assert rules is not None
    assert rules.verdict("a-very-long-file-name-that-backtracking-would-choke-on.txt") is None
    assert rules.verdict("aaaaaaaaaa.log") is None  # the hostile line is not applied
    assert rules.verdict("x.tmp") is True  # the rest of the file still is
    within = "*a" * (MAX_STARS_PER_SEGMENT - 1) + "*.log"
    kept = parse_ignore(f"{within}\n")
    assert kept is not None
    assert kept.verdict("xaxaxa.log") is True
