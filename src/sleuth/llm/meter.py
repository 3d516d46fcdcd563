"""Every metered LLM call: budget checked first, cost and usage counted after.

``ask`` and ``detect``'s fallback both call models; both go through a
:class:`Meter`, so budgets and prices mean the same thing everywhere.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sleuth import log
from sleuth.cache import Cache
from sleuth.config import LLMSettings
from sleuth.llm.budget import Budget
from sleuth.llm.models import ChatRequest, Completion, Usage
from sleuth.llm.pricing import PriceTable, load_prices
from sleuth.llm.providers import Provider
from sleuth.llm.setup import LLMConfig, open_provider

if TYPE_CHECKING:
    from sleuth.net import Clients


@dataclass
class Meter:
    provider: Provider
    config: LLMConfig
    budget: Budget
    prices: PriceTable
    usage: Usage = field(default_factory=Usage)
    cost: float | None = 0.0  # None once a call had no price at all
    estimated: bool = False  # a model missing from the price table was priced as unknown
    calls: int = 0

    @classmethod
    def open(cls, provider: Provider, config: LLMConfig, llm: LLMSettings, cache: Cache) -> Meter:
        budget = Budget(
            cache,
            session_usd=llm.llm_session_budget_usd,
            daily_usd=llm.llm_daily_budget_usd,
        )
        return cls(provider, config, budget, load_prices(llm.llm_prices_file))

    @classmethod
    def connect(
        cls,
        llm: LLMSettings,
        clients: Clients,
        cache: Cache,
        *,
        provider: str | None = None,
        model: str | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> Meter:
        """The one way a job opens a model: the configured provider, metered against the
        budget and the price table. Close it with :meth:`aclose`.

        Raises :class:`~sleuth.errors.LLMNotConfigured` when no model is set up.
        """
        extra: dict[str, Any] = {"sleep": sleep} if sleep is not None else {}
        opened, config = open_provider(llm, clients, provider=provider, model=model, **extra)
        return cls.open(opened, config, llm, cache)

    async def aclose(self) -> None:
        await self.provider.aclose()

    async def complete(self, request: ChatRequest, *, deadline: float | None = None) -> Completion:
        await self.budget.check()
        self.calls += 1
        started = time.monotonic()
        completion = await self.provider.complete(request, deadline=deadline)
        model = completion.model or self.config.model
        cost = self.prices.cost(
            self.provider.name, model, completion.usage, local=self.config.local
        )
        log.event(
            "llm_call",
            provider=self.provider.name,
            model=model,
            call=self.calls,
            stop=completion.stop_reason.value,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            cost_usd=cost,
            latency_ms=int((time.monotonic() - started) * 1000),
        )
        self.usage = self.usage + completion.usage
        if cost and self.prices.price(model) is None and not self.estimated:
            self.estimated = True
            log.warn("llm_price_estimated", model=model, hint="add it to SLEUTH_LLM_PRICES_FILE")
        if cost is None:
            if self.cost is not None:
                log.warn("llm_price_unknown", model=model)
            self.cost = None
        else:
            if self.cost is not None:
                self.cost += cost
            await self.budget.charge(cost)
        return completion
