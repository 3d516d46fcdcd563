"""Loopback stand-ins for the package registries and GitHub, speaking their wire formats.

The payloads are written from each service's public API documentation (crates.io's
``/api/v1/crates/{name}``, the npm registry's package documents and its downloads
API ``/downloads/point/last-week/{name}``, PyPI's JSON API ``/pypi/{name}/json``,
RubyGems' ``/api/v1/gems/{name}.json`` and ``/api/v1/versions/{name}.json``, the Go
module proxy protocol ``/{module}/@latest`` and ``/@v/list``, Homebrew's formulae.brew.sh
``/api/formula/{name}.json`` and ``/api/cask/{token}.json``, MetaCPAN's ``/v1/release``,
``/v1/distribution`` and ``/v1/release/versions``, and GitHub's REST
``GET /repos/{owner}/{repo}``), trimmed to the fields a client reads plus a few it
does not, as the real ones carry many more.

One :class:`~search.wire.Wire` server hosts them all, each registry under its own
path prefix, so every probe's base URL also exercises a path prefix.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from search.wire import Reply, Wire, json_reply, start

PREFIX = {
    "CRATES_IO": "/crates",
    "NPM": "/npm",
    "NPM_DOWNLOADS": "/npm-api",
    "PYPI": "/pypi-mirror",
    "RUBYGEMS": "/gems",
    "GO": "/goproxy",
    "HOMEBREW": "/brew",
    "CASK": "/brew",
    "CPAN": "/metacpan",
}
GITHUB = "/github-api"


def q(name: str) -> str:
    return quote(name, safe="")


class Registries:
    """Scripted registries: nothing is published until a test says so (all 404)."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def env(self) -> dict[str, str]:
        values = {
            f"SLEUTH_PROBE_{name}_URL": self.wire.url(prefix) for name, prefix in PREFIX.items()
        }
        values["SLEUTH_GITHUB_API_URL"] = self.wire.url(GITHUB)
        return values

    def settings_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            f"probe_{name.lower()}_url": self.wire.url(prefix) for name, prefix in PREFIX.items()
        }
        values["github_api_url"] = self.wire.url(GITHUB)
        return values

    # -- one method per registry --------------------------------------------------------

    def crate(self, name: str, *, downloads: int, versions: int, repository: str | None) -> None:
        self.wire.on(
            f"{PREFIX['CRATES_IO']}/api/v1/crates/{q(name)}",
            json_reply(
                {
                    "crate": {
                        "id": name,
                        "name": name,
                        "description": f"{name} does things",
                        "downloads": downloads * 7,
                        "recent_downloads": downloads,
                        "max_version": f"1.{versions}.0",
                        "repository": repository,
                        "homepage": None,
                    },
                    "versions": [
                        {"id": 1000 + i, "crate": name, "num": f"1.{i}.0", "yanked": False}
                        for i in range(versions)
                    ],
                    "keywords": [],
                    "categories": [],
                }
            ),
        )

    def npm(
        self, name: str, *, downloads: int | None, versions: int, repository: Any = None
    ) -> None:
        document: dict[str, Any] = {
            "_id": name,
            "name": name,
            "dist-tags": {"latest": f"1.{max(versions - 1, 0)}.0"},
            "versions": {
                f"1.{i}.0": {"name": name, "version": f"1.{i}.0"} for i in range(versions)
            },
            "time": {"created": "2020-01-01T00:00:00.000Z"},
            "license": "MIT",
        }
        if repository is not None:
            document["repository"] = repository
        self.wire.on(f"{PREFIX['NPM']}/{q(name)}", json_reply(document))
        if downloads is not None:
            self.wire.on(
                f"{PREFIX['NPM_DOWNLOADS']}/downloads/point/last-week/{q(name)}",
                json_reply(
                    {
                        "downloads": downloads,
                        "start": "2026-11-16",
                        "end": "2026-11-22",
                        "package": name,
                    }
                ),
            )

    def pypi(
        self,
        name: str,
        *,
        releases: int,
        project_urls: dict[str, str] | None,
        display_name: str | None = None,
    ) -> None:
        self.wire.on(
            f"{PREFIX['PYPI']}/pypi/{q(name)}/json",
            json_reply(
                {
                    "info": {
                        "name": display_name or name,
                        "summary": f"{name} for Python",
                        "version": f"0.{releases}",
                        "project_urls": project_urls,
                        "home_page": "",
                    },
                    "releases": {f"0.{i}": [] for i in range(releases)},
                    "urls": [],
                }
            ),
        )

    def gem(self, name: str, *, downloads: int, versions: int, source_code_uri: str | None) -> None:
        self.wire.on(
            f"{PREFIX['RUBYGEMS']}/api/v1/gems/{q(name)}.json",
            json_reply(
                {
                    "name": name,
                    "downloads": downloads,
                    "version": f"2.{versions}.0",
                    "version_downloads": 10,
                    "info": f"{name} gem",
                    "source_code_uri": source_code_uri,
                    "homepage_uri": None,
                }
            ),
        )
        self.wire.on(
            f"{PREFIX['RUBYGEMS']}/api/v1/versions/{q(name)}.json",
            json_reply(
                [
                    {"number": f"2.{i}.0", "platform": "ruby", "prerelease": False}
                    for i in range(versions)
                ]
            ),
        )

    def go(self, module: str, *, versions: int, origin: bool) -> None:
        path = "/".join(q(part) for part in module.split("/"))
        latest: dict[str, Any] = {"Version": f"v1.{versions}.0", "Time": "2026-01-02T03:04:05Z"}
        if origin:
            latest["Origin"] = {"VCS": "git", "URL": f"https://{module}", "Ref": "refs/tags/v1.0.0"}
        self.wire.on(f"{PREFIX['GO']}/{path}/@latest", json_reply(latest))
        self.wire.on(
            f"{PREFIX['GO']}/{path}/@v/list",
            Reply(
                200, "".join(f"v1.{i}.0\n" for i in range(versions)), "text/plain; charset=utf-8"
            ),
        )

    def formula(
        self, name: str, *, installs: int, homepage: str | None = "https://example.org"
    ) -> None:
        self.wire.on(
            f"{PREFIX['HOMEBREW']}/api/formula/{q(name)}.json",
            json_reply(
                {
                    "name": name,
                    "full_name": name,
                    "desc": f"{name} formula",
                    "homepage": homepage,
                    "versions": {"stable": "1.0"},
                    "analytics": {
                        "install": {
                            "30d": {name: installs // 12},
                            "90d": {name: installs // 4},
                            "365d": {name: installs},
                        }
                    },
                }
            ),
        )

    def cask(self, token: str, *, installs: int, disabled: bool = False) -> None:
        self.wire.on(
            f"{PREFIX['CASK']}/api/cask/{q(token)}.json",
            json_reply(
                {
                    "token": token,
                    "full_token": token,
                    "name": [token.title()],
                    "homepage": f"https://{token}.example.org",
                    "version": "3.1",
                    "disabled": disabled,
                    "deprecated": False,
                    "analytics": {"install": {"365d": {token: installs}}},
                }
            ),
        )

    def cpan(self, dist: str, *, river: int, releases: int, repository: bool) -> None:
        resources: dict[str, Any] = {"bugtracker": {"web": "https://rt.cpan.org"}}
        if repository:
            resources["repository"] = {"url": f"https://github.com/perl/{dist}.git", "type": "git"}
        base = PREFIX["CPAN"]
        self.wire.on(
            f"{base}/v1/release/{q(dist)}",
            json_reply(
                {
                    "name": f"{dist}-1.0",
                    "distribution": dist,
                    "version": "1.0",
                    "author": "PAUSEID",
                    "resources": resources,
                }
            ),
        )
        self.wire.on(
            f"{base}/v1/distribution/{q(dist)}",
            json_reply({"name": dist, "river": {"total": river, "immediate": river, "bucket": 2}}),
        )
        self.wire.on(
            f"{base}/v1/release/versions/{q(dist)}",
            json_reply(
                {"total": releases, "releases": [{"version": f"1.{i}"} for i in range(releases)]}
            ),
        )

    def repo(
        self,
        full_name: str,
        *,
        stars: int,
        fork_of: tuple[str, int] | None = None,
        archived: bool = False,
        owner_type: str = "Organization",
        description: str = "",
        created_at: str = "2020-01-15T10:00:00Z",
        pushed_at: str = "2026-11-10T10:00:00Z",
    ) -> None:
        owner = full_name.split("/", maxsplit=1)[0]
        body: dict[str, Any] = {
            "id": 1296269,
            "name": full_name.split("/")[1],
            "full_name": full_name,
            "owner": {"login": owner, "id": 1, "type": owner_type},
            "private": False,
            "html_url": f"https://github.com/{full_name}",
            "description": description,
            "fork": fork_of is not None,
            "created_at": created_at,
            "pushed_at": pushed_at,
            "stargazers_count": stars,
            "watchers_count": stars,
            "archived": archived,
            "disabled": False,
            "default_branch": "main",
        }
        if fork_of is not None:
            parent, parent_stars = fork_of
            body["parent"] = {
                "full_name": parent,
                "owner": {"login": parent.split("/")[0], "type": "Organization"},
                "stargazers_count": parent_stars,
                "fork": False,
            }
            body["source"] = body["parent"]
        self.wire.on(f"{GITHUB}/repos/{full_name}", json_reply(body))

    def github_secondary_limit(self, full_name: str) -> None:
        self.wire.on(
            f"{GITHUB}/repos/{full_name}",
            json_reply(
                {"message": "You have exceeded a secondary rate limit."},
                status=403,
                headers={"retry-after": "60"},
            ),
        )

    def github_rate_limited(self, full_name: str) -> None:
        self.wire.on(
            f"{GITHUB}/repos/{full_name}",
            json_reply(
                {
                    "message": "API rate limit exceeded for 127.0.0.1.",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                },
                status=403,
                headers={"x-ratelimit-limit": "60", "x-ratelimit-remaining": "0"},
            ),
        )


@contextmanager
def registries() -> Iterator[Registries]:
    wire = Wire()
    server, thread = start(wire)
    # Every probe connects at once (a dozen connections where real registries are separate
    # hosts); the default listen backlog of 5 would drop SYNs, costing a 1 s retransmit.
    server.socket.listen(128)
    try:
        yield Registries(wire)
    finally:
        for replies in wire.routes.values():
            for reply in replies:
                if reply.stall is not None:
                    reply.stall.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
