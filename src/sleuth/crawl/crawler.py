"""A polite, bounded, resumable breadth-first crawl of one site.

Every page is read by the session's :meth:`sleuth.pages.Fetcher.fetch` (guard, robots.txt,
cache, network, extraction), with the crawl's needs as arguments of the fetch: a redirect
policy that stops a hop out of the crawl's scope or to a URL the crawl has already seen,
the crawl's own bound on requests in flight, and word of ``Retry-After``. The frontier and
seen set live in the cache backend (:mod:`sleuth.crawl.state`), politeness per host in
:mod:`sleuth.crawl.polite`. Records come out one by one, failed pages included, as each
page is done.

Bounds: the frontier never holds more slots than ``max_pages`` (a slot past the budget
could never be read, so its URL is not even remembered); a Crawl-delay above
``SLEUTH_MAX_CRAWL_DELAY`` skips the host, a Retry-After pauses it at most
``SLEUTH_MAX_RETRY_AFTER``; ``deadline`` ends the crawl with what it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sleuth.cache.memory import MemoryCache
from sleuth.crawl.polite import HostGate, Wakeup, retry_after_seconds
from sleuth.crawl.scope import Scope, ScopeKind
from sleuth.crawl.sitemaps import Notes
from sleuth.crawl.state import HEARTBEAT_TTL, CrawlState, crawl_id
from sleuth.crawl.urls import canonical, unusable
from sleuth.errors import OutOfScope
from sleuth.extract.text import first_visible_sentence
from sleuth.log import event
from sleuth.pages.fetcher import OutputFormat, RenderMode

if TYPE_CHECKING:
    from sleuth.web import Web

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
# A page that was read but holds too little text to be content (a hub of links, an app
# shell): it is a record of its own outcome, and its links are still followed.
_READ_BUT_THIN = frozenset(("empty_extraction", "js_required"))
_STATE_ENTRIES = 1_000_000  # a memory-backed crawl's own store; the page LRU is separate
_IDLE = 0.05  # how often an idle worker looks for new slots in the shared frontier
_RETRIES = 2


# The page a worker task is reading and the redirect targets it has claimed as seen: the
# response hook runs in that task, and a retried page may follow its own redirect again.
_PAGE: contextvars.ContextVar[tuple[str, set[str]] | None] = contextvars.ContextVar(
    "crawl_page", default=None
)


class _SeenRedirect(OutOfScope):
    """A page redirects to a URL the crawl has already queued or read: not read twice."""

    def __init__(self, source: str, target: str) -> None:
        super().__init__(f"{source} redirects to {target}, already in the crawl", url=source)
        self.target = target


@dataclass(frozen=True)
class CrawlOptions:
    """How far and how politely to crawl; also what names a crawl for ``resume``. The
    bounds are the crawl operation's declaration's (``sleuth.session``), checked there."""

    scope: ScopeKind = "host"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_pages: int = 100
    max_depth: int = 5
    sitemaps: bool = False
    concurrency: int = 2
    delay: float = 0.25
    resume: bool = False
    respect_robots: bool = True
    render: RenderMode | None = None
    output: OutputFormat = "text"
    max_url_length: int = 2048
    max_path_depth: int = 16
    max_per_pattern: int = 1000  # /cal/N/N: a calendar; /p/N: maybe a big site
    max_query_variants: int = 20
    follow_nofollow: bool = False
    deadline: float | None = None  # seconds; the crawl then ends with the pages it has


@dataclass
class Progress:
    pages: int = 0
    errors: int = 0
    queued: int = 0
    skipped: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.pages / elapsed if elapsed > 0 else 0.0


def path_pattern(url: str) -> str:
    """The URL's shape with numbers blurred: ``/cal/2024/05`` -> ``/cal/N/N``."""
    parts = urlsplit(url)
    return parts.netloc + _DIGITS.sub("N", parts.path)


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """What a finished slot keeps in the shared state: enough for llms.txt and index.md."""
    return {
        "url": record["url"],
        "final_url": record.get("final_url"),
        "outcome": record["outcome"],
        "title": record.get("title"),
        "description": first_visible_sentence(record.get("text") or "", record.get("title")),
        "depth": record.get("depth"),
        "parent": record.get("parent"),
        "file": record.get("file"),
    }


