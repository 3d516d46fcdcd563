"""``sleuth extract`` on PDFs, text and binaries: outcomes, exit codes, limits, batches."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pdfs import grey_image, pdf, text
from reportlab.pdfgen.canvas import Canvas

from sleuth.errors import EXIT_CODES

NOTE = "The harbour board met on Tuesday and approved the new lamp."


def run(
    *args: str, env: dict[str, str] | None = None, stdin: bytes = b""
) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    full.update(env or {})
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "extract", *args],
        input=stdin,
        capture_output=True,
        env=full,
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def _scan(canvas: Canvas) -> None:
    canvas.drawImage(grey_image(), 50, 400, width=480, height=300)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    made = {
        "note.pdf": pdf(text(72, 700, NOTE), title="Board minutes"),
        "secret.pdf": pdf(text(72, 700, NOTE), encrypt="hunter2"),
        "scan.pdf": pdf(_scan),
        "broken.pdf": b"%PDF-1.7\nnothing else\n",
        "ls": b"\x7fELF\x02\x01\x01\x00" + bytes(4000),
    }
    paths = {}
    for name, data in made.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    return paths


def test_a_pdf_prints_its_text(files: dict[str, Path]) -> None:
    done = run(str(files["note.pdf"]))
    assert (done.returncode, done.stdout, done.stderr) == (0, NOTE + "\n", "")


def test_a_pdf_on_stdin_is_recognised_by_its_bytes(files: dict[str, Path]) -> None:
    done = run("--json", stdin=files["note.pdf"].read_bytes())
    record = json.loads(done.stdout)
    assert (record["outcome"], record["text"], record["title"]) == ("ok", NOTE, "Board minutes")
    assert record["metadata"]["pages"] == 1
    assert record["metadata"]["page_offsets"] == [0]


@pytest.mark.parametrize(
    ("name", "outcome", "says"),
    [
        ("secret.pdf", "encrypted", "password"),
        ("scan.pdf", "no_text_layer", "OCR"),
        ("broken.pdf", "corrupt_document", "PDFium"),
        ("ls", "unsupported_type", "ELF"),
    ],
)
def test_each_failure_has_its_outcome_and_exit_code(
    files: dict[str, Path], name: str, outcome: str, says: str
) -> None:
    done = run(str(files[name]))
    assert done.returncode == EXIT_CODES[outcome]
    assert done.stdout == ""
    assert done.stderr.startswith(f"sleuth: {outcome}: ")
    assert says in done.stderr
    assert len(done.stderr.splitlines()) == 1
    record = json.loads(run(str(files[name]), "--json").stdout)
    assert (record["outcome"], record["text"]) == (outcome, "")


def test_a_file_past_the_byte_limit_is_too_large(tmp_path: Path, files: dict[str, Path]) -> None:
    page = tmp_path / "big.html"
    page.write_text("<p>" + "word " * 4000 + "</p>")
    done = run(str(page), env={"SLEUTH_MAX_DECODED_BYTES": "10000"})
    assert done.returncode == EXIT_CODES["too_large"]
    assert "SLEUTH_MAX_DECODED_BYTES" in done.stderr
    done = run(str(files["note.pdf"]), env={"SLEUTH_MAX_DOCUMENT_BYTES": "500"})
    assert done.returncode == EXIT_CODES["too_large"]
    assert "SLEUTH_MAX_DOCUMENT_BYTES" in done.stderr


def test_a_gzip_bomb_stops_at_the_limit(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.html.gz"
    bomb.write_bytes(gzip.compress(b"<p>" + b"a" * 50_000_000))
    done = run(str(bomb), env={"SLEUTH_MAX_DECODED_BYTES": "1000000"})
    assert done.returncode == EXIT_CODES["too_large"]


def test_deep_nesting_is_too_large_with_a_reason_never_cut_short(tmp_path: Path) -> None:
    page = tmp_path / "deep.html"
    page.write_text("<html><body>" + "".join(f"<div>cell {n} " for n in range(200_000)))
    done = run(str(page))
    assert done.returncode == EXIT_CODES["too_large"]
    assert "200,000 elements deep" in done.stderr
    shallow = tmp_path / "shallow.html"
    shallow.write_text("<html><body>" + "".join(f"<div>cell {n} " for n in range(200)))
    done = run(str(shallow), "--json")
    record = json.loads(done.stdout)
    assert "cell 199" in record["text"]


def test_the_page_cap_marks_the_record_truncated(tmp_path: Path) -> None:
    report = tmp_path / "report.pdf"
    report.write_bytes(pdf(*(text(72, 700, f"Chapter {n} of the report.") for n in range(1, 6))))
    done = run(str(report), "--json", env={"SLEUTH_MAX_DOCUMENT_PAGES": "2"})
    record = json.loads(done.stdout)
    assert record["truncated"] is True
    assert (record["metadata"]["pages"], record["metadata"]["pages_read"]) == (5, 2)
    assert record["text"] == "Chapter 1 of the report.\n\nChapter 2 of the report."


def test_a_batch_goes_on_past_missing_and_unreadable_files(
    tmp_path: Path, files: dict[str, Path]
) -> None:
    missing = tmp_path / "missing.html"
    done = run(str(missing), str(files["note.pdf"]), str(files["ls"]), "--format", "jsonl")
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["outcome"] for r in records] == ["unreadable", "ok", "unsupported_type"]
    assert records[0]["reason"] == "no such file or directory"
    assert records[1]["text"] == NOTE
    assert done.returncode == EXIT_CODES["empty_extraction"]


def test_a_folder_expands_to_what_sleuth_reads(tmp_path: Path, files: dict[str, Path]) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "minutes").write_bytes(files["note.pdf"].read_bytes())  # no extension: sniffed
    (folder / "README").write_text("Read me first.")
    (folder / "data.csv").write_text("port,ships\nWick,412\n")
    (folder / "feed.xml").write_text(
        "<rss><channel><item><title>Gale</title></item></channel></rss>"
    )
    (folder / "ls").write_bytes(files["ls"].read_bytes())  # no extension, binary: skipped
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(50))
    (folder / "script.py").write_text("print('not read')")
    done = run(str(folder), "--format", "jsonl")
    records = {Path(r["file"]).name: r for r in map(json.loads, done.stdout.splitlines())}
    assert sorted(records) == ["README", "data.csv", "feed.xml", "minutes"]
    assert records["minutes"]["text"] == NOTE
    assert records["data.csv"]["text"] == "port | ships\nWick | 412"
    assert records["feed.xml"]["text"] == "Gale"
    assert done.returncode == 0
