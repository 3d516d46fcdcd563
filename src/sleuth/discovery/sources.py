"""What a source may look like, per builder, and ``--from BUILDER:SOURCE`` parsing.

A source reaches a shell command (the install hint) and a URL path, so each builder
allows only the characters its ecosystem does; GitHub sources must be plain
``owner/repo`` in GitHub's own character sets.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from sleuth.discovery.models import BUILDER_ALIASES, BUILDERS
from sleuth.errors import Ref, UsageError

# GitHub: owners are 1-39 alphanumerics or single hyphens; repositories . _ - too.
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_PACKAGE = re.compile(r"^@?[A-Za-z0-9][A-Za-z0-9._+@-]*(?:/[A-Za-z0-9][A-Za-z0-9._+-]*)?$")
_MODULE = re.compile(r"^[a-z0-9.-]+\.[a-z]{2,}(?:/[A-Za-z0-9._~+-]+)+$")


# How a caller names a source itself: the parameter (its field is "from").
FROM = Ref("from_source", words="from")


def from_source(source: str) -> Ref:
    """The parameter with ``source`` as its value."""
    return Ref("from_source", source, f'from: "{source}"')


def name_it(tool: str, source: str = "BUILDER:SOURCE") -> Ref:
    """The way out of a discovery that found nothing sure: name ``source`` for ``tool``
    (a person at the CLI reads the whole command line)."""
    return Ref("discover_source", (tool, source), f'from: "{source}"')


def canonical_builder(name: str) -> str | None:
    lowered = name.strip().lower()
    builder = BUILDER_ALIASES.get(lowered, lowered)
    return builder if builder in BUILDERS else None


def valid_github(source: str) -> bool:
    owner, slash, repo = source.partition("/")
    return (
        bool(slash)
        and bool(_OWNER.match(owner))
        and bool(_REPO.match(repo))
        and repo not in (".", "..")
        and not repo.endswith(".git")
    )


def check_source(builder: str, source: str) -> None:
    """Raise ValueError when ``source`` is not a well-formed source for ``builder``."""
    if builder == "github":
        ok = valid_github(source)
    elif builder == "go":
        ok = bool(_MODULE.match(source)) and ".." not in source
    else:
        ok = bool(_PACKAGE.match(source)) and len(source) <= 214 and ".." not in source
    if not ok:
        raise ValueError(f"{source!r} is not a valid {builder} source")


def parse_from(spec: str) -> tuple[str, str]:
    """``builder:source`` from ``--from``; GitHub URLs are accepted for ``github``."""
    builder_name, colon, source = spec.strip().partition(":")
    if not colon or not source.strip():
        raise UsageError(
            f"{{from}} {spec!r} is not BUILDER:SOURCE",
            hint="for example {github} or {crates}",
            refs={
                "from": FROM,
                "github": from_source("github:cli/cli"),
                "crates": from_source("crates.io:ripgrep"),
            },
        )
    builder = canonical_builder(builder_name)
    if builder is None:
        raise UsageError(
            f"{{from}} names an unknown builder {builder_name!r}",
            hint=f"use one of {', '.join(BUILDERS)}",
            refs={"from": FROM},
        )
    source = source.strip()
    if builder == "github":
        source = github_from_url(source) or source
    try:
        check_source(builder, source)
    except ValueError as error:
        raise UsageError(f"{{from}}: {error}", refs={"from": FROM}) from None
    return builder, source


def github_from_url(text: str) -> str | None:
    """``owner/repo`` from ``github.com/owner/repo`` (with or without scheme, ``.git``,
    or a trailing ``/``), or None for anything else: other hosts, credentials, ports,
    deeper paths, queries or traversal."""
    value = text.strip()
    if valid_github(value):
        return value
    if "://" not in value:
        if not value.lower().startswith(("github.com/", "www.github.com/")):
            return None
        value = "https://" + value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or parts.query or parts.fragment:
        return None
    if parts.username or parts.password or parts.port is not None:
        return None
    if (parts.hostname or "").lower() not in ("github.com", "www.github.com"):
        return None
    path = parts.path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    segments = path.split("/")
    if len(segments) != 2 or not valid_github(path):
        return None
    return path
