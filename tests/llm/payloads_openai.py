"""Chat Completions bodies shaped like OpenAI's API reference (no real exchange recorded)."""

from __future__ import annotations

import json
from typing import Any

from search.wire import Reply, json_reply

PATH = "/chat/completions"


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-5-mini-2025-08-07",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": 1117,
            "completion_tokens": 46,
            "total_tokens": 1163,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 12,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": None,
    }


def tool_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> Reply:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}
        ],
        "refusal": None,
        "annotations": [],
    }
    return json_reply(_completion(message, "tool_calls"))


def answer(text: str) -> Reply:
    message = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
    return json_reply(_completion(message, "stop"))


def finished(finish: str, content: str | None = None, refusal: str | None = None) -> Reply:
    """A turn that ends with ``finish_reason`` and maybe no text (a refusal has its own field)."""
    message = {"role": "assistant", "content": content, "refusal": refusal, "annotations": []}
    return json_reply(_completion(message, finish))


def rate_limited(seconds: int = 0) -> Reply:
    body = {
        "error": {
            "message": "Rate limit reached for gpt-5-mini in organization org-x on tokens per "
            "min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.",
            "type": "tokens",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    return json_reply(body, 429, {"retry-after": str(seconds)})


def malformed() -> Reply:
    return json_reply({"id": "chatcmpl-x", "object": "chat.completion", "choices": []})


def error(status: int, message: str, kind: str, code: str | None) -> Reply:
    return json_reply(
        {"error": {"message": message, "type": kind, "param": None, "code": code}}, status
    )
