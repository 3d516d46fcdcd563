"""Reading JSON out of model text that was asked to be JSON and often is not quite.

Reasoning models wrap answers in ``<think>`` blocks, chat models in markdown
fences and a sentence of preamble; the value is found rather than assumed.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from sleuth.errors import MalformedReply

M = TypeVar("M", bound=BaseModel)

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
# An unclosed block (the reply was cut off mid-thought) hides everything after it.
_OPEN_THINK = re.compile(r"<(think|thinking|reasoning)>.*", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def strip_reasoning(text: str) -> str:
    """The reply without its ``<think>`` blocks."""
    return _OPEN_THINK.sub("", _THINK.sub("", text)).strip()


def find_json(text: str) -> Any:
    """The first complete JSON object or array in ``text``; fenced blocks are tried first."""
    cleaned = strip_reasoning(text)
    candidates = [block.strip() for block in _FENCE.findall(cleaned)] + [cleaned]
    for candidate in candidates:
        for start, char in enumerate(candidate):
            if char not in "{[":
                continue
            try:
                value, _ = _DECODER.raw_decode(candidate, start)
            except json.JSONDecodeError:
                continue
            return value
    raise MalformedReply("the reply holds no JSON value", raw=text)


def parse_reply(text: str, model: type[M]) -> M:
    """The reply as ``model``; anything else is a :class:`MalformedReply` keeping the raw text."""
    value = find_json(text)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the value"
        raise MalformedReply(
            f"the reply's JSON does not fit the schema: {where}: {first['msg']}", raw=text
        ) from None
