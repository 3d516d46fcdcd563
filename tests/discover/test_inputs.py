"""What may reach a lookup, a URL path or an install command: names, --from and GitHub URLs."""

from __future__ import annotations

import pytest

from discover.conftest import CLI
from discover.registries import Registries
from sleuth.discovery.names import edit_distance, near_misses, normalize_name
from sleuth.discovery.sources import github_from_url, parse_from
from sleuth.errors import EXIT_CODES, SuspiciousName, UsageError


@pytest.mark.parametrize(
    ("raw", "name"),
    [("  Ripgrep\n", "ripgrep"), ("GCC@13", "gcc@13"), ("libsigc++", "libsigc++"), ("ｊｑ", "jq")],
)
def test_names_are_trimmed_normalised_and_lower_cased(raw: str, name: str) -> None:
    assert normalize_name(raw) == name


@pytest.mark.parametrize(
    "raw", ["rіpgrep", "јq", "ripgrep\u200b", "ｒｉｐｇｒｅｐ\u0301", "κubectl"]
)
def test_names_with_other_scripts_or_hidden_marks_are_refused(raw: str) -> None:
    with pytest.raises((SuspiciousName, UsageError)):
        normalize_name(raw)


def test_the_refusal_names_the_character_and_why() -> None:
    with pytest.raises(SuspiciousName) as caught:
        normalize_name("rіpgrep")
    assert "U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I" in caught.value.message
    assert "mixes scripts" in caught.value.message


def test_near_misses_are_one_or_two_edits_and_short_names_are_left_alone() -> None:
    known = ["ripgrep", "kubectl", "jq", "yq", "terraform"]
    assert near_misses("ripgerp", known) == ["ripgrep"]
    assert near_misses("kubect1", known) == ["kubectl"]
    assert near_misses("terrafrom", known) == ["terraform"]
    assert near_misses("jx", known) == []  # two letters are one edit from half the registry
    assert near_misses("ripgrep", known) == []
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("abc", "abcdef", 2) == 3  # cut off past the limit


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("stripe/stripe-cli", "stripe/stripe-cli"),
        ("github.com/stripe/stripe-cli", "stripe/stripe-cli"),
        ("https://github.com/stripe/stripe-cli", "stripe/stripe-cli"),
        ("https://www.github.com/stripe/stripe-cli.git/", "stripe/stripe-cli"),
        ("https://github.com.evil.example/stripe/stripe-cli", None),
        ("https://evil.example/github.com/stripe/stripe-cli", None),
        ("https://user:pw@github.com/stripe/stripe-cli", None),
        ("https://github.com:8443/stripe/stripe-cli", None),
        ("https://github.com/stripe/stripe-cli/releases", None),
        ("https://github.com/stripe/../etc", None),
        ("https://github.com/stripe/stripe-cli?tab=readme", None),
        ("ftp://github.com/stripe/stripe-cli", None),
        ("-stripe/stripe-cli", None),
        ("stripe/stripe cli", None),
        ("stripe/..", None),
        ("a" * 40 + "/x", None),
    ],
)
def test_only_plain_github_repository_shapes_are_accepted(text: str, source: str | None) -> None:
    assert github_from_url(text) == source


def test_from_parses_builders_their_aliases_and_rejects_the_rest() -> None:
    assert parse_from("github:cli/cli") == ("github", "cli/cli")
    assert parse_from("gh:https://github.com/cli/cli") == ("github", "cli/cli")
    assert parse_from("cargo:ripgrep") == ("crates.io", "ripgrep")
    assert parse_from("brew:gcc@13") == ("homebrew", "gcc@13")
    for bad in ["ripgrep", "github:", "apt:ripgrep", "npm:rm -rf /", "github:not a repo"]:
        with pytest.raises(UsageError):
            parse_from(bad)


def test_from_names_the_source_and_github_checks_it_exists(cli: CLI, regs: Registries) -> None:
    regs.repo("cli/cli", stars=40_000, description="GitHub's official command line tool")
    done = cli(
        "discover",
        "gh",
        "--from",
        "github:cli/cli",
        "--json",
        GITHUB_TOKEN="ghp_test",
        **regs.env(),
    )
    assert done.code == 0, done.stderr
    [asked] = regs.wire.to("/github-api/repos/cli/cli")
    assert asked.header("Authorization") == "Bearer ghp_test"
    assert asked.header("X-GitHub-Api-Version") == "2022-11-28"
    data = done.json
    assert (data["stage"], data["selection_reason"], data["source"]) == (
        "from",
        "user_specified",
        "cli/cli",
    )
    assert data["metadata"]["stars"] == 40_000
    missing = cli("discover", "gh", "--from", "github:nobody/nothing", "--json", **regs.env())
    assert missing.code == EXIT_CODES["verification_failed"]
    crate = cli("discover", "anything", "--from", "cargo:fd-find", "--json", **regs.env())
    assert crate.json["install_hint"] == "cargo install fd-find"
    bad = cli("discover", "gh", "--from", "apt:gh", **regs.env())
    assert bad.code == EXIT_CODES["usage_error"]
    assert "unknown builder 'apt'" in bad.stderr


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        ("npm:prettier", "npm install -g prettier"),
        ("pypi:httpie", "pipx install httpie"),
        ("gem:rails", "gem install rails"),
        (
            "go:golang.org/x/tools/cmd/goimports",
            "go install golang.org/x/tools/cmd/goimports@latest",
        ),
        ("homebrew:jq", "brew install jq"),
        ("cask:firefox", "brew install --cask firefox"),
        ("cpan:App-Ack", "cpanm App::Ack"),
    ],
)
def test_install_hints_for_every_builder(cli: CLI, regs: Registries, spec: str, hint: str) -> None:
    done = cli("discover", "x-tool", "--from", spec, "--json", **regs.env())
    assert done.code == 0, done.stderr
    assert done.json["install_hint"] == hint


def test_the_python_api_one_shot(regs: Registries, monkeypatch: pytest.MonkeyPatch) -> None:
    import sleuth

    monkeypatch.setenv("SLEUTH_CACHE", "memory")
    import sleuth.discovery as package  # the package has a name of its own

    result = sleuth.discover("ripgrep", stages=["registry"])
    assert isinstance(result, sleuth.DiscoveryResult)
    assert result.spec == "github:BurntSushi/ripgrep"
    assert callable(sleuth.discover)
    assert sleuth.discover("rg", stages=["registry"]).spec == "github:BurntSushi/ripgrep"
    assert package.DiscoveryResult is sleuth.DiscoveryResult


async def test_the_async_one_shot(monkeypatch: pytest.MonkeyPatch) -> None:
    import sleuth

    monkeypatch.setenv("SLEUTH_CACHE", "memory")
    result = await sleuth.adiscover("gh", stages=["registry"])
    assert result.spec == "github:cli/cli"


def test_deterministic_only_with_only_the_llm_stage_is_a_usage_error(cli: CLI) -> None:
    done = cli("discover", "jq", "--stages", "llm", "--deterministic-only")
    assert done.code == EXIT_CODES["usage_error"]
    assert "leaves no stage" in done.stderr
