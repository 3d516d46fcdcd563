"""The ports a Dockerfile's final stage declares with ``EXPOSE``.

``EXPOSE $PORT`` is common, so ``ARG`` and ``ENV`` defaults are substituted first.
"""

from __future__ import annotations

import re

_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}?")


def _logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") and not pending:
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _assignments(args: str) -> dict[str, str]:
    if "=" not in args.split(maxsplit=1)[0]:
        name, _, value = args.partition(" ")
        return {name: value.strip().strip("\"'")}
    out: dict[str, str] = {}
    for part in args.split():
        name, eq, value = part.partition("=")
        if eq:
            out[name] = value.strip("\"'")
    return out


def exposed_ports(text: str) -> list[int]:
    """Ports from ``EXPOSE`` in the last stage, in order, without duplicates."""
    values: dict[str, str] = {}
    ports: list[int] = []
    for line in _logical_lines(text):
        word, _, args = line.partition(" ")
        keyword = word.upper()
        if keyword == "FROM":
            ports = []
        elif keyword in ("ARG", "ENV") and args.strip():
            values.update(_assignments(args.strip()))
        elif keyword == "EXPOSE":
            expanded = _VAR.sub(lambda m: values.get(m.group(1)) or (m.group(2) or ""), args)
            for item in expanded.split():
                number = item.split("/", 1)[0]
                if number.isdigit() and 0 < int(number) < 65536 and int(number) not in ports:
                    ports.append(int(number))
    return ports
