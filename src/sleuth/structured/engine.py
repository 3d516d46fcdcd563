"""Filling a JSON Schema from pages that were read: the model proposes, sleuth decides.

Each chunk of each page is one request for the schema's shape with every leaf wrapped
as ``{"value": …, "quote": "…"}``. Every proposal is then checked against the page it
was asked about (:mod:`sleuth.structured.checks`); proposals from several chunks or pages are
kept when they agree, arrays collect, and a leaf without support is null, left out, or
makes the answer ``incomplete``, as the schema allows.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema.validators import validator_for

from sleuth import log
from sleuth.errors import MalformedReply
from sleuth.llm.envelope import Envelope
from sleuth.llm.jsonreply import find_json
from sleuth.llm.meter import Meter
from sleuth.llm.models import ChatRequest, Message, ReplySchema
from sleuth.pages.result import FetchResult
from sleuth.structured.checks import BARRIER, find_quote, same, value_in_quote, visible_text
from sleuth.structured.locator import locator
from sleuth.structured.models import (
    FieldEvidence,
    FillAnswer,
    FillUsage,
    PageRead,
    Proposal,
    Reason,
    Unsupported,
)
from sleuth.structured.schema import REPLY_NAME, Node, Schema, check_schema, leaf_schema, pointer

CHUNK_CHARS = 12_000
MAX_CHUNKS = 8  # per page: a long page costs at most this many requests
CONCURRENCY = 4
MAX_OUTPUT_TOKENS = 4096
RAW_LOG_LIMIT = 2048
# The worst failure seen for a leaf is its reason: the furthest a proposal got.
_RANK: dict[Reason, int] = {
    "no_quote": 0,
    "not_in_schema": 1,
    "quote_not_found": 2,
    "value_not_in_quote": 3,
    "conflict": 4,
}

INSTRUCTIONS = """\
You fill a JSON object from the text of one web page.
For each field the page states, give {"value": ..., "quote": ...}: the value typed as the \
schema asks, and a quote copied character for character from the page's text, a short \
passage (a line or a sentence) in which the value is written. Dates are YYYY-MM-DD. A \
yes/no or a choice from a list still needs the quote it rests on.
Never guess, infer or complete a value from what you know: leave out every field the page \
does not state. For a list, give one item for each item the page lists.
Answer with the JSON object only, which fits this JSON Schema:
"""


@dataclass
class _Page:
    url: str
    title: str
    text: str  # reader-visible, barriers where a reader does not find the words
    page_offsets: tuple[int, ...]


@dataclass
class _Kept:
    value: Any
    quote: str
    matched: str
    url: str
    locator: str


@dataclass
class _Leaf:
    kept: list[_Kept] = field(default_factory=list)
    failed: list[Reason] = field(default_factory=list)


# A reading of one reply: a _Leaf, a dict of readings, or a list of readings.
Reading = Any


def _page(result: FetchResult) -> _Page:
    offsets = tuple(o for o in result.metadata.get("page_offsets") or () if isinstance(o, int))
    spans = [
        s
        for s in result.metadata.get("not_verbatim") or ()
        if isinstance(s, (list, tuple)) and len(s) == 2
    ]
    return _Page(
        url=result.final_url or result.url,
        title=result.title or "",
        text=visible_text(result.text, spans),
        page_offsets=offsets,
    )


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, cut between paragraphs where it can."""
    pieces: list[str] = []
    rest = text.replace(BARRIER, "\n")
    while rest.strip():
        if len(rest) <= size:
            pieces.append(rest)
            break
        cut = rest.rfind("\n\n", 0, size)
        if cut < size // 2:
            cut = rest.rfind("\n", 0, size)
        if cut < size // 2:
            cut = rest.rfind(" ", 0, size)
        if cut <= 0:
            cut = size
        pieces.append(rest[:cut])
        rest = rest[cut:]
    return [piece for piece in pieces if piece.strip()]


