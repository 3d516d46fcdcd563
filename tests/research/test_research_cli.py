"""``sleuth research`` as a person or script runs it, against the loopback web."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sleuth.errors import EXIT_CODES

from .test_research import BLOG, DOCS, INJECTED, QUESTION, Web, web  # noqa: F401 - fixture


def run_research(web: Web, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env |= {
        "SEARXNG_URL": web.site.origin,
        "SLEUTH_SEARCH_PROVIDERS": "searxng",
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{web.site.port}",
        "SLEUTH_CACHE": "file",
        "SLEUTH_CACHE_DIR": str(tmp_path / "cache"),
        "SLEUTH_RENDER": "never",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "sleuth", "research", QUESTION, *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )


def test_research_json_quotes_pages_verbatim(web: Web, tmp_path: Path) -> None:
    web.page("/docs/timeouts", "Nimbus client timeouts", DOCS)
    web.page("/blog/nimbus", "Nimbus release notes", BLOG)
    web.page("/blog/injected", "Nimbus tips", INJECTED)
    done = run_research(web, tmp_path, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", "no progress or logs when stdout is piped"
    digest = json.loads(done.stdout)
    assert digest["query"] == QUESTION
    assert 1 <= len(digest["bullets"]) <= 8
    ids = {c["id"] for c in digest["citations"]}
    assert ids == set(range(1, len(ids) + 1))
    corpus = " ".join(DOCS + BLOG + INJECTED)
    for bullet in digest["bullets"]:
        assert len(bullet["text"]) <= 300
        assert set(bullet["citations"]) <= ids
        assert " ".join(bullet["quote"].split()) in " ".join(corpus.split())
    assert "PWNED" not in done.stdout, "hidden instructions never reach the digest"
    assert len(done.stdout) / 4 < 1500 * 1.5


def test_research_markdown_cites_inline(web: Web, tmp_path: Path) -> None:
    web.page("/docs/timeouts", "Nimbus client timeouts", DOCS)
    done = run_research(web, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[1]" in done.stdout
    assert web.site.origin + "/docs/timeouts" in done.stdout


def test_research_with_no_results_says_why_and_exits_non_zero(web: Web, tmp_path: Path) -> None:
    done = run_research(web, tmp_path, "--json")
    assert done.returncode == EXIT_CODES["no_results"]
    digest = json.loads(done.stdout)
    assert digest["bullets"] == []
    assert digest["errors"][-1]["code"] == "no_results"
    assert "found nothing" in digest["errors"][-1]["message"]
