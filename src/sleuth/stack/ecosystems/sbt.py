"""Scala projects built with sbt, and the Play framework on top of it."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, choose_ports, ev, sources
from sleuth.stack.ecosystems.jvm import jvm_language
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Evidence, Run

_NAME = re.compile(r"""\bname\s*:=\s*"([^"]+)\"""")
_PLAY = re.compile(
    r"""["'](?:com\.typesafe\.play|org\.playframework)["']\s*%\s*["']sbt-plugin["']"""
)


class SbtDetector(StaticDetector):
    name = "sbt"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "build.sbt" not in candidate.files:
            return None
        evidence: list[Evidence] = [ev("manifest", "build.sbt", "sbt build definition")]
        text = candidate.read("build.sbt") or ""
        finding = Finding(build_system="sbt", runtime="JVM", manifests=["build.sbt"])
        match = _NAME.search(text)
        if match:
            finding.project_name = match.group(1)
        finding.language = jvm_language(candidate, "Scala")
        evidence += sources(candidate, "Scala", "Java")
        caches = ["~/.cache/coursier", "~/.ivy2/cache", "~/.sbt", "target", "project/target"]
        plugins = candidate.read("project/plugins.sbt") or ""
        if _PLAY.search(plugins):
            finding.framework = "Play"
            evidence.append(ev("dependency", "project/plugins.sbt", "adds the Play sbt plugin"))
            finding.build = Build(commands=["sbt -batch stage"], cache_dirs=caches)
            name = finding.project_name or candidate.name
            finding.run = Run(command=f"target/universal/stage/bin/{name}")
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                default=9000,
                default_reason="Play listens on 9000 by default",
            )
        else:
            finding.build = Build(commands=["sbt -batch package"], cache_dirs=caches)
        finding.evidence = evidence
        return finding