class Crawler:
    """One worker of one crawl; several (other processes, one Redis) may share it."""

    clock: Callable[[], float] = staticmethod(time.monotonic)  # the deadline's; tests replace it

    def __init__(self, web: Web, start: str, options: CrawlOptions) -> None:
        cache = web.cache
        self.web = web
        self.options = options
        self.scope = Scope(start, options.scope, options.include, options.exclude)
        # A crawl that obeys robots.txt never resumes one that ignored it: they read
        # different pages, and the stored records must not cross that line.
        self.id = crawl_id(
            self.scope.start,
            {
                **self.scope.describe(),
                "sitemaps": options.sitemaps,
                "robots": options.respect_robots,
            },
        )
        state_cache = MemoryCache(_STATE_ENTRIES) if cache.name == "memory" else cache
        self.state = CrawlState(state_cache, self.id, ttl=7 * 24 * 3600)
        self.progress = Progress()
        self.cache = cache
        self.fetcher = web.fetcher
        self._robots = web.robots
        # The crawl's own bound on page requests in flight, beside the session's.
        self._slots = asyncio.Semaphore(
            max(web.fetching.max_concurrent_fetches, options.concurrency * 2)
        )
        self.gate = HostGate(
            self.state,
            concurrency=options.concurrency,
            delay=options.delay,
            lease=web.fetching.fetch_deadline * 2 + 5,
            ceiling=web.crawl.max_crawl_delay,
        )
        self._hosts: set[str] = set()
        self._lock = asyncio.Lock()
        self._cursor = 1
        self._pending: set[int] = set()
        self._inflight = 0
        self._full = False
        self._news = Wakeup()  # a slot queued or finished here: idle workers look again
        self.notes = Notes()  # what the crawl skipped and why: bad URLs, hosts, the deadline
        self._too_slow: dict[str, str] = {}  # host -> why its Crawl-delay skips it
        self._redirected: dict[str, str] = {}  # page -> the seen URL it redirects to
        self._ends: float | None = None
        self._stopped = False
        self._frontier_full = False

    async def _redirect(self, source: str, location: str) -> None:
        """A page's redirect may not leave the crawl's scope, nor lead to a URL the crawl has
        seen (robots.txt, sitemaps and style sheets are not pages, and may live elsewhere)."""
        target = canonical(location, source)
        if target is None:
            return
        if not self.scope.contains(target):
            raise OutOfScope(f"{source} redirects to {target}, outside the crawl", url=source)
        page = _PAGE.get()
        if target == canonical(source) or page is None or target in page[1]:
            return
        if not await self.state.first("seen", target):
            self._redirected[page[0]] = target
            raise _SeenRedirect(source, target)  # /blog -> /blog/, read on its own
        page[1].add(target)

    # ---- the frontier -------------------------------------------------------------

    async def seed(self, urls: list[tuple[str, int, str | None]]) -> None:
        for url, depth, parent in urls:
            await self._enqueue(url, depth, parent, check_scope=depth > 0)

    async def _enqueue(
        self, url: str, depth: int, parent: str | None, *, check_scope: bool = True
    ) -> bool:
        options = self.options
        parts = urlsplit(url)
        if len(url) > options.max_url_length:
            return False
        reason = unusable(url)
        if reason is not None:
            self.notes.add(f"{parent or url}: skipped {url[:200]}: {reason}")
            return False
        if self._frontier_full or await self.state.tail() >= options.max_pages:
            self._frontier_full = True  # the tail only grows: no need to ask again
            return False  # the budget can never reach it: not even remembered as seen
        if len([seg for seg in parts.path.split("/") if seg]) > options.max_path_depth:
            return False
        if check_scope and not self.scope.allows(url):
            return False
        if options.respect_robots and check_scope:
            try:
                policy = await self._robots.policy(url)
            except Exception:  # the fetch itself will report the host's failure
                policy = None
            if policy is not None and not policy.allows(url):
                self.progress.skipped += 1
                return False
        if not await self.state.first("seen", url):
            return False
        if await self.state.count("pattern", path_pattern(url)) > options.max_per_pattern:
            self.progress.skipped += 1
            return False
        if parts.query:
            variants = await self.state.count("query", parts.netloc + parts.path)
            if variants > options.max_query_variants:
                self.progress.skipped += 1
                return False
        await self.state.push({"url": url, "depth": depth, "parent": parent})
        self._news.wake()
        return True

    async def _budget(self, index: int) -> bool:
        if await self.state.counter("budget") <= self.options.max_pages:
            return True
        await self.state.counter("budget", -1)
        await self.state.release(index)
        self._full = True
        return False

    async def _next(self) -> tuple[int, dict[str, Any]] | None:
        """The next slot this worker owns, or None when the crawl is over for it.

        Slots left by a dead worker come first and cost no budget (they were counted when
        first claimed); new slots stop once ``--max-pages`` is spent across all runs.
        """
        while True:
            if self._late():
                return None
            async with self._lock:
                for index in sorted(self._pending):
                    if await self.state.record(index) is not None:
                        self._pending.discard(index)
                        continue
                    taken = None if self._full else await self.state.take_over(index)
                    if taken is None and self._full:
                        taken = await self._inherit(index)
                    if taken is None:
                        continue
                    self._pending.discard(index)
                    if taken == "fresh" and not await self._budget(index):
                        return None
                    return await self._claimed(index)
                tail = await self.state.tail()
                self.progress.queued = tail
                while not self._full and self._cursor <= tail:
                    index = self._cursor
                    self._cursor += 1
                    if await self.state.record(index) is not None:
                        continue
                    if await self.state.claim(index):
                        if not await self._budget(index):
                            return None
                        return await self._claimed(index)
                    self._pending.add(index)
                if not self._pending and self._inflight == 0:
                    return None
            await self._news.nap(_IDLE)

    async def _inherit(self, index: int) -> str | None:
        """With the budget spent, only a dead worker's slot may still be taken."""
        owner = await self.state.get_value(f"owner:{index}")
        if owner is None:  # given back unread: nobody reads it now
            self._pending.discard(index)
            return None
        return await self.state.take_over(index)

    async def _claimed(self, index: int) -> tuple[int, dict[str, Any]] | None:
        item = await self.state.item(index)
        if item is None:  # written a moment after its number was taken
            for _ in range(100):
                await asyncio.sleep(0.01)
                item = await self.state.item(index)
                if item is not None:
                    break
        if item is None:
            return None
        self._inflight += 1
        return index, item

    # ---- reading one page ---------------------------------------------------------

    async def _host_rules(self, host_url: str) -> None:
        host = urlsplit(host_url).netloc.lower()
        if host in self._hosts:
            return
        self._hosts.add(host)
        if not self.options.respect_robots:
            return
        with contextlib.suppress(Exception):
            policy = await self._robots.policy(host_url)
            if policy.verdict == "rules":
                from protego import Protego

                delay = Protego.parse(policy.body).crawl_delay("sleuth")
                ceiling = self.web.crawl.max_crawl_delay
                if delay and float(delay) > ceiling:
                    why = (
                        f"robots.txt of {host} asks for a Crawl-delay of {float(delay):g}s, "
                        f"more than SLEUTH_MAX_CRAWL_DELAY ({ceiling:g}s); host skipped"
                    )
                    self._too_slow[host] = why
                    self.notes.add(why, always=True)
                    return
                self.gate.set_crawl_delay(host, float(delay) if delay else None)

    def _skipped(self, url: str, host: str, depth: int, parent: str | None) -> dict[str, Any]:
        """The record of a page on a host whose Crawl-delay is past the ceiling: no request."""
        message = self._too_slow[host]
        return {
            "url": url,
            "final_url": None,
            "status": None,
            "outcome": "rate_limited",
            "title": None,
            "text": "",
            "links": [],
            "metadata": {},
            "error": {"code": "rate_limited", "message": message, "retryable": False},
            "depth": depth,
            "parent": parent,
        }

    def _late(self) -> bool:
        """Past the deadline: the crawl ends with what it has, and says so once."""
        if self._ends is None or self.clock() < self._ends:
            return False
        if not self._stopped:
            self._stopped = self._full = True
            self.notes.add(
                f"stopped at the {self.options.deadline:g}s deadline with the pages read so far",
                always=True,
            )
        return True

    async def _read(self, url: str, host: str) -> Any:
        """The page through the one fetch path; a 429/503 with Retry-After slows the host
        and is tried again. The caller holds one of the host's slots."""
        waits: list[float] = []

        def heard(value: str) -> None:
            wait = retry_after_seconds(value)
            if wait is not None:
                waits.append(wait)

        kwargs: dict[str, Any] = {
            "output": self.options.output,
            "render": self.options.render,
            "respect_robots": self.options.respect_robots,
            "redirects": self._redirect,
            "slots": self._slots,
            "retry_after": heard,
        }
        result = None
        _PAGE.set((url, set()))
        ceiling = self.web.crawl.max_retry_after
        for attempt in range(_RETRIES + 1):
            waits.clear()
            await self.gate.wait(host)
            async with self.request(url):
                result = await self.fetcher.fetch(url, refresh=attempt > 0, **kwargs)
            slow = result.outcome == "rate_limited" or result.status == 503
            wait = waits[-1] if waits else None
            if not slow or wait is None:
                break
            await self.gate.slow_down(host, min(wait, ceiling))
            if wait > ceiling or attempt == _RETRIES:  # a day's Retry-After ends the page
                break
        return result

    @contextlib.asynccontextmanager
    async def request(self, url: str) -> AsyncIterator[None]:
        """Around each page request, after its politeness wait: a crawl job checks its
        cancel flag here (:mod:`sleuth.jobs.crawljob`); a plain crawl has nothing to do."""
        yield

    async def page(self, url: str, depth: int, parent: str | None) -> dict[str, Any]:
        """One page read under the crawl's rules (robots.txt's delay, the host's slots):
        its record, its links already in the frontier. What a job's page task runs."""
        host = urlsplit(url).netloc.lower()
        await self._host_rules(url)
        async with self.gate.slot(host):
            return await self._process(url, depth, parent, host)

    async def _process(self, url: str, depth: int, parent: str | None, host: str) -> dict[str, Any]:
        if host in self._too_slow:
            self.progress.errors += 1
            return self._skipped(url, host, depth, parent)
        if await self.fetcher.is_cached(
            url,
            self.options.output,
            self.options.render,
            respect_robots=self.options.respect_robots,
        ):
            result: Any = await self.fetcher.fetch(  # no request reaches the host
                url,
                output=self.options.output,
                render=self.options.render,
                respect_robots=self.options.respect_robots,
            )
        else:
            result = await self._read(url, host)
        record: dict[str, Any] = result.model_dump(exclude={"total_chars"})
        record.update(depth=depth, parent=parent)
        seen = self._redirected.pop(url, None)
        if seen is not None:
            record.update(outcome="duplicate", duplicate_of=seen, error=None)
            return record
        if result.ok or result.outcome in _READ_BUT_THIN:
            await self._after_read(url, depth, record)
        if record["outcome"] != "ok":
            self.progress.errors += 1
        return record

    async def _after_read(self, url: str, depth: int, record: dict[str, Any]) -> None:
        final = canonical(record.get("final_url") or url) or url
        if not self.scope.contains(final):  # a stored page that once redirected away
            record.update(
                outcome=OutOfScope.code,
                text="",
                links=[],
                error={
                    "code": OutOfScope.code,
                    "message": f"{url} redirects to {final}, outside the crawl",
                    "retryable": False,
                },
            )
            return
        if final != url:
            await self.state.first("seen", final)
        declared = record["metadata"].get("canonical_url")
        declared = canonical(declared) if isinstance(declared, str) else None
        if (
            declared
            and declared not in (url, final)
            and self.scope.contains(declared)
            and not await self.state.first("seen", declared)
        ):
            record.update(outcome="duplicate", duplicate_of=declared)
            return
        text = _SPACE.sub(" ", record.get("text") or "").strip()
        if text and not await self.state.first(
            "content", hashlib.sha256(text.encode()).hexdigest()
        ):
            record.update(outcome="duplicate", duplicate_of=None)
            return
        if depth >= self.options.max_depth:
            return
        for link in record.get("links") or []:
            rel = (link.get("rel") or "").split()
            if link.get("type") or ("nofollow" in rel and not self.options.follow_nofollow):
                continue
            await self._enqueue(link["url"], depth + 1, url)

    # ---- the run ------------------------------------------------------------------

    def begin(self) -> None:
        """Start the deadline's clock, once: a run that reads sitemaps first starts it
        before them, so they count against the same deadline."""
        if self.options.deadline is not None and self._ends is None:
            self._ends = self.clock() + self.options.deadline

    def time_left(self) -> float | None:
        """Seconds until the deadline (None without one)."""
        return None if self._ends is None else max(0.0, self._ends - self.clock())

    async def records(self, seeds: Sequence[str] = ()) -> AsyncIterator[dict[str, Any]]:
        """Pages as they are done: the fetch JSON with ``depth`` and ``parent``."""
        self.begin()
        await self.state.open(resume=self.options.resume)
        await self.state.heartbeat()
        await self.seed([(self.scope.start, 0, None), *[(url, 1, None) for url in seeds]])
        out: asyncio.Queue[tuple[dict[str, Any], asyncio.Future[None]] | None] = asyncio.Queue()
        workers = max(2, self.options.concurrency * 2)

        async def finish(index: int, record: dict[str, Any]) -> None:
            """Hand the record out, wait until the caller has taken it, then mark the slot
            done: a crawl killed in between prints the page again rather than never."""
            self.progress.pages += 1
            taken = asyncio.get_running_loop().create_future()
            await out.put((record, taken))
            await taken
            await self.state.done(index, summary(record))

        async def handle(index: int, item: dict[str, Any]) -> None:
            url, depth, parent = item["url"], int(item["depth"]), item.get("parent")
            host = urlsplit(url).netloc.lower()
            await self._host_rules(url)
            async with self.gate.slot(host):  # held until the record is out: per-host pages
                if self._late():  # given back unread: a resumed crawl reads it
                    await self.state.counter("budget", -1)
                    await self.state.release(index)
                    return
                await finish(index, await self._process(url, depth, parent, host))

        async def work() -> None:
            while (slot := await self._next()) is not None:
                try:
                    await handle(*slot)
                finally:
                    self._inflight -= 1
                    self._news.wake()

        async def beat() -> None:
            while True:
                await asyncio.sleep(HEARTBEAT_TTL / 5)
                await self.state.heartbeat()

        tasks = [asyncio.create_task(work()) for _ in range(workers)]
        heart = asyncio.create_task(beat())
        done = asyncio.gather(*tasks)

        def ended(future: asyncio.Future[Any]) -> None:
            if not future.cancelled():
                future.exception()  # raised by ``await done``, unless the caller gave up
            out.put_nowait(None)

        done.add_done_callback(ended)
        try:
            while (entry := await out.get()) is not None:
                record, taken = entry
                yield record
                taken.set_result(None)
            await done  # raise what a worker raised
        finally:
            heart.cancel()
            for task in tasks:
                task.cancel()
            # Wait without cancelling them again: awaiting the gather from a cancelled
            # caller would cancel each worker a second time, inside its connection's
            # clean-up, and leave the page's socket open.
            with contextlib.suppress(BaseException):
                await asyncio.wait(tasks)
            event("crawl_done", crawl=self.id, pages=self.progress.pages)

    async def all_summaries(self) -> list[dict[str, Any]]:
        """Every finished page of the crawl, this run's and earlier runs', in order."""
        found: list[dict[str, Any]] = []
        for index in range(1, await self.state.tail() + 1):
            record = await self.state.record(index)
            if record is not None:
                found.append(record)
        return found
