"""A crawl job's webhook: one signed POST when the job ends (done, failed or cancelled).

The receiver checks ``X-Sleuth-Signature: sha256=<hex>``, the HMAC-SHA256 of
``"<X-Sleuth-Timestamp>.<body>"`` keyed by ``SLEUTH_WEBHOOK_SECRET``, which every instance
and worker shares. The body carries the job's id, status and counts, never page text.

The target goes through the guard twice: when the job is submitted (a private or metadata
address is refused then, as ``BLOCKED``) and when the POST connects (the transport checks
every address it dials, so a name that changes its answer meanwhile is still refused).

Each transition is delivered once: it is sent only where :meth:`sleuth.jobs.store.Jobs.finish`
ended the job, which happens once (one script in the job's store). A retry, with backoff,
follows only a failed attempt. Each attempt ends at the fetch deadline, and only the
answer's status is read, never its body: a receiver cannot hold a process by dripping it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx

from sleuth.errors import BlockedError, UsageError
from sleuth.log import event

if TYPE_CHECKING:
    from sleuth.web import Web

SIGNATURE_HEADER = "X-Sleuth-Signature"
TIMESTAMP_HEADER = "X-Sleuth-Timestamp"
TRANSITIONS = frozenset({"done", "failed", "cancelled"})
ATTEMPTS = 5  # one POST, then up to four retries
BACKOFF = 2.0  # seconds before the first retry, doubled for each one after
# A receiver's answer that another attempt may change; any other non-2xx is final.
_RETRYABLE = frozenset({408, 425, 429, 500, 502, 503, 504})


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Sleuth-Signature`` value of ``body`` sent at ``timestamp`` (Unix seconds)."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


async def check_target(web: Web, url: str) -> None:
    """Refuse a webhook that is not an http(s) URL (400), that the guard would not let
    sleuth call (``BLOCKED``, 403) or whose name does not resolve (``NETWORK_ERROR``)."""
    try:
        scheme = httpx.URL(url).scheme
    except httpx.InvalidURL:
        scheme = ""
    if scheme not in ("http", "https"):
        raise UsageError(f"the webhook is not an http or https URL: {url[:200]!r}")
    await web.clients.admit(url)


def payload(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the POST says about a job: its id, status and counts, and the error's code
    when it failed; never a page's text, its notes or its options."""
    error = record.get("error")
    return {
        "id": record["id"],
        "status": record["status"],
        "pages": record["pages"],
        "errors": record["errors"],
        "error_code": error.get("code") if isinstance(error, Mapping) else None,
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


async def deliver(web: Web, secret: str | None, url: str, record: Mapping[str, Any]) -> bool:
    """Post the job's transition to ``url``; True once a receiver answered 2xx. Called
    once per transition, by the process whose :meth:`~sleuth.jobs.store.Jobs.finish` ended
    the job. Never raises: a job's end does not depend on its receiver. A process without
    the secret (set unlike the one that took the job) cannot sign: it logs the error
    ``crawl_webhook_unsigned`` and sends nothing."""
    job, status = record["id"], record["status"]
    if status not in TRANSITIONS:
        return False
    if not secret:
        event("crawl_webhook_unsigned", logging.ERROR, job=job, status=status)
        return False
    body = json.dumps(payload(record), separators=(",", ":")).encode()
    deadline = web.fetching.fetch_deadline
    async with web.clients() as client:  # no site credentials: a receiver is not a page
        for attempt in range(ATTEMPTS):
            if attempt:
                await asyncio.sleep(BACKOFF * 2 ** (attempt - 1))
            try:
                async with asyncio.timeout(deadline):
                    outcome = await _post(client, secret, url, body)
            except TimeoutError:
                outcome = "retry"
            event("crawl_webhook", job=job, status=status, attempt=attempt + 1, outcome=outcome)
            if outcome == "sent":
                return True
            if outcome != "retry":
                return False
    return False


async def _post(client: httpx.AsyncClient, secret: str, url: str, body: bytes) -> str:
    """One attempt: ``sent``, ``retry`` (worth another) or why it is not (final)."""
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: sign(secret, timestamp, body),
    }
    try:
        # Only the status counts: the answer's body is never read, however it trickles.
        async with client.stream(
            "POST", url, content=body, headers=headers, follow_redirects=False
        ) as response:
            status = response.status_code
    except BlockedError:
        return "blocked"
    except httpx.HTTPError:
        return "retry"
    if 200 <= status < 300:
        return "sent"
    return "retry" if status in _RETRYABLE else f"refused {status}"
