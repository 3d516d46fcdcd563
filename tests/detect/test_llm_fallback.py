"""The LLM fallback: replayed from recorded calls, and live against a scripted model.

The cassettes hold calls recorded from ``llm_model.ScriptedModel`` (Chat Completions bodies
shaped like the documented ones); replay runs with no server at all.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from detect.llm_model import ANSWERS, CASSETTES, ScriptedModel, serve, write_repo
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.errors import LLMNotConfigured, MalformedReply, ReplayMiss
from sleuth.log import LOGGER
from sleuth.net import Clients
from sleuth.stack import Project
from sleuth.stack.run import detect_stack


def replaying(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "llm_provider": "openai",
        "llm_base_url": "http://127.0.0.1:9/v1",  # nothing listens: replay must not need it
        "llm_model": "qwen3-coder:30b",
        "llm_record": "replay",
        "llm_cassette_dir": CASSETTES,
        "cache": "memory",
    }
    return Settings(**{**values, **overrides})


async def detect(folder: Path, settings: Settings, mode: str) -> list[Project]:
    return await detect_stack(
        folder,
        detect=settings.detect,
        llm=settings.llm,
        clients=Clients(settings.net),
        cache=MemoryCache(),
        mode=mode,
    )


@pytest.mark.parametrize("name", ["zig-tool", "deno-api", "bazel-mono"])
async def test_llm_mode_names_the_stack_from_recorded_calls(tmp_path: Path, name: str) -> None:
    folder = write_repo(tmp_path, name)
    [project] = await detect(folder, replaying(), "llm")
    answer = ANSWERS[name]
    assert project.source == "llm"
    assert project.path == "."
    assert project.project_name == answer["project_name"]
    assert project.language == answer["language"]
    assert project.build_system == answer["build_system"]
    assert project.framework == answer["framework"]
    assert project.runtime == answer["runtime"]
    assert project.build.commands == answer["build_commands"]
    assert project.run.command == answer["run_command"]
    assert project.run.ports == answer["ports"]
    assert project.run.health_endpoint == answer["health_endpoint"]
    assert project.confidence == answer["confidence"]
    cited = {item["file"] for item in answer["evidence"]}
    assert {e.file for e in project.evidence} == cited - {"server.ts"}  # made-up files dropped
    assert all(e.reason.startswith("model: ") for e in project.evidence)


async def test_static_mode_never_asks_and_names_what_it_knows(tmp_path: Path) -> None:
    folder = write_repo(tmp_path, "zig-tool")
    [project] = await detect(folder, replaying(llm_record="off"), "static")
    assert (project.language, project.build_system, project.source) == (
        "Zig",
        "Zig build",
        "static",
    )


async def test_a_changed_prompt_misses_the_cassette_and_says_which_request(
    tmp_path: Path,
) -> None:
    folder = write_repo(tmp_path, "zig-tool")
    (folder / "build.zig").write_text("// changed\n")
    with pytest.raises(ReplayMiss) as caught:
        await detect(folder, replaying(), "llm")
    assert "// changed" in caught.value.request


@pytest.fixture
def model() -> Iterator[tuple[ScriptedModel, str]]:
    scripted = ScriptedModel(dict(ANSWERS))
    with serve(scripted) as url:
        yield scripted, url


def live(url: str) -> Settings:
    return Settings(
        llm_provider="openai", llm_base_url=url, llm_model="qwen3-coder:30b", cache="memory"
    )


async def test_full_mode_asks_only_about_folders_static_cannot_place(
    tmp_path: Path, model: tuple[ScriptedModel, str]
) -> None:
    scripted, url = model
    root = tmp_path / "mono"
    write_repo(root, "gleam-app")
    (root / "cli" / "src").mkdir(parents=True)
    (root / "cli" / "Cargo.toml").write_text('[package]\nname = "cli"\nversion = "0.1.0"\n')
    (root / "cli" / "src" / "main.rs").write_text("fn main() {}\n")
    projects = await detect(root, live(url), "full")
    assert scripted.asked == ["gleam-app"]
    by_path = {p.path: p for p in projects}
    assert (by_path["cli"].language, by_path["cli"].source) == ("Rust", "static")
    gleam = by_path["gleam-app"]
    assert (gleam.language, gleam.framework, gleam.runtime, gleam.source) == (
        "Gleam",
        "Wisp",
        "BEAM",
        "llm",
    )
    assert gleam.manifests == ["gleam-app/gleam.toml"]


async def test_identical_folders_cost_one_call(
    tmp_path: Path, model: tuple[ScriptedModel, str]
) -> None:
    scripted, url = model
    root = tmp_path / "mono"
    write_repo(root / "a", "gleam-app")
    write_repo(root / "b", "gleam-app")
    projects = await detect(root, live(url), "full")
    assert scripted.asked == ["gleam-app"]
    assert [(p.path, p.language) for p in projects] == [
        ("a/gleam-app", "Gleam"),
        ("b/gleam-app", "Gleam"),
    ]


@pytest.mark.parametrize(
    ("confidence", "kept", "warned"),
    [(0.45, False, "detect_llm_rejected"), (0.6, True, "detect_llm_unsure"), (0.75, True, None)],
)
async def test_the_models_confidence_decides(
    tmp_path: Path,
    model: tuple[ScriptedModel, str],
    caplog: pytest.LogCaptureFixture,
    confidence: float,
    kept: bool,
    warned: str | None,
) -> None:
    scripted, url = model
    scripted.answers["gleam-app"] = {**ANSWERS["gleam-app"], "confidence": confidence}
    folder = write_repo(tmp_path, "gleam-app")
    with caplog.at_level(logging.INFO, logger=LOGGER.name):
        projects = await detect(folder, live(url), "full")
    llm = [p for p in projects if p.source == "llm"]
    assert bool(llm) is kept
    if kept:
        assert llm[0].confidence == confidence
    events = [record.getMessage() for record in caplog.records]
    if warned:
        assert any(warned in event for event in events), events
    else:
        assert not any("detect_llm_" in event for event in events), events


async def test_a_malformed_answer_keeps_static_results_in_full_mode_and_fails_llm_mode(
    tmp_path: Path, model: tuple[ScriptedModel, str]
) -> None:
    scripted, url = model
    scripted.answers["gleam-app"] = "I think this is probably Gleam, but I am not sure."
    folder = write_repo(tmp_path, "gleam-app")
    projects = await detect(folder, live(url), "full")
    assert all(p.source == "static" for p in projects)
    with pytest.raises(MalformedReply) as caught:
        await detect(folder, live(url), "llm")
    assert "probably Gleam" in caught.value.raw


async def test_without_a_provider_full_mode_is_static_and_llm_mode_says_what_to_set(
    tmp_path: Path,
) -> None:
    folder = write_repo(tmp_path, "zig-tool")
    [project] = await detect(folder, Settings(cache="memory"), "full")
    assert project.source == "static"
    with pytest.raises(LLMNotConfigured):
        await detect(folder, Settings(cache="memory"), "llm_only")


async def test_a_vendor_key_alone_never_sends_a_repository_to_a_model(
    tmp_path: Path, model: tuple[ScriptedModel, str]
) -> None:
    scripted, url = model
    folder = write_repo(tmp_path, "gleam-app")
    vendor_only = Settings(openai_api_key="sk-for-other-tools", openai_base_url=url, cache="memory")
    projects = await detect(folder, vendor_only, "full")
    assert scripted.asked == []
    assert all(p.source == "static" for p in projects)
    [named] = await detect(folder, vendor_only, "llm")  # asking for the model is explicit
    assert scripted.asked == ["gleam-app"]
    assert named.language == "Gleam"
