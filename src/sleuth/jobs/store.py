"""A job's store, beside the engine in its Redis: the record, its counters and cancel
flag (one hash), the frontier's claims, the pages done and their records, the requests in
flight.

Every change that must not happen twice is one script, atomic in Redis and in the
in-process store alike:

* a URL enters the frontier once (first claim wins), within ``max_pages``, with its depth,
  and raises ``pending``;
* a claim (a URL seen, a content hash) belongs to the page that made it, so the same page
  read again makes the same claims;
* a page is done once: its record is stored and ``pending`` drops in one step, so a task
  run again after its worker died neither stores it twice nor ends the job early; the job
  is done when ``pending`` reaches 0;
* immediately before each page request (after its politeness wait, and after the worker
  checked the job's deadline) a worker marks the request in flight and reads the cancel
  flag, in one step; DELETE sets the flag and then waits until no request is marked, so
  after it returns no worker starts another *page* request for the job. robots.txt and
  sitemap fetches are not marked: a worker still inside a page of the job (interrupted,
  but not at once) may make one after DELETE returns. A request sent again for a page,
  because its first worker died, counts in ``rereads``;
* each caller's running jobs are one key of their own (the job ids, each scored with the
  time its slot lapses), so a slot a lost job never gave back frees itself once that job's
  deadline is past, whatever the caller's other jobs do;
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
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from sleuth.errors import SleuthError, TooManyRequests
from sleuth.log import event

if TYPE_CHECKING:
    from docket import Docket

    from sleuth.config import Settings

JOB_TTL = 24 * 3600  # seconds a job's record and pages stay readable
TERMINAL = ("done", "failed", "cancelled")
_WAIT = 0.05  # how often DELETE looks whether the requests in flight are through

# The page a task is reading (its URL's hash) and this run of it: frontier claims are the
# page's, so a page read again claims what it claimed before; each run is its own attempt.
PAGE: contextvars.ContextVar[str] = contextvars.ContextVar("job_page", default="")
ATTEMPT: contextvars.ContextVar[str] = contextvars.ContextVar("job_attempt", default="")

_QUOTA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2]
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(last) - tonumber(ARGV[1])) + 1)
return 1
"""
_CREATE = """
if redis.call('HEXISTS', KEYS[1], 'record') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1])
redis.call('HSET', KEYS[1], 'ends_at', ARGV[2])
redis.call('HSET', KEYS[1], 'updated_at', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""
_GENERATION = """
if ARGV[1] == '1' then
  redis.call('SET', KEYS[1], ARGV[3], 'NX')
