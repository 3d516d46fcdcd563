"""Failures as HTTP answers: ``{"error": message, "code": CODE, "retryable": bool}``.

The code is sleuth's own error code in capitals (``LLM_NOT_CONFIGURED``,
``BLOCKED``, ``BUDGET_EXCEEDED``), so one table of codes serves the CLI, the
MCP tools and HTTP clients alike; the status says which family it is in.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.responses import JSONResponse

from sleuth.errors import LLMError, SleuthError, TooManyRequests

DEFAULT_RETRY_AFTER = 60
# sleuth's error codes (and fetch outcomes) to HTTP statuses; anything unlisted is a 500.
STATUS: dict[str, int] = {
    "usage_error": 400,
    "invalid_arguments": 400,
    "suspicious_name": 400,
    "unknown_tool": 400,
    "unauthorized": 401,
    "blocked": 403,
    "origin_not_allowed": 403,
    "robots_disallowed": 403,
    "not_found": 404,
    "ambiguous": 409,
    "confirmation_required": 409,
    "confirmation_denied": 409,
    "too_large": 422,
    "start_past_end": 422,
    "unsupported_type": 422,
    "encrypted": 422,
    "corrupt_document": 422,
    "no_text_layer": 422,
    "js_required": 422,
    "empty_extraction": 422,
    "block_page": 422,
    "verification_failed": 422,
    "llm_context_length": 422,
    "llm_turn_limit": 422,
    # The model ended without an answer for a reason about the request itself.
    "llm_content_filtered": 422,
    "llm_refused": 422,
    "llm_prompt_blocked": 422,
    "llm_prohibited_content": 422,
    "llm_blocklist": 422,
    "llm_sensitive_info": 422,
    "llm_recitation": 422,
    "llm_unsupported_language": 422,
    "method_not_allowed": 405,
    "body_too_large": 413,
    "unsupported_media_type": 415,
    "misdirected_request": 421,
    "too_many_requests": 429,
    "rate_limited": 429,
    "budget_exceeded": 429,
    "search_budget_exhausted": 429,
    "llm_rate_limited": 429,
    "http_error": 502,
    "network_error": 502,
    "search_error": 502,
    "provider_auth": 502,
    "discover_search_failed": 502,
    "discover_error": 502,
    "llm_error": 502,
    "llm_auth": 502,
    "llm_quota": 502,
    "llm_overloaded": 502,
    "llm_server_error": 502,
    "llm_invalid_request": 502,
    "llm_tools_unsupported": 502,
    "llm_malformed_reply": 502,
    "config_error": 503,
    "cache_error": 503,
    "render_unavailable": 503,
    "search_unavailable": 503,
    "llm_not_configured": 503,
    "llm_replay_miss": 503,
    "timeout": 504,
    "llm_timeout": 504,
    "discover_timeout": 504,
}


def error_response(
    code: str,
    message: str,
    *,
    retryable: bool = False,
    status: int | None = None,
    retry_after: float | None = None,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    status = status or STATUS.get(code, 500)
    body: dict[str, Any] = {"error": message, "code": code.upper(), "retryable": retryable}
    body.update(extra or {})
    headers = dict(headers or {})
    if status == 429:
        seconds = retry_after if retry_after and retry_after > 0 else DEFAULT_RETRY_AFTER
        headers["Retry-After"] = str(max(1, math.ceil(seconds)))
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="sleuth"'
    return JSONResponse(body, status_code=status, headers=headers)


def error_payload(error: SleuthError) -> dict[str, Any]:
    """The error object for ``error``; extra fields it carries (``choices``) come along."""
    body: dict[str, Any] = {
        "error": str(error),
        "code": error.code.upper(),
        "retryable": error.retryable,
    }
    for key, value in error.to_dict().items():
        if key not in ("code", "message", "retryable", "url") and value is not None:
            body[key] = value
    return body


def status_for(error: SleuthError) -> int:
    """The status of ``error``'s own code, else of the nearest base class that has one,
    so a new error subclass gets its family's status (an unknown LLM failure is a 502)."""
    for cls in type(error).__mro__:
        code = getattr(cls, "code", None)
        if isinstance(code, str) and code in STATUS:
            return STATUS[code]
    return 500


def from_error(error: SleuthError) -> JSONResponse:
    payload = error_payload(error)
    retry_after: float | None = None
    if isinstance(error, TooManyRequests | LLMError):
        retry_after = error.retry_after
    elif error.code == "budget_exceeded":
        retry_after = _until_utc_midnight()
    return error_response(
        error.code,
        payload.pop("error"),
        retryable=payload.pop("retryable"),
        status=status_for(error),
        retry_after=retry_after,
        extra={k: v for k, v in payload.items() if k != "code"},
    )


def _until_utc_midnight() -> float:
    now = datetime.now(UTC)
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (tomorrow - now).total_seconds()
