"""The one way an LLM request leaves sleuth: guarded client, retries by class, cassettes.

Retries follow the error's own ``retryable`` flag and ``retry_after``; a
wait that would overrun the caller's deadline is not started, the error is
raised instead, so a deadline is never silently stretched.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from sleuth import log
from sleuth.config import LLMSettings
from sleuth.errors import BlockedError, LLMError, LLMServerError, LLMTimeout, MalformedReply
from sleuth.llm.cassette import Cassette, RecordedResponse, canonical_request
from sleuth.net import Clients

MAX_BACKOFF = 30.0
BACKOFF_BASE = 0.5


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


Classifier = Callable[[Reply], LLMError]


class LLMHttp:
    """POSTs JSON to one provider's base URL."""

    def __init__(
        self,
        llm: LLMSettings,
        clients: Clients,
        *,
        provider: str,
        base_url: str,
        timeout: float,
        cassette: Cassette | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.llm = llm
        self._clients = clients
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.cassette = cassette
        self.sleep = sleep
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            # The base URL is operator-configured, so its origin is trusted even on loopback.
            self._client = self._clients(trusted_urls=[self.base_url], timeout=self.timeout)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def post(
        self,
        path: str,
        body: dict[str, Any],
        *,
        classify: Classifier,
        headers: dict[str, str] | None = None,
        deadline: float | None = None,
    ) -> Any:
        """The decoded JSON of a 2xx reply; errors are classified and retried by class.

        ``deadline`` is a ``time.monotonic()`` instant no attempt or wait may pass.
        """
        canonical = canonical_request("POST", path, body)
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                reply = await self._send(path, body, headers or {}, canonical, deadline)
                if 200 <= reply.status < 300:
                    try:
                        return reply.json()
                    except ValueError:
                        raise MalformedReply(
                            f"{self.provider} answered {reply.status} with a body that is not JSON",
                            raw=reply.text[:20_000],
                            provider=self.provider,
                        ) from None
                raise classify(reply)
            except LLMError as error:
                error.provider = error.provider or self.provider
                delay = self._backoff(error, attempt)
                log.event(
                    "llm_error",
                    provider=self.provider,
                    code=error.code,
                    status=error.status,
                    attempt=attempt + 1,
                    latency_ms=int((time.monotonic() - started) * 1000),
                    retry_in=None if delay is None else round(delay, 2),
                )
                if delay is None or (deadline is not None and time.monotonic() + delay >= deadline):
                    raise
                attempt += 1
                await self.sleep(delay)

    def _backoff(self, error: LLMError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None when there is none."""
        if not error.retryable or attempt >= self.llm.llm_retries:
            return None
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), MAX_BACKOFF * 4)
        # Full jitter: spreads a crowd of clients that all failed at once.
        return random.uniform(0, min(MAX_BACKOFF, BACKOFF_BASE * 2**attempt))

    async def _send(
        self,
        path: str,
        body: dict[str, Any],
        headers: dict[str, str],
        canonical: str,
        deadline: float | None,
    ) -> Reply:
        if self.cassette is not None:
            recorded = self.cassette.replay(canonical)
            if recorded is not None:
                return Reply(recorded.status, recorded.headers, recorded.body)
        timeout = self.timeout
        if deadline is not None:
            timeout = min(timeout, deadline - time.monotonic())
            if timeout <= 0:
                raise LLMTimeout(
                    f"the LLM deadline passed before a call to {self.provider}",
                    provider=self.provider,
                    retryable=False,
                )
        url = self.base_url + path
        try:
            response = await asyncio.wait_for(
                # Keys in custom headers (x-api-key) would follow a redirect; never follow one.
                self._http().post(url, json=body, headers=headers, follow_redirects=False),
                timeout,
            )
        except (TimeoutError, httpx.TimeoutException):
            raise LLMTimeout(
                f"{self.provider} did not answer within {timeout:.0f} s", provider=self.provider
            ) from None
        except BlockedError:
            raise
        except httpx.HTTPError as exc:
            raise LLMServerError(
                f"cannot reach {self.provider} at {self.base_url}: {exc}",
                provider=self.provider,
                hint="is the server running, and is SLEUTH_LLM_BASE_URL right?",
            ) from None
        reply = Reply(
            response.status_code,
            {
                name: value
                for name, value in response.headers.items()
                if name.lower() in ("content-type", "retry-after", "retry-after-ms", "location")
            },
            response.text,
        )
        if self.cassette is not None:
            self.cassette.record(
                canonical, RecordedResponse(reply.status, reply.headers, reply.text)
            )
        return reply
