"""What a call cost, from the one price table in ``prices.json``.

Providers normalise usage the same way (input includes cached tokens, output
includes reasoning tokens), so one formula bills them all. Local servers cost
nothing but their tokens still count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from sleuth.errors import ConfigError
from sleuth.llm.models import Usage


@dataclass(frozen=True)
class Price:
    input: float  # USD per million tokens
    cached_input: float
    output: float


@dataclass(frozen=True)
class PriceTable:
    models: dict[str, Price]
    web_search_per_1k: dict[str, float]
    unknown_model: Price | None = None  # the estimate for models the table does not list

    def price(self, model: str) -> Price | None:
        """The entry whose name is the longest prefix of ``model`` (``models/`` ignored)."""
        name = model.removeprefix("models/").lower()
        matches = [key for key in self.models if name == key or name.startswith(key + "-")]
        return self.models[max(matches, key=len)] if matches else None

    def cost(self, provider: str, model: str, usage: Usage, *, local: bool) -> float | None:
        """USD for ``usage``: an estimate for unlisted models, None when there is none."""
        if local:
            return 0.0
        price = self.price(model) or self.unknown_model
        if price is None:
            return None
        cached = min(usage.cached_tokens, usage.input_tokens)
        uncached = usage.input_tokens - cached
        output = usage.output_tokens
        searches = usage.web_search_requests * self.web_search_per_1k.get(provider, 0.0) / 1000
        tokens = uncached * price.input + cached * price.cached_input + output * price.output
        return tokens / 1_000_000 + searches


def _parse(data: Any, origin: str) -> PriceTable:
    def price(entry: Any) -> Price:
        return Price(
            float(entry["input"]),
            float(entry.get("cached_input", entry["input"])),
            float(entry["output"]),
        )

    try:
        models = {name.lower(): price(entry) for name, entry in data["models"].items()}
        searches = {k: float(v) for k, v in data.get("web_search_per_1k", {}).items()}
        unknown = price(data["unknown_model"]) if "unknown_model" in data else None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(
            f"price table {origin} is malformed ({type(exc).__name__}: {exc})",
            hint='each model needs {"input": USD, "output": USD} per million tokens',
        ) from None
    return PriceTable(models, searches, unknown)


@cache
def _builtin() -> PriceTable:
    text = resources.files("sleuth.llm").joinpath("prices.json").read_text(encoding="utf-8")
    return _parse(json.loads(text), "built-in")


def load_prices(path: Path | None = None) -> PriceTable:
    if path is None:
        return _builtin()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(
            f"cannot read price table {path}: {exc.strerror}", hint="fix SLEUTH_LLM_PRICES_FILE"
        ) from None
    except ValueError as exc:
        raise ConfigError(
            f"price table {path} is not JSON: {exc}", hint="fix SLEUTH_LLM_PRICES_FILE"
        ) from None
    return _parse(data, str(path))
