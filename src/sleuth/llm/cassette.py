"""Record and replay of LLM calls, so tests and demos run without a model.

A request is reduced to a canonical form (no origin, no key, temp paths,
ids, nonces, loopback ports and dates blanked) and keyed by its hash. One
file per key holds the responses in the order they came, so a 429 followed
by a 200 replays as a 429 followed by a 200.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sleuth.errors import ReplayMiss

RecordMode = Literal["off", "record", "replay", "auto"]
FORMAT_VERSION = 1


@dataclass(frozen=True)
class RecordedResponse:
    status: int
    headers: dict[str, str]
    body: str

    def to_dict(self) -> dict[str, Any]:
        try:
            body: Any = {"json": json.loads(self.body)}
        except ValueError:
            body = {"text": self.body}
        return {"status": self.status, "headers": self.headers, **body}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RecordedResponse:
        body = json.dumps(data["json"]) if "json" in data else str(data.get("text", ""))
        headers = dict(data.get("headers", {}))
        if not all(isinstance(value, str) for value in headers.values()):
            raise TypeError("recorded header values must be strings")
        return cls(int(data["status"]), headers, body)


def _normalizers() -> list[tuple[re.Pattern[str], str]]:
    rules: list[tuple[re.Pattern[str], str]] = []
    places = {
        tempfile.gettempdir(): "<tmp>",
        os.path.realpath(tempfile.gettempdir()): "<tmp>",
        os.getcwd(): "<cwd>",
        str(Path.home()): "<home>",
    }
    for place, label in sorted(places.items(), key=lambda item: -len(item[0])):
        if len(place) > 1:
            # Whole paths only: HOME=/root must not touch "github.com/rootless".
            pattern = r"(?<![\w.-])" + re.escape(place) + r"(?![\w.-])(?:/[^\s\"'<>)\]]*)?"
            rules.append((re.compile(pattern), label))
    rules += [
        (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
        (
            re.compile(r"\b(?:call|toolu|srvtoolu|fc|rs|msg|ws|resp|chatcmpl)_[A-Za-z0-9_-]{6,}"),
            "<id>",
        ),
        (re.compile(r"(boundary=\"?)[0-9a-f]{16,}"), r"\1<nonce>"),
        (re.compile(r"((?:127\.0\.0\.1|localhost|\[::1\]):)\d{2,5}"), r"\1<port>"),
        (
            re.compile(
                r"\b\d{4}-\d{2}-\d{2}"
                r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
            ),
            "<date>",
        ),
    ]
    return rules


def _normalize(value: Any, rules: list[tuple[re.Pattern[str], str]]) -> Any:
    if isinstance(value, str):
        for pattern, replacement in rules:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, list):
        return [_normalize(item, rules) for item in value]
    if isinstance(value, dict):
        return {key: _normalize(item, rules) for key, item in value.items()}
    return value


def canonical_request(method: str, path: str, body: Any) -> str:
    """The request as stable JSON text: what the key hashes and a miss shows."""
    rules = _normalizers()
    data = {
        "method": method.upper(),
        "path": _normalize(path, rules),
        "body": _normalize(body, rules),
    }
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1)


class Cassette:
    """The recordings of one provider in one directory."""

    def __init__(self, mode: RecordMode, directory: Path, provider: str) -> None:
        self.mode = mode
        self.directory = directory / provider
        self.provider = provider
        self._served: defaultdict[str, int] = defaultdict(int)
        self._recording: dict[str, list[dict[str, Any]]] = {}

    @property
    def records(self) -> bool:
        return self.mode in ("record", "auto")

    def key(self, canonical: str) -> str:
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def replay(self, canonical: str) -> RecordedResponse | None:
        """The next recorded response, or None when this request must go to the server.

        In ``replay`` mode a request without a recording is a :class:`ReplayMiss`.
        """
        if self.mode in {"off", "record"}:
            return None
        key = self.key(canonical)
        if key in self._recording:  # recorded in this run: keep talking to the server
            return None
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            responses = data["responses"]
            position = min(self._served[key], len(responses) - 1)
            recorded = RecordedResponse.from_dict(responses[position])
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            if self.mode == "auto":
                return None
            raise ReplayMiss(
                f"no recorded {self.provider} response for this request "
                f"(key {key} in {self.directory}):\n{canonical[:4000]}",
                request=canonical,
                provider=self.provider,
            ) from None
        self._served[key] += 1
        return recorded

    def record(self, canonical: str, response: RecordedResponse) -> None:
        """Append a response to this request's recording, written atomically."""
        if not self.records:
            return
        key = self.key(canonical)
        responses = self._recording.setdefault(key, [])
        responses.append(response.to_dict())
        document = {
            "version": FORMAT_VERSION,
            "provider": self.provider,
            "request": json.loads(canonical),
            "responses": responses,
        }
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(document, handle, ensure_ascii=False, indent=1)
            os.replace(temp, self._path(key))
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
