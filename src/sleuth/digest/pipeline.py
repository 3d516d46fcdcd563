"""``research``: search, read the best pages under one deadline, and digest them.

The deadline covers everything from the first search request to the last
page: a page still loading when it passes is cancelled and reported as a
``timeout`` error, and the digest is built from what arrived. Spare results
replace pages that fail, while there is time. Nothing here raises for a bad
page or a failed search; those become entries in ``errors``. Only bad input
raises (:class:`~sleuth.errors.UsageError`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from sleuth.config import ResearchSettings
from sleuth.digest.chrome import link_lines, teaser_spans
from sleuth.digest.compose import Page, compose
from sleuth.digest.models import Digest, DigestError, DigestMeta
from sleuth.digest.rank import KeySpan, build_query, rank_passages, select
from sleuth.digest.sources import PageCandidate, choose_pages, source_prior
from sleuth.errors import Ref, SearchError, SleuthError, UsageError
from sleuth.extract.verbatim import blank
from sleuth.log import Progress, Stopwatch, event
from sleuth.pages import Fetcher, FetchResult
from sleuth.websearch import ProviderChain, SearchQuery, SearchResponse, attempts_of, normalize_url

if TYPE_CHECKING:
    from sleuth.web import Web

NO_RESULTS = "no_results"
MAX_QUESTION_CHARS = 400
# A digest quotes a few passages per page; past the first 400,000 characters (a
# book-length page) ranking costs time and adds nothing. A prefix keeps offsets valid.
MAX_RANKED_CHARS = 400_000


@dataclass
class _ResearchRun:
    """What one research call has learned so far."""

    question: str
    deadline: float
    on_progress: Progress | None
    watch: Stopwatch = field(default_factory=Stopwatch)
    errors: list[DigestError] = field(default_factory=list)
    providers: list[str] = field(default_factory=list)
    cache_hits: int = 0
    deadline_hit: bool = False

    def progress(self, stage: str, **detail: Any) -> None:
        if self.on_progress is not None:
            self.on_progress(stage, detail)

    def fail(self, code: str, message: str, url: str | None = None) -> None:
        self.errors.append(DigestError(code=code, message=message, url=url))

    def late(self, url: str) -> None:
        self.deadline_hit = True
        self.fail(
            "timeout",
            f"still loading when the {self.deadline:g} s research deadline passed",
            url,
        )

    def digest(self, pages: Sequence[Page] = (), findings: Sequence[KeySpan] = ()) -> Digest:
        meta = DigestMeta(
            providers_tried=self.providers,
            fetched_pages=len(pages),
            cache_hits=self.cache_hits,
            elapsed_ms=self.watch.ms,
            deadline_hit=self.deadline_hit,
        )
        return compose(self.question, pages, findings, errors=self.errors, meta=meta)


async def _search(
    run: _ResearchRun, chain: ProviderChain, query: SearchQuery, end_at: float
) -> SearchResponse | None:
    run.progress("searching", query=query.query)
    try:
        async with asyncio.timeout_at(end_at):
            response = await chain.search(query)
    except TimeoutError:
        run.deadline_hit = True
        run.fail("timeout", f"the search did not answer within the {run.deadline:g} s deadline")
        return None
    except SearchError as exc:
        run.providers = [attempt.name for attempt in attempts_of(exc)]
        run.fail(exc.code, str(exc))
        return None
    run.providers = [attempt.name for attempt in response.providers_tried]
    run.cache_hits += sum(attempt.cached for attempt in response.providers_tried)
    if not response.results:
        run.fail(
            NO_RESULTS,
            f"the search found nothing for {query.query!r}; try other words, "
            "or drop the site and recency filters",
        )
        return None
    return response


async def _candidates(
    run: _ResearchRun, fetcher: Fetcher, response: SearchResponse
) -> list[PageCandidate]:
    """The results worth reading; one whose URL no fetch would take is reported and skipped.

    The cache is asked about the entry :meth:`Fetcher.fetch` would write: text, in the
    fetcher's own render mode.
    """
    found = []
    for hit in response.results:
        try:
            cached = await fetcher.is_cached(hit.url, "text")
        except SleuthError as exc:  # a plugin or an old cache entry gave a URL that is no URL
            run.fail(exc.code, str(exc), hit.url)
            continue
        found.append(PageCandidate(hit.url, hit.title, hit.published, hit.rank - 1, cached))
    return found


def _finished(
    run: _ResearchRun, candidate: PageCandidate, task: asyncio.Task[FetchResult]
) -> FetchResult | None:
    """Record one finished fetch; return it when it gave text to digest."""
    try:
        result = task.result()
    except SleuthError as exc:  # a fetch that refused its input rather than reporting
        run.fail(exc.code, str(exc), candidate.url)
        run.progress("page", url=candidate.url, outcome=exc.code, cache="miss")
        return None
    run.cache_hits += result.cache == "hit"
    usable = result.ok and bool(result.text.strip())
    outcome = "empty_extraction" if result.ok and not usable else result.outcome
    run.progress("page", url=candidate.url, outcome=outcome, cache=result.cache)
    if usable:
        return result
    run.fail(outcome, result.error.message if result.error else "the page has no text", result.url)
    return None


async def _read(
    run: _ResearchRun,
    fetcher: Fetcher,
    chosen: Sequence[PageCandidate],
    wanted: int,
    end_at: float,
    *,
    for_model: bool = True,
) -> list[tuple[PageCandidate, FetchResult]]:
    """Fetch ``wanted`` pages concurrently, starting a spare whenever one fails."""
    loop = asyncio.get_running_loop()
    queue = list(chosen)
    running: dict[asyncio.Task[FetchResult], PageCandidate] = {}
    read: list[tuple[PageCandidate, FetchResult]] = []

    def launch() -> None:
        while queue and len(running) + len(read) < wanted:
            candidate = queue.pop(0)
            fetch = fetcher.fetch(
                candidate.url, respect_robots=True, max_chars=None, for_model=for_model
            )
            task = asyncio.create_task(fetch)
            running[task] = candidate

    launch()
    run.progress("reading", pages=len(running), urls=[c.url for c in running.values()])
    try:
        while running:
            remaining = end_at - loop.time()
            if remaining <= 0:
                break
            done, _ = await asyncio.wait(
                running, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                candidate = running.pop(task)
                result = _finished(run, candidate, task)
                if result is not None:
                    read.append((candidate, result))
            launch()
        for candidate in running.values():
            run.late(candidate.url)
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
    order = {c.url: i for i, c in enumerate(chosen)}
    return sorted(read, key=lambda pair: order[pair[0].url])


def _link_texts(result: FetchResult, url: str) -> list[str]:
    """Texts of the page's links to other pages, whitespace collapsed: what names them."""
    here = url.split("#", 1)[0].rstrip("/")
    texts = []
    for link in result.links:  # absolute and canonical, as extraction writes them
        text = " ".join(str(link.get("text") or "").split())
        target = str(link.get("url") or "").split("#", 1)[0].rstrip("/")
        if text and target and target != here:
            texts.append(text)
    return texts


