"""Go modules and Go workspaces (``go.work``)."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    choose_ports,
    ev,
    lock_evidence,
    sources,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.model import Build, Evidence, Run

FRAMEWORKS = (
    ("github.com/gin-gonic/gin", "Gin"),
    ("github.com/labstack/echo", "Echo"),
    ("github.com/gofiber/fiber", "Fiber"),
)
_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.MULTILINE)
_BLOCK = re.compile(r"^\s*(require|use)\s*\((.*?)^\s*\)", re.MULTILINE | re.DOTALL)
_SINGLE = re.compile(r"^\s*(require|use)\s+([^\s(][^\s]*)", re.MULTILINE)
_MAJOR = re.compile(r"^v\d+$")


def directives(text: str, keyword: str) -> list[str]:
    """First words of ``keyword`` lines, single or in a ``( ... )`` block; comments dropped."""
    found: list[str] = []
    for kind, body in _BLOCK.findall(text):
        if kind == keyword:
            for line in body.splitlines():
                word = line.split("//", 1)[0].strip().split()
                if word:
                    found.append(word[0].strip('"'))
    for kind, word in _SINGLE.findall(text):
        if kind == keyword:
            found.append(word.strip('"'))
    return found


def short_name(module: str) -> str:
    """``example.com/acme/api/v2`` -> ``api``."""
    parts = [p for p in module.split("/") if p]
    while len(parts) > 1 and _MAJOR.match(parts[-1]):
        parts.pop()
    return parts[-1] if parts else module


class GoDetector(StaticDetector):
    name = "go"

    def detect(self, candidate: Candidate) -> Finding | None:
        has_mod = "go.mod" in candidate.files
        has_work = "go.work" in candidate.files
        if not (has_mod or has_work):
            return None
        evidence: list[Evidence] = []
        finding = Finding(language="Go", build_system="Go modules", runtime="native")
        requires: list[str] = []
        if has_work:
            finding.manifests.append("go.work")
            text = candidate.read("go.work") or ""
            uses = directives(text, "use")
            if uses:
                finding.orchestrator = "Go workspaces"
                finding.workspace = Workspace(
                    orchestrator="Go workspaces", members=uses, member_manifests=["go.mod"]
                )
                evidence.append(ev("workspace", "go.work", f"uses {', '.join(uses)}"))
            evidence.append(ev("manifest", "go.work", "Go workspace file"))
        if has_mod:
            finding.manifests.insert(0, "go.mod")
            text = candidate.read("go.mod") or ""
            match = _MODULE.search(text)
            if match is None:
                evidence.append(ev("manifest", "go.mod", "go.mod present"))
                evidence.append(ev("problem", "go.mod", "has no module directive"))
            else:
                finding.project_name = short_name(match.group(1))
                evidence.append(ev("manifest", "go.mod", f"declares module {match.group(1)}"))
            requires = directives(text, "require")
        _, found = lock_evidence(candidate, "go.sum", "go.work.sum")
        evidence += found
        evidence += sources(candidate, "Go")
        for module, framework in FRAMEWORKS:
            if any(r == module or r.startswith(module + "/") for r in requires):
                finding.framework = framework
                evidence.append(ev("dependency", "go.mod", f"requires {module}"))
                break

        name = finding.project_name or candidate.name
        commands = ["go mod download"] if has_mod else []
        run: str | None = None
        if candidate.has("main.go"):
            commands.append(f"go build -o bin/{name} .")
            run = f"./bin/{name}"
        elif candidate.has_dir("cmd"):
            commands.append("go build -o bin/ ./cmd/...")
            mains = _subdirs(candidate, "cmd")
            if len(mains) == 1:
                run = f"./bin/{mains[0]}"
        elif has_mod:
            commands.append("go build ./...")
        finding.build = Build(commands=commands, cache_dirs=["~/go/pkg/mod", "~/.cache/go-build"])
        if run is not None:
            finding.run = Run(command=run)
        if run is not None or finding.framework:
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                default=8080 if finding.framework == "Gin" else None,
                default_reason="Gin's Run() listens on :8080 by default",
            )
        finding.evidence = evidence
        return finding


def _subdirs(candidate: Candidate, name: str) -> list[str]:
    """Sub-folders of ``name`` that hold Go files directly."""
    out: list[str] = []
    for sub in candidate.subdirs(name):
        if any(f.endswith(".go") for f in candidate.listdir(f"{name}/{sub}")):
            out.append(sub)
    return out
