"""Crawl jobs over HTTP: a POST to the crawl operation's path starts one, a GET of
``PATH/{id}`` pages through its status and pages, a DELETE of it cancels it.

A job runs as a task in the instance that accepted it; its status, its pages and a cancel
flag live in the cache backend, so with a shared Redis any instance answers a GET or a
DELETE. Each caller (token, or address without tokens) sees only its own jobs, runs at most
``SLEUTH_CRAWL_JOBS_PER_TOKEN`` at once and at most ``SLEUTH_CRAWL_JOB_MAX_PAGES`` pages a
job. robots.txt is always obeyed and the politeness floor is the CLI's default.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sleuth.cache.base import get_json, set_json
from sleuth.errors import SleuthError, TooManyRequests, UsageError
from sleuth.jobs import webhook
from sleuth.log import LOGGER, event
from sleuth.ops.crawl import CRAWL as CRAWL_OP
from sleuth.server.responses import error_response
from sleuth.server.routes import check_uri, parse, read_json

if TYPE_CHECKING:
    from sleuth.server.state import ServerState


JOB_TTL = 24 * 3600.0  # a job's status and pages stay readable this long
PAGE_SIZE = 20
_TASKS: dict[str, asyncio.Task[None]] = {}  # this instance's running jobs


CRAWL = CRAWL_OP.operation
CrawlBody = CRAWL_OP.body()
assert CRAWL_OP.http is not None
PATH = CRAWL_OP.http.path


class CrawlJob(BaseModel):
    """A job as the routes show it (the description's schema; the record itself is a dict)."""

    id: str
    url: str
    status: Literal["running", "done", "failed", "cancelled", "cancelling"]
    pages: int = Field(ge=0, description="pages read so far")
    errors: int = Field(ge=0, description="pages whose outcome is not ok")
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


def _key(job: str, part: str = "") -> str:
    return f"crawljob:{job}" + (f":{part}" if part else "")


async def _job(state: ServerState, job: str, who: str) -> dict[str, Any] | None:
    found = await get_json(state.cache, _key(job))
    return found if isinstance(found, dict) and found.get("owner") == who else None


async def _save(state: ServerState, record: dict[str, Any]) -> None:
    record["updated_at"] = time.time()
    await set_json(state.cache, _key(record["id"]), record, JOB_TTL)


async def _run(state: ServerState, record: dict[str, Any], body: Any) -> None:
    """The job itself: each page's record goes to the cache as it is done."""
    job, who = record["id"], record["owner"]
    deadline = state.settings.crawl.crawl_job_deadline  # then the job is done with what it has
    try:
        async with state.client.crawl(**CRAWL.arguments("http", body), deadline=deadline) as run:
            async for page in run:
                index = await state.cache.incr(_key(job, "count"), JOB_TTL)
                await set_json(state.cache, _key(job, f"page:{index}"), page, JOB_TTL)
                record["pages"] = index
                record["errors"] += page["outcome"] != "ok"
                if await state.cache.get(_key(job, "cancel")) is not None:
                    record["status"] = "cancelled"
                    break
                await _save(state, record)
        record["notes"] = run.notes  # complete once the run is left; a deadline's among them
        if record["status"] == "running":
            record["status"] = "done"
    except asyncio.CancelledError:
        record["status"] = "cancelled"
        raise
    except SleuthError as error:
        # In the library's words, as every other error a caller of this server reads.
        shown = {"code": error.code, "message": str(error), "retryable": error.retryable}
        record.update(status="failed", error=shown)
    except Exception:  # a job must end, not stay "running" until it expires
        LOGGER.exception("crawl_job_crashed", extra={"job": job})
        record.update(
            status="failed",
            error={
                "code": "internal_error",
                "message": "the crawl failed unexpectedly",
                "retryable": False,
            },
        )
    finally:
        await _save(state, record)
        await state.cache.incr(f"crawljobs:running:{who}", JOB_TTL, -1)
        _TASKS.pop(job, None)
        event("crawl_job", job=job, status=record["status"], pages=record["pages"])
        if body.webhook:
            secret = state.settings.secret("webhook_secret")
            await webhook.deliver(state.client.web, state.cache, secret, body.webhook, record)


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
    running = f"crawljobs:running:{who}"
    if await state.cache.incr(running, JOB_TTL) > state.settings.crawl_jobs_per_token:
        await state.cache.incr(running, JOB_TTL, -1)
        raise TooManyRequests(
            f"{state.settings.crawl_jobs_per_token} crawl jobs are already running for you",
            retry_after=30,
            hint="wait for one to finish or DELETE one",
        )
    job = secrets.token_urlsafe(12)
    record: dict[str, Any] = {
        "id": job,
        "owner": who,
        "url": body.url,
        "status": "running",
        "pages": 0,
        "errors": 0,
        "notes": [],
        "created_at": time.time(),
        "options": body.model_dump(exclude={"url"}),
    }
    await _save(state, record)
    _TASKS[job] = asyncio.create_task(_run(state, record, body))
    return JSONResponse(_public(record, f"{PATH}/{job}"), status_code=202)


def _public(record: dict[str, Any], location: str | None = None) -> dict[str, Any]:
    shown = {key: value for key, value in record.items() if key != "owner"}
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
        await state.cache.set(_key(job_id, "cancel"), b"1", JOB_TTL)
        task = _TASKS.get(job_id)
        if task is not None:
            task.cancel()
        if record["status"] == "running":
            record["status"] = "cancelling" if task is None else "cancelled"
            await _save(state, record)
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
        page = await get_json(state.cache, _key(job_id, f"page:{index}"))
        if isinstance(page, dict):
            pages.append(page)
    body = _public(record)
    body["items"] = pages
    upto = cursor + len(pages)
    body["next_cursor"] = (
        upto if upto < int(record["pages"]) or record["status"] == "running" else None
    )
    return JSONResponse(body)
