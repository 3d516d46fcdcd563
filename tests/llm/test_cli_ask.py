"""``sleuth ask`` and ``sleuth tools`` as a person or script runs them: a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llm import payloads_openai as model
from llm.pages import NIMBUS_FACTS
from loopback import Web
from search.wire import Wire
from sleuth.errors import EXIT_CODES
from sleuth.toolset import offered_registry


def run_sleuth(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SLEUTH_")
        and k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
        and k not in ("OPENAI_BASE_URL", "OLLAMA_HOST")
    }
    clean |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "SLEUTH_CACHE": "memory"}
    return subprocess.run(
        [sys.executable, "-m", "sleuth", *args],
        capture_output=True,
        text=True,
        env=clean | (env or {}),
        timeout=120,
        check=False,
    )


def ask_env(wire: Wire, web: Web) -> dict[str, str]:
    return {
        "SLEUTH_LLM_PROVIDER": "openai",
        "SLEUTH_LLM_BASE_URL": wire.url(""),
        "SLEUTH_LLM_MODEL": "qwen3:8b",
        "SLEUTH_SEARXNG_URL": web.site.origin,
        "SLEUTH_SEARCH_PROVIDERS": "searxng",
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{web.site.port}",
        "SLEUTH_RENDER": "never",
    }


def test_ask_json_every_citation_maps_to_a_fetched_page(
    wire: Wire, web: Web, tmp_path: Path
) -> None:
    page = web.page("/nimbus/timeouts", "Nimbus timeouts", NIMBUS_FACTS)
    wire.on(
        model.PATH,
        model.tool_call("call_1", "web_search", {"query": "nimbus timeout"}),
        model.tool_call("call_2", "fetch_page", {"url": page}),
        model.answer("Nimbus waits thirty seconds [1] and backs off from half a second [1]."),
    )
    done = run_sleuth(
        tmp_path, "ask", "How long does Nimbus wait?", "--json", env=ask_env(wire, web)
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) >= {
        "schema_version",
        "answer",
        "citations",
        "tool_calls",
        "usage",
        "cost_usd",
    }
    assert result["schema_version"] == 1
    assert result["answer"].startswith("Nimbus waits thirty seconds [1]")
    assert result["citations"] == [
        {"id": 1, "url": page, "title": "Nimbus timeouts", "kind": "page", "fetched": True}
    ]
    assert "/nimbus/timeouts" in web.page_requests()
    assert [(c["name"], c["outcome"]) for c in result["tool_calls"]] == [
        ("web_search", "ok"),
        ("fetch_page", "ok"),
    ]
    assert result["tool_calls"][1]["arguments"] == {"url": page}
    assert all(isinstance(c["latency_ms"], int) for c in result["tool_calls"])
    assert result["usage"]["input_tokens"] == 3 * 1117
    assert result["cost_usd"] == 0.0


def test_ask_text_prints_answer_sources_and_usage(wire: Wire, web: Web, tmp_path: Path) -> None:
    page = web.page("/nimbus/timeouts", "Nimbus timeouts", NIMBUS_FACTS)
    wire.on(
        model.PATH,
        model.tool_call("call_2", "fetch_page", {"url": page}),
        model.answer("Thirty seconds [1]. Also see [4]."),
    )
    done = run_sleuth(tmp_path, "ask", "How long?", env=ask_env(wire, web))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Thirty seconds [1]. Also see."
    assert f"[1] Nimbus timeouts - {page} (read)" in lines
    assert "Removed citations sleuth never issued: [4]" in lines
    assert lines[-1].startswith("openai qwen3:8b · 2 turns · 1 tool calls · 2,234 in / 92 out")
    assert lines[-1].endswith("$0.0000")


def test_ask_without_a_provider_says_what_to_set(tmp_path: Path) -> None:
    done = run_sleuth(tmp_path, "ask", "anything")
    assert done.returncode == EXIT_CODES["llm_not_configured"]
    assert done.stdout == ""
    assert done.stderr.startswith("sleuth: error: no LLM provider is configured")
    assert "SLEUTH_LLM_PROVIDER" in done.stderr
    assert "Traceback" not in done.stderr
    as_json = run_sleuth(tmp_path, "ask", "anything", "--json")
    assert json.loads(as_json.stdout)["error"]["code"] == "llm_not_configured"


def test_ask_reports_a_bad_key_with_its_own_exit_code(wire: Wire, web: Web, tmp_path: Path) -> None:
    wire.on(
        model.PATH,
        model.error(
            401, "Incorrect API key provided: sk-bad", "invalid_request_error", "invalid_api_key"
        ),
    )
    done = run_sleuth(tmp_path, "ask", "q", env=ask_env(wire, web))
    assert done.returncode == EXIT_CODES["llm_auth"]
    assert "Incorrect API key" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(wire.to(model.PATH)) == 1


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "gemini", "mcp"])
def test_tools_prints_definitions_in_each_format(tmp_path: Path, fmt: str) -> None:
    done = run_sleuth(tmp_path, "tools", "--format", fmt)
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)
    if fmt == "openai":
        names = [t["function"]["name"] for t in tools]
        schema = tools[1]["function"]["parameters"]
    elif fmt == "anthropic":
        names = [t["name"] for t in tools]
        schema = tools[1]["input_schema"]
    elif fmt == "gemini":
        names = [t["name"] for t in tools[0]["functionDeclarations"]]
        schema = tools[0]["functionDeclarations"][1]["parameters"]
    else:
        names = [t["name"] for t in tools]
        schema = tools[1]["inputSchema"]
        assert tools[1]["annotations"]["readOnlyHint"] is True
        assert tools[1]["annotations"]["openWorldHint"] is True
        assert "text" in tools[1]["outputSchema"]["properties"]
    assert names == [tool.name for tool in offered_registry()]
    assert {"web_search", "fetch_page", "research", "detect", "discover"} <= set(names)
    assert schema["required"] == ["url"]
    max_chars = {"description": "Characters to return.", "maximum": 20000, "minimum": 200}
    # Gemini's schema subset has no "default"; every other format keeps it.
    if fmt != "gemini":
        max_chars["default"] = 5000
    assert schema["properties"]["max_chars"] == {**max_chars, "type": "integer"}
    assert "title" not in json.dumps(schema)


def test_tools_takes_json_and_prints_the_same(tmp_path: Path) -> None:
    plain = run_sleuth(tmp_path, "tools", "--format", "mcp")
    flagged = run_sleuth(tmp_path, "tools", "--format", "mcp", "--json")
    assert flagged.returncode == 0, flagged.stderr
    assert json.loads(flagged.stdout) == json.loads(plain.stdout)
