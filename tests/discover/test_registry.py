"""Stage 1: the bundled registry (generated from the aqua registry) and registry folders."""

from __future__ import annotations

import json
from pathlib import Path

from discover.conftest import CLI
from sleuth.discover.registry import BUNDLED, Registry, relative_path
from sleuth.errors import EXIT_CODES

AQUA = Path(__file__).resolve().parents[3] / "shared" / "data" / "aqua-registry" / "registry.yaml"


def entry(folder: Path, name: str, **fields: object) -> Path:
    relative = relative_path(name)
    assert relative is not None
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema_version": 1, **fields}))
    return path


def test_the_bundled_registry_answers_at_least_1500_names_each_with_provenance() -> None:
    names = (BUNDLED / "names.txt").read_text().split()
    assert len(names) >= 1500
    files = sorted(BUNDLED.glob("*/*/*.json"))
    assert len(files) == len(names)
    for path in files[:: max(1, len(files) // 300)]:  # a spread sample of the entries
        data = json.loads(path.read_text())
        assert data["provenance"].startswith("aqua-registry registry.yaml, package ")
        assert data["builder"] in ("github", "crates.io", "go")
        assert path.relative_to(BUNDLED) == relative_path(path.stem)
    assert (BUNDLED.parent / "LICENSE-aqua-registry").read_text().startswith("MIT License")


def test_executables_repository_names_and_aliases_all_lead_to_the_package() -> None:
    registry = Registry([])
    for name, source in [
        ("rg", "BurntSushi/ripgrep"),
        ("ripgrep", "BurntSushi/ripgrep"),
        ("gh", "cli/cli"),
        ("jq", "jqlang/jq"),
        ("bat", "sharkdp/bat"),
    ]:
        hit, warnings = registry.lookup(name)
        assert hit is not None, name
        assert (hit.entry.builder, hit.entry.source) == ("github", source)
        assert warnings == []


def test_a_contested_name_records_the_choice() -> None:
    hit, _ = Registry([]).lookup("bat")
    assert hit is not None
    assert hit.entry.disambiguation is not None
    assert "sharkdp/bat" in hit.entry.disambiguation


def test_ripgrep_through_the_cli_answers_from_the_registry(cli: CLI) -> None:
    done = cli("discover", "ripgrep")
    assert done.code == 0, done.stderr
    assert done.stdout.splitlines() == [
        "github:BurntSushi/ripgrep",
        "install: download a release from https://github.com/BurntSushi/ripgrep/releases/latest",
    ]
    assert "registry" in done.stderr


def test_rg_json_has_every_field_of_the_contract(cli: CLI) -> None:
    done = cli("discover", "  RG ", "--json")
    assert done.code == 0, done.stderr
    data = done.json
    for key in [
        "schema_version", "tool", "builder", "source", "stage", "confidence_score",
        "selection_reason", "high_risk", "alternatives", "downloads_ratio", "probe_results",
        "metadata", "evidence", "warnings", "install_hint", "usage",
        "confirmation_required", "confirmation_reason",
    ]:  # fmt: skip
        assert key in data, key
    assert set(data["metadata"]) >= {
        "stars", "is_fork", "parent", "parent_stars", "archived", "created_at",
        "last_push_days", "owner", "owner_type", "description", "verification_skipped",
    }  # fmt: skip
    assert (data["tool"], data["builder"], data["source"]) == ("rg", "github", "BurntSushi/ripgrep")
    assert (data["stage"], data["selection_reason"], data["confidence_score"]) == (
        "registry",
        "registry",
        100,
    )
    assert data["confirmation_required"] is False
    assert any("aqua-registry" in item for item in data["evidence"])


def test_a_registry_folder_comes_first_and_the_first_folder_wins(cli: CLI, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    entry(first, "ripgrep", builder="crates.io", source="ripgrep", description="mine")
    entry(second, "ripgrep", builder="github", source="someone/else")
    entry(second, "q", builder="npm", source="q-cli")
    import os

    env = {"SLEUTH_DISCOVER_REGISTRY": os.pathsep.join([str(first), str(second)])}
    done = cli("discover", "ripgrep", "--json", **env)
    assert (done.json["builder"], done.json["source"]) == ("crates.io", "ripgrep")
    assert done.json["install_hint"] == "cargo install ripgrep"
    single = cli("discover", "q", "--json", **env)
    assert single.code == 0, single.stderr
    assert (single.json["builder"], single.json["source"]) == ("npm", "q-cli")
    assert (second / "q" / "_" / "q.json").is_file()


def test_a_broken_entry_is_a_miss_with_a_warning(cli: CLI, tmp_path: Path) -> None:
    folder = tmp_path / "reg"
    broken = entry(folder, "ripgrep", builder="github")  # no source
    (folder / "j" / "jq").mkdir(parents=True)
    (folder / "j" / "jq" / "jq.json").write_text("{not json")
    entry(folder, "bat", builder="github", source="https://evil.example/x/y")
    env = {"SLEUTH_DISCOVER_REGISTRY": str(folder)}
    for name, source in [
        ("ripgrep", "BurntSushi/ripgrep"),
        ("jq", "jqlang/jq"),
        ("bat", "sharkdp/bat"),
    ]:
        done = cli("discover", name, "--json", "--stages", "registry", **env)
        assert done.code == 0, done.stderr
        assert done.json["source"] == source  # the bundled entry, after the broken one
        assert any("is broken" in w and name in w for w in done.json["warnings"]), done.json
    assert broken.is_file()


def test_non_ascii_names_are_refused_as_possible_homoglyphs(cli: CLI) -> None:
    for name in ["rіpgrep", "ｒｇ"[:0] + "kubeсtl", "δelta"]:
        done = cli("discover", name, "--json")
        assert done.code == EXIT_CODES["suspicious_name"], done.stderr
        assert "look-alike" in done.stderr
        assert done.json["error"]["code"] == "suspicious_name"
    # NFKC first: full-width ASCII is ASCII once normalised, and so is accepted.
    done = cli("discover", "ｒｇ", "--json", "--stages", "registry")
    assert done.code == 0, done.stderr
    assert done.json["tool"] == "rg"


def test_empty_and_malformed_names_are_usage_errors(cli: CLI) -> None:
    for name in ["   ", "a b", "../etc", "-x"]:
        done = cli("discover", "--", name)
        assert done.code == EXIT_CODES["usage_error"], (name, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_near_miss_of_a_registry_name_is_warned_about(cli: CLI) -> None:
    done = cli("discover", "ripgerp", "--json", "--stages", "registry")
    assert done.code == EXIT_CODES["not_found"]
    assert "--from" in done.stderr
    assert "did you mean 'ripgrep'" in done.stderr
    assert done.json["error"]["code"] == "not_found"
    # A name that is in the registry is never a near miss of another one.
    done = cli("discover", "ripgrep", "--json", "--stages", "registry")
    assert done.json["warnings"] == []


def test_the_generator_reproduces_the_checked_in_registry(tmp_path: Path) -> None:
    """The data is generated, not hand-typed: rebuilding it gives the same files."""
    import shutil
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "scripts" / "build-registry"
    python = shutil.which("python3")
    probe = subprocess.run([python or sys.executable, "-c", "import yaml"], check=False)
    assert python is not None
    assert probe.returncode == 0, "the generator needs a Python with PyYAML"
    out = tmp_path / "registry"
    subprocess.run([python, str(script), str(AQUA), str(out)], check=True, capture_output=True)
    assert (out / "names.txt").read_text() == (BUNDLED / "names.txt").read_text()
    for name in ["rg", "gh", "bat", "kubectl", "terraform"]:
        relative = relative_path(name)
        assert relative is not None
        assert (out / relative).read_text() == (BUNDLED / relative).read_text(), name
