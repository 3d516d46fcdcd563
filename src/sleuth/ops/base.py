"""What an operation adds to its declaration: where HTTP serves it, how its answer differs
from the result's JSON there, the words of its progress line, and the tool it becomes.

The declaration itself (parameters, summary, errors) is the declared function's, in the
operation's own module; it takes the session first. It is read by
:func:`sleuth.operation.operation_of`; an :class:`Op` names the function as an object, so
"go to definition" lands on it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from sleuth.errors import ERRORS, SleuthError
from sleuth.operation import Operation, operation_of
from sleuth.session import AsyncSession

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.toolkit import Tool, ToolContext

Wording = Callable[[str, dict[str, Any]], str]
# Every JSON route can answer these whatever it runs: a bad body (400), no token (401), a
# refused origin (403), a large or non-JSON body (413, 415), a foreign Host (421), the rate
# limit (429), a bug (500) and the cache backend down (503).
TRANSPORT_STATUSES = (400, 401, 403, 413, 415, 421, 429, 500, 503)


def _pages(count: int) -> str:
    return f"{count} page{'' if count == 1 else 's'}"


def describe(stage: str, detail: dict[str, Any]) -> str:
    """A progress line: the stages every search-then-read operation shares, worded once;
    any other stage as its name and scalar details."""
    if stage == "searching":
        return f"searching the web for {detail.get('query', '')!r}"
    if stage == "reading":
        return f"reading {_pages(detail.get('pages', 0))}"
    if stage == "page":
        outcome = detail.get("outcome", "ok")
        url = detail.get("url", "")
        return f"page done: {url}" if outcome == "ok" else f"page not read ({outcome}): {url}"
    scalars = [f"{k}={v}" for k, v in detail.items() if isinstance(v, str | int | float | bool)]
    return " ".join([stage, *scalars])


@dataclass(frozen=True)
class Refusal:
    """An HTTP answer that is an error although the operation returned (a page not read)."""

    code: str
    message: str
    retryable: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LLMUse:
    """What an answer spent on a model, for the metrics."""

    provider: str
    calls: int
    usage: Any
    cost_usd: float | None


@dataclass(frozen=True)
class Http:
    """How ``sleuth serve`` offers an operation: ``POST path`` with the declared body."""

    path: str
    summary: str  # the OpenAPI summary
    description: str = ""
    schema: type[BaseModel] | None = None  # the answer's model where it is not the result's
    present: Callable[[Any], Any] | None = None  # the answer's JSON (or a Refusal)
    uris: tuple[str, ...] = ()  # body fields that must be absolute URIs
    check: Callable[[Any], None] | None = None  # the operation's own first words on a body
    llm: Callable[[Any], LLMUse] | None = None  # what the answer spent, for the metrics
    stream: bool = False  # with Accept: text/event-stream, progress events then the result
    job: bool = False  # started as a job whose records are read later (crawl)
    needs_suggester: bool = False  # 503 before anything else when the server has no model
    # Body fields that are the route's own, not the operation's (a job's webhook): in the
    # body and its schema, never passed to the operation. As ``Operation.model``'s extra.
    own: tuple[tuple[str, Any], ...] = ()
    # The body's JSON Schema as the route reads it where the declaration says less: this
    # server's caps, the names it knows, a rule across fields (settings: None for the
    # description of no particular server).
    refine: Callable[[dict[str, Any], Settings | None], None] | None = None

    def answer(self, result: Any) -> Any:
        return self.present(result) if self.present else result.model_dump(mode="json")


# An absolute http(s) URL, as the routes check one (for a body schema's ``refine``).
HTTP_URL: dict[str, Any] = {"format": "uri", "pattern": r"^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]"}


def cap_integer(schema: dict[str, Any], field: str, maximum: int) -> None:
    """Cap an optional integer ``field`` of a body schema at this server's ``maximum``."""
    prop = schema["properties"][field]
    for choice in prop.get("anyOf", [prop]):
        if choice.get("type") == "integer":
            choice["maximum"] = maximum


def only_names(schema: dict[str, Any], field: str, names: list[str]) -> None:
    """Narrow an optional string ``field`` of a body schema to ``names``."""
    prop = schema["properties"][field]
    for choice in prop.get("anyOf", [prop]):
        if choice.get("type") == "string":
            choice["enum"] = list(names)


@dataclass(frozen=True)
class Person:
    """How the CLI shows an operation's result to a person, when its JSON is not enough:
    the result as text, the spinner's first words, the error (hence the exit code) that a
    result which came back all the same stands for (fill's ``incomplete``), what ``--help``
    adds to the summary, where ``sleuth --help`` lists the command, and what must be read
    before anything runs or is shown (a file named ``-`` is standard input: read before
    the spinner draws)."""

    text: Callable[[Any], str]
    waiting: str = "working"
    error: Callable[[Any], type[SleuthError] | None] = lambda result: None
    help: str = ""
    place: int | None = None  # None: after the other commands
    prepare: Callable[[dict[str, Any]], None] | None = None


class Op:
    """One operation as the surfaces offer it."""

    def __init__(
        self,
        method: Callable[..., Any],  # the declared function (or session method)
        *,
        http: Http | None = None,
        progress: Wording = describe,
        tool: Tool | Callable[[], Tool] | None = None,
        person: Person | None = None,
    ) -> None:
        self.method = method
        self.http = http
        self.progress = progress
        self.person = person
        self._tool = tool

    @functools.cached_property
    def tool(self) -> Tool | None:
        """The tool it becomes. An operation may name a function that builds it, so that the
        models its tool returns load when a surface first offers it, not with the CLI."""
        return self._tool() if callable(self._tool) else self._tool

    @functools.cached_property
    def operation(self) -> Operation:
        return operation_of(self.method)

    @property
    def name(self) -> str:
        return self.operation.name

    def body(self) -> type[BaseModel]:
        """The HTTP request body: the declaration as HTTP offers it, and the route's own."""
        assert self.http is not None
        return self.operation.model("http", **dict(self.http.own))

    def statuses(self) -> tuple[int, ...]:
        """The HTTP statuses this operation may answer: the transport's and its errors'."""
        own = {ERRORS[code].http_status for code in self.operation.errors}
        return tuple(sorted({*TRANSPORT_STATUSES, *own}))


def session_of(context: ToolContext) -> AsyncSession:
    """The session a tool call runs on: the operations do their work on the session core."""
    session = context.client
    assert isinstance(session, AsyncSession)
    return session