def _quotable(result: FetchResult, url: str) -> str:
    """The text a digest may quote, offsets unchanged: what a reader does not find on the
    page as written, cards that describe other pages (a paragraph under a title of two
    words or more that links elsewhere) and lines of nothing but links are blanked."""
    text = result.text[:MAX_RANKED_CHARS]
    links = _link_texts(result, url)
    titles = frozenset(t.lower() for t in links if len(t.split()) >= 2)
    unquotable = [
        *(result.metadata.get("not_verbatim") or ()),
        *teaser_spans(text, titles),
        *link_lines(text, links),
    ]
    return blank(text, unquotable)


def _pages(read: Sequence[tuple[PageCandidate, FetchResult]]) -> list[Page]:
    """One page per final URL (two results may redirect to the same page)."""
    pages: list[Page] = []
    seen: set[str] = set()
    for candidate, result in read:
        url = result.final_url or result.url
        key = normalize_url(url)
        if key in seen:
            continue
        seen.add(key)
        published = result.metadata.get("published") or candidate.published
        pages.append(
            Page(
                url=url,
                text=_quotable(result, url),
                fetched_at=result.fetched_at,
                title=result.title or candidate.title,
                published=str(published) if published else None,
                page_offsets=tuple(
                    offset
                    for offset in result.metadata.get("page_offsets") or ()
                    if isinstance(offset, int)
                ),
            )
        )
    return pages


async def run_research(
    question: str,
    *,
    research: ResearchSettings,
    chain: ProviderChain,
    web: Web,
    focus: str | None = None,
    max_results: int | None = None,
    max_pages: int | None = None,
    recency_days: int | None = None,
    sites: Sequence[str] = (),
    deadline: float | None = None,
    on_progress: Progress | None = None,
    respect_content_signals: bool = True,
) -> Digest:
    """A cited digest answering ``question`` from the web, within ``deadline`` seconds.

    ``focus`` names what matters most in the answer and weighs more in
    ranking; ``sites`` restricts the search to those domains. Progress is
    reported as ``on_progress(stage, detail)`` with the stages ``searching``,
    ``reading``, ``page`` (once per finished page) and ``ranking``.
    """
    question = " ".join(question.split())
    if not question:
        raise UsageError("the research question is empty", hint="ask something")
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the research question has {len(question)} characters; at most "
            f"{MAX_QUESTION_CHARS} are searched",
            hint="ask a shorter question and move detail into {focus}",
            refs={"focus": Ref("focus")},
        )
    try:
        query = SearchQuery(
            query=question,
            max_results=max_results or research.max_results,
            recency_days=recency_days,
            site_include=list(sites),
            region=None,
        )
    except ValidationError as exc:
        raise UsageError(f"invalid research request: {exc.errors()[0]['msg']}") from None

    run = _ResearchRun(question, deadline or research.research_deadline, on_progress)
    end_at = asyncio.get_running_loop().time() + run.deadline
    wanted = max_pages or research.max_pages
    fetcher = web.fetcher
    response = await _search(run, chain, query, end_at)
    if response is None:
        return run.digest()
    candidates = await _candidates(run, fetcher, response)
    chosen = choose_pages(candidates, question, max_pages=wanted, spares=wanted)
    pages = _pages(
        await _read(run, fetcher, chosen, wanted, end_at, for_model=respect_content_signals)
    )

    if not pages:
        message = (
            "the one page tried could not be read"
            if len(chosen) == 1
            else f"none of the {len(chosen)} pages tried could be read"
        )
        run.fail(NO_RESULTS, message)
        return run.digest()
    run.progress("ranking", pages=len(pages))
    terms = build_query(question, focus)
    texts = [page.text for page in pages]
    priors = [source_prior(page.url, question, page.published) for page in pages]
    findings = select(
        rank_passages(texts, priors, terms),
        texts,
        terms,
        max_findings=research.max_bullets,
        max_chars=research.max_bullet_chars,
    )
    if not findings:
        said = "the page read says" if len(pages) == 1 else f"the {len(pages)} pages read say"
        run.fail(
            NO_RESULTS,
            f"{said} nothing that matches the question; try other words or a different focus",
        )
    digest = run.digest(pages, findings)
    event(
        "research",
        query=question,
        bullets=len(digest.bullets),
        pages=len(pages),
        errors=len(digest.errors),
        deadline_hit=run.deadline_hit,
        latency_ms=digest.meta.elapsed_ms,
    )
    return digest
