"""Choosing a provider from settings, and the canonical form cassettes are keyed by."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from sleuth.config import Settings, load_settings
from sleuth.errors import LLMNotConfigured, ReplayMiss, UsageError
from sleuth.llm.cassette import Cassette, RecordedResponse, canonical_request
from sleuth.llm.setup import resolve


def test_nothing_set_means_not_configured() -> None:
    with pytest.raises(LLMNotConfigured) as caught:
        resolve(Settings().llm)
    assert caught.value.exit_code == 41


@pytest.mark.parametrize(
    ("env", "provider", "base_url", "key"),
    [
        ({"ANTHROPIC_API_KEY": "sk-ant"}, "anthropic", "https://api.anthropic.com", "sk-ant"),
        ({"OPENAI_API_KEY": "sk-o"}, "openai", "https://api.openai.com/v1", "sk-o"),
        ({"GOOGLE_API_KEY": "g"}, "gemini", "https://generativelanguage.googleapis.com", "g"),
        ({"GEMINI_API_KEY": "g2"}, "gemini", "https://generativelanguage.googleapis.com", "g2"),
        ({"OLLAMA_HOST": "0.0.0.0:11500"}, "ollama", "http://127.0.0.1:11500", None),
        ({"OLLAMA_HOST": "gpu-box"}, "ollama", "http://gpu-box:11434", None),
        ({"OLLAMA_HOST": "https://ollama.com"}, "ollama", "https://ollama.com", None),
        ({"OLLAMA_HOST": "http://gpu-box/ollama/"}, "ollama", "http://gpu-box/ollama", None),
        (
            {"SLEUTH_LLM_BASE_URL": "http://localhost:1234/v1"},
            "openai",
            "http://localhost:1234/v1",
            None,
        ),
        (
            {"OPENAI_API_KEY": "sk-o", "OPENAI_BASE_URL": "https://openrouter.ai/api/v1"},
            "openai",
            "https://openrouter.ai/api/v1",
            "sk-o",
        ),
        (
            {"SLEUTH_LLM_PROVIDER": "OpenAI_Responses", "OPENAI_API_KEY": "sk-r"},
            "openai-responses",
            "https://api.openai.com/v1",
            "sk-r",
        ),
    ],
)
def test_the_vendors_usual_variables_are_honoured(
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    provider: str,
    base_url: str,
    key: str | None,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = resolve(load_settings().llm)
    assert (config.provider, config.base_url, config.api_key) == (provider, base_url, key)


def test_sleuth_names_win_and_local_servers_get_the_generous_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "vendor")
    monkeypatch.setenv("SLEUTH_LLM_API_KEY", "sleuth")
    monkeypatch.setenv("SLEUTH_LLM_BASE_URL", "http://192.168.1.20:8000/v1")
    monkeypatch.setenv("SLEUTH_LLM_LOCAL_TIMEOUT", "900")
    config = resolve(load_settings().llm)
    assert config.api_key == "sleuth"
    assert config.local
    assert config.timeout == 900
    monkeypatch.setenv("SLEUTH_LLM_TIMEOUT", "12")
    assert resolve(load_settings().llm).timeout == 12


def test_a_cloud_provider_without_a_key_names_the_variable() -> None:
    with pytest.raises(LLMNotConfigured, match="needs an API key") as caught:
        resolve(Settings(llm_provider="anthropic").llm)
    assert "ANTHROPIC_API_KEY" in caught.value.hint
    cloud = resolve(Settings(llm_provider="gemini", gemini_api_key="k").llm)
    assert cloud.timeout == 60
    assert not cloud.local


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(UsageError, match="unknown LLM provider 'mistral'") as caught:
        resolve(Settings().llm, provider="mistral")
    assert "anthropic, gemini, ollama, openai, openai-responses" in caught.value.hint


def test_a_bad_provider_name_in_the_environment_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sleuth.errors import ConfigError

    monkeypatch.setenv("SLEUTH_LLM_PROVIDER", "skynet")
    with pytest.raises(ConfigError, match="llm_provider"):
        load_settings()


def test_the_canonical_request_blanks_what_changes_between_runs() -> None:
    tmp = tempfile.gettempdir()
    body = {
        "messages": [
            {"content": f"repo at {tmp}/pytest-of-root/pytest-7/test_a0/repo please"},
            {"content": "page http://127.0.0.1:38211/a and http://localhost:9000/b"},
            {"content": 'boundary="0f3a9c2b1d4e5f60718293a4b5c6d7e8" fetched 2026-11-22T03:04:05Z'},
            {"tool_call_id": "call_Xy12AbCd34", "id": "toolu_01A09q90qw90lq917835lq9"},
            {"content": f"cwd {os.getcwd()}/src and 123e4567-e89b-12d3-a456-426614174000"},
        ]
    }
    canonical = canonical_request("post", "/v1/messages", body)
    data = json.loads(canonical)
    messages = data["body"]["messages"]
    assert data["method"] == "POST"
    assert messages[0]["content"] == "repo at <tmp> please"
    assert messages[1]["content"] == "page http://127.0.0.1:<port>/a and http://localhost:<port>/b"
    assert messages[2]["content"] == 'boundary="<nonce>" fetched <date>'
    assert messages[3] == {"tool_call_id": "<id>", "id": "<id>"}
    assert messages[4]["content"] == "cwd <cwd> and <uuid>"


def test_responses_replay_in_order_and_the_last_repeats(tmp_path: Path) -> None:
    canonical = canonical_request("POST", "/x", {"q": 1})
    recorder = Cassette("record", tmp_path, "openai")
    recorder.record(canonical, RecordedResponse(429, {"retry-after": "1"}, '{"error": {}}'))
    recorder.record(canonical, RecordedResponse(200, {}, '{"ok": true}'))
    assert [p.name for p in (tmp_path / "openai").iterdir()] == [f"{recorder.key(canonical)}.json"]
    player = Cassette("replay", tmp_path, "openai")
    served = [player.replay(canonical) for _ in range(3)]
    assert [r.status for r in served if r] == [429, 200, 200]
    assert served[0] is not None
    assert served[0].headers == {"retry-after": "1"}


def test_auto_records_a_miss_and_replay_refuses_it(tmp_path: Path) -> None:
    canonical = canonical_request("POST", "/x", {"q": 2})
    assert Cassette("auto", tmp_path, "openai").replay(canonical) is None
    with pytest.raises(ReplayMiss) as caught:
        Cassette("replay", tmp_path, "openai").replay(canonical)
    assert '"q": 2' in str(caught.value)
    assert caught.value.exit_code == 52


@pytest.mark.parametrize(
    ("headers", "wanted"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"Retry-After-Ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00"}, 0.0),  # a past date, no zone: UTC
        ({"retry-after": "-3"}, 0.0),
        ({}, None),
    ],
)
def test_retry_after_is_read_or_ignored_never_raised(
    headers: dict[str, str], wanted: float | None
) -> None:
    from sleuth.llm.failures import retry_after

    assert retry_after(headers) == wanted
