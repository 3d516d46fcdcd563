"""Finding and validating JSON in what models actually write."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from sleuth.errors import MalformedReply
from sleuth.llm.jsonreply import find_json, parse_reply, strip_reasoning


class Stack(BaseModel):
    language: str
    confidence: float


@pytest.mark.parametrize(
    "text",
    [
        '{"language": "Zig", "confidence": 0.9}',
        '<think>Maybe Rust? {"language": "Rust"} no.</think>\n'
        '{"language": "Zig", "confidence": 0.9}',
        'Sure! Here it is:\n```json\n{"language": "Zig", "confidence": 0.9}\n```\nAnything else?',
        '```\n{"language": "Zig", "confidence": 0.9}\n```',
        'The answer is {"language": "Zig", "confidence": 0.9} as requested.',
        '<THINKING>\nstep\n</THINKING>```JSON\n{"language": "Zig", "confidence": 0.9}```',
    ],
)
def test_the_value_is_found_around_reasoning_fences_and_prose(text: str) -> None:
    assert parse_reply(text, Stack) == Stack(language="Zig", confidence=0.9)


def test_a_brace_in_prose_before_the_value_is_skipped() -> None:
    assert find_json('Use {braces} like this: {"a": [1, 2]}') == {"a": [1, 2]}


def test_an_unclosed_think_block_hides_the_rest() -> None:
    assert strip_reasoning('<think>{"language": "Rust"') == ""


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I don't know.", "holds no JSON"),
        ('{"language": "Zig"}', "confidence"),
        ('{"language": "Zig", "confidence": "very"}', "confidence"),
        ('{"language": "Zig", "confidence": 0.9', "holds no JSON"),
    ],
)
def test_a_malformed_reply_is_typed_and_keeps_the_raw_text(text: str, wanted: str) -> None:
    with pytest.raises(MalformedReply) as caught:
        parse_reply(text, Stack)
    assert wanted in caught.value.message
    assert caught.value.raw == text
    assert caught.value.code == "llm_malformed_reply"
