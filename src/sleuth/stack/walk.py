"""Finding every project under a folder: scan once, then ask the detectors folder by folder.

Folders are visited shallow to deep, one depth at a time, so that workspace roots are known
before their members are asked about. For each folder the deterministic detectors all answer
and the most confident finding wins (ties go to the one registered first). Only when no
finding reaches :data:`~sleuth.stack.confidence.CONFIDENT` is the fallback awaited, a few
folders at a time; in ``llm`` mode it is the only one asked, in ``static`` mode never.

A :class:`~sleuth.errors.SleuthError` raised by a detector stops detection, since it is
actionable (a missing API key, say); any other exception is recorded as evidence on that
folder and the walk goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sleuth.errors import Ref, SleuthError, UsageError
from sleuth.log import event
from sleuth.stack.assemble import late_member, to_project
from sleuth.stack.candidate import Candidate, Files
from sleuth.stack.confidence import CONFIDENT, score
from sleuth.stack.detector import Detector, FallbackDetector
from sleuth.stack.finding import Finding
from sleuth.stack.model import Evidence, Project, Source
from sleuth.stack.modes import normalize_mode
from sleuth.stack.platforms import place
from sleuth.stack.scan import scan
from sleuth.stack.spots import Spot, find_spots
from sleuth.stack.workspace import Declared, Workspaces

DEFAULT_MAX_FILE_BYTES = 1 << 20
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True, slots=True)
class JudgedFinding:
    finding: Finding
    source: Source
    confidence: float


def _judge(finding: Finding, source: Source) -> JudgedFinding:
    conf = finding.confidence if finding.confidence is not None else score(finding.evidence)
    return JudgedFinding(finding, source, conf)


def _failed(candidate: Candidate, name: str, exc: Exception) -> None:
    event("detect_error", logging.WARNING, detector=name, path=candidate.path, error=repr(exc))
    reason = f"detector {name} failed: {type(exc).__name__}: {exc}"
    candidate.notes.append(Evidence(file=candidate.path, reason=reason))


def _rank(answer: JudgedFinding) -> tuple[bool, float]:
    # A folder that is a Django app with a Vite frontend is the Django app: a finding that
    # names a framework beats a bare toolchain, then confidence decides.
    return (answer.finding.framework is not None, answer.confidence)


def best_static(candidate: Candidate, detectors: Sequence[Detector]) -> JudgedFinding | None:
    """The deterministic finding for ``candidate`` that names the most (see :func:`_rank`), on
    the edge or serverless platform the folder configures, if any."""
    best: JudgedFinding | None = None
    for detector in detectors:
        try:
            finding = detector.detect(candidate)
        except SleuthError:
            raise
        except Exception as exc:
            _failed(candidate, detector.name, exc)
            continue
        if finding is not None:
            answer = _judge(finding, detector.source)
            if best is None or _rank(answer) > _rank(best):
                best = answer
    if best is not None and place(candidate, best.finding):
        best = _judge(best.finding, best.source)  # the platform's evidence counts too
    return best


async def answer(
    candidate: Candidate,
    detectors: Sequence[Detector],
    fallback: FallbackDetector | None,
    gate: asyncio.Semaphore,
) -> JudgedFinding | None:
    """The deterministic answer, or the fallback's when that is missing or not confident."""
    best = best_static(candidate, detectors)
    if fallback is None or (best is not None and best.confidence >= CONFIDENT):
        return best
    async with gate:
        try:
            finding = await fallback.detect(candidate)
        except SleuthError:
            raise
        except Exception as exc:
            _failed(candidate, fallback.name, exc)
            return best
    if finding is None:
        return best
    late = _judge(finding, fallback.source)
    return late if best is None or late.confidence > best.confidence else best


