"""Stage 2: ask every package ecosystem about a name at once, under one deadline.

Each probe speaks one registry's public JSON API (crates.io, npm, PyPI, RubyGems, the
Go module proxy, Homebrew formulae and casks, MetaCPAN) at a base URL an operator can
point at a mirror (``SLEUTH_PROBE_<NAME>_URL``, a path prefix allowed). A 404 means
the package is absent; a timeout, a 5xx or a body that is not what the API documents
is a probe error, reported as a warning and never mistaken for absence.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

import httpx

from sleuth.config import DiscoverSettings
from sleuth.discovery.models import ProbeResult
from sleuth.errors import SleuthError
from sleuth.net import Clients, read_body

MAX_BODY = 64 * 1024 * 1024  # npm documents of busy packages run to tens of megabytes
# Probe name -> (settings field, builder it answers for).
PROBES: dict[str, tuple[str, str]] = {
    "CRATES_IO": ("probe_crates_io_url", "crates.io"),
    "NPM": ("probe_npm_url", "npm"),
    "PYPI": ("probe_pypi_url", "pypi"),
    "RUBYGEMS": ("probe_rubygems_url", "rubygems"),
    "GO": ("probe_go_url", "go"),
    "HOMEBREW": ("probe_homebrew_url", "homebrew"),
    "CASK": ("probe_cask_url", "cask"),
    "CPAN": ("probe_cpan_url", "cpan"),
}
Status = Literal["found", "absent", "error"]


class ProbeFailure(Exception):
    """The registry answered, but not in a way that says found or absent."""


class Absent(Exception):
    """The registry says there is no such package."""


@dataclass
class ProbeOutcome:
    builder: str
    status: Status
    result: ProbeResult | None = None
    package: str | None = None  # the registry's own spelling of the name
    error: str | None = None
    latency_ms: int = 0

    @property
    def warning(self) -> str | None:
        if self.status != "error":
            return None
        return f"{self.builder} probe failed: {self.error}"


@dataclass
class ProbeSession:
    settings: DiscoverSettings
    client: httpx.AsyncClient
    bases: dict[str, str] = field(default_factory=dict)

    def url(self, probe: str, *segments: str, suffix: str = "") -> str:
        path = "/".join(quote(segment, safe="") for segment in segments)
        return f"{self.bases[probe].rstrip('/')}/{path}{suffix}"

    async def get(self, url: str, *, text: bool = False) -> Any:
        """The decoded JSON (or text) at ``url``; Absent on 404/410, ProbeFailure otherwise."""
        try:
            async with self.client.stream("GET", url, headers={"Accept": "application/json"}) as r:
                if r.status_code in (404, 410):
                    raise Absent
                if r.status_code != 200:
                    raise ProbeFailure(f"HTTP {r.status_code} from {url}")
                body = await read_body(r, max_bytes=MAX_BODY, max_decoded_bytes=MAX_BODY)
        except httpx.TimeoutException:
            raise ProbeFailure(f"timed out reading {url}") from None
        except httpx.HTTPError as error:
            raise ProbeFailure(f"{type(error).__name__} for {url}: {error}") from None
        except SleuthError as error:
            raise ProbeFailure(f"{error.code} for {url}: {error.message}") from None
        if text:
            return body.decode("utf-8", errors="replace")
        try:
            return json.loads(body)
        except ValueError:
            raise ProbeFailure(f"{url} answered with a body that is not JSON") from None


async def _together(*requests: Awaitable[Any]) -> list[Any]:
    """Run requests at once; the first one's failure is the one that counts (a package's
    main document speaks for it before its side listings do)."""
    results = await asyncio.gather(*requests, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return list(results)


def _dict(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProbeFailure(f"malformed reply: {what} is not an object")
    return value


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _same(found: Any, name: str) -> str:
    """The registry's spelling of the package, when it is ``name`` (case-insensitively)."""
    if not isinstance(found, str) or found.lower() != name.lower():
        raise Absent
    return found


