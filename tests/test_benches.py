"""Every script in bench/ still runs against today's sleuth.

Nothing else runs the benchmarks, so an API they lean on can change under them unseen
(bench/fill.py once stopped at start for a constructor that had moved). Each bench is
imported and the settings it gives are checked against the ones sleuth reads; the cheap
ones run to their table with the smallest options, on a data set of a few pages written
here in the layouts the real sets use, and the heavy ones run their sleuth parts once.
"""

from __future__ import annotations

import ast
import asyncio
import gzip
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from loopback import serve
from sleuth.cache import MemoryCache
from sleuth.config import TOML_ONLY, Settings

ROOT = Path(__file__).resolve().parent.parent
BENCHES = sorted(path.stem for path in (ROOT / "bench").glob("*.py"))

ARTICLES = {
    "harbour": (
        "article",
        "Harbour lamps restored",
        [
            "The harbour board restored the three lamps on the north pier after a winter of"
            " storms left their lenses cracked and their wicks soaked.",
            "Volunteers cleaned each lens by hand and the keepers logged the first night the"
            " lamps burned again, a clear evening with no fog over the channel.",
        ],
    ),
    "ledger": (
        "article",
        "Customs ledger digitised",
        [
            "The customs ledger of the old quay, two centuries of cargo records, is now"
            " readable online after a year of transcription by the town archive.",
            "Each entry names the vessel, its cargo and the duty paid, and the archive says"
            " the ledger shows how trade moved from timber to grain over the century.",
        ],
    ),
    "tides": (
        "documentation",
        "Reading the tide tables",
        [
            "A tide table lists the times and heights of high and low water for each day,"
            " measured against the chart datum of the port in question.",
            "To find the depth over a shoal, add the height of the tide to the charted"
            " sounding, then allow a margin for swell and for the vessel's own draught.",
        ],
    ),
}


