"""Failures as HTTP answers, in the one JSON error shape of the HTTP surface::

    {"error": message, "code": "CODE", "retryable": bool, ...extra fields}

The code is sleuth's own error code in capitals (``LLM_NOT_CONFIGURED``, ``BLOCKED``,
``BUDGET_EXCEEDED``); its status is the ``http_status`` of the code's class in
:data:`sleuth.errors.ERRORS`, the classes the CLI's exit codes and MCP's advice come from
too. Extra fields an error carries come along (``choices``, ``usage``, ``url``,
``status``). The message and hint are the library's words: fields, never flags.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.responses import JSONResponse

from sleuth.errors import ERRORS, LLMError, SleuthError, TooManyRequests

DEFAULT_RETRY_AFTER = 60


def status_of(code: str) -> int:
    """The HTTP status of ``code``'s class in :data:`sleuth.errors.ERRORS`; 500 for none."""
    cls = ERRORS.get(code)
    return cls.http_status if cls is not None else 500


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
    status = status or status_of(code)
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
        status=error.http_status,
        retry_after=retry_after,
        extra={k: v for k, v in payload.items() if k != "code"},
    )


def _until_utc_midnight() -> float:
    now = datetime.now(UTC)
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (tomorrow - now).total_seconds()