async def crates_io(session: ProbeSession, name: str) -> ProbeResult:
    data = _dict(await session.get(session.url("CRATES_IO", "api", "v1", "crates", name)), "reply")
    crate = _dict(data.get("crate"), "crate")
    package = _same(crate.get("name") or crate.get("id"), name)
    versions = data.get("versions")
    if not isinstance(versions, list):
        raise ProbeFailure("malformed reply: versions is not a list")
    return ProbeResult(
        source=f"crates.io:{package}",
        downloads=_int(crate.get("recent_downloads")),
        version_count=len(versions),
        has_repository=bool(crate.get("repository")),
    )


async def npm(session: ProbeSession, name: str) -> ProbeResult:
    async def downloads() -> int:
        url = session.url("NPM_DOWNLOADS", "downloads", "point", "last-week", name)
        try:
            return _int(_dict(await session.get(url), "reply").get("downloads"))
        except (Absent, ProbeFailure):
            return 0  # best effort: the count is a ranking signal, not proof of existence

    document, weekly = await asyncio.gather(session.get(session.url("NPM", name)), downloads())
    data = _dict(document, "reply")
    package = _same(data.get("name"), name)
    versions = data.get("versions")
    if not isinstance(versions, dict):
        raise ProbeFailure("malformed reply: versions is not an object")
    repository = data.get("repository")
    if isinstance(repository, dict):
        repository = repository.get("url")
    return ProbeResult(
        source=f"npm:{package}",
        downloads=weekly,
        version_count=len(versions),
        has_repository=isinstance(repository, str) and bool(repository.strip()),
    )


def _pep503(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


async def pypi(session: ProbeSession, name: str) -> ProbeResult:
    data = _dict(await session.get(session.url("PYPI", "pypi", name, "json")), "reply")
    info = _dict(data.get("info"), "info")
    package = info.get("name")
    # PyPI itself treats - _ . and case as one name (PEP 503).
    if not isinstance(package, str) or _pep503(package) != _pep503(name):
        raise Absent
    releases = data.get("releases")
    if not isinstance(releases, dict):
        raise ProbeFailure("malformed reply: releases is not an object")
    urls = info.get("project_urls")
    return ProbeResult(
        source=f"pypi:{package}",
        downloads=0,
        version_count=len(releases),
        has_repository=isinstance(urls, dict) and any(urls.values()),
    )


async def rubygems(session: ProbeSession, name: str) -> ProbeResult:
    gem, versions = await _together(
        session.get(session.url("RUBYGEMS", "api", "v1", "gems", name, suffix=".json")),
        session.get(session.url("RUBYGEMS", "api", "v1", "versions", name, suffix=".json")),
    )
    data = _dict(gem, "reply")
    package = _same(data.get("name"), name)
    if not isinstance(versions, list):
        raise ProbeFailure("malformed reply: versions is not a list")
    return ProbeResult(
        source=f"rubygems:{package}",
        downloads=_int(data.get("downloads")),
        version_count=len(versions),
        has_repository=bool(data.get("source_code_uri")),
    )


def _module_segments(module: str) -> list[str]:
    """The Go proxy's case encoding: an upper-case letter is ``!`` and its lower case."""
    escaped = re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), module)
    return escaped.split("/")


async def go(session: ProbeSession, name: str) -> ProbeResult:
    first = name.split("/", 1)[0]
    if "/" not in name or "." not in first:
        raise Absent  # not a module path: the proxy only knows hosts with paths
    segments = _module_segments(name)
    latest, listing = await _together(
        session.get(session.url("GO", *segments, suffix="/@latest")),
        session.get(session.url("GO", *segments, suffix="/@v/list"), text=True),
    )
    data = _dict(latest, "@latest")
    if not isinstance(data.get("Version"), str):
        raise ProbeFailure("malformed reply: @latest has no Version")
    origin = data.get("Origin")
    return ProbeResult(
        source=f"go:{name}",
        downloads=0,
        version_count=len([line for line in str(listing).splitlines() if line.strip()]),
        has_repository=isinstance(origin, dict) and bool(origin.get("URL")),
    )


def _installs(data: dict[str, Any], key: str) -> int:
    analytics = data.get("analytics")
    if not isinstance(analytics, dict):
        return 0
    install = analytics.get("install")
    year = install.get("365d") if isinstance(install, dict) else None
    return _int(year.get(key)) if isinstance(year, dict) else 0


