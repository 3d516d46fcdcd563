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
# Why a manifest that the parser gave up on is a problem: Python's parsers recurse per level.
TOO_DEEP = "is nested too deeply to parse"


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


def sources(candidate: Candidate, *languages: str) -> list[Evidence]:
    """Evidence that the folder's sources are in ``languages``, weighted by their share;
    [] when it has none in them, so that it can be added to the evidence as it is."""
    counts = candidate.languages()
    total = sum(counts.values())
    mine = sum(counts.get(lang, 0) for lang in languages)
    if mine == 0 or total == 0:
        return []
    share = mine / total
    label = "/".join(lang for lang in languages if counts.get(lang))
    reason = f"{mine} {label} source file{'s' if mine != 1 else ''} ({share:.0%} of sources)"
    return [ev("sources", HERE, reason, share)]


def read_toml(candidate: Candidate, name: str, evidence: list[Evidence]) -> dict[str, Any] | None:
    """``name`` parsed as TOML; a parse failure becomes a problem and returns None."""
    text = candidate.read(name)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        evidence.append(ev("problem", name, f"is not valid TOML: {exc}"))
    except RecursionError:
        evidence.append(ev("problem", name, TOO_DEEP))
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
    except RecursionError:
        evidence.append(ev("problem", name, TOO_DEEP))
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


# A port a command line binds: --port 8000, --port=8000, -p 8000, PORT=8000, 0.0.0.0:8000.
_BOUND_PORT = re.compile(
    r"(?:--port[= ]|(?<![\w-])-p[= ]?|\bPORT=|"
    r"(?:\b\d{1,3}(?:\.\d{1,3}){3}|\blocalhost|\]|(?<![\w/.-])\*):)(\d{2,5})\b"
)


def bound_port(command: str | None) -> int | None:
    """The port ``command`` binds on its own command line, if it names one."""
    match = _BOUND_PORT.search(command or "")
    return parse_port(match.group(1)) if match else None


def choose_ports(
    candidate: Candidate,
    evidence: list[Evidence],
    *,
    command: str | None = None,
    configured: Sequence[tuple[int, str, str]] = (),
    default: int | None = None,
    default_reason: str = "",
) -> list[int]:
    """The port ``command`` binds, else a configured port, else the Dockerfile's ``EXPOSE``,
    else the framework default.

    What the process itself is told wins over what the image declares: a run command that
    says ``--port=8000`` listens on 8000 whatever ``EXPOSE`` claims. ``configured`` holds
    (port, file, setting) in order of preference.
    """
    port = bound_port(command)
    if port is not None:
        same = port == default and default_reason
        reason = default_reason if same else f"port {port} (bound by the run command)"
        evidence.append(ev("note", HERE, reason))
        return [port]
    if configured:
        port, file, setting = configured[0]
        evidence.append(ev("config", file, f"port {port} (from {setting})"))
        return [port]
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