else
  redis.call('SET', KEYS[1], ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return redis.call('GET', KEYS[1])
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
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""
_CANCEL = """
redis.call('HSET', KEYS[1], 'cancel', '1')
return redis.call('HGETALL', KEYS[2])
"""
_NOTE = """
for i = 2, #ARGV do
  local line = ARGV[i]
  if not redis.call('HGET', KEYS[1], line) then
    redis.call('HSET', KEYS[1], line, '1')
    redis.call('RPUSH', KEYS[2], line)
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
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


def task_key(job: str, page: str) -> str:
    """The engine's key of a page's task: one task per page of a job."""
    return f"{job}:{page}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pairs(flat: list[Any]) -> dict[str, str]:
    return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}


def failure(error: SleuthError | None) -> dict[str, Any]:
    """Why a job failed, in the library's words as every other error of the server;
    anything else is an internal error, told without its details."""
    if error is None:
        return {
            "code": "internal_error",
            "message": "the crawl failed unexpectedly",
            "retryable": False,
        }
    return dict(error.to_dict())


class Jobs:
    """The crawl jobs of one engine: what the HTTP routes and the page tasks change."""

    clock: Callable[[], float] = staticmethod(time.time)  # when slots lapse; tests replace it

    def __init__(self, docket: Docket, settings: Settings) -> None:
        self.docket = docket
        self.settings = settings
        # A request in flight is forgotten this long after it was marked, if its worker
        # died before clearing it: the longest a page's request may take, and some.
        self.request_lease = settings.fetch_deadline * 2 + 10
        self.ended: Callable[[dict[str, Any]], None] | None = None  # told once a job ends

    def _k(self, job: str, part: str = "") -> str:
        return f"sleuth:crawljob:{job}" + (f":{part}" if part else "")

    def _running(self, owner: str) -> str:
        """The key of one caller's running jobs."""
        return f"sleuth:crawljobs:running:{digest(owner)}"

    async def _eval(self, script: str, keys: list[str], *args: object) -> Any:
        async with self.docket.redis() as redis:
            client: Any = redis  # Redis, or the in-process store: both take EVAL, of str
            return await client.eval(script, len(keys), *keys, *(str(a) for a in args))

    # ---- the record ------------------------------------------------------------------

    async def create(
        self,
        owner: str,
        url: str,
        options: dict[str, Any],
        deadline: float | None = None,
        *,
        job: str | None = None,
        quota: bool = True,
    ) -> dict[str, Any] | None:
        """A new job (its caller's running-jobs slot taken, unless ``quota`` is off), not
        yet seeded; it ends after ``deadline`` seconds (default
        ``SLEUTH_CRAWL_JOB_DEADLINE``) with what it has. A given ``job`` id is created
        once: None when a job of that id exists already (another process made it)."""
        limit = self.settings.crawl_jobs_per_token
        job = job or secrets.token_urlsafe(12)
        now = self.clock()
        ends = now + (self.settings.crawl_job_deadline if deadline is None else deadline)
        # A slot lapses once its job's deadline is past and the last request it may have
        # sent is through: a job nobody finished (every worker lost) frees it then.
        lapses = ends + self.request_lease
        if quota and not await self._eval(_QUOTA, [self._running(owner)], now, limit, lapses, job):
            raise TooManyRequests(
                f"{limit} crawl jobs are already running for you",
                retry_after=30,
                hint="wait for one to finish or DELETE one",
            )
        record: dict[str, Any] = {
            "id": job,
            "owner": owner,
            "url": url,
            "status": "running",
            "error": None,
            "created_at": now,
            "options": options,
        }
        made = await self._eval(_CREATE, [self._k(job)], json.dumps(record), ends, now, JOB_TTL)
        return record if made else None

    async def generation(self, crawl: str, *, resume: bool) -> str:
        """The generation of the crawl named ``crawl`` (its jobs' identity): the current
        one to resume or join (a new one, if there is none), else a new one. A new one is
        a random token, never a count: once the key has lapsed a count would start again
        and name an old job whose keys outlive it."""
        key = f"sleuth:crawljobs:generation:{crawl}"
        token = secrets.token_hex(6)
        return _text(await self._eval(_GENERATION, [key], int(resume), JOB_TTL, token))

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
            keys = [self._k(job, "noteset"), self._k(job, "notes")]
            await self._eval(_NOTE, keys, JOB_TTL, *lines)

    async def finish(self, job: str, status: str, error: dict[str, Any] | None = None) -> bool:
        """End the job (done, failed or cancelled): the one place its status ends, once;
        False when it had already ended. The caller's running-jobs slot is given back."""
        record = await self.read(job)
        if record is None or record["status"] in TERMINAL:
            return False
        stored = {k: record[k] for k in ("id", "owner", "url", "created_at", "options")}
        stored.update(status=status, error=error)
        now = time.time()
        keys = [self._k(job), self._running(record["owner"])]
        if not await self._eval(_FINISH, keys, status, job, json.dumps(stored), now):
            return False
        event("crawl_job", job=job, status=status, pages=record["pages"])
        if self.ended is not None:
            ended = await self.read(job)
            if ended is not None:
                self.ended(ended)
        return True

    # ---- the frontier ----------------------------------------------------------------

    async def claim(self, job: str, kind: str, value: str) -> bool:
        """True for the first page to claim ``value`` (and for that page read again)."""
        field = f"{kind}:{digest(value)}"
        return bool(await self._eval(_CLAIM, [self._k(job, "claims")], field, PAGE.get(), JOB_TTL))

    async def count(self, job: str, kind: str, value: str) -> int:
        return int(
            await self._eval(_COUNT, [self._k(job, "counts")], f"{kind}:{digest(value)}", JOB_TTL)
        )

    async def admitted(self, job: str) -> int:
        return int(await self._eval(_FIELD, [self._k(job)], "admitted") or 0)

    async def admit(self, job: str, item: dict[str, Any], max_pages: int) -> bool:
        """Take a page into the frontier (once, within the page budget); True when its
        task is to be queued."""
        page = digest(item["url"])
        depth = int(item["depth"])
        keys = [self._k(job, "admitted"), self._k(job)]  # page -> its depth, and the counters
        verdict = await self._eval(_ADMIT, keys, page, max_pages, JOB_TTL, depth)
        # 2: admitted before, by this page in an earlier run: its task is asked for again
        return bool(verdict)

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
            _BEFORE_REQUEST, keys, token, expires, digest(url), ATTEMPT.get(), JOB_TTL
        )
        if not go:
            raise JobCancelled(job)
        try:
            yield
        finally:
            await self._eval(_AFTER_REQUEST, [self._k(job, "inflight")], token)

    async def cancel(self, job: str) -> None:
        """Stop the job everywhere: no worker starts another page request once this
        returns (see the module's note on robots.txt and sitemaps)."""
        flat = await self._eval(_CANCEL, [self._k(job), self._k(job, "admitted")])
        for page in _pairs(flat):  # queued pages leave the engine; running ones are told
            await self.docket.cancel(task_key(job, page))
        ends = time.monotonic() + self.request_lease
        while time.monotonic() < ends:
            if not await self._eval(_IN_FLIGHT, [self._k(job, "inflight")], time.time()):
                break
            await asyncio.sleep(_WAIT)
        # Ended once the requests under way are in: its record and webhook count them.
        await self.finish(job, "cancelled")