class _Filler:
    def __init__(self, schema: Schema, meter: Meter, deadline: float | None) -> None:
        self.schema = schema
        self.meter = meter
        self.deadline = deadline
        self.envelope = Envelope()
        self.reply = ReplySchema(REPLY_NAME, schema.reply_schema())
        self.stray: list[str] = []  # pointers to keys the schema does not have
        self.limit = asyncio.Semaphore(CONCURRENCY)

    def request(self, page: _Page, chunk: str, part: int, parts: int) -> ChatRequest:
        shape = json.dumps(self.reply.schema, ensure_ascii=False, separators=(",", ":"))
        where = f"part {part} of {parts} of its text" if parts > 1 else "its text"
        body = f"Title: {page.title}\n\n{chunk}" if page.title else chunk
        return ChatRequest(
            [
                Message("system", f"{INSTRUCTIONS}{shape}\n\n{self.envelope.rule()}"),
                Message(
                    "user",
                    f"Fill the object from the page at {page.url} ({where}; the page's title "
                    f"is its first line):\n{self.envelope.wrap(page.url, body)}",
                ),
            ],
            max_output_tokens=MAX_OUTPUT_TOKENS,
            temperature=0.0,
            reply_schema=self.reply,
        )

    async def ask(self, request: ChatRequest) -> dict[str, Any] | None:
        """The reply's object; a malformed reply gets one repair turn, then None."""
        async with self.limit:
            completion = await self.meter.complete(request, deadline=self.deadline)
            text = completion.json_text(self.reply)
            try:
                return _object(text)
            except MalformedReply as exc:
                problem = exc.message
            repair = ChatRequest(
                [
                    *request.messages,
                    Message("assistant", text),
                    Message(
                        "user",
                        f"That reply is not the JSON object asked for ({problem}). Answer "
                        "again with the JSON object only.",
                    ),
                ],
                max_output_tokens=request.max_output_tokens,
                temperature=request.temperature,
                reply_schema=request.reply_schema,
            )
            completion = await self.meter.complete(repair, deadline=self.deadline)
            text = completion.json_text(self.reply)
            try:
                return _object(text)
            except MalformedReply as exc:
                log.warn("fill_malformed_reply", error=exc.message, raw=exc.raw[:RAW_LOG_LIMIT])
                return None

    def read(self, node: Node, reply: Any, page: _Page, parts: list[str | int]) -> Reading:
        """A reply's proposals for ``node``, each checked against ``page``."""
        if node.kind == "object":
            given = reply if isinstance(reply, dict) else {}
            for key in given:
                if key not in node.properties:
                    self.stray.append(pointer([*parts, key]))
            return {
                key: self.read(sub, given.get(key), page, [*parts, key])
                for key, sub in node.properties.items()
            }
        if node.kind == "array":
            assert node.items is not None
            items = reply if isinstance(reply, list) else []
            return [self.read(node.items, item, page, [*parts, "-"]) for item in items]
        return self.leaf(node, reply, page)

    def leaf(self, node: Node, reply: Any, page: _Page) -> _Leaf:
        result = _Leaf()
        if not isinstance(reply, dict):
            if reply is not None:  # a bare value, no quote
                result.failed.append("no_quote")
            return result
        value, quote = reply.get("value"), reply.get("quote")
        if value is None:  # the model says the page does not state it
            return result
        value = _coerce(node, value)
        if not isinstance(quote, str) or not quote.strip():
            result.failed.append("no_quote")
            return result
        schema = leaf_schema(node)
        if not validator_for(schema)(schema).is_valid(value):
            result.failed.append("not_in_schema")
            return result
        # The title counts as the page's: a reader sees it as the heading (which the text
        # leaves out when it repeats the title) or on the tab.
        source, span = page.text, find_quote(page.text, quote)
        if span is None:
            source, span = page.title, find_quote(page.title, quote)
        if span is None:
            result.failed.append("quote_not_found")
            return result
        matched = value_in_quote(node.leaf_kind, value, quote)
        if matched is None:
            result.failed.append("value_not_in_quote")
            return result
        written = source[span[0] : span[1]]
        offset = span[0] if source is page.text else 0
        where = locator(page.url, written, offset, page.page_offsets)
        result.kept.append(_Kept(value, " ".join(written.split()), matched, page.url, where))
        return result


