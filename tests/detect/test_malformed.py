"""Broken manifests never stop detection: they become evidence and lower confidence."""

from __future__ import annotations

import pytest

from detect.trees import Repo, Spec
from sleuth.stack import CONFIDENT, detect_path


@pytest.mark.parametrize(
    ("spec", "manifest", "language", "problem"),
    [
        ({"Cargo.toml": "[package\nname=", "src/main.rs": "\n"}, "Cargo.toml", "Rust", "TOML"),
        ({"package.json": "{name: oops", "index.js": "\n"}, "package.json", "JavaScript", "JSON"),
        ({"package.json": "[1, 2]"}, "package.json", "JavaScript", "not a JSON object"),
        (
            {"pom.xml": "<project><artifactId>x</artifactId>", "A.java": "\n"},
            "pom.xml",
            "Java",
            "parsed",
        ),
        ({"pyproject.toml": "[project\n", "m.py": "\n"}, "pyproject.toml", "Python", "TOML"),
        ({"composer.json": "{", "i.php": "\n"}, "composer.json", "PHP", "JSON"),
        ({"go.mod": "not a go mod\n", "m.go": "\n"}, "go.mod", "Go", "module directive"),
        ({"pubspec.yaml": "- just\n- a list\n"}, "pubspec.yaml", "Dart", "mapping"),
        ({"App.csproj": "<Project", "P.cs": "\n"}, "App.csproj", "C#", "parsed"),
    ],
)
def test_malformed_manifest_is_evidence_not_a_crash(
    repo: Repo, spec: Spec, manifest: str, language: str, problem: str
) -> None:
    projects = detect_path(repo(spec))
    assert len(projects) == 1
    project = projects[0]
    assert project.language == language
    assert project.manifests[0] == manifest
    reasons = [e.reason for e in project.evidence if e.file == manifest]
    assert any(problem in r for r in reasons), reasons
    assert project.confidence < CONFIDENT


def test_xml_with_a_doctype_is_refused(repo: Repo) -> None:
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">]>\n'
        "<project><artifactId>&lol;</artifactId></project>\n"
    )
    project = detect_path(repo({"pom.xml": bomb}))[0]
    assert project.project_name == "repo"
    assert any("DTD" in e.reason for e in project.evidence)


def test_undecodable_bytes_do_not_crash(repo: Repo) -> None:
    project = detect_path(repo({"requirements.txt": b"flask\n\xff\xfe\x00garbage\n"}))[0]
    assert project.framework == "Flask"


def test_a_crashing_detector_is_recorded_and_others_still_answer(repo: Repo) -> None:
    from sleuth.stack import default_detectors

    class Broken:
        name = "broken"
        source = "static"

        def detect(self, candidate: object) -> None:
            raise RuntimeError("boom")

    root = repo({"Cargo.toml": '[package]\nname = "ok"\n'})
    projects = detect_path(root, detectors=[Broken(), *default_detectors()])  # type: ignore[list-item]
    assert projects[0].language == "Rust"
    assert any(
        "detector broken failed: RuntimeError: boom" in e.reason for e in projects[0].evidence
    )