def _html(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>Contact the editor</footer>"
        "</body></html>"
    ).encode()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The pages in the AEB layout and in the WCXB dev layout."""
    root = tmp_path_factory.mktemp("bench-data")
    aeb, wcxb = root / "aeb", root / "wcxb"
    (aeb / "html").mkdir(parents=True)
    (wcxb / "dev" / "html").mkdir(parents=True)
    (wcxb / "dev" / "ground-truth").mkdir(parents=True)
    truth = {}
    for stem, (kind, title, paragraphs) in ARTICLES.items():
        page = gzip.compress(_html(title, paragraphs))
        (aeb / "html" / f"{stem}.html.gz").write_bytes(page)
        (wcxb / "dev" / "html" / f"{stem}.html.gz").write_bytes(page)
        truth[stem] = {"articleBody": "\n".join(paragraphs)}
        record = {
            "url": f"https://news.example/{stem}",
            "ground_truth": {
                "title": title,
                "main_content": "\n\n".join(paragraphs),
                "with": [paragraphs[0][:40]],
                "without": ["Contact the editor"],
            },
            "_internal": {"page_type": {"primary": kind}},
        }
        (wcxb / "dev" / "ground-truth" / f"{stem}.json").write_text(json.dumps(record))
    (aeb / "ground-truth.json").write_text(json.dumps(truth))
    return {"aeb": aeb, "wcxb": wcxb}


def _load(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A bench as a module, imported as its script would be: its own folder first."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    for sibling in BENCHES:
        monkeypatch.delitem(sys.modules, sibling, raising=False)
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look it up as it loads
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", BENCHES)
def test_every_bench_imports(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert callable(_load(name, monkeypatch).main)


def _callee(node: ast.Call) -> str:
    function = node.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


@pytest.mark.parametrize("name", BENCHES)
def test_every_setting_a_bench_gives_is_one_sleuth_reads(name: str) -> None:
    # Settings ignores a keyword it does not know, and the environment has no schema:
    # a renamed setting would leave a bench measuring the default, silently.
    source = (ROOT / "bench" / f"{name}.py").read_text()
    given = {
        keyword.arg
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and _callee(node).lower().endswith("settings")
        for keyword in node.keywords
        if keyword.arg is not None
    }
    given |= {var.removeprefix("SLEUTH_").lower() for var in re.findall(r"\bSLEUTH_\w+", source)}
    assert given - set(Settings.model_fields) == set()
    assert given & TOML_ONLY == set()


def _run(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_fill_keeps_every_true_value_of_one_round() -> None:
    out = _run("bench/fill.py", "--rounds", "1")
    assert "true values kept: 18/18" in out
    assert "planted mistakes caught: 6/6" in out


def test_detect_times_a_small_monorepo() -> None:
    out = _run(
        "bench/detect.py",
        *("--projects", "2", "--files-per-project", "3", "--repeat", "1", "--single-runs", "1"),
    )
    assert "sleuth detect --mode static" in out
    assert "sleuth detect, single project" in out


def test_detect_breadth_names_its_signalled_frameworks() -> None:
    out = _run("bench/detect_breadth.py")
    assert "coverage: " in out
    assert "probes: detect names " in out


def test_extraction_scores_both_layouts(data: dict[str, Path]) -> None:
    aeb = _run("bench/extraction.py", str(data["aeb"]), "--repeat", "1", "--bootstrap", "2")
    assert "AEB: 3 pages" in aeb
    wcxb = _run("bench/extraction.py", str(data["wcxb"]), "--repeat", "1")
    assert "WCXB: 3 pages" in wcxb
    for out in (aeb, wcxb):
        assert {"sleuth", "trafilatura", "readability-lxml"} <= set(out.split())


def test_page_types_judges_every_reviewed_page(data: dict[str, Path]) -> None:
    out = _run("bench/page_types.py", str(data["wcxb"]))
    assert "overall: " in out
    assert "/3 = " in out


def test_grounding_checks_the_quotes_of_research_runs(data: dict[str, Path]) -> None:
    # Two pages: each research run has one distractor where the full sets give two.
    out = _run("bench/grounding.py", str(data["wcxb"]), "--articles", "2", "--others", "0")
    assert "2 research runs" in out
    assert "Goals: in page 100%" in out


def test_grounding_reads_the_aeb_layout(
    data: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = _load("grounding", monkeypatch).load_aeb(data["aeb"], 3, 1)
    assert {page.title for page in pages.values()} == {title for _, title, _ in ARTICLES.values()}
    assert "restored the three lamps on the north pier" in pages["harbour"].visible
    assert " keepers logged the first night " in pages["harbour"].main


# The heavy benches (many runs, fixed latencies, servers and Redis in child processes)
# are too slow to run here; their parts that touch sleuth run once, on a tiny input.


def test_crawl_crawls_and_fetches_a_site_of_five_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    crawl = _load("crawl", monkeypatch)
    with crawl.site(5, 10) as origin:
        fetched, _ = asyncio.run(crawl.fetch_rate(origin, 5, 2))
        crawled, _ = asyncio.run(crawl.crawl_rate(origin, 5, 2, 0.001, MemoryCache(100)))
    assert fetched == 5
    assert crawled == 5


def test_research_measures_a_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    research = _load("research", monkeypatch)
    title, paragraphs = research.ARTICLES["manual"]
    with serve() as site:
        page = site.add("/page/manual", research.render(title, paragraphs))
        results = [{"url": page, "title": title, "content": ""}]
        site.add("/search", json.dumps({"results": results}))
        settings = research.bench_settings(site.origin)
        digest, wall, cpu = asyncio.run(research.measure(settings, MemoryCache(64), 30.0, 1))
    row = research.row("complete", "cold", None, 0, digest, wall, cpu, 30.0)
    assert row.bullets > 0
    assert row.errors == 0
    assert not row.deadline_hit


def test_discover_times_the_registry_and_replays_the_model(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    discover = _load("discover", monkeypatch)
    discover.registry_stage(3)
    discover.llm_stage()
    out = capsys.readouterr().out
    assert "Registry stage: 3 names" in out
    assert "worst cost per discovery $" in out
    for tool in discover.CONVERSATIONS:
        assert f"\n{tool} " in out


def test_documents_reads_a_generated_pdf_with_every_extractor(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    documents = _load("documents", monkeypatch)
    documents.generate(tmp_path, count=1)
    (pdf,) = tmp_path.glob("*.pdf")
    data, truth = pdf.read_bytes(), pdf.with_suffix(".txt").read_text()
    assert documents.page_count(data) == 3
    for name, extractor in documents.EXTRACTORS.items():
        f1 = documents.page_counts_f1(documents.page_counts(truth, extractor(data)))
        assert f1 > 0.5, name


def test_visibility_reads_cases_statically_and_in_the_browser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    visibility = _load("visibility", monkeypatch)
    catalogue = visibility.test_cases()
    hidden = [c for c in catalogue if c.name == "display-none"]
    hidden += [c for c in visibility.css_cases()[:2] if c.sheets]  # a linked style sheet
    shown = [next(c for c in catalogue if c.technique == "look-alike")]
    asyncio.run(visibility.run_cases([*hidden, *shown], 2))
    assert len(hidden) == 2
    for case in [*hidden, *shown]:
        assert case.error == ""
        assert case.static is (case in shown)
        assert case.browser is (case in shown)
