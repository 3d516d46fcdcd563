"""Local documents for the extract operation: which files a folder gives, their bytes
(gunzipped, within the size limit) and each one's JSON record."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from sleuth.errors import SleuthError, UsageError

if TYPE_CHECKING:
    from sleuth.config import DocumentSettings, NetSettings, StyleSettings


class Record(BaseModel):
    """One document's record, as ``sleuth extract --json`` prints it (a dict at run time)."""

    # Only the result's JSON Schema needs it built: an extract run builds no schema.
    model_config = ConfigDict(defer_build=True)

    file: str
    title: str | None
    text: str
    metadata: dict[str, Any]
    outcome: str  # "ok", an outcome code, or "unreadable"
    reason: str | None
    truncated: bool = False


def expand(paths: list[str]) -> list[str]:
    """Files to read, in order: folders become what sleuth reads, ``-`` stays stdin.

    Anything that is no folder is read as a file, so ``/dev/stdin``, ``/dev/null`` and
    ``<(cmd)`` work too, and a missing file is reported in its turn as ``unreadable``.
    """
    if paths.count("-") > 1:
        raise UsageError("- (stdin) can be given only once")
    names: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.is_file() and _readable_file(p))
            names.extend(str(p) for p in sorted(found))
        else:
            names.append(raw)
    return names


def _readable_file(path: Path) -> bool:
    """In a folder: HTML, PDF and the text family by extension; no extension, by its bytes."""
    from sleuth.documents import binary_type, is_pdf, kind_by_name

    if kind_by_name(path.name) is not None:
        return True
    if "." in path.name.removesuffix(".gz").lstrip("."):
        return False  # an extension sleuth does not read (.png, .py, .zip)
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
    except OSError:
        return True  # reported as unreadable in its turn
    return bool(head) and (is_pdf(head) or binary_type(head) is None)


def read(name: str, limit: int) -> bytes | str:
    """The document's bytes (gunzipped when compressed), or why it cannot be read.

    Reads at most ``limit`` + 1 bytes, before and after decompression, so an 83 MB file
    or a gzip bomb costs no more than the limit.
    """
    try:
        if name == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(limit + 1)
    except FileNotFoundError:
        return "no such file or directory"
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if data[:2] != b"\x1f\x8b" or len(data) > limit:
        return data  # too large even compressed: the caller says so
    try:
        unpacker = zlib.decompressobj(wbits=31)
        inflated = unpacker.decompress(data, limit + 1)
    except zlib.error as exc:
        return f"broken gzip data: {exc}"
    if len(inflated) <= limit and not unpacker.eof:
        return "broken gzip data: the stream ends early"
    return inflated


def _size_limit(data: bytes, documents: DocumentSettings, net: NetSettings) -> tuple[int, str]:
    """The byte limit for this document and the setting that raises it."""
    from sleuth.documents import is_pdf

    if is_pdf(data):
        return documents.max_document_bytes, "SLEUTH_MAX_DOCUMENT_BYTES"
    return net.max_decoded_bytes, "SLEUTH_MAX_DECODED_BYTES"


def record(
    name: str,
    data: bytes | str,
    url: str | None,
    output: Literal["text", "markdown"],
    *,
    documents: DocumentSettings,
    net: NetSettings,
    styles: StyleSettings,
) -> dict[str, Any]:
    """One document's JSON record; ``data`` is its bytes or why they could not be read."""
    from sleuth.documents import read as read_document

    shown: dict[str, Any] = {
        "file": name,
        "title": None,
        "text": "",
        "metadata": {},
        "outcome": "unreadable",
        "reason": data if isinstance(data, str) else None,
    }
    if isinstance(data, str):
        return shown
    limit, setting = _size_limit(data, documents, net)
    if len(data) > limit:
        reason = f"it holds more than {limit:,} bytes; raise {setting} to read it"
        return {**shown, "outcome": "too_large", "reason": reason}
    from sleuth.extract.styles import may_use_sheets

    # a saved page's linked sheets hide text too: read from its folder, never the network
    sheets = None
    if name != "-" and may_use_sheets(data.decode("latin-1")):
        from sleuth.documents.sheets import local_styles

        sheets = local_styles(Path(name), styles.max_stylesheet_bytes)
    try:
        result = read_document(
            data,
            name=None if name == "-" else name,
            url=url,
            output=output,
            max_pages=documents.max_document_pages,
            timeout=documents.document_timeout,
            styles=sheets,
        )
    except SleuthError as error:
        return {**shown, "outcome": error.code, "reason": str(error)}
    shown.update(
        title=result.title,
        text=result.text if result.outcome == "ok" else "",
        metadata=result.metadata,
        outcome=result.outcome,
        reason=result.reason,
    )
    pages, done = result.metadata.get("pages"), result.metadata.get("pages_read")
    if isinstance(pages, int) and isinstance(done, int) and done < pages:
        shown["truncated"] = True
    return shown
