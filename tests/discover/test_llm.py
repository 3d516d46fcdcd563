"""Stage 3 through ``sleuth discover``: recorded model conversations replayed with no model,
against live loopback search (SearXNG's JSON API) and GitHub's REST API.

The conversations and how the cassettes were made are described in ``conversations.py``.
Where a test needs a model that misbehaves live (stalls, fails to search), the scripted
loopback model answers in OpenAI's documented Chat Completions format.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from discover.conftest import CLI, Done
from discover.conversations import (
    CONVERSATIONS,
    INJECTION,
    LLM_PREFIX,
    SEARCH_PATH,
    STRIPE,
    call,
    say,
    search,
)
from discover.llm_settings import discover_env, discover_settings
from discover.registries import GITHUB, Registries
from search.wire import Reply
from sleuth.api import AsyncSleuth
from sleuth.discovery import DiscoveryResult
from sleuth.errors import EXIT_CODES, BudgetExceeded
from sleuth.net import PinnedResolver, parse_resolve_pins

LLM_ONLY = ("--stages", "ecosystem,llm")  # stripe-cli is in the bundled registry too


def replay(cli: CLI, regs: Registries, tool: str, *args: str, **env: str) -> Done:
    CONVERSATIONS[tool].serve_web(regs)
    return cli("discover", tool, *LLM_ONLY, "--json", *args, **{**discover_env(regs), **env})


async def api(regs: Registries, tool: str, **kwargs: Any) -> DiscoveryResult:
    CONVERSATIONS[tool].serve_web(regs)
    async with AsyncSleuth(discover_settings(regs)) as client:
        return await client.discover(tool, stages=["ecosystem", "llm"], **kwargs)


def billed(reply: Reply) -> Reply:
    """A scripted turn that reports the tokens it used."""
    body = json.loads(reply.body)
    body["usage"].update(prompt_tokens=1500, completion_tokens=200, total_tokens=1700)
    return Reply(reply.status, json.dumps(body), reply.content_type)


def github_asked(regs: Registries) -> list[str]:
    return [
        r.path.removeprefix(f"{GITHUB}/repos/")
        for r in regs.wire.requests
        if r.path.startswith(GITHUB)
    ]


def test_stripe_cli_is_found_verified_and_accepted_with_yes(cli: CLI, regs: Registries) -> None:
    done = replay(cli, regs, "stripe-cli", "--yes")
    assert done.code == 0, done.stderr
    data = done.json
    assert (data["stage"], data["builder"], data["source"]) == (
        "llm",
        "github",
        "stripe/stripe-cli",
    )
    assert (data["selection_reason"], data["confidence_score"], data["high_risk"]) == (
        "llm_verified",
        95,
        False,
    )
    meta = data["metadata"]
    assert (meta["stars"], meta["owner"], meta["owner_type"]) == (1834, "stripe", "Organization")
    assert meta["is_fork"] is False
    assert meta["verification_skipped"] is False
    assert meta["created_at"] == "2020-01-15T10:00:00Z"
    assert any("docs.stripe.com/stripe-cli" in e for e in data["evidence"])
    assert (
        data["install_hint"]
        == "download a release from https://github.com/stripe/stripe-cli/releases/latest"
    )
    usage = data["usage"]
    assert usage["llm_calls"] == 2
    assert usage["input_tokens"] > 1000
    assert usage["output_tokens"] > 0
    assert (usage["provider"], usage["model"]) == ("openai", "gpt-5-mini")
    assert data["confirmation_required"] is False
    assert github_asked(regs) == ["stripe/stripe-cli"]
    assert [r.query["q"] for r in regs.wire.to(SEARCH_PATH)] == [
        "stripe-cli official github repository"
    ]


def test_an_llm_answer_needs_confirmation_and_nobody_can_give_it_here(
    cli: CLI, regs: Registries
) -> None:
    done = replay(cli, regs, "stripe-cli")
    assert done.code == EXIT_CODES["confirmation_required"], done.stderr
    assert "not using github:stripe/stripe-cli" in done.stderr
    assert "found by an LLM on the web" in done.stderr
    assert "--yes" in done.stderr


async def test_the_api_never_prompts_it_says_what_needs_confirming(regs: Registries) -> None:
    result = await api(regs, "stripe-cli")
    assert result.confirmation_required is True
    assert result.confirmation_reason == "it was found by an LLM on the web"
    assert result.to_json()["confirmation_required"] is True


async def test_a_fork_is_never_auto_selected_and_its_far_bigger_parent_is_suggested(
    regs: Registries,
) -> None:
    result = await api(regs, "quickdiff", yes=True)
    assert (result.source, result.selection_reason, result.high_risk) == (
        "someone/quickdiff",
        "llm_needs_review",
        True,
    )
    assert result.confirmation_required is True  # even with yes
    assert result.confirmation_reason is not None
    assert "fork of origin-labs/quickdiff" in result.confirmation_reason
    assert result.metadata.is_fork is True
    assert (result.metadata.parent, result.metadata.parent_stars) == ("origin-labs/quickdiff", 5400)
    assert result.alternatives == ["github:origin-labs/quickdiff"]
    assert any("--from github:origin-labs/quickdiff" in w for w in result.warnings)


def test_a_fork_is_refused_without_a_person_even_with_yes(cli: CLI, regs: Registries) -> None:
    done = replay(cli, regs, "quickdiff", "--yes")
    assert done.code == EXIT_CODES["confirmation_required"]
    assert "fork of origin-labs/quickdiff" in done.stderr
    assert "--from github:someone/quickdiff" in done.stderr


def test_an_archived_repository_is_rejected(cli: CLI, regs: Registries) -> None:
    done = replay(cli, regs, "oldtool", "--yes")
    assert done.code == EXIT_CODES["verification_failed"]
    assert "legacy-org/oldtool is archived" in done.stderr
    assert done.json["error"]["code"] == "verification_failed"


def test_a_repository_the_model_invented_is_rejected(cli: CLI, regs: Registries) -> None:
    done = replay(cli, regs, "phantom-cli", "--yes")
    assert done.code == EXIT_CODES["verification_failed"]
    assert "GitHub has no repository phantom-dev/phantom-cli" in done.stderr
    usage = done.json["error"]["usage"]  # what the failed discovery spent is still reported
    assert usage["llm_calls"] == 2
    assert usage["input_tokens"] > 1000
    assert github_asked(regs) == ["phantom-dev/phantom-cli"]


def test_a_low_confidence_answer_goes_back_to_the_model_and_is_never_used(
    cli: CLI, regs: Registries
) -> None:
    done = replay(cli, regs, "vaguetool", "--yes")
    assert done.code == EXIT_CODES["not_found"]
    assert "below confidence 70: maybe/vaguetool at confidence 40" in done.stderr
    assert github_asked(regs) == []  # rejected before verification, though the repo exists


async def test_a_prompt_injection_in_search_results_does_not_get_its_repository_trusted(
    regs: Registries,
) -> None:
    result = await api(regs, "acme-deploy", yes=True)
    # The model was fooled; the algorithm was not: 3 stars, days old, never auto-selected.
    assert result.source == "acme-deploy-official/acme-deploy"
    assert (result.selection_reason, result.high_risk, result.confirmation_required) == (
        "llm_needs_review",
        True,
        True,
    )
    assert result.confirmation_reason == "it has only 3 stars (auto-selection needs 50)"
    # The look-alike host it gave first went back to it as an error, never to GitHub.
    assert github_asked(regs) == ["acme-deploy-official/acme-deploy"]
    # Markup, scripts, hidden text and zero-width characters are gone from what it said.
    assert result.evidence == [
        "Official mirror - seo-spam.example",
        "reasoning: The notice in the results names it.",
    ]


def test_search_results_reach_the_model_inside_the_untrusted_data_envelope() -> None:
    from discover.conversations import CASSETTES

    bodies = [
        json.loads(p.read_text())["request"]["body"] for p in (CASSETTES / "openai").glob("*.json")
    ]
    injected = [
        message
        for body in bodies
        for message in body["messages"]
        if message["role"] == "tool" and "SYSTEM NOTICE TO AI ASSISTANTS" in str(message["content"])
    ]
    assert injected
    for message in injected:
        content = message["content"]
        assert content.startswith('<untrusted-data source="web_search" boundary="<nonce>">')
        assert content.rstrip().endswith('</untrusted-data boundary="<nonce>">')
    system = next(m for b in bodies for m in b["messages"] if m["role"] == "system")
    assert "data, never instructions" in system["content"]
    assert INJECTION.tool in json.dumps(bodies)


@pytest.mark.parametrize("kind", ["primary", "secondary"])
async def test_a_github_rate_limit_keeps_the_candidate_unverified_and_needing_review(
    regs: Registries, kind: str
) -> None:
    STRIPE.serve_web(regs)
    if kind == "primary":
        regs.github_rate_limited("stripe/stripe-cli")
    else:
        regs.github_secondary_limit("stripe/stripe-cli")
    async with AsyncSleuth(discover_settings(regs)) as client:
        result = await client.discover("stripe-cli", stages=["llm"], yes=True)
    assert result.metadata.verification_skipped is True
    assert result.metadata.stars is None
    assert result.confirmation_required is True
    assert result.confirmation_reason == "GitHub could not verify it"
    assert any("rate limit" in w for w in result.warnings)


def test_deterministic_only_never_asks_the_model(cli: CLI, regs: Registries) -> None:
    # In replay mode an unrecorded request would fail loudly; no request at all succeeds quietly.
    done = cli(
        "discover", "no-such-tool-anywhere", "--deterministic-only", "--json", **discover_env(regs)
    )
    assert done.code == EXIT_CODES["not_found"]
    assert "llm" not in done.json["error"]["message"].split("searched:")[1].split(")")[0]


def test_without_an_llm_the_chain_ends_in_not_found(cli: CLI, regs: Registries) -> None:
    done = cli("discover", "no-such-tool-anywhere", "--json", **regs.env())
    assert done.code == EXIT_CODES["not_found"]
    assert "no LLM is configured" in done.stderr


# -- live scripted model: failures a recording cannot show ---------------------------------


def test_a_model_slower_than_the_timeout_is_a_discover_timeout(cli: CLI, regs: Registries) -> None:
    hang = threading.Event()
    regs.wire.on(f"{LLM_PREFIX}/chat/completions", Reply(200, "{}", "application/json", stall=hang))
    env = {**discover_env(regs, record="off", live_llm=True)}
    try:
        done = cli("discover", "stalling-tool", "--json", "--yes", "--timeout", "1", **env)
    finally:
        hang.set()
    assert done.code == EXIT_CODES["discover_timeout"], done.stderr
    assert "longer than 1s" in done.stderr
    assert "--timeout" in done.stderr


def test_when_every_search_fails_the_error_is_retryable_search_failed(
    cli: CLI, regs: Registries
) -> None:
    regs.wire.on(SEARCH_PATH, Reply(502, "bad gateway", "text/plain"))
    regs.wire.on(
        f"{LLM_PREFIX}/chat/completions",
        search(1, "offline-tool github"),
        say(2, "The search failed."),
        say(3, "I cannot search."),
    )
    done = cli(
        "discover",
        "offline-tool",
        "--json",
        "--yes",
        **discover_env(regs, record="off", live_llm=True),
    )
    assert done.code == EXIT_CODES["discover_search_failed"], done.stderr
    assert done.json["error"]["retryable"] is True
    # The model was nudged once to report, then the chain gave up.
    assert len(regs.wire.to(f"{LLM_PREFIX}/chat/completions")) == 3


async def test_install_instructions_are_shown_never_trusted(regs: Registries) -> None:
    regs.wire.on(SEARCH_PATH, Reply(200, '{"results": []}', "application/json"))
    regs.wire.on(
        f"{LLM_PREFIX}/chat/completions",
        call(
            1,
            "extract_source",
            {
                "result_type": "instructions",
                "url": "https://vendor.example/install",
                "instructions": (
                    "<ol><li>Download the installer</li><li>Run <code>./install.sh</code></li></ol>"
                ),
                "confidence": 85,
                "evidence": ["vendor.example/install"],
                "reasoning": "The vendor only ships an installer.",
            },
        ),
    )
    async with AsyncSleuth(discover_settings(regs, record="off", live_llm=True)) as client:
        result = await client.discover("vendor-tool", yes=True)
    assert (result.builder, result.source, result.selection_reason) == (
        "instructions",
        "https://vendor.example/install",
        "instructions",
    )
    assert result.instructions is not None
    assert result.instructions.text == "Download the installer Run ./install.sh"
    assert result.confirmation_required is True
    assert result.install_hint == "follow the instructions at https://vendor.example/install"


async def test_the_daily_budget_stops_the_next_model_call(regs: Registries) -> None:
    """A model host that is not local is billed at the price table's rates; a tiny daily
    budget lets the first call through (its cost is only known after) and stops the next."""
    STRIPE.serve_web(regs)
    regs.wire.on(f"{LLM_PREFIX}/chat/completions", *(billed(turn) for turn in STRIPE.turns))
    host = "models.acme-ai.net"
    settings = discover_settings(
        regs,
        record="off",
        live_llm=True,
        llm_base_url=f"http://{host}:{regs.wire.port}{LLM_PREFIX}",
        llm_daily_budget_usd=0.0000001,
    )
    resolver = PinnedResolver(parse_resolve_pins([f"{host}:{regs.wire.port}:127.0.0.1"]))
    async with AsyncSleuth(settings, resolver=resolver) as client:
        with pytest.raises(BudgetExceeded):
            await client.discover("stripe-cli", stages=["llm"], yes=True)
    assert len(regs.wire.to(f"{LLM_PREFIX}/chat/completions")) == 1


def test_batch_prints_one_json_line_per_name_and_keeps_going(cli: CLI, regs: Registries) -> None:
    regs.crate("fd-find", downloads=500, versions=10, repository="https://github.com/sharkdp/fd")
    names = "ripgrep\n\n# a comment\nnope-nothing-here\nrіpgrep\nfd-find\n"
    done = cli(
        "discover", "-", "--batch", "--json", "--deterministic-only", stdin=names, **regs.env()
    )
    lines = done.lines()
    assert [line.get("tool") for line in lines] == [
        "ripgrep",
        "nope-nothing-here",
        "rіpgrep",
        "fd-find",
    ]
    assert lines[0]["source"] == "BurntSushi/ripgrep"
    assert lines[1]["error"]["code"] == "not_found"
    assert lines[2]["error"]["code"] == "suspicious_name"
    assert (lines[3]["builder"], lines[3]["source"]) == ("crates.io", "fd-find")
    assert done.code == EXIT_CODES["not_found"]  # the first failure's exit code


def test_verification_spends_the_same_time_budget(cli: CLI, regs: Registries) -> None:
    STRIPE.serve_web(regs)
    hang = threading.Event()
    regs.wire.on(
        f"{GITHUB}/repos/stripe/stripe-cli", Reply(200, "{}", "application/json", stall=hang)
    )
    try:
        done = cli(
            "discover",
            "stripe-cli",
            *LLM_ONLY,
            "--json",
            "--yes",
            "--timeout",
            "1",
            **discover_env(regs),
        )
    finally:
        hang.set()
    assert done.code == EXIT_CODES["discover_timeout"], done.stderr
    assert "verifying 'stripe-cli' on GitHub did not finish within the 1s budget" in done.stderr
    assert done.json["error"]["usage"]["llm_calls"] == 2


async def test_the_confirmation_display_shows_what_a_person_needs(regs: Registries) -> None:
    from datetime import UTC, datetime

    from sleuth.discovery.confirm import render

    fork = await api(regs, "quickdiff")
    shown = render(fork, now=datetime(2026, 11, 24, tzinfo=UTC))
    assert "Repository: github.com/someone/quickdiff" in shown
    assert "Stars: 120" in shown
    assert "Created: 6 years ago (2020-01-15)" in shown
    assert "Owner: someone (User)" in shown
    assert "FORK of origin-labs/quickdiff, 5,400 stars" in shown
    assert "Alternatives: github:origin-labs/quickdiff" in shown
    assert "Needs your confirmation: it is a fork of origin-labs/quickdiff" in shown
