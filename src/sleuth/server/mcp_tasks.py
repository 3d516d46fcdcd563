"""``crawl_site`` as an MCP task (the task utility of MCP 2025-11-25), backed by a crawl job.

A client that sends ``tools/call`` with a ``task`` field gets a task at once (its id and
``working``): the call became a crawl job on the task engine (:mod:`sleuth.jobs`), the same
kind ``POST /api/v1/crawl`` starts, with the crawl_site tool's bounds (its pages, its
``SLEUTH_CRAWL_TOOL_DEADLINE``). The task id is the job id. ``tasks/get`` reads the job's
record (its status and counts), ``tasks/result`` waits for the job's end and presents its
page records as the bounded call would, and ``tasks/cancel`` is the job's cancel: once it
answers, no worker sends another request for it. Without ``task`` the call is what it
always was: bounded, with its progress streamed.

Everything but ``tasks/list`` reads the job's store, not this process: with a shared Redis
any instance (``sleuth serve``'s ``/mcp``, ``sleuth mcp``) answers for a task another
started. A task belongs to its caller (a token on ``sleuth serve``; ``sleuth mcp`` has one
caller), counts against ``SLEUTH_CRAWL_JOBS_PER_TOKEN`` like any job, and is kept as long as
the job (24 h). ``tasks/list`` lists the caller's tasks started through this server run.

The SDK defines the task types but dispatches none of their methods, and its ``tools/call``
answer is checked as a tool result, which a task is not. So a task-augmented call is taken
by a server middleware before that check, ``tasks/*`` are added as request handlers, and the
``tasks`` capability is declared by :class:`TaskServer`. Tasks are a 2025-11-25 feature: at
a later protocol version (where they left the core) a ``task`` field is ignored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
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
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from sleuth.errors import SleuthError, TooManyRequests
from sleuth.jobs.store import JOB_TTL, TERMINAL

if TYPE_CHECKING:
    from sleuth.jobs.crawljob import Pages

# The tools a client may run as tasks: those that outlast a request.
TASK_TOOLS = frozenset({"crawl_site"})
RELATED_TASK = "io.modelcontextprotocol/related-task"
POLL_INTERVAL_MS = 1000  # what a client is told; tasks/result looks more often
_LOOK = 0.1  # seconds between reads of a job's record while tasks/result waits for its end
KEPT_MS = JOB_TTL * 1000  # a task is its job, kept as long
LISTED = 100  # the tasks tasks/list remembers per caller, newest kept
OWNER = "sleuth_owner"  # the request state's key for the caller, set in front of /mcp
LOCAL_OWNER = "mcp"  # the one caller of `sleuth mcp`

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
# A job that ended, with its page records in order, as the tool's result.
Presenter = Callable[[dict[str, Any], list[dict[str, Any]]], CallToolResult]


def owner_of(ctx: ServerRequestContext[Any]) -> str:
    """Whose task: the caller ``sleuth serve`` admitted (its token), else this server's one."""
    state = getattr(ctx.request, "state", None)
    found = getattr(state, OWNER, None) if state is not None else None
    return found if isinstance(found, str) else LOCAL_OWNER


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def read_nothing(record: dict[str, Any]) -> bool:
    """A done job none of whose pages was read: the tool's result for it is an error."""
    return int(record["pages"]) <= int(record["errors"])


def task_of(record: dict[str, Any]) -> Task:
    """A job's record as a task: its status mapped, its counts in the status message."""
    pages, errors = int(record["pages"]), int(record["errors"])
    read = f"{pages - errors} of {pages} pages read"
    status: Status
    if record["status"] == "running":
        status, message = "working", f"{read}, {max(int(record['pending']), 0)} to go"
    elif record["status"] == "done":
        status, message = ("failed" if read_nothing(record) else "completed"), read
    elif record["status"] == "failed":
        error = record.get("error") or {}
        status = "failed"
        message = f"error {error.get('code', 'internal_error')}: {error.get('message', '')}"
    else:
        status, message = "cancelled", f"cancelled; {read}"
    return Task(
        task_id=record["id"],
        status=status,
        status_message=message,
        created_at=_iso(record["created_at"]),
        last_updated_at=_iso(record["updated_at"]),
        ttl=KEPT_MS,
        poll_interval=POLL_INTERVAL_MS,
    )


