"""generateContent bodies written from the Gemini API's documented response format, not recorded.

Shapes follow the API reference for ``models.generateContent``
(``GenerateContentResponse``: ``candidates``, ``usageMetadata``, ``modelVersion``,
``responseId``), the function calling and thought signature guides, the
grounding with Google Search guide (``groundingMetadata``) and Google's error
model (``{"error": {"code", "message", "status", "details"}}`` with
``google.rpc`` details). Ids, signatures and redirect URLs are invented but keep
the documented look; no real exchange was captured.
"""

from __future__ import annotations

from typing import Any

from search.wire import Reply, json_reply

MODEL_VERSION = "gemini-2.5-flash"
SIGNATURE = (
    "CiQB0e2Kb3dLs7T1r8hX9vQmPq2F4cYk6NwJz5uE0aRbHgVtMn8SWgFAEhz9kXv4Lq1Wd0RjTn3oPcb"
    "V7sKe2AmY6uHf5GiQ8rZt9NwXp1Jd4Lc0Ek3vBq7RmT2yUo6Fs8Hh5Kz1Aa9Pw3Nj4Ce7Ll2Dx0Gr6"
)


def path(model: str) -> str:
    return f"/v1beta/models/{model}:generateContent"


PATH = path("test-model")

_USAGE = {
    "promptTokenCount": 1021,
    "candidatesTokenCount": 28,
    "totalTokenCount": 1289,
    "cachedContentTokenCount": 512,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1021}],
    "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 512}],
    "thoughtsTokenCount": 240,
}


def response(
    parts: list[dict[str, Any]] | None,
    finish: str = "STOP",
    *,
    grounding: dict[str, Any] | None = None,
    usage: dict[str, Any] | None = None,
    response_id: str = "mN3VaK2bJ8ukvdIPiKnT4Qk",
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"finishReason": finish, "index": 0}
    if parts is not None:
        candidate["content"] = {"parts": parts, "role": "model"}
    if grounding is not None:
        candidate["groundingMetadata"] = grounding
    return {
        "candidates": [candidate],
        "usageMetadata": usage or dict(_USAGE),
        "modelVersion": MODEL_VERSION,
        "responseId": response_id,
    }


def call_part(
    name: str, arguments: dict[str, Any] | str, call_id: str | None = None
) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "args": arguments}
    if call_id is not None:
        call = {"id": call_id, **call}
    return {"functionCall": call}


def tool_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> Reply:
    """A thinking model's call: the signature rides on the first ``functionCall`` part."""
    part = {**call_part(name, arguments, call_id), "thoughtSignature": SIGNATURE}
    return json_reply(response([part], response_id="q7XVaJW0LZ2Dz7IPsNbV8Ac"))


def tool_calls(*parts: dict[str, Any]) -> Reply:
    return json_reply(response(list(parts), response_id="w3fVaOa3E-G4vdIP4_WkuQ4"))


def answer(text: str) -> Reply:
    return json_reply(response([{"text": text}], response_id="Zt7VaI6vB9e7vdIPlJ7S6AQ"))


def finished(reason: str, text: str | None = None, message: str | None = None) -> Reply:
    """A candidate that ends with ``finishReason`` (and a ``finishMessage`` when given)."""
    parts = None if text is None else [{"text": text}]
    body = response(parts, reason, response_id="c2DWaLuoK_i5vdIPr5Ti8QE")
    if message is not None:
        body["candidates"][0]["finishMessage"] = message
    return json_reply(body)


def blocked_prompt() -> Reply:
    return json_reply(
        {
            "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
            "usageMetadata": {
                "promptTokenCount": 9,
                "totalTokenCount": 9,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
            },
            "modelVersion": MODEL_VERSION,
            "responseId": "fH7WaMbFNau_vdIP1q-7-Qs",
        }
    )


def malformed() -> Reply:
    return json_reply(
        {
            "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
            "modelVersion": MODEL_VERSION,
            "responseId": "Yk9WaPrxGf2kvdIP-L3x0Ag",
        }
    )


# -- errors -------------------------------------------------------------------------------


def error(
    code: int, status: str, message: str, details: list[dict[str, Any]] | None = None
) -> Reply:
    body: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details is not None:
        body["details"] = details
    return json_reply({"error": body}, code)


