"""Stage 2 through ``sleuth discover``: every registry's wire format, the quality filter at
each threshold, ranking, every decision reason, probe errors versus absence, the deadline.

The registries are loopback servers speaking the documented APIs (see ``registries.py``).
"""

from __future__ import annotations

import threading

import pytest

from discover.conftest import CLI, Done
from discover.registries import PREFIX, Registries
from search.wire import Reply
from sleuth.errors import EXIT_CODES


def discover(cli: CLI, regs: Registries, *args: str, **env: str) -> Done:
    return cli("discover", *args, "--json", **{**regs.env(), **env})


def test_one_match_is_a_single_match(cli: CLI, regs: Registries) -> None:
    regs.crate("fd-find", downloads=500, versions=10, repository="https://github.com/sharkdp/fd")
    done = discover(cli, regs, "fd-find")
    assert done.code == 0, done.stderr
    data = done.json
    assert (data["stage"], data["builder"], data["source"]) == ("ecosystem", "crates.io", "fd-find")
    assert data["selection_reason"] == "single_match"
    assert data["install_hint"] == "cargo install fd-find"
    assert data["probe_results"] == [
        {
            "source": "crates.io:fd-find",
            "downloads": 500,
            "version_count": 10,
            "has_repository": True,
        }
    ]
    assert data["alternatives"] == []
    assert data["warnings"] == []  # everything else answered 404: absent, not failed
    assert data["confirmation_required"] is False


def test_a_tenfold_lead_with_history_and_repository_wins(cli: CLI, regs: Registries) -> None:
    regs.npm(
        "prettier",
        downloads=50_000,
        versions=20,
        repository={"type": "git", "url": "git+https://github.com/prettier/prettier.git"},
    )
    regs.crate("prettier", downloads=1_000, versions=10, repository=None)
    regs.gem("prettier", downloads=5_000, versions=8, source_code_uri=None)
    done = discover(cli, regs, "prettier")
    assert done.code == 0, done.stderr
    data = done.json
    assert (data["builder"], data["source"], data["selection_reason"]) == (
        "npm",
        "prettier",
        "10x_popularity_gap",
    )
    assert data["downloads_ratio"] == 10.0
    assert data["alternatives"] == ["rubygems:prettier", "crates.io:prettier"]
    assert data["install_hint"] == "npm install -g prettier"
    assert data["high_risk"] is False


@pytest.mark.parametrize(
    ("versions", "repository", "runner_downloads"),
    [
        (2, "https://github.com/x/y", 100),  # too short a history
        (20, None, 100),  # no repository
        (20, "https://github.com/x/y", 101),  # less than ten times
    ],
)
def test_no_clear_winner_without_a_terminal_is_ambiguous_and_stops_the_chain(
    cli: CLI, regs: Registries, versions: int, repository: str | None, runner_downloads: int
) -> None:
    regs.npm("thing", downloads=1_000, versions=versions, repository=repository)
    regs.crate("thing", downloads=runner_downloads, versions=6, repository=None)
    llm = regs.wire.url("/llm/v1")
    done = discover(cli, regs, "thing", SLEUTH_LLM_PROVIDER="openai", SLEUTH_LLM_BASE_URL=llm)
    assert done.code == EXIT_CODES["ambiguous"], done.stderr
    assert "sleuth discover thing --from npm:thing" in done.stderr
    assert "sleuth discover thing --from crates.io:thing" in done.stderr
    assert done.json["error"]["code"] == "ambiguous"
    assert done.json["error"]["choices"] == ["npm:thing", "crates.io:thing"]
    assert not [r for r in regs.wire.requests if r.path.startswith("/llm")]  # never the LLM


def test_batch_takes_the_top_match_as_high_risk_priority_fallback(
    cli: CLI, regs: Registries
) -> None:
    regs.npm("thing", downloads=1_000, versions=20, repository="https://github.com/x/y")
    regs.crate("thing", downloads=400, versions=6, repository=None)
    done = discover(cli, regs, "thing", "--batch")
    assert done.code == 0, done.stderr
    data = done.json
    assert (data["builder"], data["selection_reason"], data["high_risk"]) == (
        "npm",
        "priority_fallback",
        True,
    )
    assert data["downloads_ratio"] == 2.5
    assert data["alternatives"] == ["crates.io:thing"]


