"""Policy before the cache, through ``sleuth fetch`` run as a person runs it.

Each run is a fresh process; all of them share one file cache, the way two
commands (or two users of one cache directory) do. Only loopback is reached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import PARAGRAPHS
from loopback import Site, article
from sleuth.errors import EXIT_CODES


def sleuth(tmp_path: Path, *args: str, **env: str) -> tuple[int, Any, str]:
    """Run ``sleuth`` with a clean environment and the shared cache directory."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    clean |= {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "SLEUTH_CACHE": "file",
        "SLEUTH_CACHE_DIR": str(tmp_path / "cache"),
        "SLEUTH_RENDER": "never",
        **env,
    }
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", *args],
        capture_output=True,
        text=True,
        env=clean,
        timeout=60,
        check=False,
    )
    data = json.loads(done.stdout) if "--json" in args and done.stdout.strip() else done.stdout
    return done.returncode, data, done.stderr


def test_a_cached_internal_page_is_refused_to_a_run_without_the_allowlist(
    site: Site, tmp_path: Path
) -> None:
    url = site.add("/article.html", article("Internal article", PARAGRAPHS))
    allow = {"SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}"}
    code, first, err = sleuth(tmp_path, "fetch", url, "--json", **allow)
    assert (code, first["outcome"], first["cache"]) == (0, "ok", "miss"), err
    for spelling in (url, f"http://2130706433:{site.port}/article.html"):
        code, refused, _ = sleuth(tmp_path, "fetch", spelling, "--json")
        assert code == EXIT_CODES["blocked"]
        assert refused["outcome"] == "blocked"
        assert refused["text"] == ""
    code, again, _ = sleuth(tmp_path, "fetch", url, "--json", **allow)
    assert (code, again["outcome"], again["cache"]) == (0, "ok", "hit")
    assert again["text"] == first["text"]
    assert site.paths().count("/article.html") == 1


def test_a_page_cached_with_ignore_robots_is_refused_to_a_run_that_obeys(
    site: Site, tmp_path: Path
) -> None:
    site.add(
        "/robots.txt", "User-agent: *\nDisallow: /private\n", headers={"Content-Type": "text/plain"}
    )
    url = site.add("/private/notes", article("Private notes", PARAGRAPHS))
    allow = {"SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}"}
    code, first, err = sleuth(tmp_path, "fetch", url, "--ignore-robots", "--json", **allow)
    assert (code, first["cache"]) == (0, "miss"), err
    code, refused, _ = sleuth(tmp_path, "fetch", url, "--json", **allow)
    assert code == EXIT_CODES["robots_disallowed"]
    assert (refused["outcome"], refused["text"]) == ("robots_disallowed", "")
    code, again, _ = sleuth(tmp_path, "fetch", url, "--ignore-robots", "--json", **allow)
    assert (code, again["cache"]) == (0, "hit")
    assert site.paths().count("/private/notes") == 1


def test_start_index_prints_the_text_from_that_index_and_no_title(
    site: Site, tmp_path: Path
) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    allow = {"SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}"}
    code, whole, err = sleuth(tmp_path, "fetch", url, "--json", **allow)
    assert code == 0, err
    code, shown, err = sleuth(tmp_path, "fetch", url, "--start-index", "50", **allow)
    assert code == 0, err
    assert "Lighthouse logbooks" not in shown
    assert shown.rstrip("\n") == whole["text"][50:].rstrip("\n")
    code, head, err = sleuth(tmp_path, "fetch", url, "--max-chars", "50", **allow)
    assert code == 0, err
    assert head.startswith("Lighthouse logbooks\n\n")
