"""Swift packages built with SwiftPM, and Vapor servers."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, choose_ports, ev, lock_evidence, sources
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Evidence, Run

_NAME = re.compile(r"""Package\s*\(\s*name:\s*"([^"]+)\"""")
_EXECUTABLE = re.compile(r"""\.executableTarget\s*\(\s*name:\s*"([^"]+)\"""")


class SwiftPMDetector(StaticDetector):
    name = "swiftpm"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "Package.swift" not in candidate.files:
            return None
        text = candidate.read("Package.swift") or ""
        evidence: list[Evidence] = [ev("manifest", "Package.swift", "Swift package manifest")]
        finding = Finding(
            language="Swift", build_system="SwiftPM", runtime="native", manifests=["Package.swift"]
        )
        match = _NAME.search(text)
        if match:
            finding.project_name = match.group(1)
        _, found = lock_evidence(candidate, "Package.resolved")
        evidence += found
        evidence += sources(candidate, "Swift")
        finding.build = Build(commands=["swift build -c release"], cache_dirs=[".build"])
        executable = _EXECUTABLE.search(text)
        if "github.com/vapor/vapor" in text:
            finding.framework = "Vapor"
            evidence.append(ev("dependency", "Package.swift", "depends on vapor/vapor"))
        if executable:
            finding.run = Run(command=f".build/release/{executable.group(1)}")
        if finding.framework:
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                default=8080,
                default_reason="Vapor listens on 8080 by default",
            )
        finding.evidence = evidence
        return finding
