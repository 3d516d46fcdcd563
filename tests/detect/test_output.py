"""The report's shape: JSON field order, hidden scoring fields, the human table."""

from __future__ import annotations

import json

import pytest

from sleuth.stack import Build, Evidence, Project, Run, render_table
from sleuth.stack.confidence import score

FIELDS = [
    "project_name",
    "path",
    "language",
    "build_system",
    "framework",
    "runtime",
    "orchestrator",
    "manifests",
    "build",
    "run",
    "confidence",
    "evidence",
    "source",
]


def project(**overrides: object) -> Project:
    base: dict[str, object] = {
        "project_name": "api",
        "path": "services/api",
        "language": "Rust",
        "build_system": "Cargo",
        "runtime": "native",
        "manifests": ["services/api/Cargo.toml"],
        "build": Build(
            commands=["cargo build --release"], cache_dirs=["target", "~/.cargo/registry"]
        ),
        "run": Run(command="cargo run --release", ports=[8080]),
        "confidence": 0.85,
        "evidence": [Evidence(file="services/api/Cargo.toml", reason="crate", kind="manifest")],
    }
    base.update(overrides)
    return Project.model_validate(base)


def test_json_has_exactly_the_documented_fields_in_order() -> None:
    dumped = project().model_dump(mode="json")
    assert list(dumped) == FIELDS
    assert list(dumped["build"]) == ["commands", "cache_dirs"]
    assert list(dumped["run"]) == ["command", "ports", "health_endpoint"]
    assert dumped["evidence"] == [{"file": "services/api/Cargo.toml", "reason": "crate"}]
    assert dumped["source"] == "static"
    json.dumps(dumped)


def test_cache_folders_are_normalised() -> None:
    build = Build(cache_dirs=["target", "target/", " node_modules ", "~/.npm", "/abs", ""])
    assert build.cache_dirs == ["target/", "node_modules/", "~/.npm", "/abs"]


def test_confidence_is_bounded() -> None:
    with pytest.raises(ValueError):
        project(confidence=1.5)


def test_score_counts_kinds_once_and_problems_each_time() -> None:
    manifest = Evidence(file="a", reason="m", kind="manifest")
    problem = Evidence(file="a", reason="p", kind="problem")
    assert score([manifest, manifest]) == 0.5
    assert score([manifest, problem, problem]) == 0.0
    half = Evidence(file=".", reason="s", kind="sources", strength=0.5)
    assert score([manifest, half]) == 0.6
    everything = [
        Evidence(file="x", reason=k, kind=k)
        for k in ("manifest", "lockfile", "sources", "dependency", "config", "workspace", "marker")
    ]
    assert score(everything) == 1.0


def test_table_fits_100_columns_and_marks_llm_answers() -> None:
    rows = [
        project(),
        project(
            path="a/very/long/path/" * 6, project_name="n" * 60, source="llm", framework="F" * 40
        ),
    ]
    table = render_table(rows)
    lines = table.splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert lines[0].split() == [
        "PATH",
        "NAME",
        "LANGUAGE",
        "BUILD",
        "FRAMEWORK",
        "ORCHESTRATOR",
        "PORTS",
        "CONF",
    ]
    assert "services/api" in lines[1]
    assert "0.85*" in lines[2]
    assert "…" in lines[2]
    assert lines[-1] == "2 projects; * recognised by the LLM"


def test_table_for_nothing() -> None:
    assert render_table([]) == "No projects found."


def test_table_cells_for_missing_values() -> None:
    line = render_table([project(language=None, run=Run())]).splitlines()[1]
    assert " - " in line


def test_json_output_is_an_array_of_reports() -> None:
    from sleuth.stack import render_json

    text = render_json([project(), project(path="web", project_name="web")])
    data = json.loads(text)
    assert [p["path"] for p in data] == ["services/api", "web"]
    assert list(data[0]) == FIELDS
    assert render_json([]) == "[]"
