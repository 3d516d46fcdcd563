"""The seam for the LLM detector: asked only where the deterministic ones fall short (full),
about everything (llm), or never (static); the walk treats its answers like any other."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from detect.trees import Repo
from sleuth.errors import ConfigError
from sleuth.stack import (
    Candidate,
    Detector,
    FallbackDetector,
    Finding,
    Run,
    Source,
    Workspace,
    default_detectors,
    detect_path,
    detect_projects,
)
from sleuth.stack.model import Evidence

SPEC = {
    "api/Cargo.toml": '[package]\nname = "api"\nversion = "0.1.0"\n',
    "api/src/main.rs": "\n",
    "hs/stack.yaml": "resolver: lts-22.0\n",
    "hs/app/Main.hs": "\n",
    "loose/tool.ml": "\n",
    "loose/deep/more.ml": "\n",
    "docs/README.md": "\n",
    "weird/Makefile": "all:\n\techo hi\n",
}


class FakeLLM:
    """Records what it was asked and names every folder after a made-up ecosystem."""

    name = "fake-llm"
    source: Source = "llm"

    def __init__(self, confidence: float | None = 0.8, answer: bool = True) -> None:
        self.asked: list[Candidate] = []
        self.confidence = confidence
        self.answer = answer

    async def detect(self, candidate: Candidate) -> Finding | None:
        await asyncio.sleep(0)
        self.asked.append(candidate)
        if not self.answer:
            return None
        return Finding(
            language="Mystery",
            build_system="Mystery build",
            confidence=self.confidence,
            evidence=[Evidence(file=".", reason="the model said so")],
        )


def asked(fake: FakeLLM) -> list[str]:
    return sorted(c.path for c in fake.asked)


async def test_full_mode_asks_only_about_unrecognised_folders(repo: Repo) -> None:
    fake = FakeLLM()
    projects = {p.path: p for p in await detect_projects(repo(SPEC), fallback=fake)}
    assert asked(fake) == ["hs", "loose", "weird"]
    assert projects["api"].source == "static"
    assert projects["api"].language == "Rust"
    for path in ("hs", "loose", "weird"):
        assert (projects[path].language, projects[path].source) == ("Mystery", "llm")
        assert projects[path].confidence == 0.8
    assert "docs" not in projects


async def test_llm_mode_asks_about_every_candidate(repo: Repo) -> None:
    fake = FakeLLM()
    projects = await detect_projects(repo(SPEC), mode="llm_only", fallback=fake)
    assert asked(fake) == ["api", "hs", "loose", "weird"]
    assert {p.source for p in projects} == {"llm"}
    assert {p.language for p in projects} == {"Mystery"}


async def test_static_mode_never_asks(repo: Repo) -> None:
    fake = FakeLLM()
    projects = {p.path: p for p in await detect_projects(repo(SPEC), mode="static", fallback=fake)}
    assert fake.asked == []
    assert projects["loose"].language == "OCaml"  # the weak source guess
    assert projects["loose"].confidence < 0.5
    assert projects["weird"].build_system == "Make"
    assert projects["weird"].language is None


async def test_weaker_llm_answer_loses_to_the_static_guess(repo: Repo) -> None:
    fake = FakeLLM(confidence=0.1)
    projects = {p.path: p for p in await detect_projects(repo(SPEC), fallback=fake)}
    assert projects["loose"].source == "static"
    assert projects["loose"].language == "OCaml"


async def test_fallback_without_an_answer_leaves_folders_unreported(repo: Repo) -> None:
    fake = FakeLLM(answer=False)
    projects = {p.path: p for p in await detect_projects(repo(SPEC), mode="llm", fallback=fake)}
    assert projects == {}
    assert asked(fake) == ["api", "hs", "loose", "weird"]


async def test_llm_confidence_is_derived_from_evidence_when_not_given(repo: Repo) -> None:
    fake = FakeLLM(confidence=None)
    projects = {p.path: p for p in await detect_projects(repo(SPEC), fallback=fake)}
    assert projects["hs"].source == "static"  # "note" evidence scores 0: the guess wins


def test_sync_entry_point_runs_the_fallback_too(repo: Repo) -> None:
    fake = FakeLLM()
    projects = {p.path: p for p in detect_path(repo(SPEC), mode="full", fallback=fake)}
    assert projects["hs"].source == "llm"


async def test_candidate_shows_what_the_model_needs(repo: Repo) -> None:
    fake = FakeLLM()
    root = repo({**SPEC, "hs/big.txt": "x" * 4096, "hs/src/Lib.hs": "\n"})
    await detect_projects(root, fallback=fake, max_file_bytes=1024)
    hs = next(c for c in fake.asked if c.path == "hs")
    assert hs.manifests == ("stack.yaml",)
    assert hs.reason == "manifest"
    assert "stack.yaml" in hs.files
    assert hs.extensions[".hs"] == 2
    assert hs.languages() == {"Haskell": 2}
    assert hs.read("stack.yaml") == "resolver: lts-22.0\n"
    assert hs.read("big.txt") is None
    assert any(n.file == "hs/big.txt" and n.kind == "skipped" for n in hs.notes)
    assert hs.read("../api/Cargo.toml") is not None  # inside the root: allowed
    assert hs.read("../../outside") is None
    assert hs.tree() == ["big.txt", "stack.yaml", "app/Main.hs", "src/Lib.hs"]
    assert hs.workspace is None
    loose = next(c for c in fake.asked if c.path == "loose")
    assert loose.reason == "sources"
    assert loose.manifests == ()
    assert loose.tree() == ["tool.ml", "deep/more.ml"]


async def test_fallback_can_declare_a_workspace_its_members_inherit(repo: Repo) -> None:
    class Moon:
        name = "moon"
        source: Source = "llm"

        async def detect(self, candidate: Candidate) -> Finding | None:
            if candidate.path == ".":
                return Finding(
                    orchestrator="moon",
                    confidence=0.9,
                    workspace=Workspace(orchestrator="moon", members=["pkgs/*"]),
                )
            return Finding(language="Mystery", confidence=0.9)

    root = repo({"Earthfile": "\n", "pkgs/a/Earthfile": "\n", "pkgs/a/thing.ml": "\n"})
    projects = {p.path: p for p in await detect_projects(root, mode="llm", fallback=Moon())}
    assert projects["."].orchestrator == "moon"
    assert projects["pkgs/a"].orchestrator == "moon"
    assert projects["pkgs/a"].language == "Mystery"
    assert any(e.reason == "member of the moon rooted at ." for e in projects["pkgs/a"].evidence)


async def test_fallback_errors_are_recorded_but_sleuth_errors_stop_the_walk(repo: Repo) -> None:
    class Flaky:
        name = "flaky"
        source: Source = "llm"

        def __init__(self, error: Exception) -> None:
            self.error = error

        async def detect(self, candidate: Candidate) -> Finding | None:
            raise self.error

    root = repo(SPEC)
    projects = {
        p.path: p for p in await detect_projects(root, fallback=Flaky(ValueError("bad json")))
    }
    assert projects["loose"].source == "static"
    assert any("flaky failed: ValueError: bad json" in e.reason for e in projects["loose"].evidence)
    with pytest.raises(ConfigError):
        await detect_projects(root, fallback=Flaky(ConfigError("no key")))


async def test_fallback_calls_are_bounded(repo: Repo) -> None:
    class Counting:
        name = "counting"
        source: Source = "llm"

        def __init__(self) -> None:
            self.now = 0
            self.peak = 0

        async def detect(self, candidate: Candidate) -> Finding | None:
            self.now += 1
            self.peak = max(self.peak, self.now)
            await asyncio.sleep(0)
            self.now -= 1
            return None

    root = repo({f"m{i}/x.ml": "\n" for i in range(10)})
    counting = Counting()
    await detect_projects(root, fallback=counting, concurrency=3)
    assert counting.peak == 3


def test_builtin_detectors_satisfy_the_protocols() -> None:
    assert all(isinstance(d, Detector) for d in default_detectors())
    assert all(d.source == "static" for d in default_detectors())
    assert isinstance(FakeLLM(), FallbackDetector)


async def test_custom_detector_list_replaces_the_builtins(repo: Repo) -> None:
    class OnlyMakefiles:
        name = "make-only"
        source: Source = "static"

        def detect(self, candidate: Candidate) -> Finding | None:
            if "Makefile" not in candidate.files:
                return None
            return Finding(build_system="Make", run=Run(command="make run"), confidence=0.9)

    projects = await detect_projects(repo(SPEC), detectors=[OnlyMakefiles()], mode="static")
    assert [(p.path, p.build_system) for p in projects] == [("weird", "Make")]


def test_roots_project_name_is_the_folder_name(tmp_path: Path) -> None:
    root = tmp_path / "my-service"
    root.mkdir()
    (root / "go.mod").write_text("not valid\n")
    assert detect_path(root)[0].project_name == "my-service"