def test_batch_fallback_has_no_ratio_when_a_count_is_zero(cli: CLI, regs: Registries) -> None:
    regs.pypi("thing", releases=9, project_urls={"Source": "https://github.com/x/y"})
    regs.crate("thing", downloads=400, versions=6, repository=None)
    data = discover(cli, regs, "thing", "--batch").json
    assert (data["builder"], data["selection_reason"]) == ("crates.io", "priority_fallback")
    assert data["downloads_ratio"] is None
    assert data["alternatives"] == ["pypi:thing"]


def test_ties_are_broken_by_priority(cli: CLI, regs: Registries) -> None:
    regs.formula("tie", installs=700)
    regs.cask("tie", installs=700)
    regs.pypi("tie", releases=4, project_urls=None)
    data = discover(cli, regs, "tie", "--batch").json
    assert (data["builder"], data["source"]) == ("cask", "tie")
    assert data["alternatives"] == ["homebrew:tie", "pypi:tie"]
    assert data["install_hint"] == "brew install --cask tie"


def test_equal_counts_rank_pypi_before_npm_before_rubygems(cli: CLI, regs: Registries) -> None:
    regs.gem("same", downloads=0, versions=7, source_code_uri="https://github.com/a/b")
    regs.npm("same", downloads=0, versions=7)
    regs.pypi("same", releases=7, project_urls=None)
    data = discover(cli, regs, "same", "--batch").json
    assert [data["builder"], *data["alternatives"]] == ["pypi", "npm:same", "rubygems:same"]


# The quality filter, OR logic, one registry at a time: (publish, passes).
THRESHOLDS = [
    ("crates", dict(downloads=99, versions=4), False),
    ("crates", dict(downloads=100, versions=1), True),
    ("crates", dict(downloads=0, versions=5), True),
    ("npm", dict(downloads=99, versions=4), False),
    ("npm", dict(downloads=100, versions=1), True),
    ("npm", dict(downloads=0, versions=5), True),
    ("gem", dict(downloads=999, versions=4), False),
    ("gem", dict(downloads=1000, versions=1), True),
    ("gem", dict(downloads=0, versions=5), True),
    ("pypi", dict(releases=2), False),
    ("pypi", dict(releases=3), True),
    ("go", dict(versions=2), False),
    ("go", dict(versions=3), True),
    ("cpan", dict(river=0, releases=2), False),
    ("cpan", dict(river=1, releases=1), True),
    ("cpan", dict(river=0, releases=3), True),
    ("formula", dict(installs=0), True),
    ("cask", dict(installs=0), True),
]


@pytest.mark.parametrize(("kind", "counts", "passes"), THRESHOLDS)
def test_the_quality_filter_at_each_threshold(
    cli: CLI, regs: Registries, kind: str, counts: dict[str, int], passes: bool
) -> None:
    name = "github.com/acme/tool" if kind == "go" else "tool"
    publish = {
        "crates": lambda: regs.crate(name, repository=None, **counts),
        "npm": lambda: regs.npm(name, **counts),
        "gem": lambda: regs.gem(name, source_code_uri=None, **counts),
        "pypi": lambda: regs.pypi(name, project_urls=None, **counts),
        "go": lambda: regs.go(name, origin=True, **counts),
        "cpan": lambda: regs.cpan(name, repository=False, **counts),
        "formula": lambda: regs.formula(name, **counts),
        "cask": lambda: regs.cask(name, **counts),
    }
    publish[kind]()
    done = discover(cli, regs, name, "--deterministic-only")
    if passes:
        assert done.code == 0, done.stderr
        assert done.json["selection_reason"] == "single_match"
    else:
        assert done.code == EXIT_CODES["not_found"], done.stdout
        assert "--from" in done.stderr


