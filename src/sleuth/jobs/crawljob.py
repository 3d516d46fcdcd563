"""A crawl job on the engine: its pages as tasks, read by any worker.

Each page is a task keyed by the job and the URL's hash (:func:`~sleuth.jobs.store.task_key`).
The page's reading is the crawler's own (:meth:`sleuth.crawl.crawler.Crawler.page`: guard,
robots.txt, politeness, scope, links); :class:`JobCrawler` only sends its frontier calls
to the job's store (:mod:`sleuth.jobs.store`) and wraps each request in the cancel check.
A task may run more than once (the engine delivers at least once): a page already done is
not read again, and a job whose last worker died is finished by the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sleuth.crawl.crawler import Crawler
from sleuth.crawl.state import CrawlState
from sleuth.errors import SleuthError
from sleuth.jobs import webhook
from sleuth.jobs.store import (
    ATTEMPT,
    PAGE,
    TERMINAL,
    JobCancelled,
    Jobs,
    digest,
    failure,
    task_key,
)
from sleuth.log import LOGGER, event

if TYPE_CHECKING:
    from docket import Docket

    from sleuth.crawl.crawler import CrawlOptions
    from sleuth.session import AsyncSession
    from sleuth.web import Web

TASK_TTL = 15 * 60  # seconds the engine keeps a finished task's state
_BEAT = 1.0  # how often a worker tells the politeness state it is alive
UNADMITTED = (
    "the start URL is outside what the crawl may read (too long, too many path segments, "
    "or unusable): no page was read"
)


class JobLate(JobCancelled):
    """The job's deadline passed before this page's request: no request is sent."""


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
        if not await self.jobs.admit(self.job, item, self.max_pages):
            return 0
        # Asked again for a page read again: the engine keeps one task per key, and a page
        # already done is not read twice (its task sees it done).
        url, depth, parent = item["url"], int(item["depth"]), item.get("parent")
        key = task_key(self.job, digest(url))
        await self.jobs.docket.add(crawl_page, key=key)(self.job, url, depth, parent)
        return 1


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
        if self.late():  # the deadline may pass during the politeness wait
            raise JobLate(self.job)
        async with self.jobs.request(self.job, url):
            yield

    def until(self, ends_at: float) -> None:
        """The job's deadline (wall time, one for every worker) on this crawler's clock."""
        self._ends = self.clock() + max(0.0, ends_at - time.time())

    def late(self) -> bool:
        return self._ends is not None and self.clock() >= self._ends


TOOL = "tool"  # a job's options key holding the crawl_site tool's arguments (an MCP task)
CLI = "cli"  # a job's options key holding ``sleuth crawl``'s arguments (JSON), url aside


def _run_of(session: AsyncSession, url: str, options: dict[str, Any]) -> Any:
    """The crawl the job's options describe, as the crawl operation builds it: the HTTP
    body's, for an MCP task the crawl_site tool's arguments, with that tool's bounds, or
    for ``sleuth crawl`` its command's arguments (and the text format its files need)."""
    from sleuth.ops.crawl import CRAWL, crawl

    operation = CRAWL.operation
    if CLI in options:
        arguments = operation.arguments("cli", {**options[CLI], "url": url})
        operation.check(arguments)
        return crawl(session, **arguments, format=options.get("format", "text"))
    if TOOL in options:
        assert CRAWL.tool is not None
        args = CRAWL.tool.arguments.model_validate({**options[TOOL], "url": url})
        return crawl(session, **operation.arguments("tool", args))
    own = {name for name, _ in CRAWL.http.own} if CRAWL.http else set()
    given = {key: value for key, value in options.items() if key not in own}
    body = operation.model("http").model_validate({"url": url, **given})
    return crawl(session, **operation.arguments("http", body))