class Tasks:
    """The crawl_site tasks of one server run: crawl jobs on the engine ``pages`` gives
    (None while it is not running), presented by ``present`` once they end."""

    def __init__(self, pages: Callable[[], Pages | None], present: Presenter) -> None:
        self._pages = pages
        self._present = present
        self._started: dict[str, list[str]] = {}  # caller -> task ids, for tasks/list

    def pages(self) -> Pages:
        found = self._pages()
        if found is None:
            raise MCPError(INTERNAL_ERROR, "the crawl job engine is not running")
        return found

    async def start(self, owner: str, arguments: dict[str, Any] | None) -> Task:
        """A crawl job for a crawl_site call, with the tool's bounds."""
        from sleuth.jobs.crawljob import TOOL
        from sleuth.ops.crawl import CRAWL_SITE
        from sleuth.pages.fetcher import normalize_input_url

        pages = self.pages()
        try:
            args: Any = CRAWL_SITE.arguments.model_validate(arguments or {})
            normalize_input_url(args.url)  # a bad URL is refused now, not a failed job later
        except ValidationError as exc:
            raise MCPError(INVALID_PARAMS, f"invalid crawl_site arguments: {exc}") from None
        except SleuthError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        options = {TOOL: args.model_dump(mode="json", by_alias=True, exclude={"url"})}
        deadline = pages.session.settings.crawl.crawl_tool_deadline
        try:
            record = await pages.start(owner, args.url, options, deadline)
        except TooManyRequests as exc:
            raise MCPError(INVALID_REQUEST, f"{exc}: {exc.hint}") from None
        started = self._started.setdefault(owner, [])
        started.append(record["id"])
        del started[:-LISTED]
        return task_of(record)

    async def read(self, owner: str, task_id: str) -> dict[str, Any]:
        """The task's job, if it is the caller's, a task (not an HTTP job) and not expired."""
        from sleuth.jobs.crawljob import TOOL

        record = await self.pages().jobs.read(task_id)
        if record is None or record["owner"] != owner or TOOL not in record["options"]:
            raise MCPError(INVALID_PARAMS, f"no task {task_id!r} (unknown, or its time ran out)")
        return record

    async def get(self, owner: str, task_id: str) -> Task:
        return task_of(await self.read(owner, task_id))

    async def result(self, owner: str, task_id: str) -> CallToolResult:
        """The tool's result once the job has ended (read from the store until then)."""
        record = await self.read(owner, task_id)
        pages = self.pages()
        # Its workers end a job at its deadline, once their pages' requests are through.
        late = record["ends_at"] + pages.jobs.request_lease + pages.jobs.settings.worker_lease
        while record["status"] not in TERMINAL:
            if time.time() > late:
                raise MCPError(
                    INTERNAL_ERROR,
                    f"task {task_id!r} is still working past its deadline: is a worker running?",
                )
            await asyncio.sleep(_LOOK)
            record = await self.read(owner, task_id)
        if record["status"] == "cancelled":
            raise MCPError(INVALID_PARAMS, f"task {task_id!r} was cancelled: no result")
        records = []
        for index in range(1, int(record["pages"]) + 1):
            page = await pages.jobs.page(task_id, index)
            if page is not None:
                records.append(page)
        result = self._present(record, records)
        meta = {**(result.meta or {}), RELATED_TASK: {"taskId": task_id}}
        return result.model_copy(update={"meta": meta})

    async def cancel(self, owner: str, task_id: str) -> Task:
        """The job's cancel: no worker sends another request for it once this returns."""
        record = await self.read(owner, task_id)
        if record["status"] != "running":
            ended = task_of(record).status
            raise MCPError(INVALID_PARAMS, f"task {task_id!r} has already ended {ended}")
        await self.pages().jobs.cancel(task_id)
        return task_of(await self.read(owner, task_id))

    async def list(self, owner: str) -> list[Task]:
        found = []
        for task_id in self._started.get(owner, []):
            try:
                found.append(task_of(await self.read(owner, task_id)))
            except MCPError:  # expired
                continue
        return found


TasksOf = Callable[[ServerRequestContext[Any]], Tasks | None]


def install(server: Server[Any], tasks_of: TasksOf, offered: Callable[[str], bool]) -> None:
    """Serve ``tasks/*`` and task-augmented ``tools/call`` on ``server``; ``tasks_of``
    finds a request's run's tasks (None: this run has no job engine, and a ``task`` field
    is ignored), ``offered`` says whether a tool name is listed."""

    def found(ctx: ServerRequestContext[Any]) -> Tasks:
        tasks = tasks_of(ctx)
        if tasks is None:
            raise MCPError(METHOD_NOT_FOUND, "this server runs no tasks")
        return tasks

    async def call(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        if (
            ctx.method != "tools/call"
            or not ctx.params
            or ctx.params.get("task") is None
            or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            or tasks_of(ctx) is None
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
        task = await found(ctx).start(owner_of(ctx), params.arguments)
        return CreateTaskResult(task=task)

    async def get(ctx: ServerRequestContext[Any], params: GetTaskRequestParams) -> HandlerResult:
        return _task_result(await found(ctx).get(owner_of(ctx), params.task_id))

    async def result(
        ctx: ServerRequestContext[Any], params: GetTaskPayloadRequestParams
    ) -> HandlerResult:
        return await found(ctx).result(owner_of(ctx), params.task_id)

    async def cancel(
        ctx: ServerRequestContext[Any], params: CancelTaskRequestParams
    ) -> HandlerResult:
        return _task_result(await found(ctx).cancel(owner_of(ctx), params.task_id))

    async def listed(
        ctx: ServerRequestContext[Any], _params: PaginatedRequestParams
    ) -> HandlerResult:
        return ListTasksResult(tasks=await found(ctx).list(owner_of(ctx)))

    server.middleware.append(call)
    server.add_request_handler("tasks/get", GetTaskRequestParams, get)
    server.add_request_handler("tasks/result", GetTaskPayloadRequestParams, result)
    server.add_request_handler("tasks/cancel", CancelTaskRequestParams, cancel)
    server.add_request_handler("tasks/list", PaginatedRequestParams, listed)


def _task_result(task: Task) -> dict[str, Any]:
    """A ``tasks/get`` or ``tasks/cancel`` answer: the task's fields, ``ttl`` always."""
    return task.model_dump(by_alias=True, mode="json", exclude_none=True) | {"ttl": task.ttl}


class TaskServer(Server[Any]):
    """The SDK's server, declaring the ``tasks`` capability where tasks exist (``tasks``:
    this server runs crawl jobs)."""

    def __init__(self, *args: Any, tasks: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.runs_tasks = tasks

    def get_capabilities(self, *args: Any, **kwargs: Any) -> ServerCapabilities:
        found = super().get_capabilities(*args, **kwargs)
        if self.runs_tasks and kwargs.get("protocol_version") not in MODERN_PROTOCOL_VERSIONS:
            found.tasks = ServerTasksCapability(
                list=TasksListCapability(),
                cancel=TasksCancelCapability(),
                requests=ServerTasksRequestsCapability(
                    tools=TasksToolsCapability(call=TasksCallCapability())
                ),
            )
        return found
