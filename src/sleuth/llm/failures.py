"""Turning a provider's error reply into the right :class:`~sleuth.errors.LLMError`.

Each provider pulls a message and a machine code out of its own error
shape; the class is then decided here, once, from status and wording, so
"retry or not" means the same thing for every provider.
"""

from __future__ import annotations

import email.utils
import re
import time
from datetime import UTC

from sleuth.errors import (
    LLMAuthError,
    LLMContextLength,
    LLMError,
    LLMInvalidRequest,
    LLMOverloaded,
    LLMQuotaExceeded,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
    LLMToolsUnsupported,
)
from sleuth.llm.http import Reply

_TOOLS_UNSUPPORTED = re.compile(
    r"(does not support|doesn't support|not support(?:ed)?|unsupported)\W+(?:\w+\W+){0,3}"
    r"(tools?|function[ _]calling|functions)\b"
    r"|\btools?\b(?:\W+\w+){0,4}\W+(not supported|unsupported|requires --jinja)"
    r"|tool[ _]choice requires|enable-auto-tool-choice",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"context[_ ]length|context window|maximum context|prompt is too long|too many tokens"
    r"|input token count.*exceeds|exceeds the maximum number of tokens",
    re.IGNORECASE,
)
_QUOTA = re.compile(r"insufficient_quota|credit balance|billing|exceeded your current quota", re.I)
_OVERLOADED = re.compile(r"overloaded", re.IGNORECASE)


def retry_after(headers: dict[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return max(float(lowered["retry-after-ms"]) / 1000, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # a header nobody can read is no instruction
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return max(parsed.timestamp() - time.time(), 0.0)


def classify(
    provider: str,
    reply: Reply,
    message: str,
    code: str = "",
    *,
    delay: float | None = None,
) -> LLMError:
    """The error for a non-2xx reply; ``code`` is the provider's own type or code string."""
    status = reply.status
    if 300 <= status < 400:
        where = {k.lower(): v for k, v in reply.headers.items()}.get("location", "elsewhere")
        return LLMInvalidRequest(
            f"{provider} redirected the request ({status}) to {where}",
            provider=provider,
            status=status,
            hint="set SLEUTH_LLM_BASE_URL to the final address; sleuth never sends API keys "
            "through a redirect",
        )
    wait = delay if delay is not None else retry_after(reply.headers)
    text = f"{provider} {status}: {message or reply.text[:300] or 'no message'}"
    both = f"{code} {message}"
    error: type[LLMError]
    if status in (401, 403) or code in ("authentication_error", "invalid_api_key"):
        error = LLMQuotaExceeded if _QUOTA.search(both) else LLMAuthError
    elif _QUOTA.search(both):
        error = LLMQuotaExceeded
    elif status == 529 or _OVERLOADED.search(code):
        error = LLMOverloaded
    elif status == 429:
        error = LLMRateLimited
    elif _TOOLS_UNSUPPORTED.search(message):  # llama.cpp says this with a 500
        error = LLMToolsUnsupported
    elif status in (408, 504):
        error = LLMTimeout
    elif status >= 500:
        error = LLMServerError
    elif _CONTEXT.search(both):
        error = LLMContextLength
    else:
        error = LLMInvalidRequest
    return error(text, provider=provider, status=status, retry_after=wait)
