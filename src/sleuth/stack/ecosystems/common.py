"""What every deterministic detector does the same way: evidence, lockfiles, sources, ports."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Sequence
from typing import Any

from sleuth.stack.candidate import Candidate
from sleuth.stack.formats.dockerfile import exposed_ports
from sleuth.stack.formats.jsonc import loads as jsonc_loads
from sleuth.stack.model import Evidence, EvidenceKind, Source

HERE = "."


class StaticDetector:
    """Base of the deterministic detectors: they read files and never wait on anything."""

    name: str = "static"
    source: Source = "static"

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def ev(kind: EvidenceKind, file: str, reason: str, strength: float = 1.0) -> Evidence:
    return Evidence(file=file, reason=reason, kind=kind, strength=round(strength, 3))


def lockfile(candidate: Candidate, *names: str) -> str | None:
    """The first lockfile found in the folder, else at its workspace root (as a relative path)."""
    for name in names:
        if name in candidate.files:
            return name
    workspace = candidate.workspace
    if workspace is not None:
        for name in names:
            if name in workspace.files:
                return f"{workspace.up}/{name}"
    return None


def lock_evidence(candidate: Candidate, *names: str) -> tuple[str | None, list[Evidence]]:
    found = lockfile(candidate, *names)
    if found is None:
        return None, []
    return found, [ev("lockfile", found, "lockfile pins the dependencies")]


def sources(candidate: Candidate, *languages: str) -> Evidence | None:
    """Evidence that the folder's sources are in ``languages``, weighted by their share."""
    counts = candidate.languages()
    total = sum(counts.values())
    mine = sum(counts.get(lang, 0) for lang in languages)
    if mine == 0 or total == 0:
        return None
    share = mine / total
    label = "/".join(lang for lang in languages if counts.get(lang))
    reason = f"{mine} {label} source file{'s' if mine != 1 else ''} ({share:.0%} of sources)"
    return ev("sources", HERE, reason, share)


def read_toml(candidate: Candidate, name: str, evidence: list[Evidence]) -> dict[str, Any] | None:
    """``name`` parsed as TOML; a parse failure becomes a problem and returns None."""
    text = candidate.read(name)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        evidence.append(ev("problem", name, f"is not valid TOML: {exc}"))
        return None


def read_json(
    candidate: Candidate, name: str, evidence: list[Evidence], *, comments: bool = False
) -> dict[str, Any] | None:
    """``name`` parsed as a JSON object; anything else becomes a problem and returns None."""
    text = candidate.read(name)
    if text is None:
        return None
    try:
        data = jsonc_loads(text) if comments else json.loads(text)
    except ValueError as exc:
        evidence.append(ev("problem", name, f"is not valid JSON: {exc}"))
        return None
    if not isinstance(data, dict):
        evidence.append(ev("problem", name, "is not a JSON object"))
        return None
    return data


def table(data: Any, *path: str) -> dict[str, Any]:
    """A nested table of parsed TOML/JSON, or {} when any step is missing or not a table."""
    node = data
    for key in path:
        if not isinstance(node, dict):
            return {}
        node = node.get(key)
    return node if isinstance(node, dict) else {}


def strings(value: Any) -> list[str]:
    """The strings in a list (others dropped); a lone string becomes a one-item list."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


_PORT = re.compile(r"(\d{2,5})\s*\}?\s*$")


def parse_port(value: Any) -> int | None:
    """A port from a config value: ``8081``, ``"8081"``, ``${PORT:8081}``, ``${PORT:-8081}``."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        match = _PORT.search(str(value).strip())
        if match is None:
            return None
        number = int(match.group(1))
    return number if 0 < number < 65536 else None


def choose_ports(
    candidate: Candidate,
    evidence: list[Evidence],
    *,
    configured: Sequence[tuple[int, str, str]] = (),
    default: int | None = None,
    default_reason: str = "",
) -> list[int]:
    """Configured port, else the Dockerfile's ``EXPOSE``, else the framework default.

    ``configured`` holds (port, file, setting) in order of preference.
    """
    if configured:
        port, file, setting = configured[0]
        evidence.append(ev("config", file, f"port {port} (from {setting})"))
        return [port]
    if "Dockerfile" in candidate.files:
        text = candidate.read("Dockerfile")
        exposed = exposed_ports(text) if text else []
        if exposed:
            listed = ", ".join(str(p) for p in exposed)
            evidence.append(ev("config", "Dockerfile", f"EXPOSE {listed}"))
            return exposed
    if default is not None:
        evidence.append(ev("note", HERE, default_reason or f"default port {default}"))
        return [default]
    return []


def tool_path(candidate: Candidate, script: str) -> str | None:
    """A wrapper script (``gradlew``, ``mvnw``) in the folder or at its workspace root."""
    if script in candidate.files:
        return f"./{script}"
    workspace = candidate.workspace
    if workspace is not None and script in workspace.files:
        return f"{workspace.up}/{script}"
    return None


def cache_at_root(candidate: Candidate, folder: str) -> str:
    """A cache folder that lives at the workspace root for members, else in the folder."""
    workspace = candidate.workspace
    return f"{workspace.up}/{folder}" if workspace is not None else folder