class Pages:
    """What runs a job's page tasks in one process: the session, one crawler per job."""

    def __init__(self, session: AsyncSession, jobs: Jobs) -> None:
        self.session = session
        self.jobs = jobs
        self._crawlers: dict[str, JobCrawler] = {}
        self._beat: asyncio.Task[None] | None = None
        self._closing = False
        self._running: set[asyncio.Task[Any]] = set()
        self._telling: set[asyncio.Task[bool]] = set()
        # Told of each page record this process's worker stored (job, record): how
        # ``sleuth crawl`` prints the pages it read itself.
        self.stored: Callable[[str, dict[str, Any]], None] | None = None
        jobs.ended = self._tell

    def _tell(self, record: dict[str, Any]) -> None:
        """Send the job's end to its webhook, beside the work: a receiver never holds a
        DELETE or a page. Called where :meth:`Jobs.finish` ended the job, so whichever
        process ends it sends it, once."""
        url = record["options"].get("webhook")
        if not url:
            return
        secret = self.session.settings.secret("webhook_secret")
        sending = asyncio.create_task(webhook.deliver(self.session.web, secret, url, record))
        self._telling.add(sending)
        sending.add_done_callback(self._telling.discard)

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
        # Ends on the flag too: a cancel that lands inside the Redis call may come back
        # as a connection error, which the beat ignores, and it would beat forever.
        while not self._closing:
            for crawler in list(self._crawlers.values()):
                with contextlib.suppress(Exception):
                    await crawler.shared.heartbeat()
            if self._closing:
                return
            await asyncio.sleep(_BEAT)

    async def start(
        self,
        owner: str,
        url: str,
        options: dict[str, Any],
        deadline: float | None = None,
        *,
        job: str | None = None,
        quota: bool = True,
    ) -> dict[str, Any]:
        """A new job with its start page queued; its record as the routes show it. A start
        URL the crawl's limits refuse leaves nothing to read: the job ends ``done`` at
        once, with 0 pages and a note saying why, as ``sleuth crawl`` of it would. A given
        ``job`` id that exists already is that job's record, untouched (see
        :meth:`Jobs.create`)."""
        _run_of(self.session, url, options)  # a start the crawl refuses: before any job
        made = await self.jobs.create(owner, url, options, deadline, job=job, quota=quota)
        if made is None:
            assert job is not None
            found = await self.jobs.read(job)
            if found is None:
                raise RuntimeError(f"crawl job {job} was made elsewhere and is gone")
            if found["status"] not in TERMINAL:
                # Its maker may have died before queuing the start page. Asking for it again
                # costs nothing: the engine keeps one task per page while it is queued or
                # running, and a page already done is not read again.
                crawler = self.crawler(job, found)
                token = PAGE.set("")
                try:
                    await crawler.seed([(crawler.scope.start, 0, None)])
                finally:
                    PAGE.reset(token)
            return found
        job = made["id"]
        token = PAGE.set("")
        try:  # from here on the job exists and holds the caller's slot: it must end
            record = await self.jobs.read(job)
            assert record is not None
            crawler = self.crawler(job, record)
            await crawler.seed([(crawler.scope.start, 0, None)])
        except BaseException:
            await self.jobs.finish(job, "failed", failure(None))
            raise
        finally:
            PAGE.reset(token)
        if not await self.jobs.admitted(job):
            await self.jobs.note(job, [*crawler.notes.lines, UNADMITTED])
            await self.jobs.finish(job, "done")
        found = await self.jobs.read(job)
        assert found is not None
        return found

    async def _seeds(self, crawler: JobCrawler, record: dict[str, Any]) -> list[str]:
        run = _run_of(self.session, record["url"], record["options"])
        run.crawler = crawler  # the sitemaps' notes and scope are the job crawler's
        seeds: list[str] = await run._seeds()
        return seeds

    async def run(self, job: str, url: str, depth: int, parent: str | None) -> None:
        """One page of a job, however often the engine delivers it.

        Whatever goes wrong (the page, the crawler, or the store itself) ends the job
        ``failed`` here rather than failing the engine's task, which the engine would not
        run again: a job whose page task died that way would stay ``running`` until it
        expired. Retrying the task would not help a page that fails the same way each time,
        and a store that cannot be reached cannot record the retry's end either."""
        try:
            await self._run(job, url, depth, parent)
        except Exception as error:  # a job must end, not stay "running" until it expires
            if not isinstance(error, SleuthError):
                LOGGER.exception("crawl_job_crashed", extra={"job": job})
            known = error if isinstance(error, SleuthError) else None
            await self.jobs.finish(job, "failed", failure(known))

    async def _run(self, job: str, url: str, depth: int, parent: str | None) -> None:
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
            await self._unread(job, page, "cancelled")
            return
        crawler = self.crawler(job, record)
        if crawler.late():  # no page starts after the deadline; the job is done with these
            await self._late(job, page, record)
            return
        PAGE.set(page)
        ATTEMPT.set(secrets.token_hex(8))
        try:
            if depth == 0 and crawler.options.sitemaps:
                await crawler.seed([(seed, 1, None) for seed in await self._seeds(crawler, record)])
            result = await crawler.page(url, depth, parent)
        except JobLate:
            await self._late(job, page, record)
            return
        except JobCancelled:
            await self._unread(job, page, "cancelled")
            return
        finally:
            await jobs.note(job, crawler.notes.lines)
        pending = await jobs.page_done(job, page, result)
        if pending >= 0 and self.stored is not None:
            self.stored(job, result)  # before the job can end: its reader misses none
        if pending == 0:
            now = await jobs.read(job)  # cancelled while this page was read: it ends so
            await jobs.finish(job, "cancelled" if now and now["cancelled"] else "done")

    async def _unread(self, job: str, page: str, status: str) -> None:
        """The page ends unread; the last one pending ends the job (a no-op if it has)."""
        if await self.jobs.page_done(job, page, None) == 0:
            await self.jobs.finish(job, status)

    async def _late(self, job: str, page: str, record: dict[str, Any]) -> None:
        """No page starts after the deadline: the job is done with the pages it has, once
        the pages already being read are in (the last page to end ends it), so its count
        and its webhook never miss a page that lands after."""
        deadline = round(record["ends_at"] - record["created_at"], 3)  # the job's own
        why = f"stopped at the {deadline:g}s deadline with the pages read so far"
        await self.jobs.note(job, [why])
        await self._unread(job, page, "done")

    async def settled(self) -> None:
        """Wait until the page tasks running here now have ended."""
        if self._running:
            await asyncio.wait(set(self._running))

    def stop_pages(self) -> None:
        """Drop the pages running here: the engine hands each to another worker after
        ``SLEUTH_WORKER_LEASE``, as if this one had died."""
        for task in list(self._running):
            task.cancel()

    async def aclose(self) -> None:
        if self._telling:  # a webhook under way gets the shutdown grace, then is dropped
            grace = self.session.settings.shutdown_grace
            _, late = await asyncio.wait(self._telling, timeout=grace)
            for sending in late:
                sending.cancel()
                event("crawl_webhook_dropped", logging.ERROR, grace=grace)
            if late:
                await asyncio.wait(late)
        if self._beat is not None:
            self._closing = True
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
