"""What Maven, Gradle and sbt projects share: frameworks, languages, ports and health checks.

Frameworks are recognised by Maven coordinates (``group:artifact``), which every JVM build
tool uses. Ports come from the framework's own config file when it sets one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import parse_port
from sleuth.stack.formats.properties import parse_properties
from sleuth.stack.formats.yaml_lite import load as load_yaml
from sleuth.stack.formats.yaml_lite import lookup
from sleuth.stack.languages import dominant

RESOURCES = "src/main/resources"


@dataclass(frozen=True, slots=True)
class JvmFramework:
    name: str
    groups: tuple[str, ...]  # a coordinate whose group starts with one of these
    port: int
    port_keys: tuple[str, ...]  # settings that override the port, most specific first
    health_artifact: str | None  # the dependency that adds the health endpoint
    health: str | None


FRAMEWORKS = (
    JvmFramework(
        "Spring Boot",
        ("org.springframework.boot",),
        8080,
        ("server.port",),
        "spring-boot-starter-actuator",
        "/actuator/health",
    ),
    JvmFramework(
        "Quarkus",
        ("io.quarkus",),
        8080,
        ("quarkus.http.port",),
        "quarkus-smallrye-health",
        "/q/health",
    ),
    JvmFramework(
        "Micronaut",
        ("io.micronaut",),
        8080,
        ("micronaut.server.port",),
        "micronaut-management",
        "/health",
    ),
    JvmFramework("Ktor", ("io.ktor",), 8080, ("ktor.deployment.port",), None, None),
)


def framework_for(coordinates: Iterable[str]) -> tuple[JvmFramework, str] | None:
    """The framework these ``group:artifact`` coordinates use, and the coordinate that says so."""
    coords = list(coordinates)
    for framework in FRAMEWORKS:
        for coord in coords:
            if coord.startswith(framework.groups):
                return framework, coord
    return None


def has_health(framework: JvmFramework, coordinates: Iterable[str]) -> bool:
    """Whether the dependency that serves the framework's health endpoint is declared."""
    artifact = framework.health_artifact
    return artifact is not None and any(c.split(":")[1:2] == [artifact] for c in coordinates)


def jvm_language(candidate: Candidate, hinted: str | None) -> str:
    """Sources decide when there are any; otherwise a build-script hint, else Java."""
    counted = dominant(candidate.languages(), ("Java", "Kotlin", "Scala"))
    return counted or hinted or "Java"


_HOCON_PORT = re.compile(r"^\s*port\s*[=:]\s*(\S+)", re.MULTILINE)


def configured_port(candidate: Candidate, framework: JvmFramework) -> list[tuple[int, str, str]]:
    """(port, file, setting) found in ``src/main/resources`` for ``framework``."""
    found: list[tuple[int, str, str]] = []
    for name in ("application.properties", "application.yml", "application.yaml"):
        rel = f"{RESOURCES}/{name}"
        text = candidate.read(rel)
        if text is None:
            continue
        if name.endswith(".properties"):
            props = parse_properties(text)
            values = [(key, props.get(key)) for key in framework.port_keys]
        else:
            data = load_yaml(text)
            values = [(key, lookup(data, key)) for key in framework.port_keys]
        for key, value in values:
            port = parse_port(value) if value is not None else None
            if port is not None:
                found.append((port, rel, key))
    if framework.name == "Ktor":
        match = _HOCON_PORT.search(candidate.read(f"{RESOURCES}/application.conf") or "")
        port = parse_port(match.group(1)) if match else None
        if port is not None:
            found.append((port, f"{RESOURCES}/application.conf", "ktor.deployment.port"))
    return found
