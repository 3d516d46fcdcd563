"""What a person sees before a web-found source is trusted, and how they answer.

The display follows the design: where the source came from, what GitHub says about
it (stars, age, last push, owner), the model's confidence and evidence, and every
warning; then ``Use this source? (y/N)``. Anything but yes is no.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sleuth.discovery.models import DiscoveryResult, ProbeResult
from sleuth.errors import ConfirmationDenied, ConfirmationRequired, Ref

Ask = Callable[[str], str]  # shows a prompt, returns the answer line (input() on stderr)


def _ago(days: int) -> str:
    if days < 1:
        return "today"
    if days < 14:
        return f"{days} day{'s' if days != 1 else ''} ago"
    if days < 60:
        return f"{days // 7} weeks ago"
    if days < 730:
        return f"{days // 30} months ago"
    return f"{days // 365} years ago"


def _created(stamp: str, now: datetime) -> str:
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return f"{_ago(max(0, (now - moment).days))} ({moment.date().isoformat()})"


def render(result: DiscoveryResult, *, now: datetime | None = None) -> str:
    """The confirmation display (plain text; the model's strings are already sanitised)."""
    moment = now or datetime.now(UTC)
    meta = result.metadata
    how = {
        "llm": "Discovered via web search",
        "ecosystem": "Found in a package registry",
        "registry": "Found in the registry",
        "from": "Named with --from",
    }[result.stage]
    lines = [f"{how}:", ""]
    if result.instructions is not None:
        lines += [
            f"Install page: {result.instructions.url}",
            "  Instructions (never run by sleuth):",
        ]
        lines += [f"    {result.instructions.text}"]
    elif result.builder == "github":
        lines.append(f"Repository: github.com/{result.source}")
        if meta.verification_skipped:
            lines.append("  NOT VERIFIED: GitHub could not be asked")
        if meta.stars is not None:
            lines.append(f"  Stars: {meta.stars:,}")
        if meta.created_at:
            lines.append(f"  Created: {_created(meta.created_at, moment)}")
        if meta.last_push_days is not None:
            lines.append(f"  Last commit: {_ago(meta.last_push_days)}")
        if meta.owner:
            kind = f" ({meta.owner_type})" if meta.owner_type else ""
            lines.append(f"  Owner: {meta.owner}{kind}")
        if meta.is_fork:
            stars = f", {meta.parent_stars:,} stars" if meta.parent_stars is not None else ""
            lines.append(f"  FORK of {meta.parent or 'another repository'}{stars}")
        if meta.description:
            lines.append(f"  Description: {meta.description}")
    else:
        lines.append(f"Package: {result.builder}:{result.source}")
    lines += ["", f"Confidence: {result.confidence_score}%"]
    if result.evidence:
        lines.append("Evidence:")
        lines += [f"  - {item}" for item in result.evidence]
    if result.warnings:
        lines.append("Warnings:")
        lines += [f"  ! {item}" for item in result.warnings]
    if result.alternatives:
        lines.append("Alternatives: " + ", ".join(result.alternatives))
    if result.confirmation_reason:
        lines.append(f"Needs your confirmation: {result.confirmation_reason}")
    if result.install_hint:
        lines += ["", f"Install: {result.install_hint}"]
    return "\n".join(lines)


def confirm(result: DiscoveryResult, ask: Ask) -> bool:
    answer = ask("Use this source? (y/N) ")
    return answer.strip().lower() in ("y", "yes")


def choose(tool: str, matches: list[ProbeResult], ask: Ask) -> ProbeResult | None:
    """A numbered pick among ambiguous ecosystem matches; empty or invalid means none."""
    lines = [f"{tool!r} is in several package registries with no clear winner:"]
    for number, match in enumerate(matches, 1):
        lines.append(
            f"  {number}. {match.source}  ({match.downloads:,} downloads, "
            f"{match.version_count} versions{', repository' if match.has_repository else ''})"
        )
    answer = ask("\n".join(lines) + f"\nWhich one? (1-{len(matches)}, Enter for none) ")
    try:
        picked = int(answer.strip())
    except ValueError:
        return None
    return matches[picked - 1] if 1 <= picked <= len(matches) else None


def summary(result: DiscoveryResult) -> str:
    """One line on stderr for answers that need no confirmation."""
    reason = result.selection_reason.replace("_", " ")
    how = result.stage if reason == result.stage else f"{result.stage}, {reason}"
    line = f"{result.tool}: {result.builder}:{result.source} ({how})"
    if result.downloads_ratio:
        line += f", {round(result.downloads_ratio, 1):g}x the runner-up's downloads"
    return line


def settle(
    result: DiscoveryResult,
    *,
    interactive: bool,
    ask: Ask,
    show: Callable[[str], None],
) -> DiscoveryResult:
    """The result once a person agreed to it, or the error that says why not.

    Raises ConfirmationDenied on anything but yes, and ConfirmationRequired when
    nobody can be asked.
    """
    if not result.confirmation_required:
        return result
    reason = result.confirmation_reason or "it needs review"
    if not interactive:
        # Only a person confirms: the CLI asks on a terminal, another caller asks its user.
        raise ConfirmationRequired(
            f"not using {result.spec} for {result.tool!r} without confirmation: {reason}",
            hint="{ask} to review it, or name it with {source} if you trust it"
            if result.high_risk
            else "{ask}, or {yes} to accept web-found sources",
            refs={
                "ask": Ref("ask_person", words="ask the user"),
                "source": Ref("from_source", result.spec, f'from: "{result.spec}"'),
                "yes": Ref("pass_yes", words="set yes: true"),
            },
        )
    show(render(result))
    if not confirm(result, ask):
        raise ConfirmationDenied(f"{result.spec} was not confirmed for {result.tool!r}")
    return result


def progress_line(stage: str, detail: dict[str, object]) -> str | None:
    """What a person watching sees of a stage starting or a model's tool call."""
    if stage == "ecosystem":
        return "probing crates.io, npm, PyPI, RubyGems, Go, Homebrew and CPAN..."
    if stage == "llm":
        return "searching the web with the LLM..."
    if stage == "tool_call":
        arguments = detail.get("arguments")
        query = (
            arguments.get("query") or arguments.get("url") if isinstance(arguments, dict) else None
        )
        return f"  → {detail.get('name')} {query!r}" if query else f"  → {detail.get('name')}"
    return None
