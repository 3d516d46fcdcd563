"""A PDF printed by Chromium (``--print-to-pdf``): two CSS columns and Chromium's own
running header (date, title) and footer (address, page x/y) on every page."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sleuth.documents.pdf import read_pdf

pytestmark = pytest.mark.chromium

CHROMIUM = "/usr/bin/chromium"
PARAGRAPHS = [
    f"Paragraph {n} tells of the harbour records, the lighthouse keepers and the storms that "
    "grew more frequent along the northern coast in the late nineteenth century."
    for n in range(1, 41)
]


def _print(tmp_path: Path) -> bytes:
    page = tmp_path / "records.html"
    body = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    page.write_text(
        "<!doctype html><html lang=en-US><head><title>Coastal Records</title><style>"
        "body { font: 11pt serif } .cols { column-count: 2; column-gap: 2em }</style></head>"
        f"<body><h1>Storms on the Northern Coast</h1><div class=cols>{body}</div></body></html>"
    )
    out = tmp_path / "records.pdf"
    subprocess.run(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--print-to-pdf={out}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return out.read_bytes()


def test_columns_in_order_and_chromiums_header_and_footer_removed(tmp_path: Path) -> None:
    record = read_pdf(_print(tmp_path), markdown=True, max_pages=200)
    metadata = record["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["pages"] >= 2
    assert record["title"] == "Coastal Records"
    assert metadata["language"] == "en-US"  # the catalogue's /Lang, from <html lang>
    assert record["text"] == "# Storms on the Northern Coast\n\n" + "\n\n".join(PARAGRAPHS)
