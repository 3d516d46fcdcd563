"""Citation ids the model cannot fake.

Every URL a tool shows the model gets an id here first; the answer's ``[n]``
marks are then checked against this ledger, so an id sleuth never issued is
caught and a cited id always maps to a URL sleuth itself searched or read.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

SourceKind = Literal["search_result", "page", "native_search"]
# [3], [3, 4], [3,4-6], word[3][4]; not [link](url), [x] or [2024]. Code is skipped whole:
# outside backticks, "build[1]" is how models cite.
_MARK = re.compile(r"\[(\d{1,3}(?:\s*[-–,]\s*\d{1,3})*)\](?!\()")
_CODE = re.compile(r"(```.*?(?:```|$)|`[^`\n]*`)", re.DOTALL)
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:!?)])")


class Source(BaseModel):
    id: int
    url: str
    title: str = ""
    kind: SourceKind
    fetched: bool = False  # sleuth read the page itself (fetch_page or research)


class CheckedAnswer(BaseModel):
    text: str
    citations: list[Source]
    flagged: list[int]  # ids the model cited that sleuth never issued


class CitationLedger:
    def __init__(self) -> None:
        self._by_url: dict[str, Source] = {}
        self._by_id: dict[int, Source] = {}

    def issue(self, url: str, title: str = "", *, kind: SourceKind, fetched: bool = False) -> int:
        """The id of ``url``: the same URL keeps its first id; a read upgrades a search hit."""
        source = self._by_url.get(url)
        if source is None:
            source = Source(id=len(self._by_id) + 1, url=url, title=title, kind=kind)
            self._by_url[url] = source
            self._by_id[source.id] = source
        if fetched and not source.fetched:
            source.fetched = True
            source.kind = "page"
        if title and not source.title:
            source.title = title
        return source.id

    def get(self, source_id: int) -> Source | None:
        return self._by_id.get(source_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def check(self, text: str) -> CheckedAnswer:
        """The answer with unissued ids removed, and the sources it cites in first-use order."""
        cited: dict[int, Source] = {}
        flagged: list[int] = []

        def keep(match: re.Match[str]) -> str:
            kept = []
            for number in _expand(match.group(1)):
                source = self._by_id.get(number)
                if source is None:
                    if number not in flagged:
                        flagged.append(number)
                    continue
                cited.setdefault(number, source)
                if number not in kept:
                    kept.append(number)
            return "".join(f"[{number}]" for number in kept)

        parts = _CODE.split(text)  # odd parts are code, left as written
        cleaned = "".join(
            part if index % 2 else _MARK.sub(keep, part) for index, part in enumerate(parts)
        )
        if flagged:
            cleaned = _SPACE_BEFORE_PUNCT.sub(r"\1", cleaned)
        return CheckedAnswer(text=cleaned, citations=list(cited.values()), flagged=flagged)


def _expand(group: str) -> list[int]:
    """``3, 5-7`` as ``[3, 5, 6, 7]``; an absurd range is read as its two ends."""
    numbers: list[int] = []
    for part in re.split(r"\s*,\s*", group.strip()):
        bounds = [int(bound) for bound in re.split(r"\s*[-–]\s*", part)]
        if len(bounds) == 2 and 0 < bounds[1] - bounds[0] <= 50:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return numbers
