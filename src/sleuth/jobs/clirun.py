"""``sleuth crawl`` on the shared Redis: the crawl is a job on the engine, and this process
runs a worker on it, beside any other (``sleuth crawl --resume`` elsewhere, ``sleuth
worker``).

The job is named by the crawl (:attr:`~sleuth.crawl.crawler.Crawler.id`: its start URL and
the options that change what is read) and a generation, kept in the same Redis: a run
without ``--resume`` starts a new generation, so a fresh job (the older one is left to
expire); ``--resume`` takes the current one and joins its job while it runs, or continues
it if its process died: its queued pages are still in the engine, and the pages that
process held come back after ``SLEUTH_WORKER_LEASE``. The run prints the records its own
worker stored, and ends when the job does.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, Literal

from sleuth.crawl.crawler import Progress, summary
from sleuth.errors import SleuthError
from sleuth.jobs.crawljob import CLI, Pages
from sleuth.jobs.engine import engine_url, open_engine
from sleuth.jobs.store import JOB_TTL, TERMINAL, Jobs
from sleuth.jobs.worker import reach, working

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.session import AsyncSession

OWNER = "sleuth crawl"  # the CLI's jobs' owner: no per-caller quota counts them
# A CLI crawl has no deadline of its own. Its job's is as long as the job's record lives
# (JOB_TTL from its start), less an hour, so it ends while it can still be read.
DEADLINE = JOB_TTL - 3600
_POLL = 0.2  # seconds between looks at the job's status while no record of ours comes


def on_engine(settings: Settings) -> bool:
    """Whether ``sleuth crawl`` runs as a job: a shared Redis, and the engine installed."""
    return engine_url(settings) is not None and importlib.util.find_spec("docket") is not None


def job_id(crawl: str, generation: str) -> str:
    return f"cli-{crawl}-{generation}"


def queue_of(job: str) -> str:
    """The engine queue of one CLI job: only the processes running that crawl take its
    pages, under their own guard, and they take no other job's (a server's, another
    crawl's, an older run's of this one)."""
    return f"sleuth-jobs-{job}"


class JobRun:
    """A CLI crawl as a job, with :class:`~sleuth.crawl.run.CrawlRun`'s interface: async
    iteration of the records this process's worker stored, ``progress``, ``notes`` (the
    job's, complete at the end), :meth:`summaries` (every page of the job)."""

    def __init__(
        self,
        session: AsyncSession,
        arguments: dict[str, Any],
        output: Literal["text", "markdown"],
    ) -> None:
        from sleuth.ops.crawl import crawl

        plan = crawl(session, **arguments, format=output)  # its checks, start and identity
        self.session = session
        self.start = plan.start
        self.id = plan.id
        self.resume = plan.options.resume
        own = {k: v for k, v in arguments.items() if k != "url"}
        # What any worker rebuilds the crawl from (``_run_of``): JSON, never resumed itself.
        self.options: dict[str, Any] = {
            CLI: json.loads(json.dumps({**own, "resume": False}, default=list)),
            "format": output,
        }
        self.progress = Progress()
        self.notes: list[str] = []
        self.job: str | None = None
        self._mine: dict[str, dict[str, Any]] = {}  # url -> record this process printed
        self._records: AsyncGenerator[dict[str, Any], None] | None = None

    async def _pages(self) -> AsyncGenerator[dict[str, Any], None]:
        settings = self.session.settings
        async with open_engine(settings) as shared:
            await reach(shared, str(engine_url(settings)), "sleuth crawl")
            generation = await Jobs(shared, settings).generation(self.id, resume=self.resume)
        job = self.job = job_id(self.id, generation)
        async with open_engine(settings, queue_of(job)) as docket:
            jobs = Jobs(docket, settings)
            pages = Pages(self.session, jobs)
            record = await pages.start(
                OWNER, self.start, self.options, DEADLINE, job=job, quota=False
            )
            queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

            def stored(of: str, page: dict[str, Any]) -> None:
                if of == job:
                    queue.put_nowait(page)

            pages.stored = stored
            if record["status"] not in TERMINAL:  # an ended job: nothing new to read
                async with working(docket, pages, settings):
                    try:
                        while True:
                            try:
                                async with asyncio.timeout(_POLL):
                                    page = await queue.get()
                            except TimeoutError:
                                now = await jobs.read(job)
                                if now is None or now["status"] in TERMINAL:
                                    break
                                self.progress.queued = now["pages"] + now["pending"]
                                continue
                            yield self._took(page)
                        await pages.settled()  # a page of ours that ended the job told us
                    except BaseException:
                        # Stopped (Ctrl-C, a closed pipe): the pages running here are dropped
                        # at once, not finished unprinted; a --resume reads and prints them.
                        pages.stop_pages()
                        raise
            while not queue.empty():
                yield self._took(queue.get_nowait())
            ended = await jobs.read(job)
            if ended is not None:
                self.notes[:] = ended["notes"]
                if ended["status"] == "failed":
                    error = ended.get("error") or {}
                    raise SleuthError(f"the crawl failed: {error.get('message', 'unknown')}")

    def _took(self, page: dict[str, Any]) -> dict[str, Any]:
        self.progress.pages += 1
        self.progress.errors += int(page.get("outcome") != "ok")
        self._mine[page["url"]] = page
        return page

    def __aiter__(self) -> AsyncGenerator[dict[str, Any], None]:
        if self._records is None:
            self._records = self._pages()
        return self._records

    async def summaries(self) -> list[dict[str, Any]]:
        """Every page of the job (every process's), as an index or llms.txt lists them;
        the pages this process printed as it printed them (with their ``--out`` file)."""
        if self.job is None:
            return []
        settings = self.session.settings
        found: list[dict[str, Any]] = []
        async with open_engine(settings, queue_of(self.job)) as docket:
            jobs = Jobs(docket, settings)
            record = await jobs.read(self.job)
            for index in range(1, (record["pages"] if record else 0) + 1):
                page = await jobs.page(self.job, index)
                if page is not None:
                    found.append(summary(self._mine.get(page["url"], page)))
        return found

    async def aclose(self) -> None:
        """Stop: this process's worker stops, and the pages it held go to another worker
        (or a later ``--resume``) after ``SLEUTH_WORKER_LEASE``."""
        if self._records is not None:
            await self._records.aclose()

    async def __aenter__(self) -> JobRun:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
