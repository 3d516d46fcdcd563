"""Zig projects built with ``zig build``."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, ev, sources
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Evidence, Run

_ZON_NAME = re.compile(r"""\.name\s*=\s*(?:"([^"]+)"|\.@?"?([A-Za-z_][\w]*)"?)""")
_RUN_STEP = re.compile(r"""\.step\(\s*"run"\s*,""")


class ZigDetector(StaticDetector):
    name = "zig"

    def detect(self, candidate: Candidate) -> Finding | None:
        present = [n for n in ("build.zig", "build.zig.zon") if n in candidate.files]
        if not present:
            return None
        evidence: list[Evidence] = []
        finding = Finding(
            language="Zig", build_system="Zig build", runtime="native", manifests=present
        )
        if "build.zig.zon" in candidate.files:
            match = _ZON_NAME.search(candidate.read("build.zig.zon") or "")
            if match:
                finding.project_name = match.group(1) or match.group(2)
            evidence.append(ev("manifest", "build.zig.zon", "Zig package manifest"))
        script = ""
        if "build.zig" in candidate.files:
            script = candidate.read("build.zig") or ""
            evidence.append(ev("manifest", "build.zig", "Zig build script"))
        evidence += sources(candidate, "Zig")
        finding.build = Build(
            commands=["zig build -Doptimize=ReleaseSafe"],
            cache_dirs=[".zig-cache", "~/.cache/zig"],
        )
        if _RUN_STEP.search(script):
            finding.run = Run(command="zig build run -Doptimize=ReleaseSafe")
        finding.evidence = evidence
        return finding
