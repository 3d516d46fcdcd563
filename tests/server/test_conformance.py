"""The server and its OpenAPI description agree: checked by a validator and by schemathesis.

schemathesis generates requests from ``/openapi.json`` (valid ones, invalid ones, the
boundaries of each field, methods the description does not list) and checks every
answer: no 500, every status and header documented, every body of the documented
schema, invalid input refused and valid input accepted. A documented refusal (403
``BLOCKED``, 503 when something is not configured) is an answer, not a failure.

The server gets loopback stand-ins so the success paths run too: a SearXNG-style
search and pages, an OpenAI-compatible model, and package registries that know
nothing. Its process also loads ``loopback_only/sitecustomize.py``: no name but
``localhost`` resolves and no connection leaves loopback, whatever URL was generated.
The run is seeded and deterministic, so a failure reproduces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from openapi_spec_validator import validate

from discover.registries import registries
from llm import payloads_openai
from search.wire import Wire
from server.harness import TOKEN, ServerProcess, model_env

Launch = Callable[..., ServerProcess]
LOOPBACK_ONLY = Path(__file__).with_name("loopback_only")
MARK = "LOOPBACK-ONLY: refused "
EXAMPLES = 25
SUGGESTION = {
    "slug": "nimbus-timeouts",
    "title": "Nimbus timeouts",
    "description": "How Nimbus times out requests.",
    "tags": ["nimbus", "http"],
}
CONFIG = """
[checks.not_a_server_error]
# 502, 503 and 504 say an upstream failed or is not set up (all documented); 500 is a bug.
expected-statuses = ["2xx", "3xx", "4xx", "502", "503", "504"]

[checks.positive_data_acceptance]
# A valid request may still be refused for what it names: a page the guard or robots.txt
# refuses (403), one that cannot be read (422), a name nobody publishes (404), several
# that fit (409), or an upstream or setting that is missing (502, 503, 504). Each of
# those is documented; a 400 here would mean the description accepts what the server
# does not, and fails the run.
expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429", "502", "503", "504"]
"""


def test_the_openapi_document_is_valid_openapi_3_1(launch: Launch) -> None:
    spec = launch().get("/openapi.json", token=None).json()
    validate(spec)
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            statuses = set(operation["responses"])
            assert "500" in statuses, (method, path)  # a bug is still an answer in the shape
            if path == "/api/v1/info":  # open to all, behind the Host and Origin guard only
                assert {"403", "421"} <= statuses
                assert "security" not in operation
            elif method == "post":
                assert {"400", "401", "403", "413", "415", "421", "429"} <= statuses, path
                assert operation["security"] == [{"bearer": []}], path
            elif path.startswith("/api/"):
                assert {"400", "401", "403", "404", "421"} <= statuses, (method, path)
                assert operation["security"] == [{"bearer": []}], path
    discover = spec["paths"]["/api/v1/discover"]["post"]["responses"]
    assert {"404", "409"} <= set(discover)
    research = spec["paths"]["/api/v1/research"]["post"]["responses"]["200"]["content"]
    assert set(research) == {"application/json", "text/event-stream"}
    metrics = spec["paths"]["/metrics"]["get"]
    assert "401" in metrics["responses"]
    assert metrics["security"] == [{"bearer": []}]
    schemas = spec["components"]["schemas"]
    codes = schemas["Error"]["properties"]["code"]["enum"]
    assert {"USAGE_ERROR", "OUT_OF_SCOPE", "START_PAST_END", "MISDIRECTED_REQUEST"} <= set(codes)
    assert "url" in schemas["SuggestBody"]["required"]
    assert schemas["SuggestBody"]["properties"]["url"]["format"] == "uri"
    assert schemas["FetchBody"]["properties"]["url"]["format"] == "uri"
    assert schemas["ResearchBody"]["properties"]["question"]["pattern"] == r"\S"
    assert spec["paths"]["/api/v1/search"]["post"]["responses"]["429"]["headers"]
    crawl = spec["paths"]["/api/v1/crawl"]["post"]["responses"]
    assert "202" in crawl
    assert "200" not in crawl
    assert set(spec["paths"]["/api/v1/crawl/{job}"]) == {"parameters", "get", "delete"}
    pages = schemas["CrawlBody"]["properties"]["max_pages"]
    assert pages["maximum"] == 500  # the server's SLEUTH_CRAWL_JOB_MAX_PAGES
    assert spec["paths"]["/api/v1/info"]["get"]["responses"]["200"]["content"]


def test_schemathesis_finds_no_disagreement(launch: Launch, wire: Wire, tmp_path: Path) -> None:
    wire.on("/v1" + payloads_openai.PATH, payloads_openai.answer(json.dumps(SUGGESTION)))
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    path = os.pathsep.join(filter(None, [str(LOOPBACK_ONLY), os.environ.get("PYTHONPATH", "")]))
    with registries() as regs:
        server = launch(
            **model_env("openai", wire.url("/v1")),
            **regs.env(),
            PYTHONPATH=path,
            SLEUTH_DISCOVER_REGISTRY=str(tmp_path / "no-registry"),
            SLEUTH_RESEARCH_DEADLINE="5",
            SLEUTH_FETCH_DEADLINE="5",
        )
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "schemathesis.cli",
                "--config-file",
                str(config),
                "--no-color",
                "run",
                server.url + "/openapi.json",
                "--checks",
                "all",
                # DELETE /api/v1/crawl/{job} cancels a job; its status and the pages it read
                # stay readable (documented), so a GET after it is a 200 on purpose.
                "--exclude-checks",
                "use_after_free",
                "--max-examples",
                str(EXAMPLES),
                "--seed",
                "20",
                "--generation-deterministic",
                "--workers",
                "2",
                "--request-timeout",
                "60",
                "--header",
                f"Authorization: Bearer {TOKEN}",
                "--suppress-health-check",
                "all",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            cwd=tmp_path,
        )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-12000:]
    assert "No issues found" in report or "passed" in report, report[-4000:]
    assert MARK not in server.log  # nothing the server did tried to leave loopback
    assert "Traceback" not in server.log
