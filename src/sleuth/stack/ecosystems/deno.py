"""Deno projects (``deno.json`` or ``deno.jsonc``), their tasks and workspaces."""

from __future__ import annotations

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    choose_ports,
    ev,
    lock_evidence,
    read_json,
    sources,
    strings,
    table,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.languages import dominant
from sleuth.stack.model import Build, Evidence, Run

ENTRY_POINTS = ("main.ts", "main.tsx", "main.js", "mod.ts", "server.ts")


class DenoDetector(StaticDetector):
    name = "deno"

    def detect(self, candidate: Candidate) -> Finding | None:
        manifest = next((n for n in ("deno.json", "deno.jsonc") if n in candidate.files), None)
        if manifest is None:
            return None
        evidence: list[Evidence] = []
        config = read_json(candidate, manifest, evidence, comments=True)
        evidence.append(ev("manifest", manifest, "Deno configuration"))
        config = config or {}
        finding = Finding(build_system="Deno", runtime="Deno", manifests=[manifest])
        name = config.get("name")
        if isinstance(name, str) and name:
            finding.project_name = name
        finding.language = (
            dominant(candidate.languages(), ("TypeScript", "JavaScript")) or "TypeScript"
        )
        evidence += sources(candidate, "TypeScript", "JavaScript")
        _, found = lock_evidence(candidate, "deno.lock")
        evidence += found
        members = strings(config.get("workspace"))
        if members:
            finding.orchestrator = "Deno workspaces"
            finding.workspace = Workspace(
                orchestrator="Deno workspaces",
                members=members,
                member_manifests=["deno.json", "deno.jsonc"],
            )
            evidence.append(ev("workspace", manifest, f"workspace: {', '.join(members)}"))

        tasks = table(config, "tasks")
        entry = next((e for e in ENTRY_POINTS if e in candidate.files), None)
        imports = table(config, "imports")
        if any(str(k).startswith("$fresh/") for k in imports):
            finding.framework = "Fresh"
            evidence.append(ev("dependency", manifest, "imports $fresh/"))
        commands = ["deno task build"] if "build" in tasks else []
        if not commands and entry:
            commands = [f"deno cache {entry}"]
        finding.build = Build(commands=commands, cache_dirs=["~/.cache/deno"])
        command = (
            "deno task start" if "start" in tasks else (f"deno run -A {entry}" if entry else None)
        )
        if command is not None:
            finding.run = Run(command=command)
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=command,
                default=8000 if finding.framework else None,
                default_reason="Fresh listens on 8000 by default",
            )
        finding.evidence = evidence
        return finding
