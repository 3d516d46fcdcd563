"""Bazel workspaces (``MODULE.bazel``, ``WORKSPACE``), whatever languages they build."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, ev, lock_evidence, sources
from sleuth.stack.finding import Finding
from sleuth.stack.languages import dominant
from sleuth.stack.model import Build, Evidence

ROOT_FILES = ("MODULE.bazel", "WORKSPACE.bazel", "WORKSPACE")
PACKAGE_FILES = ("BUILD.bazel", "BUILD")
_NAME = re.compile(r"""\b(?:module|workspace)\s*\(\s*name\s*=\s*["']([^"']+)["']""")


class BazelDetector(StaticDetector):
    name = "bazel"

    def detect(self, candidate: Candidate) -> Finding | None:
        present = [n for n in ROOT_FILES + PACKAGE_FILES if n in candidate.files]
        if not present:
            return None
        evidence: list[Evidence] = []
        finding = Finding(build_system="Bazel", manifests=present)
        for name in present:
            if name in ROOT_FILES:
                match = _NAME.search(candidate.read(name) or "")
                if match and finding.project_name is None:
                    finding.project_name = match.group(1)
                evidence.append(ev("manifest", name, "Bazel workspace root"))
        if not evidence:
            evidence.append(ev("manifest", present[0], "Bazel package"))
        language = dominant(candidate.languages())
        finding.language = language
        if language is not None:
            evidence += sources(candidate, language)
        _, found = lock_evidence(candidate, "MODULE.bazel.lock")
        evidence += found
        if ".bazelversion" in candidate.files:
            evidence.append(ev("marker", ".bazelversion", "pins the Bazel version"))
        finding.build = Build(commands=["bazel build //..."], cache_dirs=["~/.cache/bazel"])
        finding.evidence = evidence
        return finding
