"""Crawl jobs over HTTP: a POST to the crawl operation's path starts one, a GET of
``PATH/{id}`` pages through its status and pages, a DELETE of it cancels it.

A job is queued on the task engine (:mod:`sleuth.jobs`): its pages are tasks that any
worker runs (this server's own, and every ``sleuth worker`` on the same Redis), and its
record lives in the engine's Redis, so any instance answers a GET or a DELETE and the job
outlives the instance that accepted it. Without Redis the engine and its worker are in
this process. Each caller (token, or address without tokens) sees only its own jobs, runs
at most ``SLEUTH_CRAWL_JOBS_PER_TOKEN`` at once (across instances) and at most
``SLEUTH_CRAWL_JOB_MAX_PAGES`` pages a job. robots.txt is always obeyed and the
politeness floor is the CLI's default.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sleuth.errors import SleuthError, UsageError
from sleuth.jobs import webhook
from sleuth.jobs.store import TERMINAL
from sleuth.ops.crawl import CRAWL as CRAWL_OP
from sleuth.server.responses import error_response
from sleuth.server.routes import check_uri, parse, read_json

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.jobs.crawljob import Pages
    from sleuth.server.state import ServerState


PAGE_SIZE = 20


CRAWL = CRAWL_OP.operation
CrawlBody = CRAWL_OP.body()
assert CRAWL_OP.http is not None
PATH = CRAWL_OP.http.path


class CrawlJob(BaseModel):
    """A job as the routes show it (the description's schema; the record itself is a dict)."""

    id: str
    url: str
    status: Literal["running", "done", "failed", "cancelled"]
    pages: int = Field(ge=0, description="pages read so far")
    errors: int = Field(ge=0, description="pages whose outcome is not ok")
    rereads: int = Field(
        0, ge=0, description="requests sent again for a page whose worker died while reading it"
    )
    created_at: float
    updated_at: float
    options: dict[str, Any] = Field(description="the request's options, url aside")
    error: dict[str, Any] | None = Field(
        None, description="why a failed job failed: code, message, retryable"
    )
    notes: list[str] = Field(
        default_factory=list,
        description="what the crawl skipped and why, and whether SLEUTH_CRAWL_JOB_DEADLINE "
        "ended it (then it is done with the pages it had)",
    )
    location: str | None = Field(None, description="where to read the job (on 202 only)")
    items: list[dict[str, Any]] | None = Field(
        None, description="GET: this page of page records (fetch's object, with depth, parent)"
    )
    next_cursor: int | None = Field(
        None, description="GET: the cursor of the next page of records; null when there is none"
    )


def shared_or_off(settings: Settings, processes: int) -> SleuthError | None:
    """Why a server of ``processes`` processes runs no crawl jobs, or None when it does.
    Without Redis each process's engine is its own: a job started by one could be read and
    cancelled by no other, and the per-caller quota would count per process."""
    from sleuth.jobs.engine import engine_url, no_redis

    if processes <= 1 or engine_url(settings) is not None:
        return None
    return no_redis(settings, "a crawl job in a server of several worker processes")


@asynccontextmanager
async def run_jobs(state: ServerState) -> AsyncIterator[None]:
    """The job engine and this instance's worker, for as long as the server runs."""
    from sleuth.jobs.worker import running_jobs

    if state.jobs_off is not None:
        yield
        return
    async with running_jobs(state.client, state.settings) as pages:
        state.jobs = pages
        try:
            yield
        finally:
            state.jobs = None


def _pages(state: ServerState) -> Pages:
    if state.jobs_off is not None:
        raise state.jobs_off
    if state.jobs is None:
        raise RuntimeError("the server's job engine is not running")
    return state.jobs


async def _job(state: ServerState, job: str, who: str) -> dict[str, Any] | None:
    found = await _pages(state).jobs.read(job)
    return found if found is not None and found.get("owner") == who else None


async def start(state: ServerState, request: Request) -> Response:
    """Start a job; 202 with its id and where to read it."""
    who = await state.admit(request, limit=False)
    body: Any = parse(CrawlBody, await read_json(request, state.settings.max_body_bytes))
    check_uri("url", body.url)
    cap = state.settings.crawl_job_max_pages
    if "max_pages" not in body.model_fields_set:
        body.max_pages = min(body.max_pages, cap)
    if body.max_pages > cap:
        raise UsageError(
            f"max_pages {body.max_pages} is over this server's "
            f"{state.settings.crawl_job_max_pages} pages a job",
            hint="ask for fewer pages, or split the site with include",
        )
    from sleuth.pages.fetcher import normalize_input_url

    normalize_input_url(body.url)  # a bad URL is a 400 now, not a failed job later
    if body.webhook is not None:
        check_uri("webhook", body.webhook)
        if not state.settings.secret("webhook_secret"):
            raise UsageError("this server signs no webhooks: SLEUTH_WEBHOOK_SECRET is not set")
        await webhook.check_target(state.client.web, body.webhook)
    record = await _pages(state).start(who, body.url, body.model_dump(exclude={"url"}))
    return JSONResponse(_public(record, f"{PATH}/{record['id']}"), status_code=202)


_HIDDEN = frozenset(("owner", "cancelled", "pending", "ends_at"))


def _public(record: dict[str, Any], location: str | None = None) -> dict[str, Any]:
    shown = {key: value for key, value in record.items() if key not in _HIDDEN}
    if location:
        shown["location"] = location
    return shown


async def job(state: ServerState, request: Request) -> Response:
    """GET: status and a page of pages (``?cursor=N&limit=M``); DELETE: cancel."""
    who = await state.admit(request, limit=False)
    job_id = request.path_params["job"]
    record = await _job(state, job_id, who)
    if record is None:
        return error_response("not_found", f"no crawl job {job_id!r}", status=404)
    if request.method == "DELETE":
        if record["status"] not in TERMINAL:  # an ended job stays as it ended
            await _pages(state).jobs.cancel(job_id)  # no worker sends another request after
            record = await _job(state, job_id, who) or record
        return JSONResponse(_public(record))
    try:
        cursor = int(request.query_params.get("cursor", "0"))
        limit = int(request.query_params.get("limit", str(PAGE_SIZE)))
    except ValueError:
        raise UsageError("cursor and limit must be whole numbers") from None
    if cursor < 0 or not 1 <= limit <= 100:
        raise UsageError("cursor must be >= 0 and limit 1-100")
    pages = []
    for index in range(cursor + 1, min(cursor + limit, int(record["pages"])) + 1):
        page = await _pages(state).jobs.page(job_id, index)
        if page is not None:
            pages.append(page)
    body = _public(record)
    body["items"] = pages
    upto = cursor + len(pages)
    body["next_cursor"] = (
        upto if upto < int(record["pages"]) or record["status"] == "running" else None
    )
    return JSONResponse(body)