def test_every_wire_format_is_read_into_probe_results(cli: CLI, regs: Registries) -> None:
    regs.crate("multi", downloads=10, versions=6, repository="https://github.com/m/multi")
    regs.npm("multi", downloads=20, versions=7, repository="git://github.com/m/multi.git")
    regs.pypi("multi", releases=8, project_urls={"Homepage": "https://multi.example"})
    regs.gem("multi", downloads=3000, versions=9, source_code_uri="https://github.com/m/multi")
    regs.formula("multi", installs=40)
    regs.cask("multi", installs=50)
    regs.cpan("multi", river=60, releases=11, repository=True)
    data = discover(cli, regs, "multi", "--batch").json
    assert {r["source"]: r for r in data["probe_results"]} == {
        "crates.io:multi": {
            "source": "crates.io:multi",
            "downloads": 10,
            "version_count": 6,
            "has_repository": True,
        },
        "npm:multi": {
            "source": "npm:multi",
            "downloads": 20,
            "version_count": 7,
            "has_repository": True,
        },
        "pypi:multi": {
            "source": "pypi:multi",
            "downloads": 0,
            "version_count": 8,
            "has_repository": True,
        },
        "rubygems:multi": {
            "source": "rubygems:multi",
            "downloads": 3000,
            "version_count": 9,
            "has_repository": True,
        },
        "homebrew:multi": {
            "source": "homebrew:multi",
            "downloads": 40,
            "version_count": 0,
            "has_repository": True,
        },
        "cask:multi": {
            "source": "cask:multi",
            "downloads": 50,
            "version_count": 0,
            "has_repository": True,
        },
        "cpan:multi": {
            "source": "cpan:multi",
            "downloads": 60,
            "version_count": 11,
            "has_repository": True,
        },
    }
    assert data["source"] == "multi"
    assert data["builder"] == "rubygems"  # 3000 downloads; not ten times cpan's 60? it is
    assert data["selection_reason"] == "10x_popularity_gap"


def test_a_go_module_path_is_probed_on_the_module_proxy(cli: CLI, regs: Registries) -> None:
    regs.go("github.com/Acme/Tool", versions=4, origin=True)
    regs.go("github.com/acme/tool", versions=4, origin=True)
    data = discover(cli, regs, "github.com/acme/tool").json
    assert (data["builder"], data["source"]) == ("go", "github.com/acme/tool")
    assert data["install_hint"] == "go install github.com/acme/tool@latest"
    assert data["probe_results"][0]["version_count"] == 4


def test_names_are_percent_encoded_in_paths(cli: CLI, regs: Registries) -> None:
    regs.formula("gcc@13", installs=9000)
    regs.formula("libsigc++", installs=800)
    assert discover(cli, regs, "gcc@13").json["install_hint"] == "brew install gcc@13"
    assert discover(cli, regs, "libsigc++").json["source"] == "libsigc++"
    paths = [r.path for r in regs.wire.requests]
    assert f"{PREFIX['HOMEBREW']}/api/formula/gcc%4013.json" in paths
    assert f"{PREFIX['HOMEBREW']}/api/formula/libsigc%2B%2B.json" in paths
    assert f"{PREFIX['NPM']}/libsigc%2B%2B" in paths


def test_a_match_must_carry_the_same_name(cli: CLI, regs: Registries) -> None:
    regs.wire.on(
        f"{PREFIX['NPM']}/renamed",
        Reply(
            200,
            '{"name": "something-else", "versions": {"1.0.0": {}, "1.1.0": {}}}',
            "application/json",
        ),
    )
    # PyPI answers with its own spelling of the name: the same name.
    regs.pypi("renamed", releases=5, project_urls=None, display_name="ReNamed")
    data = discover(cli, regs, "renamed").json
    assert [r["source"] for r in data["probe_results"]] == ["pypi:ReNamed"]


def test_a_disabled_cask_is_rejected(cli: CLI, regs: Registries) -> None:
    regs.cask("oldapp", installs=90_000, disabled=True)
    done = discover(cli, regs, "oldapp", "--deterministic-only")
    assert done.code == EXIT_CODES["not_found"]


