"""``crawl_site`` as an MCP task (the task utility of MCP 2025-11-25).

A client that sends ``tools/call`` with a ``task`` field gets a task at once (its id and
``working``), while the crawl runs on in the server; it polls ``tasks/get``, fetches the
tool's result with ``tasks/result`` (which waits for it) and may ``tasks/cancel`` it, which
stops the crawl before its next request. Without ``task`` the call is what it always was:
bounded, with its progress streamed.

The SDK defines the task types but dispatches none of their methods, and its ``tools/call``
answer is checked as a tool result, which a task is not. So a task-augmented call is taken
by a server middleware before that check, ``tasks/*`` are added as request handlers, and the
``tasks`` capability is declared by :class:`TaskServer`. Tasks are a 2025-11-25 feature: at
a later protocol version (where they left the core) a ``task`` field is ignored.

A task lives in the server run that started it (a stdio session; the whole life of the HTTP
servers), held in memory for its time to live; its id is unguessable, so whoever holds it
may read or cancel it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    CallToolRequestParams,
    CallToolResult,
    CancelTaskRequestParams,
    CreateTaskResult,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    ListTasksResult,
    PaginatedRequestParams,
    ServerCapabilities,
    ServerTasksCapability,
    ServerTasksRequestsCapability,
    Task,
    TasksCallCapability,
    TasksCancelCapability,
    TasksListCapability,
    TasksToolsCapability,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

# The tools a client may run as tasks: those that outlast a request.
TASK_TOOLS = frozenset({"crawl_site"})
RELATED_TASK = "io.modelcontextprotocol/related-task"
POLL_INTERVAL_MS = 1000
DEFAULT_TTL_MS = 15 * 60 * 1000  # a task and its result are kept this long from creation
MAX_TTL_MS = 60 * 60 * 1000  # whatever the client asks for
MAX_WORKING = 8  # tasks working at once in one server run; one more is refused

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
Runner = Callable[[str, dict[str, Any] | None], Awaitable[CallToolResult]]


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class _Entry:
    task_id: str
    ttl_ms: int
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    expires: float = 0.0  # monotonic
    status: Status = "working"
    message: str | None = None
    result: CallToolResult | None = None
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    ended: anyio.Event = field(default_factory=anyio.Event)

    def __post_init__(self) -> None:
        self.expires = time.monotonic() + self.ttl_ms / 1000

    @property
    def terminal(self) -> bool:
        return self.status in ("completed", "failed", "cancelled")

    def end(self, status: Status, message: str | None = None) -> None:
        if not self.terminal:
            self.status, self.message, self.updated_at = status, message, _now()
        self.ended.set()

    def task(self) -> Task:
        return Task(
            task_id=self.task_id,
            status=self.status,
            status_message=self.message,
            created_at=self.created_at,
            last_updated_at=self.updated_at,
            ttl=self.ttl_ms,
            poll_interval=POLL_INTERVAL_MS,
        )


class Tasks:
    """The tasks of one server run; their work runs in ``group``, the run's own."""

    def __init__(self, group: TaskGroup, runner: Runner) -> None:
        self._group = group
        self._runner = runner
        self._entries: dict[str, _Entry] = {}

    def start(self, name: str, arguments: dict[str, Any] | None, ttl: int | None) -> Task:
        self._expire()
        if sum(not entry.terminal for entry in self._entries.values()) >= MAX_WORKING:
            raise MCPError(
                INVALID_REQUEST,
                f"{MAX_WORKING} tasks are already working here: wait for one, or cancel one",
            )
        kept = min(ttl if ttl is not None and ttl > 0 else DEFAULT_TTL_MS, MAX_TTL_MS)
        entry = _Entry(secrets.token_urlsafe(16), kept)
        self._entries[entry.task_id] = entry
        self._group.start_soon(self._run, entry, name, arguments)
        return entry.task()

    async def _run(self, entry: _Entry, name: str, arguments: dict[str, Any] | None) -> None:
        with entry.scope:
            result = await self._runner(name, arguments)
            entry.result = result
            entry.end("failed" if result.is_error else "completed", _first_line(result))
        entry.end("cancelled", "cancelled by the client")  # reached only when cancelled

    def get(self, task_id: str) -> _Entry:
        self._expire()
        entry = self._entries.get(task_id)
        if entry is None:
            raise MCPError(INVALID_PARAMS, f"no task {task_id!r} (unknown, or its time ran out)")
        return entry

    def cancel(self, task_id: str) -> Task:
        entry = self.get(task_id)
        if entry.terminal:
            raise MCPError(INVALID_PARAMS, f"task {task_id!r} has already ended {entry.status}")
        entry.end("cancelled", "cancelled by the client")
        entry.scope.cancel()
        return entry.task()

    def list(self) -> list[Task]:
        self._expire()
        return [entry.task() for entry in self._entries.values()]

    def _expire(self) -> None:
        now = time.monotonic()
        for task_id, entry in list(self._entries.items()):
            if entry.expires <= now:
                entry.scope.cancel()
                del self._entries[task_id]

    def close(self) -> None:
        for entry in self._entries.values():
            entry.scope.cancel()


