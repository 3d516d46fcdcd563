"""Messages API bodies written from Anthropic's documented response format, not recorded.

Shapes follow the API reference for ``POST /v1/messages`` (message object, content
blocks, ``usage``), the web search tool documentation (``server_tool_use``,
``web_search_tool_result``, ``web_search_result_location`` citations) and the
errors page (``{"type": "error", "error": {...}, "request_id": ...}``). Ids,
signatures and encrypted fields are invented but keep the documented prefixes
and look; no real exchange was captured.
"""

from __future__ import annotations

from typing import Any

from search.wire import Reply, json_reply

PATH = "/v1/messages"
MODEL = "claude-sonnet-4-5-20250929"

THINKING_SIGNATURE = (
    "EqQBCkgIBxABGAIiQNq3fB0lVx2Rk5mB1pL0n8yWq4eG3tH7cZs9aJ2vD6uXo1iK8wYbQ+fNcE5rT0"
    "lP7hSgMd4zU3vKjy9RxWQSDOqB2mH4iL1sF7zKGgxwYp0bN5cV8tJ3rE6aQiIw3m9ZqLk1uT4yHs"
)
_USAGE = {
    "input_tokens": 472,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 1536,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "output_tokens": 89,
    "service_tier": "standard",
}


def message(
    content: list[dict[str, Any]],
    stop_reason: str,
    *,
    usage: dict[str, Any] | None = None,
    message_id: str = "msg_01XFDUDYJgAACzvnptvVoYEL",
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage or dict(_USAGE),
    }


def tool_use(call_id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    # Anthropic always sends ``input`` as an object; a string stands for a broken reply.
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def tool_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> Reply:
    content = [
        {"type": "text", "text": "I'll look that up."},
        tool_use(call_id, name, arguments),
    ]
    return json_reply(message(content, "tool_use", message_id="msg_01Aq9w938a90dw8q8e3n2b5C"))


def thinking_tool_calls(*calls: dict[str, Any]) -> Reply:
    """A turn with extended thinking: a signed thinking block, then parallel ``tool_use``."""
    content = [
        {
            "type": "thinking",
            "thinking": "The user wants the news; I should search and read the release page.",
            "signature": THINKING_SIGNATURE,
        },
        *calls,
    ]
    return json_reply(message(content, "tool_use", message_id="msg_01Bz7TqVnK3c2sXhD9pYfLmE"))


def answer(text: str) -> Reply:
    content = [{"type": "text", "text": text}]
    return json_reply(message(content, "end_turn", message_id="msg_01HCDu5LRGeP2o7s2xGmxyx8"))


def stopped(reason: str, text: str = "") -> Reply:
    content = [{"type": "text", "text": text}] if text else []
    return json_reply(message(content, reason, message_id="msg_01Lq2mJ8vZc4WkTn6bHsY3aR"))


def rate_limited(seconds: int = 0) -> Reply:
    body = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "This request would exceed the rate limit for your organization "
            "(5a1f8c2e-3b7d-4e90-a6c4-2f8d1b9e7a30) of 30,000 input tokens per minute. For "
            "details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the "
            "response headers for current usage. Please reduce the prompt length or the "
            "maximum tokens requested, or try again later.",
        },
        "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
    }
    headers = {
        "retry-after": str(seconds),
        "anthropic-ratelimit-input-tokens-limit": "30000",
        "anthropic-ratelimit-input-tokens-remaining": "0",
        "anthropic-ratelimit-input-tokens-reset": "2025-10-21T09:14:07Z",
        "request-id": "req_011CSHoEeqs5C35K2UUqR7Fy",
    }
    return json_reply(body, 429, headers)


def overloaded() -> Reply:
    return error(529, "overloaded_error", "Overloaded")


def malformed() -> Reply:
    body = message([], "end_turn", message_id="msg_01Gk2FhV7xq9rWb3nLcT5dPe")
    del body["content"]
    return json_reply(body)


def error(status: int, kind: str, text: str) -> Reply:
    body = {
        "type": "error",
        "error": {"type": kind, "message": text},
        "request_id": "req_011CV4pXw2yQe8LhN3fT9aKd",
    }
    return json_reply(body, status, {"request-id": "req_011CV4pXw2yQe8LhN3fT9aKd"})


# -- the server's own web search ----------------------------------------------------------

RELEASE = "https://www.python.org/downloads/release/python-3130/"
WHATSNEW = "https://docs.python.org/3/whatsnew/3.13.html"
PEP703 = "https://peps.python.org/pep-0703/"


