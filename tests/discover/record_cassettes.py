"""Re-record the discovery cassettes from ``conversations.py``.

    .venv/bin/python tests/discover/record_cassettes.py

Plays each scripted conversation from a loopback server with SLEUTH_LLM_RECORD=record,
then writes each recorded turn's token usage from the size of the request it answered
(and of its own message), as a real model's usage would scale.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from discover.conversations import (
    CASSETTES,
    CONVERSATIONS,
    LLM_PREFIX,
)
from discover.llm_settings import discover_settings
from discover.registries import registries
from sleuth.api import AsyncSleuth
from sleuth.errors import SleuthError


async def record_one(tool: str) -> None:
    conversation = CONVERSATIONS[tool]
    with registries() as regs:
        conversation.serve_web(regs)
        regs.wire.on(f"{LLM_PREFIX}/chat/completions", *conversation.turns)
        settings = discover_settings(regs, record="record", live_llm=True)
        async with AsyncSleuth(settings) as client:
            try:
                result = await client.discover(tool, stages=["llm"])
                print(f"{tool}: {result.spec} ({result.selection_reason})")
            except SleuthError as error:
                print(f"{tool}: {error.code}: {error.message}")


def set_usage(path: Path) -> None:
    document = json.loads(path.read_text())
    prompt = max(1, len(json.dumps(document["request"]["body"])) // 4)
    for response in document["responses"]:
        body = response.get("json")
        if not isinstance(body, dict) or "usage" not in body:
            continue
        message = body["choices"][0]["message"]
        completion = max(1, len(json.dumps(message)) // 4) + 64  # plus hidden reasoning
        body["usage"].update(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
        )
        body["usage"]["completion_tokens_details"]["reasoning_tokens"] = 64
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def main() -> None:
    if CASSETTES.exists():
        shutil.rmtree(CASSETTES)
    for tool in CONVERSATIONS:
        asyncio.run(record_one(tool))
    for path in sorted(CASSETTES.rglob("*.json")):
        set_usage(path)
    print(f"{len(list(CASSETTES.rglob('*.json')))} cassettes in {CASSETTES}")


if __name__ == "__main__":
    main()
