"""extract: text from local HTML, PDF and text files (the CLI only)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Annotated, Any, Literal

from sleuth.log import Progress
from sleuth.operation import Arg, declare
from sleuth.ops.base import Op
from sleuth.session import AsyncSession, check_page_url


@declare(
    "extract",
    summary="Extract text from local HTML, PDF and text.",
    result="sleuth.documents.files:Record",
    errors=(
        "usage_error",
        "too_large",
        "unsupported_type",
        "empty_extraction",
        "encrypted",
        "corrupt_document",
        "no_text_layer",
    ),
    surfaces=("cli",),
    local=True,
)
async def extract(
    session: AsyncSession,
    paths: Annotated[
        Sequence[str],
        Arg(
            "HTML, PDF or text files (plain or .gz), folders, or - for stdin (the default).",
            positional=True,
            metavar="PATH",
        ),
    ] = ("-",),
    *,
    url: Annotated[
        str | None,
        Arg(
            "The page's address: resolves the canonical URL and recognises forum threads.",
            metavar="URL",
        ),
    ] = None,
    output: Literal["text", "markdown"] = "text",
    on_progress: Progress | None = None,
) -> AsyncGenerator[dict[str, Any], None]:
    """One record per document, offline: a folder gives every file sleuth reads in it,
    ``-`` is stdin. A file that cannot be read is a record whose outcome says so
    (``unreadable``), and the batch goes on. ``on_progress("file", {"done", "total"})``
    follows each one."""
    from sleuth.documents import files

    if url is not None:
        check_page_url(url)
    names = files.expand(list(paths) or ["-"])
    limit = max(session.settings.max_decoded_bytes, session.settings.max_document_bytes)
    for done, name in enumerate(names, 1):
        yield files.record(
            name,
            files.read(name, limit),
            url,
            output,
            documents=session.settings.documents,
            net=session.settings.net,
            styles=session.settings.styles,
        )
        if on_progress is not None:
            on_progress("file", {"done": done, "total": len(names)})


EXTRACT = Op(extract)