def test_probe_errors_are_warnings_never_absence(cli: CLI, regs: Registries) -> None:
    regs.wire.on(f"{PREFIX['NPM']}/flaky", Reply(503, "upstream down", "text/plain"))
    regs.wire.on(f"{PREFIX['PYPI']}/pypi/flaky/json", Reply(200, "<html>oops</html>", "text/html"))
    regs.wire.on(
        f"{PREFIX['CRATES_IO']}/api/v1/crates/flaky", Reply(200, '{"crate": 7}', "application/json")
    )
    regs.gem("flaky", downloads=5000, versions=12, source_code_uri="https://github.com/f/flaky")
    done = discover(cli, regs, "flaky")
    assert done.code == 0, done.stderr
    data = done.json
    assert data["source"] == "flaky"
    assert data["builder"] == "rubygems"
    warnings = "\n".join(data["warnings"])
    assert "npm probe failed: HTTP 503" in warnings
    assert "pypi probe failed" in warnings
    assert "not JSON" in warnings
    assert "crates.io probe failed: malformed reply" in warnings
    assert "homebrew" not in warnings  # a 404 is absence, not a failure


def test_npm_downloads_are_best_effort(cli: CLI, regs: Registries) -> None:
    regs.npm("quiet", downloads=None, versions=6, repository="https://github.com/q/quiet")
    regs.wire.on(
        f"{PREFIX['NPM_DOWNLOADS']}/downloads/point/last-week/quiet", Reply(500, "", "text/plain")
    )
    data = discover(cli, regs, "quiet").json
    assert data["probe_results"] == [
        {"source": "npm:quiet", "downloads": 0, "version_count": 6, "has_repository": True}
    ]


def test_one_hung_registry_costs_the_deadline_not_the_answer(cli: CLI, regs: Registries) -> None:
    hang = threading.Event()
    regs.wire.on(
        f"{PREFIX['RUBYGEMS']}/api/v1/gems/slowpoke.json",
        Reply(200, "{}", "application/json", stall=hang),
    )
    regs.crate("slowpoke", downloads=300, versions=9, repository="https://github.com/s/slowpoke")
    try:
        done = discover(cli, regs, "slowpoke")
    finally:
        hang.set()
    assert done.code == 0, done.stderr
    data = done.json
    assert (data["builder"], data["selection_reason"]) == ("crates.io", "single_match")
    assert any(
        "rubygems probe failed: no answer within the 3s probe deadline" in w
        for w in data["warnings"]
    )
    assert regs.wire.to(f"{PREFIX['RUBYGEMS']}/api/v1/gems/slowpoke.json")  # it was asked


def test_nothing_anywhere_is_not_found_with_the_from_suggestion(cli: CLI, regs: Registries) -> None:
    done = discover(cli, regs, "nothing-here", "--deterministic-only")
    assert done.code == EXIT_CODES["not_found"]
    assert "sleuth discover nothing-here --from BUILDER:SOURCE" in done.stderr
    assert done.json["error"]["retryable"] is False


def test_stages_choose_what_runs(cli: CLI, regs: Registries) -> None:
    regs.crate(
        "ripgrep", downloads=90_000, versions=40, repository="https://github.com/BurntSushi/ripgrep"
    )
    assert discover(cli, regs, "ripgrep").json["stage"] == "registry"
    data = discover(cli, regs, "ripgrep", "--stages", "ecosystem").json
    assert (data["stage"], data["builder"]) == ("ecosystem", "crates.io")
    bad = discover(cli, regs, "ripgrep", "--stages", "registry,web")
    assert bad.code == EXIT_CODES["usage_error"]
    assert "unknown stage 'web'" in bad.stderr


def test_not_found_after_probe_failures_says_so_and_is_retryable(
    cli: CLI, regs: Registries
) -> None:
    regs.wire.on(f"{PREFIX['NPM']}/gone-missing", Reply(502, "bad gateway", "text/plain"))
    done = discover(cli, regs, "gone-missing", "--deterministic-only")
    assert done.code == EXIT_CODES["not_found"]
    assert "the npm probe(s) failed, so trying again may help" in done.stderr
    assert done.json["error"]["retryable"] is True


def test_a_near_miss_found_elsewhere_carries_a_typosquat_warning(
    cli: CLI, regs: Registries
) -> None:
    regs.crate("ripgerp", downloads=150, versions=2, repository=None)
    data = discover(cli, regs, "ripgerp").json
    assert data["source"] == "ripgerp"
    assert any("near miss of 'ripgrep'" in w for w in data["warnings"])
