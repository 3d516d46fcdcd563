"""Gradle builds in either DSL, single or multi-project, with version catalogs.

Build scripts are programs, so they are not parsed: quoted strings are scanned for Maven
coordinates and plugin ids, and ``libs.*`` accessors are resolved through
``gradle/libs.versions.toml``. Subprojects come from ``include`` in the settings script; one
without a build script of its own is not reported. Plugins declared with ``apply false`` are
for the subprojects, and a multi-project root without a ``src`` folder has nothing to run.
"""

from __future__ import annotations

import re
from typing import Any

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    HERE,
    StaticDetector,
    cache_at_root,
    choose_ports,
    ev,
    lock_evidence,
    read_toml,
    sources,
    table,
    tool_path,
)
from sleuth.stack.ecosystems.jvm import configured_port, framework_for, has_health, jvm_language
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.model import Build, Evidence, Run

BUILD_SCRIPTS = ("build.gradle.kts", "build.gradle")
SETTINGS_SCRIPTS = ("settings.gradle.kts", "settings.gradle")
CATALOG = "gradle/libs.versions.toml"

_QUOTED = re.compile(r"""["']([^"'\s$]+)["']""")
# ``include`` or ``includeFlat`` (never ``includeBuild``) as a statement, not a method of
# something else; its arguments follow in parentheses or, in Groovy, after blanks.
_INCLUDE = re.compile(r"(?<![\w.$])include(Flat)?(?![\w$])[ \t]*(\()?")
# A comment, or a quoted string (group 1) that may hold what looks like one.
_COMMENT = re.compile(
    r"""//[^\n]*|/\*[\s\S]*?(?:\*/|$)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
)
# A plugin only declared for subprojects: ``id("x") version "1" apply false``.
_APPLY_FALSE = re.compile(r"^[^\n]*\bapply\s*\(?\s*false\b[^\n]*$", re.MULTILINE)
_ROOT_NAME = re.compile(r"""rootProject\.name\s*=\s*["']([^"']+)["']""")
_ACCESSOR = re.compile(r"\blibs\.((?:plugins\.)?[A-Za-z0-9_.]+)")
_KOTLIN = re.compile(r"""kotlin\s*\(\s*["']jvm["']|org\.jetbrains\.kotlin""")
_APPLICATION = re.compile(
    r"""(?m)^\s*(?:id\s*\(?\s*["']application["']|application\b\s*$|`application`)"""
)


def _catalog_aliases(catalog: dict[str, Any]) -> dict[str, str]:
    """``libs`` accessor -> coordinate or plugin id, from a version catalog."""
    out: dict[str, str] = {}
    for alias, spec in table(catalog, "libraries").items():
        coord: str | None = None
        if isinstance(spec, str):
            coord = spec.rsplit(":", 1)[0] if spec.count(":") >= 2 else spec
        elif isinstance(spec, dict):
            module = spec.get("module")
            if isinstance(module, str):
                coord = module
            elif isinstance(spec.get("group"), str) and isinstance(spec.get("name"), str):
                coord = f"{spec['group']}:{spec['name']}"
        if coord:
            out[re.sub(r"[-_]", ".", alias)] = coord
    for alias, spec in table(catalog, "plugins").items():
        plugin = spec.get("id") if isinstance(spec, dict) else str(spec).split(":", 1)[0]
        if isinstance(plugin, str):
            out["plugins." + re.sub(r"[-_]", ".", alias)] = plugin
    return out


def _coordinates(script: str, aliases: dict[str, str]) -> list[str]:
    """Coordinates and plugin ids the script names, directly or through the catalog.

    A plugin id like ``org.springframework.boot`` is given a ``:plugin`` artifact so that it
    reads as a coordinate too.
    """
    coords: list[str] = []
    for value in _QUOTED.findall(script):
        if ":" in value:
            coords.append(":".join(value.split(":")[:2]))
        elif "." in value:
            coords.append(f"{value}:plugin")
    for accessor in _ACCESSOR.findall(script):
        target = aliases.get(accessor.rstrip("."))
        if target:
            coords.append(target if ":" in target else f"{target}:plugin")
    return coords


def strip_comments(script: str) -> str:
    """``script`` without ``//`` and ``/* */`` comments; quoted strings are left alone."""
    return _COMMENT.sub(lambda m: m.group(1) or ("\n" * m.group(0).count("\n")), script)


def _arguments(script: str, start: int, parenthesised: bool) -> str:
    """The argument list of a call whose arguments begin at ``start``: up to the closing
    parenthesis, or to the end of the line and on across lines that end with a comma."""
    if parenthesised:
        end = script.find(")", start)
        return script[start:] if end < 0 else script[start:end]
    end = start
    while True:
        newline = script.find("\n", end)
        if newline < 0:
            return script[start:]
        end = newline + 1
        if not script[start:newline].rstrip().endswith(","):
            return script[start:newline]


def included(settings: str) -> list[str]:
    """Folders of the subprojects a settings script includes."""
    script = strip_comments(settings)
    paths: list[str] = []
    for match in _INCLUDE.finditer(script):
        flat = match.group(1) is not None
        for name in _QUOTED.findall(_arguments(script, match.end(), match.group(2) is not None)):
            path = name.strip(":").replace(":", "/")
            if path:
                paths.append(f"../{path}" if flat else path)
    return paths


class GradleDetector(StaticDetector):
    name = "gradle"

    def detect(self, candidate: Candidate) -> Finding | None:
        script_name = next((n for n in BUILD_SCRIPTS if n in candidate.files), None)
        settings_name = next((n for n in SETTINGS_SCRIPTS if n in candidate.files), None)
        if script_name is None and settings_name is None:
            return None
        evidence: list[Evidence] = []
        finding = Finding(build_system="Gradle", runtime="JVM")
        script = ""
        if script_name is not None:
            finding.manifests.append(script_name)
            script = candidate.read(script_name) or ""
            dsl = "Kotlin DSL" if script_name.endswith(".kts") else "Groovy DSL"
            evidence.append(ev("manifest", script_name, f"Gradle build script ({dsl})"))
        if settings_name is not None:
            finding.manifests.append(settings_name)
            settings = candidate.read(settings_name) or ""
            evidence.append(ev("manifest", settings_name, "Gradle settings script"))
            match = _ROOT_NAME.search(settings)
            if match:
                finding.project_name = match.group(1)
            members = included(settings)
            if members:
                finding.orchestrator = "Gradle multi-project"
                finding.workspace = Workspace(
                    orchestrator="Gradle multi-project",
                    members=members,
                    member_manifests=list(BUILD_SCRIPTS),
                )
                evidence.append(ev("workspace", settings_name, f"includes {', '.join(members)}"))
        aliases = self._aliases(candidate, evidence)
        script = strip_comments(script)
        # plugins declared with ``apply false`` are for the subprojects, not for this one
        coords = _coordinates(_APPLY_FALSE.sub("", script), aliases)
        kotlin = _KOTLIN.search(script) or any(c.startswith("org.jetbrains.kotlin") for c in coords)
        finding.language = jvm_language(candidate, "Kotlin" if kotlin else None)
        evidence += sources(candidate, "Java", "Kotlin", "Scala")
        _, found = lock_evidence(candidate, "gradle.lockfile")
        evidence += found
        if "gradlew" in candidate.files:
            evidence.append(ev("marker", "gradlew", "Gradle wrapper"))

        gradle = tool_path(candidate, "gradlew") or "gradle"
        caches = [
            "~/.gradle/caches",
            "~/.gradle/wrapper",
            "build",
            cache_at_root(candidate, ".gradle"),
        ]
        finding.build = Build(commands=[f"{gradle} assemble"], cache_dirs=caches)

        framework = framework_for(coords)
        if finding.workspace is not None and not candidate.has_dir("src"):
            # a multi-project root without sources of its own builds only its subprojects
            if framework is not None or _APPLICATION.search(script):
                evidence.append(ev("note", HERE, "multi-project root without sources: no app"))
        elif framework is not None:
            spec, coord = framework
            finding.framework = spec.name
            evidence.append(
                ev("dependency", script_name or "", f"uses {coord.removesuffix(':plugin')}")
            )
            if spec.name == "Spring Boot":
                command = f"{gradle} bootRun"
            elif spec.name == "Quarkus":
                command = "java -jar build/quarkus-app/quarkus-run.jar"
            else:
                command = f"{gradle} run"
            finding.run = Run(command=command)
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=command,
                configured=configured_port(candidate, spec),
                default=spec.port,
                default_reason=f"{spec.name} listens on {spec.port} by default",
            )
            if has_health(spec, coords):
                finding.run.health_endpoint = spec.health
                evidence.append(
                    ev(
                        "dependency",
                        script_name or "",
                        f"{spec.health_artifact} serves {spec.health}",
                    )
                )
        elif _APPLICATION.search(script):
            finding.run = Run(command=f"{gradle} run")
            evidence.append(ev("note", script_name or "", "applies the application plugin"))
        finding.evidence = evidence
        return finding

    @staticmethod
    def _aliases(candidate: Candidate, evidence: list[Evidence]) -> dict[str, str]:
        """The version catalog of this build, which members share with their root."""
        path = CATALOG
        workspace = candidate.workspace
        if not candidate.has(path) and workspace is not None:
            path = f"{workspace.up}/{CATALOG}"
        if not candidate.has(path):
            return {}
        catalog = read_toml(candidate, path, evidence)
        return _catalog_aliases(catalog) if catalog is not None else {}
