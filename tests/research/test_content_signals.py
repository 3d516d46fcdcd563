"""The sites' own signals: robots.txt's ``Content-Signal`` is reported on fetches, and a
site that says ``ai-input=no`` is left out of what a model reads, unless a person says
otherwise at the CLI. Two loopback sites: one saying no, a look-alike saying yes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pydantic import ValidationError

import sleuth.api  # noqa: F401  (declares ask)
from loopback import Site, Web, article, serve
from sleuth.api import AsyncSleuth
from sleuth.cache.base import cache_key
from sleuth.cache.memory import MemoryCache
from sleuth.config import Settings
from sleuth.operation import OPERATIONS
from sleuth.pages.robots import content_signals, robots_url
from sleuth.tools import default_registry
from webs import research

QUESTION = "What is the default timeout of the Nimbus client and how do I change it?"
DOCS = [
    "Nimbus applies a default timeout of five seconds to every request, and it counts "
    "connecting, reading and writing separately, so one slow phase cannot hide another.",
    "To change the default timeout for a single call, pass a timeout argument to the request "
    "method; to change it for every call, set the timeout when you create the client.",
]
BLOG = [
    "We moved our crawler to Nimbus last spring, and the first surprise was how often the "
    "default timeout of five seconds cut off our slowest partners in the evening rush.",
    "We raised the read timeout to twenty seconds for the two partners that need it and "
    "kept the default everywhere else, which halved our error rate within a week.",
]
TEXT = {"Content-Type": "text/plain"}


# -- the parser --------------------------------------------------------------------------


def test_the_group_of_sleuth_wins_over_the_star_group() -> None:
    body = (
        "User-agent: *\nContent-Signal: search=yes, ai-input=no\nDisallow:\n\n"
        "User-agent: Other\nUser-agent: SLEUTH\nContent-Signal: ai-input=yes\n"
    )
    assert content_signals(body) == {"ai-input": "yes"}
    assert content_signals(body, "somebot") == {"search": "yes", "ai-input": "no"}


def test_case_spacing_and_comments_are_read() -> None:
    body = "user-AGENT:*\n  content-signal :  AI-Train = NO ,search=Yes  # ours\n"
    assert content_signals(body) == {"ai-train": "no", "search": "yes"}


def test_several_lines_combine_and_no_stands() -> None:
    body = (
        "Content-Signal: ai-train=no\n"  # above every group: for all
        "User-agent: *\nContent-Signal: ai-input=no\nContent-Signal: ai-input=yes, search=yes\n"
    )
    assert content_signals(body) == {"ai-train": "no", "ai-input": "no", "search": "yes"}


def test_other_groups_and_files_without_signals_say_nothing() -> None:
    assert content_signals("User-agent: gptbot\nContent-Signal: ai-input=no\n") == {}
    assert content_signals("User-agent: *\nDisallow: /private\n") == {}
    assert content_signals("") == {}


def test_malformed_pairs_are_skipped_and_unknown_keys_kept_bounded() -> None:
    body = (
        "User-agent: *\nContent-Signal: ai-input, =no, search=maybe, ai-train=, "
        f"future-use=Perhaps, {'k' * 100}={'v' * 100}\n"
        + "".join(f"Content-Signal: extra{n}=yes\n" for n in range(40))
    )
    found = content_signals(body)
    assert found["future-use"] == "Perhaps"
    assert found["k" * 40] == "v" * 40
    assert "search" not in found
    assert "ai-train" not in found
    assert "ai-input" not in found
    assert len(found) == 16


# -- two loopback sites ------------------------------------------------------------------


@pytest.fixture
def cache() -> MemoryCache:
    return MemoryCache(256)


@pytest.fixture
def web() -> Iterator[Web]:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        site.add("/robots.txt", "User-agent: *\nContent-Signal: ai-input=no\n", headers=TEXT)
        yield web


@pytest.fixture
def other(web: Web) -> Iterator[Site]:
    """The look-alike site: same pages, a robots.txt that says yes."""
    with serve() as site:
        site.add(
            "/robots.txt",
            "User-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n",
            headers=TEXT,
        )
        yield site


def _settings(web: Web, other: Site) -> Settings:
    return web.settings(allow_hosts=[f"127.0.0.1:{web.site.port}", f"127.0.0.1:{other.port}"])


def _pages(web: Web, other: Site) -> tuple[str, str]:
    refused = web.page("/docs/timeouts", "Nimbus timeouts", DOCS)
    used = other.add("/blog/nimbus", article("Moving to Nimbus", BLOG))
    web.result(used, "Moving to Nimbus")
    return refused, used


async def test_research_leaves_out_the_page_whose_site_says_no(
    web: Web, other: Site, cache: MemoryCache
) -> None:
    refused, used = _pages(web, other)
    digest = await research(QUESTION, settings=_settings(web, other), cache=cache)
    assert [(e.code, e.url) for e in digest.errors] == [("content_signal", refused)]
    assert "ai-input=no" in digest.errors[0].message
    assert [c.url for c in digest.citations] == [used]
    assert "/docs/timeouts" not in web.page_requests()  # not even read


async def test_a_person_in_python_may_set_the_signal_aside(
    web: Web, other: Site, cache: MemoryCache
) -> None:
    refused, used = _pages(web, other)
    digest = await research(
        QUESTION, settings=_settings(web, other), cache=cache, respect_content_signals=False
    )
    assert digest.errors == []
    assert {c.url for c in digest.citations} == {refused, used}


async def test_fetch_reports_the_signal_and_reads_the_page(
    web: Web, other: Site, cache: MemoryCache
) -> None:
    refused, used = _pages(web, other)
    async with AsyncSleuth(_settings(web, other), cache=cache) as session:
        page = await session.fetch(refused)
        assert page.ok
        assert "five seconds" in page.text
        assert page.metadata["content_signals"] == {"ai-input": "no"}
        yes = await session.fetch(used)
        assert yes.metadata["content_signals"] == {
            "search": "yes",
            "ai-input": "yes",
            "ai-train": "no",
        }
        # The page is cached now; for a model it is still left out.
        model = await session.fetch(refused, for_model=True)
        assert model.outcome == "content_signal"
        assert model.text == ""
        assert model.metadata["content_signals"] == {"ai-input": "no"}
    assert web.page_requests().count("/docs/timeouts") == 1


async def test_a_cached_page_follows_what_robots_txt_says_now(
    web: Web, other: Site, cache: MemoryCache
) -> None:
    _, used = _pages(web, other)
    settings = _settings(web, other)
    async with AsyncSleuth(settings, cache=cache) as session:
        assert (await session.fetch(used, for_model=True)).ok
    other.add("/robots.txt", "User-agent: *\nContent-Signal: ai-input=no\n", headers=TEXT)
    await cache.delete(cache_key("robots", robots_url(used)))  # its time is up: read afresh
    async with AsyncSleuth(settings, cache=cache) as session:
        hit = await session.fetch(used)
        assert hit.cache == "hit"
        assert hit.metadata["content_signals"] == {"ai-input": "no"}
        refused = await session.fetch(used, for_model=True)
        assert refused.outcome == "content_signal"
        assert refused.text == ""
    assert other.paths().count("/blog/nimbus") == 1


def test_no_tool_call_and_no_http_body_can_set_the_signal_aside() -> None:
    for name in ("research", "ask", "suggest"):
        assert "respect_content_signals" in {p.name for p in OPERATIONS[name].on("cli")}
        assert "respect_content_signals" not in {p.name for p in OPERATIONS[name].on("http")}
    for name, body in (("research", {"question": "q"}), ("ask", {"question": "q"})):
        model = OPERATIONS[name].model("http")
        for key in ("ignore_content_signals", "respect_content_signals"):
            with pytest.raises(ValidationError, match="Extra inputs"):
                model.model_validate({**body, key: False})
    arguments = default_registry().get("research").arguments
    for key in ("ignore_content_signals", "respect_content_signals"):
        with pytest.raises(ValidationError, match="Extra inputs"):
            arguments.model_validate({"question": "q", key: True})


# -- the command line ---------------------------------------------------------------------


def _cli(web: Web, other: Site, tmp_path: Path, *args: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env |= {
        "SEARXNG_URL": web.site.origin,
        "SLEUTH_SEARCH_PROVIDERS": "searxng",
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{web.site.port},127.0.0.1:{other.port}",
        "SLEUTH_CACHE": "file",
        "SLEUTH_CACHE_DIR": str(tmp_path / "cache"),
        "SLEUTH_RENDER": "never",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "research", QUESTION, "--format", "json", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_cli_leaves_the_page_out_unless_told_otherwise(
    web: Web, other: Site, tmp_path: Path
) -> None:
    refused, used = _pages(web, other)
    digest = _cli(web, other, tmp_path)
    assert [(e["code"], e["url"]) for e in digest["errors"]] == [  # type: ignore[index, union-attr]
        ("content_signal", refused)
    ]
    digest = _cli(web, other, tmp_path, "--ignore-content-signals")
    assert digest["errors"] == []
    cited = {c["url"] for c in digest["citations"]}  # type: ignore[index, union-attr]
    assert cited == {refused, used}
    assert urlsplit(refused).path in web.page_requests()