def resource_exhausted(retry_delay: str | None, quota_id: str) -> Reply:
    metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    details: list[dict[str, Any]] = [
        {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": metric,
                    "quotaId": quota_id,
                    "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"},
                    "quotaValue": "10",
                }
            ],
        },
        {
            "@type": "type.googleapis.com/google.rpc.Help",
            "links": [
                {
                    "description": "Learn more about Gemini API quotas",
                    "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                }
            ],
        },
    ]
    if retry_delay is not None:
        details.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        )
    message = (
        "You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. "
        "To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n"
        f"* Quota exceeded for metric: {metric}, limit: 10, model: gemini-2.5-flash\n"
        f"Please retry in {retry_delay or '0s'}."
    )
    return error(429, "RESOURCE_EXHAUSTED", message, details)


def rate_limited(seconds: int = 0) -> Reply:
    return resource_exhausted(f"{seconds}s", "GenerateRequestsPerMinutePerProjectPerModel-FreeTier")


def daily_quota() -> Reply:
    return resource_exhausted("41s", "GenerateRequestsPerDayPerProjectPerModel-FreeTier")


def invalid_key() -> Reply:
    message = "API key not valid. Please pass a valid API key."
    return error(
        400,
        "INVALID_ARGUMENT",
        message,
        [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            },
            {
                "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                "locale": "en-US",
                "message": message,
            },
        ],
    )


def overloaded() -> Reply:
    return error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")


# -- grounding with Google Search -----------------------------------------------------------

SEARCH_TEXT = (
    "Überblick — ✓ Python 3.13 erschien am 7. Oktober 2024. "
    "Der „free-threaded“ Build läuft ohne GIL."
)
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
RELEASE = REDIRECT + "AUZIYQGm3kq0XvT8wRcN5Lb2dPfJ7hYs1eUo9MzKa4Wi6Cg"
WHATSNEW = REDIRECT + "AUZIYQHx2Vr7Nc4Tq9Lm1Pk6Ws3Jd8Fb0Ye5Ga2Hu7Ko4Ri"
PEP703 = REDIRECT + "AUZIYQEp8Sd3Wk1Lr6Tx9Nc2Vb5Hm0Jq7Fz4Yg1Ue8Ia3Ko"


def _grounding() -> dict[str, Any]:
    return {
        "searchEntryPoint": {
            "renderedContent": "<style>.container{align-items:center}</style>"
            '<div class="container">'
            '<a class="chip" href="https://www.google.com/search?q=Python+3.13">Python 3.13</a>'
            "</div>"
        },
        "groundingChunks": [
            {"web": {"uri": RELEASE, "title": "python.org"}},
            {"web": {"uri": WHATSNEW, "title": "docs.python.org"}},
            {"web": {"uri": PEP703, "title": "peps.python.org"}},
            {"web": {"uri": WHATSNEW, "title": "docs.python.org"}},
        ],
        # Offsets are UTF-8 bytes: "Überblick — ✓ " is 14 characters but 19 bytes.
        "groundingSupports": [
            {
                "segment": {
                    "startIndex": 19,
                    "endIndex": 59,
                    "text": "Python 3.13 erschien am 7. Oktober 2024.",
                },
                "groundingChunkIndices": [0],
            },
            {
                "segment": {
                    "startIndex": 60,
                    "endIndex": 106,
                    "text": "Der „free-threaded“ Build läuft ohne GIL.",
                },
                "groundingChunkIndices": [1, 2],
            },
        ],
        "webSearchQueries": ["Python 3.13 Veröffentlichung", "Python 3.13 free-threaded GIL"],
    }


def search_answer() -> Reply:
    usage = {
        "promptTokenCount": 31,
        "candidatesTokenCount": 58,
        "totalTokenCount": 468,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 31}],
        "toolUsePromptTokenCount": 212,
        "toolUsePromptTokensDetails": [{"modality": "TEXT", "tokenCount": 212}],
        "thoughtsTokenCount": 167,
    }
    parts = [{"text": SEARCH_TEXT}]
    return json_reply(
        response(parts, grounding=_grounding(), usage=usage, response_id="oJ7VaNGrDZ6xvdIP9cK3-As")
    )


def split_answer(first: str, second: str, segment: dict[str, Any]) -> Reply:
    """Two text parts (the signature on the last), one support for ``segment``."""
    grounding = {
        "groundingChunks": [{"web": {"uri": RELEASE, "title": "python.org"}}],
        "groundingSupports": [{"segment": segment, "groundingChunkIndices": [0]}],
        "webSearchQueries": ["Python 3.13 Veröffentlichung"],
    }
    parts = [{"text": first}, {"text": second, "thoughtSignature": SIGNATURE}]
    return json_reply(response(parts, grounding=grounding, response_id="Rk2WaMCuA-K6vdIPqPbM6Qg"))