async def homebrew(session: ProbeSession, name: str) -> ProbeResult:
    url = session.url("HOMEBREW", "api", "formula", name, suffix=".json")
    data = _dict(await session.get(url), "reply")
    package = _same(data.get("name"), name)
    return ProbeResult(
        source=f"homebrew:{package}",
        downloads=_installs(data, package),
        version_count=0,
        has_repository=bool(data.get("homepage")),
    )


async def cask(session: ProbeSession, name: str) -> ProbeResult:
    data = _dict(
        await session.get(session.url("CASK", "api", "cask", name, suffix=".json")), "reply"
    )
    package = _same(data.get("token"), name)
    if data.get("disabled"):
        raise Absent  # Homebrew will not install a disabled cask
    return ProbeResult(
        source=f"cask:{package}",
        downloads=_installs(data, package),
        version_count=0,
        has_repository=bool(data.get("homepage")),
    )


async def cpan(session: ProbeSession, name: str) -> ProbeResult:
    async def count() -> int:
        url = session.url("CPAN", "v1", "release", "versions", name)
        try:
            data = _dict(await session.get(url), "reply")
        except Absent:
            return 0
        releases = data.get("releases")
        return len(releases) if isinstance(releases, list) else _int(data.get("total"))

    release, distribution, releases = await _together(
        session.get(session.url("CPAN", "v1", "release", name)),
        session.get(session.url("CPAN", "v1", "distribution", name)),
        count(),
    )
    data = _dict(release, "release")
    package = _same(data.get("distribution"), name)
    river = _dict(distribution, "distribution").get("river")
    resources = data.get("resources")
    repository = resources.get("repository") if isinstance(resources, dict) else None
    return ProbeResult(
        source=f"cpan:{package}",
        downloads=_int(river.get("total")) if isinstance(river, dict) else 0,
        version_count=releases,
        has_repository=bool(repository),
    )


Probe = Callable[[ProbeSession, str], Awaitable[ProbeResult]]
RUNNERS: dict[str, Probe] = {
    "crates.io": crates_io,
    "npm": npm,
    "pypi": pypi,
    "rubygems": rubygems,
    "go": go,
    "homebrew": homebrew,
    "cask": cask,
    "cpan": cpan,
}


def _bases(discover: DiscoverSettings) -> dict[str, str]:
    bases = {probe: str(getattr(discover, field)) for probe, (field, _) in PROBES.items()}
    bases["NPM_DOWNLOADS"] = discover.probe_npm_downloads_url
    return bases


async def probe_all(
    discover: DiscoverSettings,
    clients: Clients,
    name: str,
    *,
    deadline: float | None = None,
) -> list[ProbeOutcome]:
    """Every ecosystem's answer for ``name``, in :data:`RUNNERS` order, within one deadline."""
    limit = deadline or discover.discover_probe_timeout
    bases = _bases(discover)
    # The probe endpoints are operator-configured, so their origins are trusted (mirrors on
    # an intranet, loopback in tests); nothing else is.
    # Per-read timeouts outlast the deadline: the deadline is the one that speaks.
    client = clients(trusted_urls=list(bases.values()), timeout=limit + 1)
    session = ProbeSession(discover, client, bases)

    async def run(builder: str, probe: Probe) -> ProbeOutcome:
        started = time.monotonic()
        try:
            result = await probe(session, name)
        except Absent:
            outcome = ProbeOutcome(builder, "absent")
        except ProbeFailure as failure:
            outcome = ProbeOutcome(builder, "error", error=str(failure))
        else:
            outcome = ProbeOutcome(builder, "found", result, result.source.split(":", 1)[1])
        outcome.latency_ms = int((time.monotonic() - started) * 1000)
        return outcome

    tasks = {
        builder: asyncio.create_task(run(builder, probe)) for builder, probe in RUNNERS.items()
    }
    try:
        await asyncio.wait(tasks.values(), timeout=limit)
    finally:
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        await client.aclose()
    outcomes = []
    for builder, task in tasks.items():
        if task.cancelled() or not task.done() or task.exception() is not None:
            error = task.exception() if task.done() and not task.cancelled() else None
            outcomes.append(
                ProbeOutcome(
                    builder,
                    "error",
                    error=f"no answer within the {limit:g}s probe deadline"
                    if error is None
                    else f"{type(error).__name__}: {error}",
                    latency_ms=int(limit * 1000),
                )
            )
        else:
            outcomes.append(task.result())
    return outcomes
