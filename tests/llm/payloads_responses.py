"""Responses API bodies written from OpenAI's documented response format, not recorded.

Every body is a whole ``response`` object as ``POST /v1/responses`` returns it
without streaming: the request's settings echoed back, ``output`` items
(``reasoning``, ``function_call``, ``web_search_call``, ``message``) and a
``usage`` block. Ids follow OpenAI's prefixes (``resp_``, ``rs_``, ``fc_``,
``ws_``, ``msg_``); none is a real one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from search.wire import Reply, json_reply

PATH = "/responses"
MODEL = "gpt-5-mini-2025-08-07"
RESPONSE_ID = "resp_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b"

USAGE: dict[str, Any] = {
    "input_tokens": 1210,
    "input_tokens_details": {"cached_tokens": 1024},
    "output_tokens": 188,
    "output_tokens_details": {"reasoning_tokens": 128},
    "total_tokens": 1398,
}


def response(
    output: list[dict[str, Any]],
    *,
    status: str = "completed",
    incomplete: str | None = None,
    usage: dict[str, Any] | None = None,
    tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A whole response object around ``output``."""
    return {
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1756315696,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None if incomplete is None else {"reason": incomplete},
        "instructions": None,
        "max_output_tokens": 2048,
        "max_tool_calls": None,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": "medium", "summary": None},
        "safety_identifier": None,
        "service_tier": "default",
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": tools or [],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": USAGE if usage is None else usage,
        "user": None,
        "metadata": {},
    }


def item_id(prefix: str, seed: str) -> str:
    """An id in OpenAI's style, the same for the same seed and different across seeds."""
    return f"{prefix}_{hashlib.sha256(seed.encode()).hexdigest()[:48]}"


def reasoning(rid: str = "rs_68af40317e3c8193a8e4a7d3c5f0b1e205438e46b5f69a3b") -> dict[str, Any]:
    return {"id": rid, "type": "reasoning", "summary": []}


def function_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    return {
        "id": item_id("fc", call_id),
        "type": "function_call",
        "status": "completed",
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        "call_id": call_id,
        "name": name,
    }


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_68af4034c6d08193aa11bb22cc33dd4405438e46b5f69a3b",
        "type": "message",
        "status": "completed",
        "content": list(parts),
        "role": "assistant",
    }


def output_text(text: str, *annotations: dict[str, Any]) -> dict[str, Any]:
    return {"type": "output_text", "annotations": list(annotations), "logprobs": [], "text": text}


def url_citation(text: str, cited: str, url: str, title: str) -> dict[str, Any]:
    """A citation of the span ``cited`` inside the part ``text``."""
    start = text.index(cited)
    return {
        "type": "url_citation",
        "end_index": start + len(cited),
        "start_index": start,
        "title": title,
        "url": url,
    }


def web_search_call(item_id: str, action: dict[str, Any]) -> dict[str, Any]:
    return {"id": item_id, "type": "web_search_call", "status": "completed", "action": action}


def tool_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> Reply:
    """A reasoning model's turn that ends in one function call."""
    output = [reasoning(item_id("rs", call_id)), function_call(call_id, name, arguments)]
    return json_reply(response(output))


def answer(text: str) -> Reply:
    return json_reply(response([reasoning(), message(output_text(text))]))


def truncated(text: str, reason: str = "max_output_tokens") -> Reply:
    return json_reply(
        response([reasoning(), message(output_text(text))], status="incomplete", incomplete=reason)
    )


def refused(text: str) -> Reply:
    """A message whose only content part is a ``refusal``."""
    part = {"type": "refusal", "refusal": text}
    return json_reply(response([reasoning(), message(part)]))


def failed(code: str, text: str) -> Reply:
    """A response that failed on the server: ``status: failed`` and an ``error`` object."""
    body = response([], status="failed")
    body["error"] = {"code": code, "message": text}
    return json_reply(body)


# The searched answer: two text parts, a citation in each.
FIRST_PART = "Python 3.13 ships an experimental free-threaded build. "
SECOND_PART = "It also adds a new interactive interpreter with colour."
FIRST_CITED = "an experimental free-threaded build"
SECOND_CITED = "a new interactive interpreter"
WHATS_NEW = "https://docs.python.org/3/whatsnew/3.13.html"
PEP_703 = "https://peps.python.org/pep-0703/"
RELEASE = "https://www.python.org/downloads/release/python-3130/"


def searched_answer() -> Reply:
    """Two searches, a page opened, and an answer citing two pages across two text parts."""
    output = [
        reasoning(),
        web_search_call(
            "ws_68af4036e1f48193bc7d8e9fa0b1c2d305438e46b5f69a3b",
            {
                "type": "search",
                "query": "python 3.13 what's new",
                "sources": [
                    {"type": "url", "url": WHATS_NEW},
                    {"type": "url", "url": RELEASE},
                ],
            },
        ),
        reasoning("rs_68af4038f2a58193cd8e9fa0b1c2d3e405438e46b5f69a3b"),
        web_search_call(
            "ws_68af403a03b68193de9fa0b1c2d3e4f505438e46b5f69a3b",
            {
                "type": "search",
                "query": "PEP 703 free-threaded CPython",
                "queries": ["PEP 703 free-threaded CPython", "python 3.13 no GIL build"],
                "sources": [{"type": "url", "url": PEP_703}],
            },
        ),
        web_search_call(
            "ws_68af403c14c78193ef0a1b2c3d4e5f6a05438e46b5f69a3b",
            {"type": "open_page", "url": WHATS_NEW},
        ),
        message(
            output_text(
                FIRST_PART,
                url_citation(FIRST_PART, FIRST_CITED, PEP_703, "PEP 703 – Making the GIL Optional"),
            ),
            output_text(
                SECOND_PART,
                url_citation(SECOND_PART, SECOND_CITED, WHATS_NEW, "What's New In Python 3.13"),
            ),
        ),
    ]
    return json_reply(response(output, tools=[{"type": "web_search"}]))


def rate_limited(seconds: int = 0) -> Reply:
    body = {
        "error": {
            "message": "Rate limit reached for gpt-5-mini in organization org-x on tokens per "
            "min (TPM): Limit 200000, Used 199000, Requested 2400. Please try again in "
            f"{seconds}s.",
            "type": "tokens",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    return json_reply(
        body, 429, {"retry-after": str(seconds), "retry-after-ms": str(seconds * 1000)}
    )


def malformed() -> Reply:
    """A 200 whose response object has no ``output``."""
    body = response([])
    del body["output"]
    return json_reply(body)


def error(
    status: int,
    message: str,
    kind: str,
    code: str | None,
    headers: dict[str, str] | None = None,
) -> Reply:
    return json_reply(
        {"error": {"message": message, "type": kind, "param": None, "code": code}},
        status,
        headers,
    )
