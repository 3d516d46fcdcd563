"""fill: a JSON Schema filled from pages, every value quoted from the page it came from.

An ``incomplete`` answer (a required value the pages do not support) is still an answer:
HTTP sends it with 200 and MCP as structured content; only the CLI's exit code (90) says so.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from sleuth.errors import FillIncomplete
from sleuth.extract.text import clean_line
from sleuth.log import Progress
from sleuth.operation import BLANK_PATTERN, Arg, Own, ToolOffer, declare
from sleuth.ops.base import HTTP_URL, Http, Op, Person, describe
from sleuth.session import (
    LLM_ERRORS,
    MAX_QUESTION_CHARS,
    SEARCH_ERRORS,
    SIGNALS_ARG,
    AsyncSession,
    check_page_url,
)
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.structured.models import FillAnswer

MAX_FILL_PAGES = 10  # a fill's pages, given or searched


@declare(
    "fill",
    summary="Fill a JSON Schema from pages, every value quoted from its page.",
    errors=(*SEARCH_ERRORS, "schema_refused", *LLM_ERRORS),  # failed pages: sources
    tool=ToolOffer(
        "fill_schema",
        "Fill a JSON Schema",
        "Fill a JSON Schema from web pages: give the pages' URLs, or a question to search "
        "for them. Every value comes with a quote found on the page; a value the pages do "
        "not state is null or left out and listed as unsupported with its reason.",
        in_ask=False,  # it is itself a model call
    ),
)
async def fill(
    session: AsyncSession,
    schema: Annotated[
        dict[str, Any] | Path,
        Arg(
            "A JSON Schema file, or - to read it from standard input.",
            positional=True,
            metavar="SCHEMA",
            own={
                "http": Own(help="The JSON Schema of the object to fill."),
                "tool": Own(help="The JSON Schema of the object to fill."),
            },
        ),
    ],
    urls: Annotated[
        Sequence[str],
        Arg(
            "The pages to fill it from (http or https); or give a question instead.",
            min_length=1,
            max_items=MAX_FILL_PAGES,
            positional=True,
            metavar="URL",
        ),
    ] = (),
    *,
    question: Annotated[
        str | None,
        Arg(
            "Search for this and fill the schema from the pages found, instead of URLs.",
            min_length=1,
            max_length=MAX_QUESTION_CHARS,
            pattern=BLANK_PATTERN,
            metavar="TEXT",
        ),
    ] = None,
    max_pages: Annotated[
        int | None,
        Arg(
            "With a question: pages to read, 1-10. Default: SLEUTH_MAX_PAGES.",
            ge=1,
            le=MAX_FILL_PAGES,
            metavar="N",
            own={"tool": Own(le=5, help="With a question: pages to read, 1-5.")},
        ),
    ] = None,
    respect_content_signals: Annotated[bool, SIGNALS_ARG] = True,
    on_progress: Progress | None = None,
) -> FillAnswer:
    """The schema filled from the pages; see :mod:`sleuth.structured`. A value the pages do
    not support is null or left out, and the answer is ``incomplete`` when the schema
    requires it."""
    from sleuth.structured import check_schema
    from sleuth.structured.run import check_sources, read_schema, run_fill

    checked = check_schema(read_schema(schema))  # before any page or model request
    check_sources(urls, question)
    for url in urls:
        check_page_url(url)
    return await run_fill(
        checked,
        urls=urls,
        question=question,
        web=session.web,
        chain=session.chain,
        llm=session.settings.llm,
        cache=session.cache,
        max_pages=max_pages or session.settings.research.max_pages,
        for_model=respect_content_signals,
        on_progress=on_progress,
    )


def read_first(arguments: dict[str, Any]) -> None:
    """The schema, from its file or standard input, before the spinner draws or anything
    is asked: a bad schema is the first thing a person hears of."""
    from sleuth.structured.run import read_schema

    arguments["schema"] = read_schema(arguments["schema"])


def progress(stage: str, detail: dict[str, Any]) -> str:
    """The line a person watching a fill reads (the CLI's status and MCP's progress)."""
    if stage == "filling":
        pages = detail.get("pages", 0)
        return f"asking the model about {pages} page{'' if pages == 1 else 's'}"
    return describe(stage, detail)


def render(answer: FillAnswer) -> str:
    """The answer for a person or a model: each value with its quote and page, then what
    the pages did not support and why, then the pages."""
    lines = [f"outcome: {answer.outcome}"]
    for item in answer.evidence:
        lines.append(f"{item.path} = {json.dumps(item.value, ensure_ascii=False)}")
        lines.append(f"  quote: {clean_line(item.quote)!r}")
        lines.append(f"  at: {item.locator}")
    if answer.unsupported:
        lines.append("unsupported:")
        for missing in answer.unsupported:
            lines.append(f"  {missing.path}: {missing.reason}")
            for side in missing.quotes:
                value = json.dumps(side.value, ensure_ascii=False)
                lines.append(f"    {value} ({clean_line(side.quote)!r}, {side.url})")
    lines.append("sources:")
    lines += [f"  {source.url}: {source.outcome}" for source in answer.sources]
    return "\n".join(lines)


async def run(context: ToolContext, args: Any) -> ToolOutput:
    session = context.client
    assert isinstance(session, AsyncSession)  # fill searches with the session's own chain
    answer = await fill(
        session, **FILL.operation.arguments("tool", args), on_progress=context.on_progress
    )
    data = json.dumps(answer.data, ensure_ascii=False)
    return ToolOutput(f"{render(answer)}\ndata: {data}", answer)


@functools.cache
def fill_tool() -> Tool:
    """The fill tool, built when first offered: the answer's models load then."""
    from sleuth.structured.models import FillAnswer

    return Tool.declared(fill, run, FillAnswer)


def one_source(schema: dict[str, Any], settings: Settings | None) -> None:
    """The body as its check reads it: absolute http(s) URLs, and exactly one of ``urls``
    and ``question``."""
    schema["properties"]["urls"]["items"].update(HTTP_URL)
    schema["oneOf"] = [
        {
            "required": ["urls"],
            "properties": {"urls": {"minItems": 1}, "question": {"type": "null"}},
        },
        {
            "required": ["question"],
            "properties": {"question": {"type": "string"}, "urls": {"maxItems": 0}},
        },
    ]


FILL = Op(
    fill,
    http=Http(
        "/api/v1/fill",
        "Fill a JSON Schema from pages, every value quoted",
        "Send `schema` with either `urls` or `question` (not both). The answer is 200 "
        'whether its `outcome` is `"ok"` or `"incomplete"` (a required value the pages do '
        "not support); 422 SCHEMA_REFUSED for a schema sleuth will not fill, 400 for both or "
        "neither of urls and question, 503 LLM_NOT_CONFIGURED when no model is set up.",
        refine=one_source,
    ),
    progress=progress,
    tool=fill_tool,
    person=Person(
        render,
        waiting="filling",
        error=lambda answer: None if answer.outcome == "ok" else FillIncomplete,
        place=120,
        prepare=read_first,
        help="Give the pages' URLs, or a question to search for them. Exits 90 when a value "
        "the schema requires is not supported by the pages; the answer is printed all the same.",
    ),
)
