"""GitHub verification: does the repository the model named exist, and what is it?

One ``GET /repos/{owner}/{repo}`` (``SLEUTH_GITHUB_API_URL``, ``GITHUB_TOKEN`` when
set) answers existence, archival, fork parentage, stars, age and owner. A 404 or
an archived repository rejects the candidate; a rate limit or an outage keeps it,
marked unverified, so a person must look at it before it is used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import quote

import httpx

from sleuth.config import DiscoverSettings
from sleuth.discovery.models import RepoMetadata
from sleuth.discovery.sources import valid_github
from sleuth.errors import SleuthError
from sleuth.extract.text import clean_line
from sleuth.net import Clients, read_body

MAX_BODY = 2 * 1024 * 1024
Status = Literal["ok", "not_found", "archived", "skipped"]


@dataclass
class Verification:
    source: str  # owner/repo as asked
    status: Status
    metadata: RepoMetadata
    full_name: str  # owner/repo as GitHub spells it now (a renamed repo redirects)
    warnings: list[str] = field(default_factory=list)


def _days_since(stamp: Any, now: datetime) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0, (now - moment).days)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return clean_line(value)[:300] or None if isinstance(value, str) else None


class GitHub:
    def __init__(
        self,
        discover: DiscoverSettings,
        clients: Clients,
        *,
        timeout: float = 5.0,
    ) -> None:
        self.base = discover.github_api_url.rstrip("/")
        self.token = discover.secret("github_token")
        self.client = clients(trusted_urls=[self.base], timeout=timeout)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def _get(self, path: str) -> tuple[int, httpx.Headers, Any]:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        async with self.client.stream("GET", f"{self.base}{path}", headers=headers) as response:
            body = await read_body(response, max_bytes=MAX_BODY, max_decoded_bytes=MAX_BODY)
            try:
                data = json.loads(body) if body else None
            except ValueError:
                data = None
            return response.status_code, response.headers, data

    async def verify(self, source: str, *, now: datetime | None = None) -> Verification:
        owner, _, repo = source.partition("/")
        path = f"/repos/{quote(owner, safe='')}/{quote(repo, safe='')}"
        unverified = RepoMetadata(owner=owner, verification_skipped=True)
        try:
            status, headers, data = await self._get(path)
        except (httpx.HTTPError, SleuthError) as error:
            reason = error.message if isinstance(error, SleuthError) else type(error).__name__
            return Verification(
                source,
                "skipped",
                unverified,
                source,
                [f"GitHub could not be asked about {source} ({reason}); it is unverified"],
            )
        if status == 404:
            return Verification(source, "not_found", RepoMetadata(owner=owner), source)
        # Primary limits say remaining 0; secondary ones send retry-after (GitHub's docs).
        limited = status == 429 or (
            status == 403
            and (
                headers.get("x-ratelimit-remaining", "").strip() == "0" or "retry-after" in headers
            )
        )
        if limited or status != 200 or not isinstance(data, dict):
            why = (
                "GitHub's API rate limit is spent (set GITHUB_TOKEN for more)"
                if limited
                else f"GitHub answered HTTP {status}"
                if status != 200
                else "GitHub's reply was not a repository"
            )
            return Verification(
                source, "skipped", unverified, source, [f"{why}; {source} is unverified"]
            )
        moment = now or datetime.now(UTC)
        owner_raw, parent_raw, name_raw = (
            data.get("owner"),
            data.get("parent"),
            data.get("full_name"),
        )
        owner_data: dict[str, Any] = owner_raw if isinstance(owner_raw, dict) else {}
        parent: dict[str, Any] | None = parent_raw if isinstance(parent_raw, dict) else None
        full_name = name_raw if isinstance(name_raw, str) and valid_github(name_raw) else source
        metadata = RepoMetadata(
            stars=_int(data.get("stargazers_count")) or 0,
            is_fork=bool(data.get("fork")),
            parent=_text(parent.get("full_name")) if parent else None,
            parent_stars=_int(parent.get("stargazers_count")) if parent else None,
            archived=bool(data.get("archived")),
            created_at=_text(data.get("created_at")),
            last_push_days=_days_since(data.get("pushed_at"), moment),
            owner=_text(owner_data.get("login")) or owner,
            owner_type=_text(owner_data.get("type")),
            description=_text(data.get("description")),
        )
        warnings: list[str] = []
        if full_name.lower() != source.lower():
            warnings.append(f"GitHub says {source} is now {full_name}")
        if metadata.is_fork and metadata.parent and metadata.parent_stars is None:
            parent_check = await self.verify(metadata.parent, now=moment)
            if parent_check.status in ("ok", "archived"):
                metadata.parent_stars = parent_check.metadata.stars
        status_of: Status = "archived" if metadata.archived else "ok"
        return Verification(source, status_of, metadata, full_name, warnings)
