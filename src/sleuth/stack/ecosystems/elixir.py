"""Elixir projects built with Mix, umbrella projects, and Phoenix."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    cache_at_root,
    choose_ports,
    ev,
    lock_evidence,
    parse_port,
    sources,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.model import Build, Evidence, Run

_APP = re.compile(r"\bapp:\s*:(\w+)")
_APPS_PATH = re.compile(r"""\bapps_path:\s*["']([^"']+)["']""")
_DEP = re.compile(r"\{\s*:(\w+)\s*,")
_RUNTIME_PORT = re.compile(r"""get_env\(\s*["']PORT["']\s*\)\s*\|\|\s*["']?(\d{2,5})""")


class MixDetector(StaticDetector):
    name = "mix"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "mix.exs" not in candidate.files:
            return None
        text = candidate.read("mix.exs") or ""
        evidence: list[Evidence] = [ev("manifest", "mix.exs", "Mix project")]
        finding = Finding(
            language="Elixir", build_system="Mix", runtime="BEAM", manifests=["mix.exs"]
        )
        app = _APP.search(text)
        if app:
            finding.project_name = app.group(1)
        umbrella = _APPS_PATH.search(text)
        if umbrella:
            finding.orchestrator = "Mix umbrella"
            finding.workspace = Workspace(
                orchestrator="Mix umbrella",
                members=[f"{umbrella.group(1)}/*"],
                member_manifests=["mix.exs"],
            )
            evidence.append(ev("workspace", "mix.exs", f"umbrella apps in {umbrella.group(1)}/"))
        _, found = lock_evidence(candidate, "mix.lock")
        evidence += found
        evidence += sources(candidate, "Elixir")
        deps = set(_DEP.findall(text))
        commands = ["mix deps.get --only prod", "MIX_ENV=prod mix compile"]
        if "phoenix" in deps:
            finding.framework = "Phoenix"
            evidence.append(ev("dependency", "mix.exs", "depends on phoenix"))
            if '"assets.deploy"' in text:
                commands.append("MIX_ENV=prod mix assets.deploy")
            finding.run = Run(command="MIX_ENV=prod mix phx.server")
            configured = []
            match = _RUNTIME_PORT.search(candidate.read("config/runtime.exs") or "")
            port = parse_port(match.group(1)) if match else None
            if port is not None:
                configured.append((port, "config/runtime.exs", "the PORT fallback"))
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                configured=configured,
                default=4000,
                default_reason="Phoenix listens on 4000 by default",
            )
        elif "mod:" in text:
            finding.run = Run(command="MIX_ENV=prod mix run --no-halt")
        finding.build = Build(
            commands=commands,
            cache_dirs=[
                cache_at_root(candidate, "deps"),
                cache_at_root(candidate, "_build"),
                "~/.mix",
                "~/.hex",
            ],
        )
        finding.evidence = evidence
        return finding
