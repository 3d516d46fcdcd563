"""Stage 3: an LLM searches the web and reports what it found; sleuth decides.

The model gets ``web_search`` (sleuth's search providers, or the provider's own
search), ``fetch_page`` and ``extract_source``, through which it must report a GitHub repository
or an install page with a confidence, evidence and reasoning. Search results reach it
inside untrusted-data envelopes. Everything it reports is sanitised, only plain
``github.com/owner/repo`` shapes are accepted, a confidence under 70 goes back to it
as a tool error, and the candidates are verified against GitHub before the
deterministic ranking picks one. The model extracts; it never decides.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from sleuth.discovery.defence import plain_text
from sleuth.discovery.models import DiscoveryUsage, Instructions
from sleuth.discovery.sources import github_from_url, name_it
from sleuth.errors import (
    DiscoverSearchFailed,
    DiscoverTimeout,
    LLMTimeout,
    NotFound,
    ToolError,
)
from sleuth.llm.models import ChatRequest, Message, StopReason
from sleuth.log import Progress
from sleuth.toolkit import Registry, Tool, ToolContext, ToolOutput
from sleuth.toolkit.loop import ToolLoop, malformed_call

if TYPE_CHECKING:
    from sleuth.llm.meter import Meter
    from sleuth.toolkit.services import Services

MIN_CONFIDENCE = 70
MAX_TURNS = 6
MAX_OUTPUT_TOKENS = 1024

SYSTEM = """You find the official source of a developer tool so that it can be installed.
1. Use web_search to find the tool's official website, documentation and repository.
2. Prefer the project's own GitHub repository that publishes releases; be skeptical of \
forks, mirrors, "unofficial" or newly created look-alike repositories.
3. Cross-reference: the official website or docs should link to the repository.
4. Report exactly what you found by calling extract_source once:
   - result_type "builder" with builder "github", source "owner/repo", confidence 0-100, \
evidence (short quotes naming where each came from) and reasoning; or
   - result_type "instructions" with the install page url and the install instructions as \