def _first_line(result: CallToolResult) -> str | None:
    """A failed task's status message: the first line of the tool's error text."""
    if not result.is_error:
        return None
    text = next((b.text for b in result.content if isinstance(b, TextContent)), "")
    return text.splitlines()[0] if text else None


TasksOf = Callable[[ServerRequestContext[Any]], Tasks]


def install(server: Server[Any], tasks_of: TasksOf, offered: Callable[[str], bool]) -> None:
    """Serve ``tasks/*`` and task-augmented ``tools/call`` on ``server``; ``tasks_of``
    finds a request's run's tasks, ``offered`` says whether a tool name is listed."""

    async def call(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        if (
            ctx.method != "tools/call"
            or not ctx.params
            or ctx.params.get("task") is None
            or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        ):
            return await call_next(ctx)
        try:
            params = CallToolRequestParams.model_validate(ctx.params, by_name=False)
        except ValidationError:
            return await call_next(ctx)  # refused there, in the SDK's words
        if not offered(params.name):
            return await call_next(ctx)  # an unknown tool: the same error as without a task
        if params.name not in TASK_TOOLS:
            raise MCPError(METHOD_NOT_FOUND, f"{params.name} does not run as a task")
        assert params.task is not None
        task = tasks_of(ctx).start(params.name, params.arguments, params.task.ttl)
        return CreateTaskResult(task=task)

    async def get(ctx: ServerRequestContext[Any], params: GetTaskRequestParams) -> HandlerResult:
        return _task_result(tasks_of(ctx).get(params.task_id).task())

    async def result(
        ctx: ServerRequestContext[Any], params: GetTaskPayloadRequestParams
    ) -> HandlerResult:
        entry = tasks_of(ctx).get(params.task_id)
        await entry.ended.wait()
        if entry.result is None:
            raise MCPError(INVALID_PARAMS, f"task {params.task_id!r} was cancelled: no result")
        meta = {**(entry.result.meta or {}), RELATED_TASK: {"taskId": entry.task_id}}
        return entry.result.model_copy(update={"meta": meta})

    async def cancel(
        ctx: ServerRequestContext[Any], params: CancelTaskRequestParams
    ) -> HandlerResult:
        return _task_result(tasks_of(ctx).cancel(params.task_id))

    async def listed(
        ctx: ServerRequestContext[Any], _params: PaginatedRequestParams
    ) -> HandlerResult:
        return ListTasksResult(tasks=tasks_of(ctx).list())

    server.middleware.append(call)
    server.add_request_handler("tasks/get", GetTaskRequestParams, get)
    server.add_request_handler("tasks/result", GetTaskPayloadRequestParams, result)
    server.add_request_handler("tasks/cancel", CancelTaskRequestParams, cancel)
    server.add_request_handler("tasks/list", PaginatedRequestParams, listed)


def _task_result(task: Task) -> dict[str, Any]:
    """A ``tasks/get`` or ``tasks/cancel`` answer: the task's fields, ``ttl`` always."""
    return task.model_dump(by_alias=True, mode="json", exclude_none=True) | {"ttl": task.ttl}


class TaskServer(Server[Any]):
    """The SDK's server, declaring the ``tasks`` capability where tasks exist."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> ServerCapabilities:
        found = super().get_capabilities(*args, **kwargs)
        if kwargs.get("protocol_version") not in MODERN_PROTOCOL_VERSIONS:
            found.tasks = ServerTasksCapability(
                list=TasksListCapability(),
                cancel=TasksCancelCapability(),
                requests=ServerTasksRequestsCapability(
                    tools=TasksToolsCapability(call=TasksCallCapability())
                ),
            )
        return found
