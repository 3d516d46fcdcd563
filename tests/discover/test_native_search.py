"""LLM discovery with a provider's own web search (Anthropic's server ``web_search`` tool):
sleuth declares no search function of its own, resumes a paused server turn, and still
verifies what the model reports. The replies are Messages API bodies from
``tests/llm/payloads_anthropic.py``, written from Anthropic's documented format."""

from __future__ import annotations

from discover.conversations import STRIPE
from discover.llm_settings import discover_settings
from discover.registries import Registries
from llm.payloads_anthropic import PATH, _result, _search, message, paused, tool_use
from search.wire import json_reply
from sleuth.api import AsyncSleuth
from sleuth.net import PinnedResolver, parse_resolve_pins

HOST = "models.acme-ai.net"  # not local, so the provider's own search is chosen and billed


async def test_native_search_is_used_and_the_answer_still_verified(regs: Registries) -> None:
    STRIPE.serve_web(regs)
    found = [
        _search("srvtoolu_01StripeSearch0001", "stripe cli github"),
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01StripeSearch0001",
            "content": [
                _result("https://github.com/stripe/stripe-cli", "stripe/stripe-cli", None, "q1")
            ],
        },
        tool_use(
            "toolu_01ExtractStripe0001",
            "extract_source",
            {
                "result_type": "builder",
                "builder": "github",
                "source": "stripe/stripe-cli",
                "confidence": 92,
                "evidence": ["stripe/stripe-cli - github.com"],
                "reasoning": "The official organisation's repository.",
            },
        ),
    ]
    regs.wire.on(f"/anthropic{PATH}", paused(), json_reply(message(found, "tool_use")))
    settings = discover_settings(
        regs,
        record="off",
        llm_provider="anthropic",
        llm_model="claude-sonnet-4-5",
        llm_base_url=f"http://{HOST}:{regs.wire.port}/anthropic",
        llm_search="auto",
    )
    resolver = PinnedResolver(parse_resolve_pins([f"{HOST}:{regs.wire.port}:127.0.0.1"]))
    async with AsyncSleuth(settings, resolver=resolver) as client:
        result = await client.discover("stripe-cli", stages=["llm"], yes=True)
    assert (result.source, result.selection_reason) == ("stripe/stripe-cli", "llm_verified")
    assert result.usage.web_search_requests >= 1
    assert result.usage.cost_usd is not None
    assert result.usage.cost_usd > 0
    requests = regs.wire.to(f"/anthropic{PATH}")
    assert len(requests) == 2  # the paused turn was sent back, not nudged
    tools = requests[0].json["tools"]
    functions = [tool["name"] for tool in tools if "input_schema" in tool]
    assert functions == ["fetch_page", "extract_source"]  # no local web_search shadows it
    assert any(str(tool.get("type", "")).startswith("web_search") for tool in tools)
    last = requests[1].json["messages"][-1]
    assert last["role"] == "assistant"
    assert not regs.wire.to("/searxng/search")  # sleuth's own search was never used