text, when the tool is not distributed through a GitHub repository.
Never invent a repository. If you are unsure, search again before reporting."""


class ExtractSourceArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    result_type: Literal["builder", "instructions"] = Field(
        "builder", description="builder: a GitHub repository; instructions: an install page."
    )
    builder: Literal["github"] | None = Field(
        None, description='Always "github" for result_type builder.'
    )
    source: str | None = Field(
        None, max_length=300, description="owner/repo of the official GitHub repository."
    )
    url: str | None = Field(None, max_length=2000, description="The install page (instructions).")
    instructions: str | None = Field(
        None, max_length=4000, description="The install steps as the page gives them."
    )
    confidence: int = Field(ge=0, le=100, description="How sure you are, 0-100.")
    evidence: list[str] = Field(
        default_factory=list, max_length=10, description="Quotes with where they came from."
    )
    reasoning: str = Field("", max_length=2000, description="Why this is the official source.")


class ExtractOutput(BaseModel):
    accepted: bool
    source: str | None = None


@dataclass
class ReportedSource:
    source: str  # owner/repo, or the install page URL for instructions
    confidence: int
    evidence: list[str]
    reasoning: str
    instructions: Instructions | None = None


@dataclass
class Collector:
    """What the model reported through ``extract_source`` in one discovery."""

    candidates: list[ReportedSource] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    async def run(self, context: ToolContext, args: ExtractSourceArgs) -> ToolOutput:
        evidence = [plain_text(item, 300) for item in args.evidence if plain_text(item, 300)]
        reasoning = plain_text(args.reasoning, 1000)
        if args.result_type == "instructions":
            url = (args.url or "").strip()
            if not _plain_https(url):
                return self._reject(
                    "instructions need the https URL of the install page (no credentials, "
                    "no unusual port)"
                )
            text = plain_text(args.instructions or "", 2000)
            if not text:
                return self._reject("instructions need the install text from the page")
            candidate = ReportedSource(
                url, args.confidence, evidence, reasoning, Instructions(url=url, text=text)
            )
        else:
            raw = plain_text(args.source or "", 300)
            source = github_from_url(raw)
            if source is None:
                return self._reject(
                    f"{raw!r} is not a GitHub repository: give source as owner/repo "
                    "(github.com/owner/repo, no other hosts, ports, credentials or deeper paths)"
                )
            candidate = ReportedSource(source, args.confidence, evidence, reasoning)
        if args.confidence < MIN_CONFIDENCE:
            self.rejected.append(f"{candidate.source} at confidence {args.confidence}")
            return self._reject(
                f"confidence {args.confidence} is below {MIN_CONFIDENCE}: search more to confirm "
                "the official source and call extract_source again, or report instructions"
            )
        self.candidates.append(candidate)
        return ToolOutput(
            f"Recorded {candidate.source}; sleuth will verify it. You are done.",
            ExtractOutput(accepted=True, source=candidate.source),
        )

    def _reject(self, why: str) -> ToolOutput:
        raise ToolError(f"extract_source rejected: {why}")


def _plain_https(url: str) -> bool:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    return (
        parts.scheme == "https"
        and bool(parts.hostname)
        and not (parts.username or parts.password)
        and port in (None, 443)
        and not any(c.isspace() for c in url)
    )


def extract_tool(collector: Collector) -> Tool:
    return Tool(
        name="extract_source",
        title="Report source",
        description=(
            "Report the official source you found: a GitHub repository (result_type builder) "
            "or an install page (result_type instructions), with confidence, evidence and "
            "reasoning. Call it once, when you are sure."
        ),
        arguments=ExtractSourceArgs,
        output=ExtractOutput,
        run=collector.run,
        open_world=False,
    )


@dataclass
class LLMFindings:
    candidates: list[ReportedSource]
    usage: DiscoveryUsage
    warnings: list[str]


def _usage(meter: Meter) -> DiscoveryUsage:
    usage = meter.usage
    return DiscoveryUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_tokens=usage.cached_tokens,
        web_search_requests=usage.web_search_requests,
        llm_calls=meter.calls,
        cost_usd=None if meter.cost is None else round(meter.cost, 6),
        cost_estimated=meter.estimated,
        provider=meter.provider.name,
        model=meter.config.model,
    )


@dataclass(frozen=True)
class WebTools:
    """The web tools discover's model may call (``web_search``, ``fetch_page``): the
    operation hands them in, so this stage names no operation above it."""

    search: Tool
    fetch: Tool


class LLMStage:
    """One discovery conversation; ``usage`` is kept even when it fails."""

    def __init__(
        self,
        client: Services,
        *,
        web_tools: WebTools,
        timeout: float,
        on_progress: Progress | None = None,
    ) -> None:
        self.client = client
        self.web_tools = web_tools
        self.timeout = timeout
        self.on_progress = on_progress
        self.meter: Meter | None = None

    def usage(self) -> DiscoveryUsage:
        return _usage(self.meter) if self.meter is not None else DiscoveryUsage()

    async def run(self, name: str) -> LLMFindings:
        """Raises LLMNotConfigured when there is no model to ask."""
        from sleuth.llm.meter import Meter
        from sleuth.llm.setup import choose_search

        settings = self.client.settings
        self.meter = meter = Meter.connect(settings.llm, self.client.web.clients, self.client.cache)
        try:
            native = choose_search(settings.llm_search, meter.provider, meter.config) == "native"
            try:
                async with asyncio.timeout(self.timeout):
                    return await self._converse(meter, name, native)
            except (TimeoutError, LLMTimeout):
                raise DiscoverTimeout(
                    f"discovering {name!r} took longer than {self.timeout:g}s"
                ) from None
        finally:
            await meter.aclose()

    async def _converse(self, meter: Meter, name: str, native: bool) -> LLMFindings:
        collector = Collector()
        fetch, search = self.web_tools.fetch, self.web_tools.search
        web = [fetch] if native else [search, fetch]
        loop = ToolLoop(
            meter=meter,
            registry=Registry([*web, extract_tool(collector)]),
            context=ToolContext(client=self.client),
            deadline=time.monotonic() + self.timeout,
            on_progress=self.on_progress,
            trusted=("extract_source",),  # sleuth's own receipt, not web content
        )
        specs = loop.specs()
        messages = [
            Message("system", f"{SYSTEM}\n\n{loop.envelope.rule()}"),
            Message("user", f"Find the official source for the developer tool {name!r}."),
        ]
        nudged = reasked = False
        while loop.turns < MAX_TURNS:
            request = ChatRequest(
                messages,
                tools=specs,
                native_search=native,
                tool_choice="auto",
                max_output_tokens=MAX_OUTPUT_TOKENS,
            )
            completion = await loop.complete(request)
            messages.append(completion.message)
            calls = completion.message.tool_calls
            if completion.stop_reason is StopReason.PAUSE and not calls:
                continue  # the provider paused its own search; sending the turn back resumes it
            if completion.stop_reason is StopReason.MALFORMED_CALL and not calls and not reasked:
                reasked = True  # once, as ask does: a model that cannot write it twice will not
                if not completion.message.content and completion.message.native is None:
                    messages.pop()  # an empty turn is refused by every API
                messages.append(Message("user", malformed_call(completion.finish_message)))
                continue
            if not calls:
                if nudged or loop.turns >= MAX_TURNS:
                    break
                nudged = True
                messages.append(
                    Message("user", "Report your finding now by calling extract_source.")
                )
                continue
            messages += await loop.run_calls(calls)
            if collector.candidates:
                return LLMFindings(collector.candidates, _usage(meter), [])
        searches = [call.outcome for call in loop.calls if call.name == "web_search"]
        if searches and all(outcome != "ok" for outcome in searches):
            raise DiscoverSearchFailed(
                f"every web search for {name!r} failed ({', '.join(sorted(set(searches)))})"
            )
        detail = (
            f"; the model's only answers were below confidence {MIN_CONFIDENCE}: "
            + ", ".join(collector.rejected)
            if collector.rejected
            else ""
        )
        raise NotFound(
            f"the model found no confident source for {name!r}{detail}",
            hint="name it yourself: {source}",
            refs={"source": name_it(name, "github:OWNER/REPO")},
        )
