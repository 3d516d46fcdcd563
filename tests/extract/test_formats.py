"""Paragraph, heading and list boundaries in each output format."""

from __future__ import annotations

from lxml import html as lxml_html

from sleuth.extract import extract
from sleuth.extract.serialize import render

from .pages import page

FIRST = "A small array of tidal turbines anchored in the channel"
SECOND = "The four turbines, each roughly the size of a double-decker bus"
HEADING = "Why the winter mattered"
ITEMS = (
    "blades reshaped after a year of tank tests in Edinburgh",
    "a new gearbox seal that no longer lets salt water in",
    "remote monitoring that spots faults before they stop a turbine",
)
QUOTE = "“We expected to spend the winter fixing things."


def _paragraphs(text: str) -> list[str]:
    return text.split("\n\n")


def _starting(paragraphs: list[str], prefix: str) -> str:
    return next(p for p in paragraphs if p.startswith(prefix))


def test_text_separates_paragraphs_and_keeps_headings_and_items_apart() -> None:
    text = extract(page("article"), output="text").text
    paragraphs = _paragraphs(text)
    assert paragraphs[0].startswith(FIRST)
    assert paragraphs[1].startswith(SECOND)
    assert HEADING in paragraphs  # a heading is a paragraph of its own, unmarked
    assert _starting(paragraphs, "- ") == "\n".join(f"- {item}" for item in ITEMS)
    assert _starting(paragraphs, "“We expected").startswith(QUOTE)
    assert "#" not in text
    assert "<" not in text
    assert "**" not in text


def test_text_does_not_repeat_the_title() -> None:
    result = extract(page("article"))
    assert result.title == "Tidal Energy Pilot Doubles Output in First Winter"
    assert result.title not in result.text


def test_markdown_marks_headings_lists_and_quotes() -> None:
    paragraphs = _paragraphs(extract(page("article"), output="markdown").text)
    assert paragraphs[0].startswith(FIRST)
    assert f"## {HEADING}" in paragraphs
    assert _starting(paragraphs, "- ") == "\n".join(f"- {item}" for item in ITEMS)
    assert _starting(paragraphs, "> ").startswith(f"> {QUOTE}")


def test_markdown_code_blocks_tables_and_numbered_lists() -> None:
    text = extract(page("docs_page"), output="markdown").text
    assert '```\nqueue = broker.declare(\n    "invoices",\n' in text
    assert "| Policy | Delay before attempt n | Use when |\n| --- | --- | --- |" in text
    assert "| exponential | delay × 2^n, plus jitter | you do not know why it failed |" in text
    assert "1. Retrying non-idempotent consumers" in text
    assert "\n2. Setting `attempts` above 20" in text  # inline code stays in its sentence
    assert "## Choosing a policy" in text


def test_text_keeps_code_indentation_and_table_rows() -> None:
    text = extract(page("docs_page"), output="text").text
    assert "    retry=Exponential(base=2.0, max_delay=300, attempts=8)," in text
    assert "fixed | always the same delay | the failure clears on a known schedule" in text
    assert "- Retrying non-idempotent consumers" in text


def test_html_is_the_sanitised_main_content() -> None:
    html = extract(page("article"), output="html").text
    tree = lxml_html.fragment_fromstring(html)
    assert tree.tag == "article"
    assert [h.text for h in tree.iter("h2")] == [HEADING]
    assert [li.text for li in tree.iter("li")] == list(ITEMS)
    assert len(list(tree.iter("p"))) >= 5
    assert tree.find(".//blockquote") is not None
    assert all(not element.attrib for element in tree.iter())
    for unwanted in ("<script", "<nav", "<footer", "Related stories", "dataLayer"):
        assert unwanted not in html


def test_line_breaks_one_br_is_a_line_two_are_a_paragraph() -> None:
    text = extract(page("text_with_breaks")).text
    paragraphs = _paragraphs(text)
    assert paragraphs[0] == (
        "Posto de saúde do bairro Jardim amplia horário de atendimento\n"
        "12/03/2024 - Publicado por: Assessoria de Comunicação"
    )
    assert paragraphs[1].startswith("A partir da próxima segunda-feira")
    assert paragraphs[2].startswith("Segundo a Secretaria de Saúde")


def test_renderer_handles_nested_lists_definitions_and_inline_marks() -> None:
    source = (
        "<div><p>Mix <b>flour</b> and <i>water</i>, then run <code>feed()</code>.</p>"
        "<ol start='3'><li>Fold<ul><li>gently</li><li>twice</li></ul></li><li>Rest</li></ol>"
        "<dl><dt>Hooch</dt><dd>grey liquid on a hungry starter</dd></dl>"
        "<p>x<sup>2</sup> grows</p></div>"
    )
    markdown = render(lxml_html.fragment_fromstring(source), "markdown")
    assert markdown == (
        "Mix **flour** and *water*, then run `feed()`.\n\n"
        "3. Fold\n  - gently\n  - twice\n4. Rest\n\n"
        "- Hooch\n  grey liquid on a hungry starter\n\n"
        "x^2 grows"
    )
    text = render(lxml_html.fragment_fromstring(source), "text")
    assert text.startswith("Mix flour and water, then run feed().\n\n- Fold\n  - gently")


def test_html_output_strips_attributes_and_unknown_tags() -> None:
    source = (
        '<div class="x"><p style="color:red" onclick="steal()">Hi <span data-a="1">there</span>'
        ' <a href="javascript:steal()">friend</a></p><custom-el>inside</custom-el></div>'
    )
    html = render(lxml_html.fragment_fromstring(source), "html")
    assert html == "<article><p>Hi there friend</p>inside</article>"


def test_a_layout_table_reads_each_entry_once() -> None:
    # a page laid out with tables: the list of entries is a table inside the layout's cell
    entries = "".join(
        f"<tr><td>{n}.</td><td>Entry {n} of the harbour ledger</td></tr>" for n in range(1, 4)
    )
    source = (
        "<table><tr><td>Harbour news</td></tr>"
        f"<tr><td><p>Ledgers of the bay.</p><table>{entries}</table></td></tr></table>"
    )
    for output in ("text", "markdown"):
        rendered = render(lxml_html.fragment_fromstring(source), output)
        for n in range(1, 4):
            assert rendered.count(f"Entry {n} of the harbour ledger") == 1, output
        assert rendered.count("Ledgers of the bay.") == 1
    text = render(lxml_html.fragment_fromstring(source), "text")
    assert "1. | Entry 1 of the harbour ledger" in text
