"""Stage 1: the bundled registry (generated from the aqua registry) and registry folders."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType

from discover.conftest import CLI
from sleuth.discovery.registry import BUNDLED, SourceRegistry, relative_path
from sleuth.errors import EXIT_CODES

AQUA = Path(__file__).resolve().parents[3] / "shared" / "data" / "aqua-registry" / "registry.yaml"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build-registry"


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
    registry = SourceRegistry([])
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
    hit, _ = SourceRegistry([]).lookup("bat")
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


def generator() -> ModuleType:
    """``scripts/build-registry`` as a module (it is a script without a .py name)."""
    loader = SourceFileLoader("build_registry", str(SCRIPT))
    spec = spec_from_loader("build_registry", loader)
    assert spec is not None
    module = module_from_spec(spec)
    sys.modules["build_registry"] = module
    loader.exec_module(module)
    return module


def test_the_generator_reproduces_the_checked_in_registry(tmp_path: Path) -> None:
    """The data is generated, not hand-typed: rebuilding it from the aqua registry (here with
    the script's own YAML reader, as sleuth's environment has no PyYAML) gives the same files."""
    out = tmp_path / "registry"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(AQUA), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert done.stdout.startswith("2928 names")
    assert (out / "names.txt").read_text() == (BUNDLED / "names.txt").read_text()
    for name in ["rg", "gh", "bat", "kubectl", "terraform", "bob", "tokei"]:
        relative = relative_path(name)
        assert relative is not None
        assert (out / relative).read_text() == (BUNDLED / relative).read_text(), name


SAMPLE = """---
# generated
packages:
  - type: github_release
    repo_owner: BurntSushi
    repo_name: ripgrep
    description: |-
      ripgrep recursively searches
      directories
    version_overrides:
      - version_constraint: "false"
        files: &rg_files
          - name: rg
      - version_constraint: "true"
        files: *rg_files
  - type: github_release
    repo_owner: microsoft
    repo_name: ripgrep-prebuilt
    description: 'Builds of ripgrep, it''s prebuilt'
    files:
      - name: rg
  - type: cargo
    repo_owner: XAMPPRocky
    repo_name: tokei
    crate: tokei
  - type: go_install
    path: golang.org/x/tools/cmd/goimports
    repo_owner: golang
    repo_name: tools
    description: goimports
    files:
      - name: goimports
  - type: github_release
    name: acme/cli
    repo_owner: acme
    repo_name: cli
    aliases:
      - name: acme/old-cli
  - type: http
    name: vendor/tool
    url: https://vendor.example/tool.zip
  - type: github_release
    repo_owner: one
    repo_name: twin
  - type: github_release
    repo_owner: other
    repo_name: twin
"""


def test_the_generator_maps_names_builders_and_contested_names(tmp_path: Path) -> None:
    build = generator()
    source = tmp_path / "registry.yaml"
    source.write_text(SAMPLE)
    out = tmp_path / "out"
    build.build(source, out)
    read = lambda name: json.loads((out / relative_path(name)).read_text())  # noqa: E731
    assert read("rg")["source"] == "BurntSushi/ripgrep"  # executable from version_overrides
    assert "BurntSushi/ripgrep" in read("rg")["disambiguation"]  # two packages claimed rg
    assert read("ripgrep")["disambiguation"] is None
    assert read("ripgrep")["description"] == "ripgrep recursively searches directories"
    assert read("ripgrep-prebuilt")["description"] == "Builds of ripgrep, it's prebuilt"
    assert (read("tokei")["builder"], read("tokei")["source"]) == ("crates.io", "tokei")
    assert (read("goimports")["builder"], read("goimports")["source"]) == (
        "go",
        "golang.org/x/tools/cmd/goimports",
    )
    assert read("acme-cli")["source"] == "acme/cli"  # "cli" alone is too vague a name
    assert read("old-cli")["source"] == "acme/cli"  # an alias
    assert not (out / "c" / "cl" / "cli.json").exists()
    assert not (out / "v" / "ve").exists()  # no GitHub repository, no source to name
    twin = read("twin")
    assert twin["source"] == "one/twin"
    assert "other/twin" in twin["disambiguation"]
    assert read("rg")["provenance"] == (
        "aqua-registry registry.yaml, package BurntSushi/ripgrep (executable rg)"
    )