def _object(text: str) -> dict[str, Any]:
    value = find_json(text)
    if not isinstance(value, dict):
        raise MalformedReply("the reply's JSON is not an object", raw=text)
    return value


def _coerce(node: Node, value: Any) -> Any:
    """A number the model wrote as a string (``"129.00"``) is that number."""
    if node.leaf_kind == "number" and isinstance(value, str):
        try:
            number = float(value.replace(",", "").strip())
        except ValueError:
            return value
        return int(number) if number.is_integer() and "integer" in str(node.schema) else number
    return value


def _merge(node: Node, readings: list[Reading]) -> Reading:
    if node.kind == "object":
        return {
            key: _merge(sub, [reading[key] for reading in readings])
            for key, sub in node.properties.items()
        }
    if node.kind == "array":
        return [item for reading in readings for item in reading]
    merged = _Leaf()
    for reading in readings:
        merged.kept.extend(reading.kept)
        merged.failed.extend(reading.failed)
    return merged


def _supported(node: Node, reading: Reading) -> bool:
    """Whether anything under ``node`` was borne out by its page."""
    if node.kind == "object":
        return any(_supported(sub, reading[key]) for key, sub in node.properties.items())
    if node.kind == "array":
        assert node.items is not None
        return any(_supported(node.items, item) for item in reading)
    return bool(reading.kept)


def _signature(node: Node, reading: Reading) -> Any:
    """What an array item says, to drop the same item found twice."""
    if node.kind == "object":
        return tuple(_signature(sub, reading[k]) for k, sub in node.properties.items())
    if node.kind == "array":
        assert node.items is not None
        return tuple(_signature(node.items, item) for item in reading)
    if not reading.kept:
        return None
    value = reading.kept[0].value
    return " ".join(value.split()).casefold() if isinstance(value, str) else value


@dataclass
class _Answer:
    evidence: list[FieldEvidence] = field(default_factory=list)
    unsupported: list[Unsupported] = field(default_factory=list)
    incomplete: bool = False

    def fail(self, parts: list[str | int], reason: Reason, quotes: Sequence[Proposal] = ()) -> None:
        self.unsupported.append(
            Unsupported(path=pointer(parts), reason=reason, quotes=list(quotes))
        )

    def failures_only(self, node: Node, reading: Reading, parts: list[str | int]) -> None:
        """Note why nothing under ``node`` held, which is left out as a whole: its own
        required leaves do not make the answer incomplete."""
        incomplete = self.incomplete
        _build(node, reading, parts, self)
        self.incomplete = incomplete


_MISSING = object()


def _build(node: Node, reading: Reading, parts: list[str | int], answer: _Answer) -> Any:
    """The value for ``node`` (``_MISSING`` when it has none), evidence and failures noted."""
    if node.kind == "object":
        data: dict[str, Any] = {}
        for key, sub in node.properties.items():
            if sub.kind == "object" and not _supported(sub, reading[key]):
                answer.failures_only(sub, reading[key], [*parts, key])
                value: Any = _MISSING
            else:
                value = _build(sub, reading[key], [*parts, key], answer)
            if value is not _MISSING:
                data[key] = value
            elif sub.nullable:
                data[key] = None
            elif key in node.required:
                answer.incomplete = True
        return data
    if node.kind == "array":
        assert node.items is not None
        items: list[Any] = []
        seen: list[Any] = []
        for item in reading:
            if not _supported(node.items, item):
                answer.failures_only(node.items, item, [*parts, "-"])
                continue
            signature = _signature(node.items, item)
            if signature in seen:
                continue
            seen.append(signature)
            value = _build(node.items, item, [*parts, len(items)], answer)
            items.append(value if value is not _MISSING else None)
        if not items:
            answer.fail(parts, "no_quote")
            return _MISSING
        return items
    leaf: _Leaf = reading
    if not leaf.kept:
        if "-" not in parts or leaf.failed:
            worst: Reason = max(leaf.failed, key=_RANK.__getitem__, default="no_quote")
            answer.fail(parts, worst)
        return _MISSING
    first = leaf.kept[0]
    others = [kept for kept in leaf.kept if not same(kept.value, first.value)]
    if others:
        sides = [first]
        for kept in others:
            if not any(same(kept.value, side.value) for side in sides):
                sides.append(kept)
        answer.fail(
            parts,
            "conflict",
            [Proposal(value=k.value, quote=k.quote, url=k.url) for k in sides],
        )
        return _MISSING
    answer.evidence.append(
        FieldEvidence(
            path=pointer(parts),
            value=first.value,
            quote=first.quote,
            matched="value" if first.matched == "value" else "quote",
            url=first.url,
            locator=first.locator,
        )
    )
    return first.value


