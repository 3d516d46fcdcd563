"""Maven projects and Maven multi-module builds.

A member is built from its aggregator with ``-pl :artifactId -am`` so that the modules it
depends on are built first, which ``mvn package`` inside the member would not do.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    choose_ports,
    ev,
    sources,
    tool_path,
)
from sleuth.stack.ecosystems.jvm import configured_port, framework_for, has_health, jvm_language
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.formats.xmlfile import XMLRefused, child, children, parse_xml, text_of
from sleuth.stack.model import Build, Evidence, Run

_LANGUAGE_PLUGINS = {"kotlin-maven-plugin": "Kotlin", "scala-maven-plugin": "Scala"}


def _coordinates(pom: ET.Element) -> list[str]:
    """``group:artifact`` of the parent, dependencies, managed imports (BOMs) and plugins."""
    coords: list[str] = []
    nodes = [child(pom, "parent")]
    for path in (("dependencies",), ("dependencyManagement", "dependencies")):
        holder = child(pom, *path)
        nodes += list(children(holder, "dependency")) if holder is not None else []
    plugins = child(pom, "build", "plugins")
    nodes += list(children(plugins, "plugin")) if plugins is not None else []
    for node in nodes:
        if node is None:
            continue
        artifact = text_of(node, "artifactId")
        if artifact:
            coords.append(f"{text_of(node, 'groupId') or 'org.apache.maven.plugins'}:{artifact}")
    return coords


def _modules(pom: ET.Element) -> list[str]:
    holder = child(pom, "modules")
    if holder is None:
        return []
    out: list[str] = []
    for node in children(holder, "module"):
        path = (node.text or "").strip().removesuffix("/pom.xml").removesuffix("pom.xml")
        if path:
            out.append(path.rstrip("/") or ".")
    return out


class MavenDetector(StaticDetector):
    name = "maven"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "pom.xml" not in candidate.files:
            return None
        evidence: list[Evidence] = []
        finding = Finding(build_system="Maven", runtime="JVM", manifests=["pom.xml"])
        text = candidate.read("pom.xml")
        pom: ET.Element | None = None
        if text is not None:
            try:
                pom = parse_xml(text)
            except XMLRefused as exc:
                evidence.append(ev("problem", "pom.xml", f"could not be parsed: {exc}"))
        evidence.append(ev("manifest", "pom.xml", "Maven project object model"))
        artifact = text_of(pom, "artifactId")
        packaging = text_of(pom, "packaging") or "jar"
        coords = _coordinates(pom) if pom is not None else []
        modules = _modules(pom) if pom is not None else []
        if artifact:
            finding.project_name = artifact
        if modules:
            finding.orchestrator = "Maven multi-module"
            finding.workspace = Workspace(
                orchestrator="Maven multi-module", members=modules, member_manifests=["pom.xml"]
            )
            evidence.append(ev("workspace", "pom.xml", f"modules: {', '.join(modules)}"))

        hinted = next(
            (
                lang
                for plugin, lang in _LANGUAGE_PLUGINS.items()
                if any(c.endswith(":" + plugin) for c in coords)
            ),
            None,
        )
        finding.language = jvm_language(candidate, hinted)
        evidence += sources(candidate, "Java", "Kotlin", "Scala")
        if "mvnw" in candidate.files:
            evidence.append(ev("marker", "mvnw", "Maven wrapper"))

        mvn = tool_path(candidate, "mvnw") or "mvn"
        workspace = candidate.workspace
        if workspace is not None and workspace.build_system == "Maven" and artifact:
            command = f"{mvn} -B -f {workspace.up}/pom.xml -pl :{artifact} -am package -DskipTests"
        else:
            command = f"{mvn} -B package -DskipTests"
        finding.build = Build(commands=[command], cache_dirs=["~/.m2/repository", "target"])

        framework = framework_for(coords)
        if framework is not None and packaging != "pom":
            spec, coord = framework
            finding.framework = spec.name
            evidence.append(ev("dependency", "pom.xml", f"uses {coord}"))
            jar = "target/quarkus-app/quarkus-run.jar" if spec.name == "Quarkus" else "target/*.jar"
            finding.run = Run(command=f"java -jar {jar}")
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                configured=configured_port(candidate, spec),
                default=spec.port,
                default_reason=f"{spec.name} listens on {spec.port} by default",
            )
            if has_health(spec, coords):
                finding.run.health_endpoint = spec.health
                evidence.append(
                    ev("dependency", "pom.xml", f"{spec.health_artifact} serves {spec.health}")
                )
        finding.evidence = evidence
        return finding