def _search(call_id: str, query: str) -> dict[str, Any]:
    return {
        "type": "server_tool_use",
        "id": call_id,
        "name": "web_search",
        "input": {"query": query},
    }


def _result(url: str, title: str, page_age: str | None, token: str) -> dict[str, Any]:
    return {
        "type": "web_search_result",
        "url": url,
        "title": title,
        "encrypted_content": f"EqgfCioIARgBIiQ{token}LTQ1NGUtODgxNC1kNjNjNTk1ZWI3YjASDGJ1c2lu",
        "page_age": page_age,
    }


def _cite(url: str, title: str, cited: str, token: str) -> dict[str, Any]:
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "encrypted_index": f"Eo8BCioIAhgBIiQ{token}NmI0LTQ3NTEtYjQ2ZS1hZTgxNjI0ZWE5YzQSDB",
        "cited_text": cited,
    }


SEARCH_BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "I'll search for the release details."},
    _search("srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", "python 3.13 release date"),
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        "content": [
            _result(RELEASE, "Python Release Python 3.13.0 | Python.org", "October 7, 2024", "3YT"),
            _result(WHATSNEW, "What's New In Python 3.13", "October 8, 2024", "9kQ"),
        ],
    },
    _search("srvtoolu_01CvQ4b8ZTe7XgRuPwn5sNkA", "python 3.13 free-threaded build"),
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01CvQ4b8ZTe7XgRuPwn5sNkA",
        "content": [
            _result(WHATSNEW, "What's New In Python 3.13", "October 8, 2024", "b2W"),
            _result(PEP703, "PEP 703 – Making the Global Interpreter Lock Optional", None, "x7M"),
        ],
    },
    {"type": "text", "text": "Here is what I found. "},
    {
        "type": "text",
        "text": "Python 3.13.0 was released on October 7, 2024",
        "citations": [
            _cite(
                RELEASE,
                "Python Release Python 3.13.0 | Python.org",
                "Python 3.13.0 Release Date: Oct. 7, 2024 This is the stable release of "
                "Python 3.13.0",
                "4Fz",
            )
        ],
    },
    {"type": "text", "text": ", and it ships an experimental free-threaded build"},
    {
        "type": "text",
        "text": " that can run with the GIL disabled",
        "citations": [
            _cite(
                WHATSNEW,
                "What's New In Python 3.13",
                "CPython now has experimental support for running in a free-threaded mode, "
                "with the global interpreter lock (GIL) disabled.",
                "Kp8",
            ),
            _cite(
                PEP703,
                "PEP 703 – Making the Global Interpreter Lock Optional",
                "This PEP proposes adding a build configuration (--disable-gil) to CPython",
                "Wd1",
            ),
        ],
    },
    {"type": "text", "text": "."},
]


def search_answer() -> Reply:
    usage = {
        "input_tokens": 6039,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 931,
        "server_tool_use": {"web_search_requests": 2},
        "service_tier": "standard",
    }
    return json_reply(
        message(SEARCH_BLOCKS, "end_turn", usage=usage, message_id="msg_01Ks8hYbX4cRw2nTq6VfPzJm")
    )


def search_failed() -> Reply:
    content = [
        _search("srvtoolu_01Ed8Ybq4GxRz6VcN2sJtWkP", "python 3.14 release date"),
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01Ed8Ybq4GxRz6VcN2sJtWkP",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        },
        {"type": "text", "text": "I could not search any further, so I cannot confirm the date."},
    ]
    usage = {
        "input_tokens": 2211,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 64,
        "server_tool_use": {"web_search_requests": 0},
        "service_tier": "standard",
    }
    return json_reply(
        message(content, "end_turn", usage=usage, message_id="msg_01Nv3Rq7sLk2Hd9XbW5cTyFa")
    )


PAUSED_BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "Let me research this thoroughly."},
    _search("srvtoolu_01Pw4Zc7Ra2TnKd8LvH3sQxB", "python 3.13 incremental garbage collector"),
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01Pw4Zc7Ra2TnKd8LvH3sQxB",
        "content": [_result(WHATSNEW, "What's New In Python 3.13", "October 8, 2024", "Q5r")],
    },
]


def paused() -> Reply:
    usage = {
        "input_tokens": 3120,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 212,
        "server_tool_use": {"web_search_requests": 1},
        "service_tier": "standard",
    }
    return json_reply(
        message(PAUSED_BLOCKS, "pause_turn", usage=usage, message_id="msg_01Sx5Ja9Wq2Bn7Kc4HrTmPvD")
    )