async def fill_pages(
    schema: Any,
    pages: Sequence[FetchResult],
    meter: Meter,
    *,
    deadline: float | None = None,
    chunk_chars: int = CHUNK_CHARS,
    max_chunks: int = MAX_CHUNKS,
) -> FillAnswer:
    """Fill ``schema`` from ``pages`` (read through the one fetch path, as plain text).

    ``schema`` is the user's JSON Schema (or a :class:`Schema` already checked, which the
    caller should do before reading any page: :func:`check_schema` raises the
    :class:`~sleuth.errors.UsageError`). Model calls go through ``meter``: its budget,
    prices and errors are those of every LLM call, and an :class:`~sleuth.errors.LLMError`
    propagates.
    """
    checked = schema if isinstance(schema, Schema) else check_schema(schema)
    filler = _Filler(checked, meter, deadline)
    before_usage, before_cost = meter.usage, meter.cost
    sources: list[PageRead] = []
    readable: list[_Page] = []
    seen: set[str] = set()
    for result in pages:
        url = result.final_url or result.url
        if url in seen:
            continue
        seen.add(url)
        if not result.ok:
            sources.append(PageRead(url=url, outcome=str(result.outcome)))
            continue
        readable.append(_page(result))
        sources.append(PageRead(url=url, outcome="ok"))

    async def one(page: _Page) -> tuple[_Page, list[Reading], bool]:
        parts = chunks(page.text, chunk_chars)[:max_chunks]
        replies = await asyncio.gather(
            *(
                filler.ask(filler.request(page, chunk, number, len(parts)))
                for number, chunk in enumerate(parts, start=1)
            )
        )
        read = [filler.read(checked.root, r, page, []) for r in replies if r is not None]
        return page, read, any(r is not None for r in replies) or not parts

    done = await asyncio.gather(*(one(page) for page in readable))
    readings: list[Reading] = []
    for page, read, answered in done:
        readings.extend(read)
        if not answered:
            for source in sources:
                if source.url == page.url:
                    source.outcome = "malformed_reply"
    answer = _Answer()
    data = _build(checked.root, _merge(checked.root, readings), [], answer)
    answer.unsupported.extend(
        Unsupported(path=path, reason="not_in_schema") for path in dict.fromkeys(filler.stray)
    )
    outcome = "incomplete" if answer.incomplete else "ok"
    if outcome == "ok" and not validator_for(checked.source)(checked.source).is_valid(data):
        outcome = "incomplete"  # a bound the leaves cannot see (minItems ...) is not met
    usage = meter.usage
    cost = None if meter.cost is None or before_cost is None else round(meter.cost - before_cost, 6)
    return FillAnswer(
        data=data,
        evidence=answer.evidence,
        unsupported=answer.unsupported,
        sources=sources,
        usage=FillUsage(
            input_tokens=usage.input_tokens - before_usage.input_tokens,
            output_tokens=usage.output_tokens - before_usage.output_tokens,
            cost_usd=cost,
        ),
        outcome=outcome,
    )
