"""Link suggestions: one metered model call that turns a URL into slug, title, description, tags.

The model is whichever the LLM layer is configured for (Anthropic, OpenAI,
any OpenAI-compatible server such as Ollama) and every call goes through a
:class:`~sleuth.llm.meter.Meter`, so prices, usage and the daily budget shared
through the cache apply as they do to ``ask``. Only an operator's explicit
``SLEUTH_LLM_PROVIDER`` or ``SLEUTH_LLM_BASE_URL`` turns the feature on: a
vendor key exported for other tools must not start sending URLs to a model.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sleuth import log
from sleuth.config import LLMSettings, SuggestSettings
from sleuth.errors import LLMError, LLMNotConfigured, MalformedReply, UsageError
from sleuth.extract.text import first_visible_sentence
from sleuth.llm.envelope import Envelope
from sleuth.llm.jsonreply import find_json
from sleuth.llm.meter import Meter
from sleuth.llm.models import ChatRequest, Message, Usage
from sleuth.llm.setup import open_provider
from sleuth.suggest.fields import KEYS, Suggestion, clean
from sleuth.suggest.prompt import load_template, render

if TYPE_CHECKING:
    from sleuth.web import Web

RAW_LOG_LIMIT = 2048
MAX_OUTPUT_TOKENS = 600
MAX_INPUT_CHARS = 4000  # of the title and the description each, as sent to the model


@dataclass
class SuggestResult:
    suggestion: Suggestion
    cleared: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    calls: int = 0
    provider: str = ""
    model: str = ""
    fetched: bool = False


def llm_configured(llm: LLMSettings) -> bool:
    return bool(llm.llm_provider or llm.llm_base_url)


def check_url(url: str) -> str:
    url = url.strip()
    if not url:
        raise UsageError("url is required", hint="send the page's address in the url field")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"url {url[:200]!r} is not an absolute http(s) URL",
            hint="send the page's address, like https://example.com/page",
        )
    return url


class Suggester:
    """Built once per process (prompt checked, provider opened); each call makes its own
    Meter. The page, when it is read, comes through the session's ``web``."""

    def __init__(self, suggest: SuggestSettings, llm: LLMSettings, web: Web) -> None:
        if not llm_configured(llm):
            raise LLMNotConfigured(
                "link suggestions are off: no LLM is configured",
                hint="set SLEUTH_LLM_PROVIDER (and its key) or SLEUTH_LLM_BASE_URL",
            )
        self.settings = suggest
        self.llm = llm
        self.cache = web.cache
        self.web = web
        self.instructions = render(
            load_template(suggest.suggest_prompt), suggest.suggest_reserved_slugs
        )
        self.provider, self.config = open_provider(llm, web.clients)

    async def suggest(
        self,
        url: str,
        title: str | None = None,
        description: str | None = None,
        *,
        respect_content_signals: bool = True,
    ) -> SuggestResult:
        url = check_url(url)
        title = (title or "").strip()
        description = (description or "").strip()
        fetched = False
        if not title and not description and self.settings.suggest_fetch:
            title, description = await self._read_page(url, respect_content_signals)
            fetched = bool(title or description)
        meter = Meter.open(self.provider, self.config, self.llm, self.cache)
        envelope = Envelope()
        page = json.dumps(
            {
                "url": url,
                "title": title[:MAX_INPUT_CHARS],
                "description": description[:MAX_INPUT_CHARS],
            },
            ensure_ascii=False,
            indent=1,
        )
        request = ChatRequest(
            [
                Message("system", f"{self.instructions.strip()}\n\n{envelope.rule()}"),
                Message(
                    "user",
                    "Suggest link metadata for this page. Its details, as the user's browser "
                    "saw them:\n" + envelope.wrap("page", page),
                ),
            ],
            max_output_tokens=MAX_OUTPUT_TOKENS,
            temperature=0.2,
        )
        timeout = self.settings.suggest_timeout
        try:
            async with asyncio.timeout(timeout):
                completion = await meter.complete(request, deadline=time.monotonic() + timeout)
            reply = _object(completion.message.content)
        except TimeoutError:
            raise LLMError(
                f"the model did not answer within {timeout:g} s",
                provider=self.provider.name,
                retryable=True,
                hint="raise SLEUTH_SUGGEST_TIMEOUT or use a faster model",
            ) from None
        except MalformedReply as exc:
            log.warn(
                "suggest_malformed_reply",
                provider=self.provider.name,
                error=exc.message,
                raw=exc.raw[:RAW_LOG_LIMIT],
            )
            raise LLMError(
                "the model's reply was not the JSON object asked for",
                provider=self.provider.name,
                retryable=True,
                hint="try again, or another model or prompt (the reply is logged as the "
                "suggest_malformed_reply event)",
            ) from None
        except LLMNotConfigured:
            raise
        except LLMError as exc:
            raise LLMError(
                f"the model failed: {exc.message}",
                provider=exc.provider,
                status=exc.status,
                retryable=exc.retryable,
                hint=exc.hint,
                retry_after=exc.retry_after,
            ) from exc
        suggestion, cleared = clean(reply, self.settings.suggest_reserved_slugs)
        if cleared:
            log.event("suggest_fields_cleared", url=url, fields=",".join(cleared))
        return SuggestResult(
            suggestion=suggestion,
            cleared=cleared,
            usage=meter.usage,
            cost_usd=meter.cost,
            calls=meter.calls,
            provider=self.provider.name,
            model=self.config.model,
            fetched=fetched,
        )

    async def _read_page(self, url: str, respect_content_signals: bool) -> tuple[str, str]:
        """Title and the first visible sentence of the page itself, through the guard and
        robots.txt (and, for the model, the site's content signals): never its meta
        description, which no reader of the page sees."""
        try:  # the model's deadline matters more: a slow page is given up, not waited for
            async with asyncio.timeout(self.settings.suggest_timeout / 3):
                result = await self.web.fetcher.fetch(
                    url, respect_robots=True, max_chars=2000, for_model=respect_content_signals
                )
        except TimeoutError:
            log.event("suggest_fetch_failed", url=url, outcome="timeout")
            return "", ""
        if not result.ok and result.outcome != "empty_extraction":
            log.event("suggest_fetch_failed", url=url, outcome=result.outcome)
            return "", ""
        return result.title or "", first_visible_sentence(result.text, result.title)

    async def aclose(self) -> None:
        await self.provider.aclose()


def _object(text: str) -> dict[str, Any]:
    """The reply's JSON object; anything else (no JSON, a list, no known key) is malformed."""
    value = find_json(text)
    if not isinstance(value, dict) or not any(key in value for key in KEYS):
        raise MalformedReply("the reply's JSON is not a suggestion object", raw=text)
    return value
