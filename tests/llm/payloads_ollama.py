"""Ollama ``/api/chat`` bodies written from Ollama's documented API format, not recorded.

Each is the single object ``POST /api/chat`` returns with ``stream: false``:
the model, a ``created_at`` time, the assistant ``message``, ``done`` and
``done_reason``, the timings in nanoseconds and the token counts. Errors are
``{"error": "..."}`` with the status Ollama uses. Arguments are objects, as
Ollama sends them; a *string* given to :func:`tool_call` is sent as it is,
which Ollama itself never does, so tests can check that a broken one is
flagged. The documented tool call has no id; :func:`tool_call` adds the one
it is given (as recent servers do) and :func:`tool_calls` can leave it out.
"""

from __future__ import annotations

from typing import Any

from search.wire import Reply, json_reply

PATH = "/api/chat"
MODEL = "qwen3:8b"


def chat(
    message: dict[str, Any],
    *,
    done_reason: str = "stop",
    prompt_eval_count: int = 412,
    eval_count: int = 57,
) -> dict[str, Any]:
    """A whole non-streaming reply around ``message``."""
    return {
        "model": MODEL,
        "created_at": "2025-08-27T14:21:36.918271Z",
        "message": message,
        "done": True,
        "done_reason": done_reason,
        "total_duration": 4883582458,
        "load_duration": 1334875,
        "prompt_eval_count": prompt_eval_count,
        "prompt_eval_duration": 242431000,
        "eval_count": eval_count,
        "eval_duration": 4618964000,
    }


def call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {"function": function} if call_id is None else {"id": call_id, "function": function}


def tool_calls(*calls: dict[str, Any], thinking: str | None = None) -> Reply:
    """A turn calling tools; Ollama says ``stop`` here, not a tool-call reason."""
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    if thinking is not None:
        message["thinking"] = thinking
    message["tool_calls"] = list(calls)
    return json_reply(chat(message, eval_count=31))


def tool_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> Reply:
    return tool_calls(call(name, arguments, call_id))


def answer(text: str, *, thinking: str | None = None, done_reason: str = "stop") -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking is not None:
        message["thinking"] = thinking
    return json_reply(chat(message, done_reason=done_reason, prompt_eval_count=598))


def error(status: int, message: str) -> Reply:
    return json_reply({"error": message}, status)


def rate_limited(seconds: int = 0) -> Reply:
    """A 429 in Ollama's error shape, as hosted Ollama sends over its limits (wording made up)."""
    return json_reply(
        {"error": "too many requests, please slow down"},
        429,
        {"retry-after": str(seconds)},
    )


def malformed() -> Reply:
    """A 200 without a ``message``."""
    body = chat({"role": "assistant", "content": ""})
    del body["message"]
    return json_reply(body)


def not_found(model: str) -> Reply:
    return error(404, f'model "{model}" not found, try pulling it first')


def tools_unsupported(model: str = "gemma:2b") -> Reply:
    return error(400, f"registry.ollama.ai/library/{model} does not support tools")
