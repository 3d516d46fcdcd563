"""The discovery chain: registry, then ecosystem probes, then an LLM, first answer wins.

Each stage either answers, passes, or stops the chain with a typed error (an
ambiguous ecosystem match never falls through to the LLM). Nothing here prompts: a
person's choice comes in through ``choose`` and confirmation is left to the caller,
told by ``confirmation_required`` and ``confirmation_reason``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sleuth import log
from sleuth.discovery.decide import builder_of, decide, ratio
from sleuth.discovery.hints import install_hint
from sleuth.discovery.models import (
    STAGES,
    DiscoveryResult,
    DiscoveryUsage,
    ProbeResult,
    RepoMetadata,
)
from sleuth.discovery.names import near_misses, normalize_name
from sleuth.discovery.registry import Hit, SourceRegistry
from sleuth.discovery.sources import FROM, name_it, parse_from
from sleuth.errors import (
    Ambiguous,
    ConfirmationDenied,
    DiscoverError,
    DiscoverTimeout,
    LLMNotConfigured,
    NotFound,
    Ref,
    UsageError,
    VerificationFailed,
)
from sleuth.log import Progress

if TYPE_CHECKING:
    from sleuth.discovery.llm_stage import ReportedSource, WebTools
    from sleuth.discovery.verify import Verification
    from sleuth.toolkit.services import Services

# A person's pick among ambiguous matches: the tool, the ranked matches; a match or None.
Chooser = Callable[[str, list[ProbeResult]], ProbeResult | None]
MIN_STARS = 50
FORK_GAP = 10
CONFIDENCE = {
    "registry": 100,
    "from": 100,
    "user_choice": 100,
    "10x_popularity_gap": 90,
    "single_match": 80,
    "priority_fallback": 50,
}


def parse_stages(stages: Sequence[str] | None) -> list[str]:
    if not stages:
        return list(STAGES)
    wanted = [part.strip().lower() for stage in stages for part in stage.split(",") if part.strip()]
    unknown = [stage for stage in wanted if stage not in STAGES]
    if unknown or not wanted:
        raise UsageError(
            f"unknown stage {unknown[0]!r}" if unknown else "no stage named",
            hint="{stages} of " + ", ".join(STAGES),
            refs={"stages": Ref("stages_list", words="stages takes a list")},
        )
    return [stage for stage in STAGES if stage in wanted]


class Discovery:
    def __init__(
        self,
        client: Services,
        *,
        web_tools: WebTools,
        batch: bool = False,
        yes: bool = False,
        timeout: float | None = None,
        on_progress: Progress | None = None,
        choose: Chooser | None = None,
    ) -> None:
        self.client = client
        self.web_tools = web_tools
        self.settings = client.settings
        self.batch = batch
        self.yes = yes
        self.timeout = timeout or self.settings.discover_timeout
        self.on_progress = on_progress
        self.choose = choose
        self.registry = SourceRegistry.from_setting(self.settings.discover_registry)
        self.warnings: list[str] = []
        self.stage_ms: dict[str, int] = {}
        self.probe_results: list[ProbeResult] = []
        self.probe_failures: list[str] = []  # builders whose registry could not answer

    def _report(self, stage: str, **detail: Any) -> None:
        if self.on_progress is not None:
            self.on_progress(stage, detail)

    def _timed(self, stage: str, started: float) -> None:
        self.stage_ms[stage] = int((time.monotonic() - started) * 1000)

    async def run(
        self,
        name: str,
        *,
        from_source: str | None = None,
        deterministic_only: bool = False,
        stages: Sequence[str] | None = None,
    ) -> DiscoveryResult:
        tool = normalize_name(name)
        order = parse_stages(stages)
        if deterministic_only and order == ["llm"]:
            raise UsageError(
                "{deterministic} leaves no stage to run with {llm}",
                hint="drop one of the two",
                refs={
                    "deterministic": Ref("deterministic_only", True),
                    "llm": Ref("stages", ["llm"]),
                },
            )
        if from_source:
            return await self._from(tool, from_source)
        if "registry" in order:
            started = time.monotonic()
            self._report("registry", name=tool)
            hit, warnings = self.registry.lookup(tool)
            self.warnings += warnings
            self._timed("registry", started)
            if hit is not None:
                return self._registry_result(tool, hit)
        misses = near_misses(tool, self.registry.names())
        if misses:
            self.warnings.append(
                f"{tool!r} is a near miss of {', '.join(repr(m) for m in misses)} in the "
                "registry: check the spelling, typosquatted names imitate popular tools"
            )
        if "ecosystem" in order:
            result = await self._ecosystems(tool)
            if result is not None:
                return result
        llm_note = ""
        if "llm" in order and not deterministic_only:
            try:
                return await self._llm(tool)
            except LLMNotConfigured:
                llm_note = "; no LLM is configured for web discovery"
        searched = [stage for stage in order if stage != "llm" or not deterministic_only]
        near = f"; did you mean {' or '.join(repr(m) for m in misses)}?" if misses else ""
        failed = (
            f"; the {', '.join(self.probe_failures)} probe(s) failed, so trying again may help"
            if self.probe_failures
            else ""
        )
        raise NotFound(
            f"no source found for {tool!r} (searched: {', '.join(searched)})"
            f"{llm_note}{failed}{near}",
            hint="name it yourself: {source} (for example github:OWNER/REPO)",
            refs={"source": name_it(tool)},
            retryable=bool(self.probe_failures),
        )

    # -- results -----------------------------------------------------------------------

    def _result(self, tool: str, builder: str, source: str, **fields: Any) -> DiscoveryResult:
        usage: DiscoveryUsage = fields.pop("usage", None) or DiscoveryUsage()
        usage.stage_ms = dict(self.stage_ms)
        return DiscoveryResult(
            tool=tool,
            builder=builder,
            source=source,
            install_hint=install_hint(builder, source),
            probe_results=list(self.probe_results),
            warnings=list(dict.fromkeys(self.warnings + fields.pop("warnings", []))),
            usage=usage,
            **fields,
        )

    def _registry_result(self, tool: str, hit: Hit) -> DiscoveryResult:
        entry = hit.entry
        evidence = [hit.provenance]
        if entry.disambiguation:
            evidence.append(f"disambiguation: {entry.disambiguation}")
        owner = entry.source.split("/", 1)[0] if entry.builder == "github" else None
        return self._result(
            tool,
            entry.builder,
            entry.source,
            stage="registry",
            confidence_score=CONFIDENCE["registry"],
            selection_reason="registry",
            metadata=RepoMetadata(owner=owner, description=entry.description),
            evidence=evidence,
            description=entry.description,
            homepage=entry.homepage or entry.repo,
            disambiguation=entry.disambiguation,
        )

    async def _from(self, tool: str, spec: str) -> DiscoveryResult:
        builder, source = parse_from(spec)
        metadata = RepoMetadata()
        warnings: list[str] = []
        if builder == "github":
            started = time.monotonic()
            [check] = await self._verify([source])
            self._timed("verify", started)
            if check.status == "not_found":
                raise VerificationFailed(
                    f"GitHub has no repository {source}", hint="check the owner and name"
                )
            metadata, warnings = check.metadata, check.warnings
            if check.status == "archived":
                warnings.append(f"{source} is archived: it gets no more releases")
        return self._result(
            tool,
            builder,
            source,
            stage="from",
            confidence_score=CONFIDENCE["from"],
            selection_reason="user_specified",
            metadata=metadata,
            evidence=[f"named with --from {builder}:{source}"],
            warnings=warnings,
        )

    # -- stage 2 ----------------------------------------------------------------------

    async def _ecosystems(self, tool: str) -> DiscoveryResult | None:
        from sleuth.discovery.probes import probe_all

        started = time.monotonic()
        self._report("ecosystem", name=tool)
        outcomes = await probe_all(self.settings.discover, self.client.web.clients, tool)
        self._timed("ecosystem", started)
        found = [outcome.result for outcome in outcomes if outcome.result is not None]
        self.probe_results = found
        self.warnings += [outcome.warning for outcome in outcomes if outcome.warning]
        self.probe_failures = [outcome.builder for outcome in outcomes if outcome.status == "error"]
        decision = decide(found)
        if decision.reason is None or decision.leader is None:
            filtered = [r.source for r in found]
            if filtered:
                self.warnings.append(
                    "matches below the quality bar (too few downloads and versions): "
                    + ", ".join(filtered)
                )
            return None
        ranked = decision.ranked
        chosen, gap = decision.leader, decision.downloads_ratio
        reason: str = decision.reason
        high_risk = False
        if reason == "ambiguous":
            picked = None
            if self.choose is not None and not self.batch:
                picked = self.choose(tool, ranked)
                if picked is None:
                    raise ConfirmationDenied(f"no source chosen for {tool!r}")
                chosen, reason, gap = picked, "user_choice", None
            elif self.batch:
                reason, high_risk = "priority_fallback", True
                gap = ratio(ranked[0], ranked[1])
            else:
                # Each choice is a way out: the CLI's command line, the field over HTTP.
                choices = {f"choice{n}": name_it(tool, r.source) for n, r in enumerate(ranked)}
                raise Ambiguous(
                    f"{tool!r} matches {len(ranked)} packages with no clear winner:\n  "
                    + "\n  ".join(f"{{{name}}}" for name in choices),
                    choices=[r.source for r in ranked],
                    hint="pick one with {from}, or {batch} to take the top match",
                    refs={
                        **choices,
                        "from": FROM,
                        "batch": Ref("pass_batch", words="set batch: true"),
                    },
                )
        builder, _, source = chosen.source.partition(":")
        evidence = [
            f"{r.source}: {r.downloads:,} downloads, {r.version_count} versions, "
            f"{'a' if r.has_repository else 'no'} repository"
            for r in ranked
        ]
        return self._result(
            tool,
            builder,
            source,
            stage="ecosystem",
            confidence_score=CONFIDENCE[reason],
            selection_reason=reason,
            high_risk=high_risk,
            alternatives=[r.source for r in ranked if r is not chosen],
            downloads_ratio=gap if reason in ("10x_popularity_gap", "priority_fallback") else None,
            evidence=evidence,
        )

    # -- stage 3 ----------------------------------------------------------------------

    async def _verify(self, sources: list[str]) -> list[Verification]:
        from sleuth.discovery.verify import GitHub

        github = GitHub(self.settings.discover, self.client.web.clients)
        try:
            return list(await asyncio.gather(*(github.verify(source) for source in sources)))
        finally:
            await github.aclose()

    async def _llm(self, tool: str) -> DiscoveryResult:
        from sleuth.discovery.llm_stage import LLMStage

        started = time.monotonic()
        self._report("llm", name=tool)
        stage = LLMStage(
            self.client,
            web_tools=self.web_tools,
            timeout=self.timeout,
            on_progress=self.on_progress,
        )
        try:
            findings = await stage.run(tool)
        except LLMNotConfigured:
            raise
        except Exception as error:
            usage = stage.usage()
            log.event(
                "discover_llm_failed",
                tool=tool,
                error=type(error).__name__,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cost_usd=usage.cost_usd,
            )
            if isinstance(error, DiscoverError):
                error.usage = usage.model_dump(mode="json")
            raise
        finally:
            self._timed("llm", started)
        repos = [c for c in findings.candidates if c.instructions is None]
        pages = [c for c in findings.candidates if c.instructions is not None]
        if not repos:
            return self._instructions(tool, pages[0], findings.usage)
        unique = list({c.source.lower(): c for c in repos}.values())
        # Verification spends the same budget: the person waits for the whole stage.
        remaining = self.timeout - (time.monotonic() - started)
        try:
            async with asyncio.timeout(max(remaining, 0.001)):
                checks = await self._verify([c.source for c in unique])
        except TimeoutError:
            late = DiscoverTimeout(
                f"verifying {tool!r} on GitHub did not finish within the {self.timeout:g}s budget"
            )
            late.usage = findings.usage.model_dump(mode="json")
            raise late from None
        finally:
            self._timed("llm", started)
        kept: list[tuple[ReportedSource, Verification]] = []
        rejected: list[str] = []
        for candidate, check in zip(unique, checks, strict=True):
            if check.status == "not_found":
                rejected.append(
                    f"GitHub has no repository {candidate.source} (the model invented it)"
                )
            elif check.status == "archived":
                rejected.append(f"{candidate.source} is archived")
            else:
                kept.append((candidate, check))
        if not kept:
            if pages:
                return self._instructions(tool, pages[0], findings.usage, rejected)
            failure = VerificationFailed(
                f"the model's answer for {tool!r} failed verification: " + "; ".join(rejected),
                hint="name the source yourself: {source}",
                refs={"source": name_it(tool, "github:OWNER/REPO")},
            )
            failure.usage = findings.usage.model_dump(mode="json")
            raise failure
        kept.sort(
            key=lambda pair: (
                -pair[0].confidence,
                -(pair[1].metadata.stars or 0),
                pair[0].source.lower(),
            )
        )
        candidate, check = kept[0]
        metadata = check.metadata
        warnings = list(rejected) + check.warnings
        alternatives = [f"github:{c.source}" for c, _ in kept[1:]]
        reasons_hard: list[str] = []
        if metadata.is_fork:
            parent = metadata.parent or "another repository"
            reasons_hard.append(f"it is a fork of {parent}")
            if (
                metadata.parent
                and metadata.parent_stars is not None
                and metadata.parent_stars >= FORK_GAP * max(metadata.stars or 0, 1)
            ):
                warnings.append(
                    f"{candidate.source} is a fork; its parent {metadata.parent} has "
                    f"{metadata.parent_stars:,} stars to its {metadata.stars or 0:,}: consider "
                    f"sleuth discover {tool} --from github:{metadata.parent}"
                )
                alternatives.insert(0, f"github:{metadata.parent}")
            else:
                warnings.append(f"{candidate.source} is a fork of {parent}")
        if metadata.verification_skipped:
            reasons_hard.append("GitHub could not verify it")
        elif (metadata.stars or 0) < MIN_STARS:
            reasons_hard.append(
                f"it has only {metadata.stars or 0} stars (auto-selection needs {MIN_STARS})"
            )
        auto = not reasons_hard
        reason = "llm_verified" if auto else "llm_needs_review"
        soft = "it was found by an LLM on the web"
        required = bool(reasons_hard) or not self.yes
        source = (
            check.full_name
            if check.status == "ok" and not metadata.verification_skipped
            else candidate.source
        )
        evidence = [*candidate.evidence]
        if candidate.reasoning:
            evidence.append(f"reasoning: {candidate.reasoning}")
        return self._result(
            tool,
            "github",
            source,
            stage="llm",
            confidence_score=candidate.confidence,
            selection_reason=reason,
            high_risk=not auto,
            alternatives=list(dict.fromkeys(alternatives)),
            metadata=metadata,
            evidence=evidence,
            warnings=warnings,
            usage=findings.usage,
            confirmation_required=required,
            confirmation_reason="; ".join(reasons_hard or [soft]) if required else None,
            description=metadata.description,
            homepage=f"https://github.com/{source}",
        )

    def _instructions(
        self,
        tool: str,
        page: ReportedSource,
        usage: DiscoveryUsage,
        warnings: list[str] | None = None,
    ) -> DiscoveryResult:
        return self._result(
            tool,
            "instructions",
            page.source,
            stage="llm",
            confidence_score=page.confidence,
            selection_reason="instructions",
            high_risk=True,
            evidence=[
                *page.evidence,
                *([f"reasoning: {page.reasoning}"] if page.reasoning else []),
            ],
            warnings=[
                *(warnings or []),
                "install instructions from the web: read them, sleuth never runs them",
            ],
            usage=usage,
            instructions=page.instructions,
            confirmation_required=True,
            confirmation_reason="no builder source, only install instructions from the web",
            homepage=page.source,
        )


async def discover(
    client: Services,
    name: str,
    *,
    web_tools: WebTools,
    from_source: str | None = None,
    deterministic_only: bool = False,
    stages: Sequence[str] | None = None,
    batch: bool = False,
    yes: bool = False,
    timeout: float | None = None,
    on_progress: Progress | None = None,
    choose: Chooser | None = None,
) -> DiscoveryResult:
    discovery = Discovery(
        client,
        web_tools=web_tools,
        batch=batch,
        yes=yes,
        timeout=timeout,
        on_progress=on_progress,
        choose=choose,
    )
    return await discovery.run(
        name, from_source=from_source, deterministic_only=deterministic_only, stages=stages
    )


__all__ = ["Chooser", "Discovery", "builder_of", "discover", "parse_stages"]
