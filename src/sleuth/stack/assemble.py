"""Turning the winning finding for a folder into the project that gets reported.

Detectors speak in paths relative to their folder; the report speaks relative to the scanned
root. Fields a detector left empty get the obvious value (the folder's name), members inherit
their workspace's orchestrator, and confidence is derived from the evidence unless the
detector stated one.
"""

from __future__ import annotations

from sleuth.stack.candidate import Candidate
from sleuth.stack.confidence import score
from sleuth.stack.finding import Finding
from sleuth.stack.model import Evidence, Project, Source
from sleuth.stack.workspace import Declared


def _rebase(candidate: Candidate, path: str) -> str:
    return candidate.rel(path) or path


def _unique(items: list[Evidence]) -> list[Evidence]:
    seen: set[tuple[str, str]] = set()
    out: list[Evidence] = []
    for item in items:
        key = (item.file, item.reason)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _membership(member_of: Declared) -> Evidence:
    return Evidence(
        file=member_of.evidence_file,
        reason=f"member of the {member_of.orchestrator} rooted at {member_of.root}",
        kind="workspace",
    )


def late_member(project: Project, member_of: Declared) -> Project:
    """``project`` claimed by a workspace found after it (a Maven ``../module``); its commands
    were chosen without the workspace, only the orchestrator and evidence change."""
    evidence = _unique([*project.evidence, _membership(member_of)])
    return project.model_copy(
        update={
            "orchestrator": project.orchestrator or member_of.orchestrator,
            "evidence": evidence,
        }
    )


def to_project(
    candidate: Candidate, finding: Finding, source: Source, member_of: Declared | None
) -> Project:
    """The reported project for ``candidate`` given the finding that won it."""
    manifests = [_rebase(candidate, m) for m in finding.manifests]
    manifests += [
        m for m in (_rebase(candidate, n) for n in candidate.manifests) if m not in manifests
    ]
    evidence = [
        item.model_copy(update={"file": _rebase(candidate, item.file)}) for item in finding.evidence
    ]
    evidence += candidate.notes
    orchestrator = finding.orchestrator or (
        finding.workspace.orchestrator if finding.workspace is not None else None
    )
    if member_of is not None:
        evidence.append(_membership(member_of))
        orchestrator = orchestrator or member_of.orchestrator
    evidence = _unique(evidence)
    return Project(
        project_name=finding.project_name or candidate.name,
        path=candidate.path,
        language=finding.language,
        build_system=finding.build_system,
        framework=finding.framework,
        runtime=finding.runtime,
        orchestrator=orchestrator,
        manifests=manifests,
        build=finding.build.model_copy(deep=True),
        run=finding.run.model_copy(deep=True),
        confidence=finding.confidence if finding.confidence is not None else score(evidence),
        evidence=evidence,
        source=source,
    )
