"""Settings for a model that looks like a paid cloud API but answers on loopback (see hostmap/)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from search.wire import Wire
from server.harness import HOSTMAP, model_env

CLOUD_HOST = "llm.api-vendor.test"


def cloud_model_env(wire: Wire, home: Path, *, daily_usd: str) -> dict[str, str]:
    prices = home / "prices.json"
    prices.write_text(
        json.dumps(
            {
                # the loopback model answers as gpt-5-mini; both names get a price
                "models": {
                    name: {"input": 1.0, "output": 4.0} for name in ("test-model", "gpt-5-mini")
                },
                "web_search_per_1k": {},
            }
        )
    )
    path = os.pathsep.join(filter(None, [str(HOSTMAP), os.environ.get("PYTHONPATH", "")]))
    return {
        **model_env("openai", f"http://{CLOUD_HOST}:{wire.port}/v1"),
        "TEST_HOSTMAP": f"{CLOUD_HOST}=127.0.0.1",
        "PYTHONPATH": path,
        "SLEUTH_LLM_PRICES_FILE": str(prices),
        "SLEUTH_LLM_DAILY_BUDGET_USD": daily_usd,
        "SLEUTH_LLM_SESSION_BUDGET_USD": "0",
    }
