"""Structured events on stderr: ``key=value`` lines for people, JSON lines for machines.

Every module logs through :func:`event` so that the names (``fetch``,
``fetch_error``, ``cache_hit``, ``render_fallback``, ``search_call`` ...) and
their fields stay consistent and greppable.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

LOGGER = logging.getLogger("sleuth")


class _HumanFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "fields", {})
        parts = [f"{k}={_human(v)}" for k, v in fields.items() if v is not None]
        line = f"sleuth {record.levelname.lower()} {record.getMessage()} {' '.join(parts)}".rstrip()
        trace = _traceback(self, record)
        return f"{line}\n{trace}" if trace else line


class _JSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
        }
        payload.update(getattr(record, "fields", {}))
        trace = _traceback(self, record)
        if trace:  # one line of JSON still: the traceback is a field, newlines escaped
            payload["traceback"] = trace
        return json.dumps(payload, default=str, ensure_ascii=False)


def _traceback(formatter: logging.Formatter, record: logging.LogRecord) -> str:
    """The record's traceback (and stack, if asked for) as text; ``""`` without one.

    A failure logged with ``exc_info`` must keep its traceback: it is the only trace of
    a bug in a server that answered 500 without internals."""
    parts: list[str] = []
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        record.exc_text = formatter.formatException(record.exc_info)
    if record.exc_text:
        parts.append(record.exc_text)
    if record.stack_info:
        parts.append(formatter.formatStack(record.stack_info))
    return "\n".join(parts)


def _human(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if (" " in text or not text) else text


class _CurrentStderr:
    """Whatever ``sys.stderr`` is at the moment of writing: while a spinner is live, rich has
    put its proxy there, which clears the spinner's line before a log line and redraws it."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


# How a long job tells its caller where it is: a stage name and that stage's details.
Progress = Callable[[str, dict[str, Any]], None]


def configure(fmt: str = "human", level: str | None = None) -> None:
    """Install the one stderr handler; safe to call more than once."""
    if level is None:
        level = "info" if fmt == "json" else "warning"
    for handler in list(LOGGER.handlers):
        LOGGER.removeHandler(handler)
    handler = logging.StreamHandler(_CurrentStderr())
    handler.setFormatter(_JSONFormatter() if fmt == "json" else _HumanFormatter())
    LOGGER.addHandler(handler)
    LOGGER.setLevel(level.upper())
    LOGGER.propagate = False


def event(name: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log one named event with structured fields."""
    if LOGGER.isEnabledFor(level):
        LOGGER.log(level, name, extra={"fields": fields})


def warn(name: str, **fields: Any) -> None:
    event(name, logging.WARNING, **fields)


class Stopwatch:
    """Milliseconds since creation; the ``latency_ms`` of every event."""

    __slots__ = ("_start",)

    def __init__(self) -> None:
        self._start = time.perf_counter()

    @property
    def ms(self) -> int:
        return int((time.perf_counter() - self._start) * 1000)
