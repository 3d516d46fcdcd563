"""A crawl job on the engine: its record, its pages as tasks, and where its status ends.

A job is a hash in the engine's Redis (the record, its counters, the cancel flag), with
beside it the frontier's claims, the pages read and the requests in flight. Each page is a
task keyed by the job and the URL's hash, run by any worker; the page's reading is the
crawler's own (:meth:`sleuth.crawl.crawler.Crawler.page`: guard, robots.txt, politeness,
scope, links), only its frontier calls land here. Every change that must not happen
twice is one script, atomic in Redis and in the in-process store alike:

* a URL enters the frontier once (first claim wins), within ``max_pages``, and raises
  ``pending``;
* a page is done once: its record is stored and ``pending`` drops in one step, so a task
  run again after its worker died neither stores it twice nor ends the job early; the job
  is done when ``pending`` reaches 0;
* before each request (after its politeness wait) a worker marks the request in flight and
  reads the cancel flag, in one step; DELETE sets the flag and then waits until no request
  is marked, so after it returns no worker starts another request for the job. A request
  sent again for a page, because its first worker died, counts in ``rereads``;
* :meth:`Jobs.finish` is the one place a job's status becomes done, failed or cancelled,
  exactly once, and where the caller's running-jobs slot is given back.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sleuth.crawl.crawler import Crawler
from sleuth.crawl.state import CrawlState
from sleuth.errors import SleuthError, TooManyRequests
from sleuth.log import LOGGER, event

if TYPE_CHECKING:
    from docket import Docket

    from sleuth.config import Settings
    from sleuth.crawl.crawler import CrawlOptions
    from sleuth.session import AsyncSession
    from sleuth.web import Web

JOB_TTL = 24 * 3600  # seconds a job's record and pages stay readable
TASK_TTL = 15 * 60  # seconds the engine keeps a finished task's state
TERMINAL = ("done", "failed", "cancelled")
_WAIT = 0.05  # how often DELETE looks whether the requests in flight are through
_BEAT = 1.0  # how often a worker tells the politeness state it is alive

# The page a task is reading (its URL's hash) and this run of it: frontier claims are the
# page's, so a page read again claims what it claimed before; each run is its own attempt.
_PAGE: contextvars.ContextVar[str] = contextvars.ContextVar("job_page", default="")
_ATTEMPT: contextvars.ContextVar[str] = contextvars.ContextVar("job_attempt", default="")

_QUOTA = """
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if n > tonumber(ARGV[2]) then
  redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
  return 0
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""
_CREATE = """
redis.call('HSET', KEYS[1], 'record', ARGV[1])
redis.call('HSET', KEYS[1], 'ends_at', ARGV[2])
redis.call('HSET', KEYS[1], 'updated_at', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""
_CLAIM = """
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if not owner then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 1
end
if owner == ARGV[2] then return 1 end
return 0
"""
_COUNT = """
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('EXPIRE', KEYS[1], ARGV[2])
return n
"""
_ADMIT = """
if redis.call('HGET', KEYS[1], ARGV[1]) then return 2 end
local admitted = tonumber(redis.call('HGET', KEYS[2], 'admitted') or '0')
if admitted >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('HINCRBY', KEYS[2], 'admitted', 1)
redis.call('HINCRBY', KEYS[2], 'pending', 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""
_DONE = """
if redis.call('HGET', KEYS[1], ARGV[1]) then return -1 end
local index = 0
if ARGV[2] ~= '' then
  index = redis.call('HINCRBY', KEYS[2], 'pages', 1)
  redis.call('HSET', KEYS[3], tostring(index), ARGV[2])
  redis.call('HINCRBY', KEYS[2], 'errors', tonumber(ARGV[3]))
  redis.call('EXPIRE', KEYS[3], ARGV[5])
end
redis.call('HSET', KEYS[1], ARGV[1], tostring(index))
redis.call('HSET', KEYS[2], 'updated_at', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return redis.call('HINCRBY', KEYS[2], 'pending', -1)
"""
_BEFORE_REQUEST = """
if redis.call('HGET', KEYS[1], 'cancel') or redis.call('HGET', KEYS[1], 'final') then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[5])
local before = redis.call('HGET', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[5])
if before and before ~= ARGV[4] then redis.call('HINCRBY', KEYS[1], 'rereads', 1) end
return 1
"""
_AFTER_REQUEST = """
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"""
_IN_FLIGHT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
"""
_FINISH = """
if redis.call('HGET', KEYS[1], 'final') then return 0 end
redis.call('HSET', KEYS[1], 'final', ARGV[1])
redis.call('HSET', KEYS[1], 'record', ARGV[3])
redis.call('HSET', KEYS[1], 'updated_at', ARGV[4])
redis.call('HINCRBY', KEYS[2], ARGV[2], -1)
return 1
"""
_CANCEL = """
redis.call('HSET', KEYS[1], 'cancel', '1')
return redis.call('HGETALL', KEYS[2])
"""
_NOTE = """
for _, line in ipairs(ARGV) do
  if not redis.call('HGET', KEYS[1], line) then
    redis.call('HSET', KEYS[1], line, '1')
    redis.call('RPUSH', KEYS[2], line)
  end
end
redis.call('EXPIRE', KEYS[1], 86400)
redis.call('EXPIRE', KEYS[2], 86400)
return 1
"""
_READ = """
return {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}
"""
_FIELD = "return redis.call('HGET', KEYS[1], ARGV[1])"


class JobCancelled(Exception):
    """The job was cancelled or has ended: this page sends no request."""


def digest(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:32]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pairs(flat: list[Any]) -> dict[str, str]:
    return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}


def _error(error: SleuthError | None) -> dict[str, Any]:
    """Why a job failed, in the library's words as every other error of the server;
    anything else is an internal error, told without its details."""
    if error is None:
        return {
            "code": "internal_error",
            "message": "the crawl failed unexpectedly",
            "retryable": False,
        }
    return {"code": error.code, "message": str(error), "retryable": error.retryable}


class Jobs:
    """The crawl jobs of one engine: what the HTTP routes and the page tasks change."""

    def __init__(self, docket: Docket, settings: Settings) -> None:
        self.docket = docket
        self.settings = settings
        # A request in flight is forgotten this long after it was marked, if its worker
        # died before clearing it: the longest a page's request may take, and some.
        self.request_lease = settings.fetch_deadline * 2 + 10

    def _k(self, job: str, part: str = "") -> str:
        return f"sleuth:crawljob:{job}" + (f":{part}" if part else "")

    async def _eval(self, script: str, keys: list[str], *args: object) -> Any:
        async with self.docket.redis() as redis:
            client: Any = redis  # Redis, or the in-process store: both take EVAL, of str
            return await client.eval(script, len(keys), *keys, *(str(a) for a in args))

    # ---- the record ------------------------------------------------------------------

    async def create(self, owner: str, url: str, options: dict[str, Any]) -> dict[str, Any]:
        """A new job (its caller's running-jobs slot taken), not yet seeded."""
        limit = self.settings.crawl_jobs_per_token
        if not await self._eval(_QUOTA, ["sleuth:crawljobs:running"], owner, limit, JOB_TTL):
            raise TooManyRequests(
                f"{limit} crawl jobs are already running for you",
                retry_after=30,
                hint="wait for one to finish or DELETE one",
            )
        now = time.time()
        record: dict[str, Any] = {
            "id": secrets.token_urlsafe(12),
            "owner": owner,
            "url": url,
            "status": "running",
            "error": None,
            "created_at": now,
            "options": options,
        }
        ends = now + self.settings.crawl_job_deadline
        await self._eval(_CREATE, [self._k(record["id"])], json.dumps(record), ends, now, JOB_TTL)
        return record

    async def read(self, job: str) -> dict[str, Any] | None:
        """The job as the routes show it (status, counters, notes), with its owner."""
        flat, notes = await self._eval(_READ, [self._k(job), self._k(job, "notes")])
        fields = _pairs(flat)
        if "record" not in fields:
            return None
        record: dict[str, Any] = json.loads(fields["record"])
        record.update(
            status=fields.get("final", "running"),
            pages=int(fields.get("pages", 0)),
            errors=int(fields.get("errors", 0)),
            rereads=int(fields.get("rereads", 0)),
            updated_at=float(fields.get("updated_at", record["created_at"])),
            notes=[_text(line) for line in notes],
        )
        record["cancelled"] = "cancel" in fields
        record["pending"] = int(fields.get("pending", 0))
        record["ends_at"] = float(fields.get("ends_at", 0))
        return record

    async def page(self, job: str, index: int) -> dict[str, Any] | None:
        raw = await self._eval(_FIELD, [self._k(job, "pages")], index)
        return json.loads(raw) if raw else None

    async def note(self, job: str, lines: list[str]) -> None:
        if lines:
            await self._eval(_NOTE, [self._k(job, "noteset"), self._k(job, "notes")], *lines)

    async def finish(self, job: str, status: str, error: dict[str, Any] | None = None) -> bool:
        """End the job (done, failed or cancelled): the one place its status ends, once;
        False when it had already ended. The caller's running-jobs slot is given back."""
        record = await self.read(job)
        if record is None or record["status"] in TERMINAL:
            return False
        stored = {k: record[k] for k in ("id", "owner", "url", "created_at", "options")}
        stored.update(status=status, error=error)
        now = time.time()
        keys = [self._k(job), "sleuth:crawljobs:running"]
        if not await self._eval(_FINISH, keys, status, record["owner"], json.dumps(stored), now):
            return False
        event("crawl_job", job=job, status=status, pages=record["pages"])
        return True

    # ---- the frontier ----------------------------------------------------------------

    async def claim(self, job: str, kind: str, value: str) -> bool:
        """True for the first page to claim ``value`` (and for that page read again)."""
        field = f"{kind}:{digest(value)}"
        return bool(await self._eval(_CLAIM, [self._k(job, "claims")], field, _PAGE.get(), JOB_TTL))

    async def count(self, job: str, kind: str, value: str) -> int:
        return int(
            await self._eval(_COUNT, [self._k(job, "counts")], f"{kind}:{digest(value)}", JOB_TTL)
        )

    async def admitted(self, job: str) -> int:
        return int(await self._eval(_FIELD, [self._k(job)], "admitted") or 0)

    async def admit(self, job: str, item: dict[str, Any], max_pages: int) -> bool:
        """Queue a page (once, within the page budget) as a task any worker may run."""
        url = item["url"]
        page = digest(url)
        depth = int(item["depth"])
        keys = [self._k(job, "admitted"), self._k(job)]  # page -> its depth, and the counters
        verdict = await self._eval(_ADMIT, keys, page, max_pages, JOB_TTL, depth)
        if not verdict:
            return False
        # Again for a page read again: the engine keeps one task per key, and a page
        # already done is not read twice (its task sees it done).
        await self.docket.add(crawl_page, key=f"{job}:{page}")(job, url, depth, item.get("parent"))
        return True

    async def page_done(self, job: str, page: str, record: dict[str, Any] | None) -> int:
        """Store the page's record (None: ended unread) and count it done, once; the pages
        still pending, or -1 when it was done already."""
        body = json.dumps(record, ensure_ascii=False) if record is not None else ""
        failed = int(record is not None and record.get("outcome") != "ok")
        keys = [self._k(job, "done"), self._k(job), self._k(job, "pages")]
        return int(await self._eval(_DONE, keys, page, body, failed, time.time(), JOB_TTL))

    async def is_done(self, job: str, page: str) -> bool:
        return await self._eval(_FIELD, [self._k(job, "done")], page) is not None

    # ---- requests and cancelling -----------------------------------------------------

    @contextlib.asynccontextmanager
    async def request(self, job: str, url: str) -> AsyncIterator[None]:
        """Around one request of a page: marked in flight, and refused once cancelled."""
        token = secrets.token_hex(8)
        keys = [self._k(job), self._k(job, "inflight"), self._k(job, "reads")]
        expires = time.time() + self.request_lease
        go = await self._eval(
            _BEFORE_REQUEST, keys, token, expires, digest(url), _ATTEMPT.get(), JOB_TTL
        )
        if not go:
            raise JobCancelled(job)
        try:
            yield
        finally:
            await self._eval(_AFTER_REQUEST, [self._k(job, "inflight")], token)

    async def cancel(self, job: str) -> None:
        """Stop the job everywhere: no worker starts another request once this returns."""
        flat = await self._eval(_CANCEL, [self._k(job), self._k(job, "admitted")])
        await self.finish(job, "cancelled")
        for page in _pairs(flat):  # queued pages leave the engine; running ones are told
            await self.docket.cancel(f"{job}:{page}")
        ends = time.monotonic() + self.request_lease
        while time.monotonic() < ends:
            if not await self._eval(_IN_FLIGHT, [self._k(job, "inflight")], time.time()):
                return
            await asyncio.sleep(_WAIT)


class JobFrontier(CrawlState):
    """The crawler's frontier calls, answered by the job's store: claims are the reading
    page's, and a URL pushed becomes a task. Only what the crawler's frontier asks."""

    def __init__(self, jobs: Jobs, job: str, max_pages: int, shared: CrawlState) -> None:
        super().__init__(shared.cache, shared.crawl, ttl=shared.ttl)
        self.jobs = jobs
        self.job = job
        self.max_pages = max_pages

    async def tail(self) -> int:
        return await self.jobs.admitted(self.job)

    async def first(self, kind: str, value: str) -> bool:
        return await self.jobs.claim(self.job, kind, value)

    async def count(self, kind: str, value: str) -> int:
        return await self.jobs.count(self.job, kind, value)

    async def push(self, item: dict[str, Any]) -> int:
        return int(await self.jobs.admit(self.job, item, self.max_pages))


class JobCrawler(Crawler):
    """The crawler of one job in one worker: its pages' reading as any crawl's, its
    frontier the job's, its requests marked and checked against the cancel flag."""

    def __init__(self, web: Web, start: str, options: CrawlOptions, jobs: Jobs, job: str) -> None:
        super().__init__(web, start, options)
        self.shared = self.state  # the politeness gate's, shared by the crawl's workers
        self.state = JobFrontier(jobs, job, options.max_pages, self.shared)
        self.jobs = jobs
        self.job = job

    @contextlib.asynccontextmanager
    async def request(self, url: str) -> AsyncIterator[None]:
        async with self.jobs.request(self.job, url):
            yield

    def until(self, ends_at: float) -> None:
        """The job's deadline (wall time, one for every worker) on this crawler's clock."""
        self._ends = self.clock() + max(0.0, ends_at - time.time())

    def late(self) -> bool:
        return self._ends is not None and self.clock() >= self._ends


def _run_of(session: AsyncSession, url: str, options: dict[str, Any]) -> Any:
    """The crawl the job's options describe, as the crawl operation builds it."""
    from sleuth.ops.crawl import CRAWL, crawl

    operation = CRAWL.operation
    body = operation.model("http").model_validate({"url": url, **options})
    return crawl(session, **operation.arguments("http", body))


class Pages:
    """What runs a job's page tasks in one process: the session, one crawler per job."""

    def __init__(self, session: AsyncSession, jobs: Jobs) -> None:
        self.session = session
        self.jobs = jobs
        self._crawlers: dict[str, JobCrawler] = {}
        self._beat: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[Any]] = set()

    def crawler(self, job: str, record: dict[str, Any]) -> JobCrawler:
        found = self._crawlers.get(job)
        if found is None:
            run = _run_of(self.session, record["url"], record["options"])
            options = replace(run.options, deadline=None)  # the job's own deadline rules
            found = JobCrawler(self.session.web, run.start, options, self.jobs, job)
            found.until(record["ends_at"])
            if len(self._crawlers) >= 64:
                self._crawlers.pop(next(iter(self._crawlers)))
            self._crawlers[job] = found
        if self._beat is None:
            self._beat = asyncio.create_task(self._heartbeat())
        return found

    async def _heartbeat(self) -> None:
        while True:
            for crawler in list(self._crawlers.values()):
                with contextlib.suppress(Exception):
                    await crawler.shared.heartbeat()
            await asyncio.sleep(_BEAT)

    async def start(self, owner: str, url: str, options: dict[str, Any]) -> dict[str, Any]:
        """A new job with its start page queued; its record as the routes show it."""
        job = (await self.jobs.create(owner, url, options))["id"]
        record = await self.jobs.read(job)
        assert record is not None
        crawler = self.crawler(job, record)
        token = _PAGE.set("")
        try:
            await crawler.seed([(crawler.scope.start, 0, None)])
        except BaseException:
            await self.jobs.finish(job, "failed", _error(None))
            raise
        finally:
            _PAGE.reset(token)
        found = await self.jobs.read(job)
        assert found is not None
        return found

    async def _seeds(self, crawler: JobCrawler, record: dict[str, Any]) -> list[str]:
        run = _run_of(self.session, record["url"], record["options"])
        run.crawler = crawler  # the sitemaps' notes and scope are the job crawler's
        seeds: list[str] = await run._seeds()
        return seeds

    async def run(self, job: str, url: str, depth: int, parent: str | None) -> None:
        """One page of a job, however often the engine delivers it."""
        jobs = self.jobs
        page = digest(url)
        record = await jobs.read(job)
        if record is None:  # expired
            return
        if await jobs.is_done(job, page):  # delivered again after it was done
            if record["pending"] <= 0:
                await jobs.finish(job, "done")  # its worker died before it could say so
            return
        if record["status"] in TERMINAL or record["cancelled"]:
            await jobs.page_done(job, page, None)
            return
        crawler = self.crawler(job, record)
        if crawler.late():  # no page starts after the deadline; the job is done with these
            deadline = self.session.settings.crawl_job_deadline
            await jobs.note(
                job, [f"stopped at the {deadline:g}s deadline with the pages read so far"]
            )
            await jobs.page_done(job, page, None)
            await jobs.finish(job, "done")
            return
        _PAGE.set(page)
        _ATTEMPT.set(secrets.token_hex(8))
        try:
            if depth == 0 and crawler.options.sitemaps:
                await crawler.seed([(seed, 1, None) for seed in await self._seeds(crawler, record)])
            result = await crawler.page(url, depth, parent)
        except JobCancelled:
            await jobs.page_done(job, page, None)
            return
        except SleuthError as error:
            await jobs.finish(job, "failed", _error(error))
            return
        except Exception:  # a job must end, not stay "running" until it expires
            LOGGER.exception("crawl_job_crashed", extra={"job": job})
            await jobs.finish(job, "failed", _error(None))
            return
        finally:
            await jobs.note(job, crawler.notes.lines)
        if await jobs.page_done(job, page, result) == 0:
            await jobs.finish(job, "done")

    def stop_pages(self) -> None:
        """Drop the pages running here: the engine hands each to another worker after
        ``SLEUTH_WORKER_LEASE``, as if this one had died."""
        for task in list(self._running):
            task.cancel()

    async def aclose(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat


_PAGES: dict[int, Pages] = {}  # the engine (by id) -> what runs its page tasks here


def serve_pages(docket: Docket, pages: Pages | None) -> None:
    """Let this process's worker run the engine's page tasks with ``pages`` (None: stop)."""
    if pages is None:
        _PAGES.pop(id(docket), None)
    else:
        _PAGES[id(docket)] = pages


async def crawl_page(job: str, url: str, depth: int, parent: str | None) -> None:
    """The engine's task for one page of a crawl job."""
    from docket.dependencies import current_docket

    pages = _PAGES.get(id(current_docket.get()))
    if pages is None:
        raise RuntimeError("no crawl job runner in this worker")
    task = asyncio.current_task()
    if task is not None:
        pages._running.add(task)
    try:
        await pages.run(job, url, depth, parent)
    finally:
        pages._running.discard(task)


TASKS = (crawl_page,)
