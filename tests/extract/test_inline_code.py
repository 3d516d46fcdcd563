"""Code in a sentence stays in the sentence; a code block stays a block."""

from __future__ import annotations

from sleuth.extract import extract

WORDS = (
    "The default applies to connect and read alike, which surprises people who expect a "
    "longer read timeout for large downloads over slow links."
)
PAGE = f"""<html><body><article><h1>Timeouts</h1>
<p>Call <code>Client(timeout=5)</code> to set it for every request the client sends, and
read on for the details that matter when you tune it.</p>
<p>{WORDS}</p>
<pre><code>client = Client(timeout=5)
client.get(url)</code></pre>
<p>{WORDS}</p>
<ul><li>Use <code>retries=3</code> for flaky networks that drop a request now and then.</li></ul>
</article></body></html>"""


def test_inline_code_is_backticked_inside_its_sentence() -> None:
    text = extract(PAGE, output="markdown").text
    assert "Call `Client(timeout=5)` to set it" in text
    assert "Use `retries=3` for flaky networks" in text


def test_a_code_block_is_fenced_on_lines_of_its_own() -> None:
    text = extract(PAGE, output="markdown").text
    assert "```\nclient = Client(timeout=5)\nclient.get(url)\n```" in text


def test_html_output_keeps_inline_code_inline() -> None:
    html = extract(PAGE, output="html").text
    assert "<code>Client(timeout=5)</code>" in html
    assert "<pre>" in html
