"""The deterministic checks and the wire shape of structured output, without a server."""

from __future__ import annotations

from datetime import date

import pytest

from sleuth.config import Settings
from sleuth.llm import Provider, open_provider
from sleuth.llm.models import ChatRequest, Message, ReplySchema
from sleuth.structured.checks import dates_in, find_quote, number_in, visible_text
from sleuth.structured.locator import page_of, text_fragment


@pytest.mark.parametrize(
    ("value", "quote", "found"),
    [
        (129.0, "Price: $129.00", True),
        (1299, "only €1,299 today", True),
        (1234.5, "1.234,5 g", True),
        (12900, "$129.00", False),  # a decimal point is not a thousands group
        (128, "$129.00", False),
        (19, "COVID-19", True),
        (4200000, "$4,200,000", True),
        (-3, "down -3 points", True),
        (12, "120 items", False),
    ],
)
def test_numbers(value: float, quote: str, found: bool) -> None:
    assert number_in(value, quote) is found


def test_dates() -> None:
    assert dates_in("on 1 May 2024") == {date(2024, 5, 1)}
    assert dates_in("Sept. 7th, 2022") == {date(2022, 9, 7)}
    assert dates_in("2023-12-31T10:00") == {date(2023, 12, 31)}
    assert dates_in("03/04/24") == {date(2024, 4, 3), date(2024, 3, 4)}
    assert dates_in("May 2024") == set()


def test_quotes_fold_whitespace_and_case_and_stop_at_barriers() -> None:
    text = visible_text("Price:\n $129.00 Member price: $99", [(16, 30)])
    assert find_quote(text, "price: $129.00") == (0, 15)
    assert find_quote(text, "$129.00 Member") is None
    assert find_quote(text, "   ") is None


def test_text_fragment_encodes_its_syntax() -> None:
    url = text_fragment("https://x.test/a#top", "Fish, chips & peas - cheap")
    assert url == "https://x.test/a#:~:text=Fish%2C%20chips%20%26%20peas%20%2D%20cheap"
    long = text_fragment("https://x.test/a", " ".join(f"word{i}" for i in range(30)))
    assert long.endswith(
        "text=word0%20word1%20word2%20word3%20word4,word25%20word26%20word27%20word28%20word29"
    )
    assert page_of([0, 100, 250], 120) == 2
    assert page_of([], 5) is None


def _provider(name: str) -> Provider:
    settings = Settings(
        llm_provider=name, llm_model="m", llm_base_url="http://127.0.0.1:9", llm_api_key="k"
    )
    return open_provider(settings.llm, settings.net)[0]


SCHEMA = ReplySchema("fill", {"type": "object", "properties": {"a": {"type": ["string", "null"]}}})


@pytest.mark.parametrize(
    ("provider", "where"),
    [
        ("openai", lambda b: b["response_format"]["json_schema"]["schema"]),
        ("openai-responses", lambda b: b["text"]["format"]["schema"]),
        ("anthropic", lambda b: b["tools"][-1]["input_schema"]),
        ("ollama", lambda b: b["format"]),
    ],
)
def test_structured_output_on_the_wire(provider: str, where: object) -> None:
    built = _provider(provider)
    _, body, _ = built.build(ChatRequest([Message("user", "hi")], reply_schema=SCHEMA))
    assert where(body) == SCHEMA.schema  # type: ignore[operator]
    if provider == "anthropic":
        assert body["tool_choice"] == {"type": "tool", "name": "fill"}


def test_gemini_asks_for_its_response_schema() -> None:
    built = _provider("gemini")
    _, body, _ = built.build(ChatRequest([Message("user", "hi")], reply_schema=SCHEMA))
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseSchema"]["properties"]["a"] == {"type": "string", "nullable": True}
