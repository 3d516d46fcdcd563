"""``ask``: a question answered by an LLM that searches and reads through sleuth's tools."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from sleuth.agent.loop import Session
from sleuth.agent.models import Answer
from sleuth.errors import Ref, UsageError
from sleuth.llm.setup import SearchChoice, choose_search
from sleuth.log import Progress
from sleuth.toolkit.loop import ToolCallInfo

if TYPE_CHECKING:
    from sleuth.toolkit import Registry
    from sleuth.toolkit.services import Services


async def ask(
    client: Services,
    question: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    search: SearchChoice | None = None,
    max_turns: int | None = None,
    registry: Registry,
    on_progress: Progress | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    respect_content_signals: bool = True,
) -> Answer:
    """``registry`` is the tools the model may call; the operation (:mod:`sleuth.ops.ask`)
    chooses them, so this loop names none of them."""
    from sleuth.llm.meter import Meter
    from sleuth.toolkit import CitationLedger, ToolContext
    from sleuth.toolkit.loop import ToolLoop

    settings = client.settings
    if not question.strip():
        raise UsageError("the question is empty", hint="ask something")
    turns = max_turns or settings.llm_max_turns
    if not 1 <= turns <= 50:
        raise UsageError(
            f"{{turns}} must be 1-50, not {turns}",
            refs={"turns": Ref("max_turns")},
        )
    meter = Meter.connect(
        settings.llm,
        client.web.clients,
        client.cache,
        provider=provider,
        model=model,
        sleep=sleep,
    )
    try:
        session = Session(
            loop=ToolLoop(
                meter=meter,
                registry=registry,
                context=ToolContext(
                    client=client,
                    ledger=CitationLedger(),
                    on_progress=None,
                    respect_content_signals=respect_content_signals,
                ),
                deadline=time.monotonic() + settings.llm_deadline,
                on_progress=on_progress,
            ),
            max_turns=turns,
            max_output_tokens=settings.llm_max_output_tokens,
        )
        mode = choose_search(search or settings.llm_search, meter.provider, meter.config)
        return await session.ask(question, mode)
    finally:
        await meter.aclose()


__all__ = ["Answer", "ToolCallInfo", "ask"]
