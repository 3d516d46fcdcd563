"""Bad input in the text family: linear parsers, a time limit for every document, and
output bounded by the input (no timing assertions: work is counted, limits are typed)."""

from __future__ import annotations

import json
import re
import sys
from types import FrameType
from typing import Any

import pytest

import sleuth.documents.textual as textual
from sleuth.documents import read
from sleuth.errors import FetchTimeout

HOSTILE_HEADING = "# a" + " " * 6000 + "b"


def test_a_heading_with_a_long_run_of_spaces_is_read() -> None:
    """The title pattern once backtracked cubically on this 6 KB page and hung sleuth."""
    result = read(HOSTILE_HEADING.encode(), content_type="text/markdown")
    assert (result.outcome, result.title) == ("ok", "a b")
    assert result.text.startswith("# a")
    assert result.text.endswith("b")


@pytest.mark.parametrize(
    "body",
    [
        "# a" + " " * 60_000 + "b\n" + "## c" + "\t" * 60_000 + "#" * 60_000 + " d",
        "Title\n" + "=" * 60_000 + " " * 60_000 + "x\n",
        ("# a" + " " * 2_000 + "\n") * 50,
    ],
)
def test_hostile_headings_of_every_shape_are_read(body: str) -> None:
    for kind in ("text/markdown", "text/x-rst"):
        assert read(body.encode(), content_type=kind).outcome == "ok"


def test_the_text_family_reads_titles_without_regular_expressions() -> None:
    """Titles come from a Markdown parser and a scan of reST lines: no pattern in the
    module can backtrack, because there is none."""
    patterns = [value for value in vars(textual).values() if isinstance(value, re.Pattern)]
    assert patterns == []


def _calls(body: str) -> int:
    """Python function calls made reading ``body`` in this process."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        textual.read_text(body.encode(), "markdown", "text", "text/markdown")
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "# a" + " " * n + "b",
        lambda n: "# a <b>" + " " * n + "</b>c",
        lambda n: "<div hidden>\n\n" + "para\n\n" * (n // 8) + "</div>\n\nend",
        lambda n: "a < b " + "[" * n + "a" + "]" * n,
        lambda n: "a < b " + "*a **b " * (n // 6),
        lambda n: "[x]: /u\n" * (n // 8) + "[x] y",
        lambda n: "a <span hidden>" * (n // 16),
    ],
)
def test_reading_markdown_is_linear_in_its_size(make: Any) -> None:
    """Doubling the input at most about doubles the work (a quadratic reader quadruples it)."""
    small, large = _calls(make(4_000)), _calls(make(8_000))
    assert large <= 2.5 * small


def test_the_time_limit_covers_text_documents_and_the_worker_is_replaced() -> None:
    slow = ("a < b " + "![" * 400_000).encode()  # linear, but long work for a parser
    with pytest.raises(FetchTimeout, match="longer than"):
        read(slow, content_type="text/markdown", timeout=0.3)
    assert read(b"# Still working", content_type="text/markdown").title == "Still working"


def test_text_documents_are_parsed_in_another_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parsing in this process would hold its GIL, and a server's every route with it."""

    def in_this_process(*args: object) -> None:
        raise AssertionError("a text document was parsed in the calling process")

    monkeypatch.setattr(textual, "read_text", in_this_process)
    result = read(b"# Harbour log\n\nThe lamp was lit.", content_type="text/markdown")
    assert result.title == "Harbour log"


def _nested(depth: int, width: int) -> str:
    return "[" * depth + ",".join(["1"] * width) + "]" * depth


def test_deeply_nested_json_is_not_multiplied_by_pretty_printing() -> None:
    """391 KB of nested arrays once came out as 161 MB: indentation grows with depth."""
    body = _nested(400, 195_000)
    result = read(body.encode(), content_type="application/json")
    assert len(result.text) <= 3 * len(body) + 4096
    assert json.loads(result.text) == json.loads(body)


def test_json_of_ordinary_depth_is_still_indented() -> None:
    """The look-alike: a nested document of ordinary size and depth is pretty-printed."""
    body = json.dumps({"port": {"ships": [{"name": "Wick", "tons": [412, 98]}]}})
    result = read(body.encode(), content_type="application/json")
    assert result.text == json.dumps(json.loads(body), indent=2)


def test_json_indentation_stops_growing_below_a_depth() -> None:
    result = read(_nested(30, 3).encode(), content_type="application/json")
    indents = {len(line) - len(line.lstrip(" ")) for line in result.text.splitlines()}
    assert max(indents) <= 2 * 8
    assert json.loads(result.text) == json.loads(_nested(30, 3))