class _Walk:
    """One run's state: the scanned tree, the workspaces found so far, the projects."""

    def __init__(self, root: Path, max_file_bytes: int) -> None:
        tree = scan(root, max_file_bytes=max_file_bytes)
        self._files = Files(tree, max_file_bytes)
        self._spots = find_spots(tree)
        self._workspaces = Workspaces()
        self._members: dict[str, Declared] = {}
        self._files_of: dict[str, frozenset[str]] = {}
        self.projects: list[Project] = []

    def levels(self) -> Iterator[list[Candidate]]:
        """Candidates one depth at a time; record a level's answers before asking for the next."""
        by_depth: dict[int, list[Spot]] = {}
        for spot in self._spots:
            by_depth.setdefault(spot.depth, []).append(spot)
        for depth in sorted(by_depth):
            yield [self._candidate(spot) for spot in by_depth[depth]]

    def _candidate(self, spot: Spot) -> Candidate:
        owner = self._workspaces.owner(spot.path, spot.files)
        if owner is not None:
            self._members[spot.path] = owner
        candidate = Candidate(
            path=spot.path,
            reason=spot.reason,
            manifests=spot.manifests,
            files=spot.files,
            dirs=spot.dirs,
            extensions=spot.extensions,
            store=self._files,
            folders=tuple(spot.folders),
            workspace=None if owner is None else Workspaces.context(owner, spot.path),
        )
        candidate.notes.extend(spot.notes)
        return candidate

    def record(self, candidate: Candidate, answer: JudgedFinding | None) -> None:
        if answer is None:
            return
        project = to_project(
            candidate, answer.finding, answer.source, self._members.get(candidate.path)
        )
        self.projects.append(project)
        self._files_of[project.path] = candidate.files
        if answer.finding.workspace is not None:
            self._workspaces.declare(
                candidate.path,
                answer.finding.workspace,
                build_system=project.build_system,
                files=candidate.files,
                evidence_file=project.manifests[0] if project.manifests else candidate.path,
            )

    def result(self) -> list[Project]:
        """The projects by path; members no deeper than their workspace root claimed late."""
        out: list[Project] = []
        for project in self.projects:
            owner = None
            if project.path not in self._members:
                owner = self._workspaces.owner(project.path, self._files_of[project.path])
            out.append(project if owner is None else late_member(project, owner))
        return sorted(out, key=lambda p: (p.path != ".", p.path))


def _folder(root: Path | str) -> Path:
    path = Path(root).expanduser()
    if not path.exists():
        raise UsageError(
            f"{path} does not exist",
            hint="pass the folder of a repository, or leave PATH out to use the current folder",
        )
    if not path.is_dir():
        raise UsageError(
            f"{path} is a file, not a folder", hint="pass the repository folder that holds it"
        )
    return path.resolve()


def _plan(
    root: Path | str,
    mode: str,
    detectors: Sequence[Detector] | None,
    fallback: FallbackDetector | None,
    max_file_bytes: int,
) -> tuple[Path, list[Detector], FallbackDetector | None]:
    chosen = normalize_mode(mode)
    if max_file_bytes < 1:
        raise UsageError(f"max_file_bytes must be positive, got {max_file_bytes}")
    folder = _folder(root)
    if detectors is None:
        from sleuth.stack.registry import default_detectors

        static = default_detectors()
    else:
        static = list(detectors)
    if chosen == "static":
        return folder, static, None
    if chosen == "llm":
        if fallback is None:
            raise UsageError(
                "mode llm asks only the LLM, and no LLM detector is configured",
                hint="configure a model, or use {static} or {full}",
                refs={"static": Ref("mode", "static"), "full": Ref("mode", "full")},
            )
        return folder, [], fallback
    return folder, static, fallback


def _detect_static(
    folder: Path, detectors: Sequence[Detector], max_file_bytes: int
) -> list[Project]:
    walk = _Walk(folder, max_file_bytes)
    for level in walk.levels():
        for candidate in level:
            walk.record(candidate, best_static(candidate, detectors))
    return walk.result()


async def detect_projects(
    root: Path | str,
    *,
    mode: str = "full",
    detectors: Sequence[Detector] | None = None,
    fallback: FallbackDetector | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> list[Project]:
    """Every project under ``root``, sorted by path.

    ``detectors`` replaces the built-in deterministic detectors; ``fallback`` is awaited for
    folders they cannot place (``full``), for every folder (``llm``), or never (``static``).
    At most ``concurrency`` fallback calls run at once.
    """
    folder, static, late = _plan(root, mode, detectors, fallback, max_file_bytes)
    if late is None:
        return _detect_static(folder, static, max_file_bytes)
    walk = _Walk(folder, max_file_bytes)
    gate = asyncio.Semaphore(max(1, concurrency))
    for level in walk.levels():
        answers = await asyncio.gather(*(answer(c, static, late, gate) for c in level))
        for candidate, found in zip(level, answers, strict=True):
            walk.record(candidate, found)
    return walk.result()


def detect_path(
    root: Path | str,
    mode: str = "static",
    *,
    detectors: Sequence[Detector] | None = None,
    fallback: FallbackDetector | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> list[Project]:
    """Blocking :func:`detect_projects`; without a fallback no event loop is started.

    With a fallback it runs its own event loop, so call :func:`detect_projects` from async code.
    """
    folder, static, late = _plan(root, mode, detectors, fallback, max_file_bytes)
    if late is None:
        return _detect_static(folder, static, max_file_bytes)
    return asyncio.run(
        detect_projects(
            folder, mode=mode, detectors=static, fallback=late, max_file_bytes=max_file_bytes
        )
    )
