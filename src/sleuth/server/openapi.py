"""The OpenAPI 3.1 description of the server, built from the same models the routes use,
and a small self-contained page at ``/docs`` that renders it (no CDN, no script from elsewhere).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sleuth._version import __version__
from sleuth.config import Settings
from sleuth.errors import ERRORS
from sleuth.ops.base import TRANSPORT_STATUSES

_ERROR = {
    "type": "object",
    "description": "Every failure of every route. The code is a row of sleuth's one error "
    "table (docs/exit-codes.md, in capitals), which gives the status too; an error may add "
    "fields (choices, usage, url, status).",
    "required": ["error", "code", "retryable"],
    "properties": {
        "error": {
            "type": "string",
            "description": "what went wrong and what to do (naming request fields)",
        },
        "code": {"enum": sorted(code.upper() for code in ERRORS if code != "ok")},
        "retryable": {"type": "boolean", "description": "the same request may succeed later"},
    },
}


def build_spec(settings: Settings | None = None) -> dict[str, Any]:
    """The description of a server with ``settings`` (what depends on them: whether a
    question may ask for the model's own search without naming a provider)."""
    from sleuth.ops import served
    from sleuth.server import routes
    from sleuth.server.crawl import PAGE_SIZE, CrawlJob

    components: dict[str, Any] = {"Error": _ERROR}

    def ref(model: type[BaseModel], *, by_alias: bool = True) -> dict[str, Any]:
        schema = model.model_json_schema(
            by_alias=by_alias, ref_template="#/components/schemas/{model}"
        )
        components.update(schema.pop("$defs", {}))
        components[model.__name__] = schema
        return {"$ref": f"#/components/schemas/{model.__name__}"}

    def api(
        summary: str,
        body: type[BaseModel],
        result: type[BaseModel],
        extra: str = "",
        *,
        statuses: tuple[int, ...] = (),
        stream: bool = False,
    ) -> dict[str, Any]:
        ok: dict[str, Any] = _json(ref(result))
        if stream:
            ok["text/event-stream"] = {
                "schema": {
                    "type": "string",
                    "description": "with Accept: text/event-stream: `progress` events, then "
                    "one `result` (the digest) or `error` event (an Error object)",
                }
            }
        return {
            "post": {
                "summary": summary,
                "description": extra,
                "security": [{"bearer": []}],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ref(body)}},
                },
                "responses": {
                    "200": {"description": "the CLI's --json object", "content": ok},
                    **_errors(*statuses),
                },
            }
        }

    paths: dict[str, Any] = {
        "/": _get("The web page.", "text/html", {"type": "string"}, 404, guarded=True),
        "/healthz": _get("Liveness: the process answers.", schema=_HEALTH),
        "/readyz": _get(
            "Readiness: the cache backend is reachable (503 if not).", schema=_READY, ready=True
        ),
        "/metrics": _get(
            "Prometheus metrics of this instance.",
            "text/plain",
            {"type": "string"},
            401,
            guarded=True,
            auth=True,
        ),
        "/openapi.json": _get("This description.", schema={"type": "object"}, guarded=True),
        "/docs": _get("This description as a page.", "text/html", {"type": "string"}, guarded=True),
        "/favicon.ico": _get("The icon.", "image/svg+xml", {"type": "string"}, guarded=True),
        routes.INFO_PATH: _get(
            "What this server offers, for a page before it asks anything (no token needed).",
            schema=_INFO,
            guarded=True,
        ),
    }
    job = ref(CrawlJob)
    crawl_path = "/"
    for op in served():
        http = op.http
        assert http is not None
        body = op.body()
        result = http.schema or (CrawlJob if http.job else op.operation.result_model())
        path = api(
            http.summary, body, result, http.description, statuses=op.statuses(), stream=http.stream
        )
        if http.job:
            crawl_path = http.path
            path["post"]["responses"]["202"] = {
                "description": "the job started",
                "content": _json(job),
            }
            del path["post"]["responses"]["200"]
        paths[http.path] = path
    job_id = {
        "name": "job",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "minLength": 1},
        "description": f"the id POST {crawl_path} answered",
    }
    bound = _errors(*TRANSPORT_STATUSES, 404)
    for status in ("413", "415"):  # no body to refuse
        bound.pop(status)
    found = {"200": {"description": "the job", "content": _json(job)}, **bound}
    paths[crawl_path + "/{job}"] = {
        "parameters": [job_id],
        "get": {
            "summary": "A crawl job's status and a page of its page records",
            "security": [{"bearer": []}],
            "parameters": [
                _query("cursor", "records already read (next_cursor of the last page)", 0),
                _query("limit", f"records in this page (default {PAGE_SIZE})", 1, 100),
            ],
            "responses": found,
        },
        "delete": {
            "summary": "Cancel a crawl job (its records stay readable)",
            "security": [{"bearer": []}],
            "responses": found,
        },
    }
    for op in served():  # each operation's own words on its body
        assert op.http is not None
        if op.http.refine is not None:
            op.http.refine(components[op.body().__name__], settings)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "sleuth",
            "version": __version__,
            "description": "Safe, fast, cited access to the web. MCP (streamable HTTP) is at "
            "/mcp behind the same bearer tokens (POST only: the endpoint is stateless). "
            "Without tokens, requests must name the server as localhost, a loopback address "
            "or a name in SLEUTH_SERVER_HOSTS (421 otherwise); with tokens, only when that "
            "list is set. A browser's Origin must be the server's own or listed in "
            "SLEUTH_CORS_ORIGINS (403 ORIGIN_NOT_ALLOWED otherwise). Bodies must be "
            "Content-Type: application/json (415), at most SLEUTH_MAX_BODY_BYTES (413) and "
            "nested at most 32 levels (400).",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


_WHY = {
    400: "bad input: a field, JSON that does not parse or nests too deeply, an unknown provider",
    401: "no valid bearer token",
    403: "refused: the network guard or robots.txt (BLOCKED, ROBOTS_DISALLOWED), or a browser "
    "page of an origin not listed in SLEUTH_CORS_ORIGINS (ORIGIN_NOT_ALLOWED)",
    404: "not found (NOT_FOUND, or the web page is not installed)",
    409: "several sources fit (AMBIGUOUS, with choices) or a confirmation is needed",
    413: "the body is over SLEUTH_MAX_BODY_BYTES (BODY_TOO_LARGE)",
    415: "the body is not declared Content-Type: application/json",
    421: "the Host is not one this server answers to (MISDIRECTED_REQUEST)",
    422: "the page or request cannot be processed (too large, no text, a model's refusal)",
    429: "rate limit or budget spent; see Retry-After",
    500: "the server failed unexpectedly: a bug (no internals are shown)",
    502: "an upstream (site, search provider, model) failed",
    503: "not configured (a search provider, a model, the browser) or the cache is down",
    504: "a deadline passed",
}
_INFO = {
    "type": "object",
    "required": ["version", "auth_required", "llm_configured", "search_providers"],
    "properties": {
        "version": {"type": "string"},
        "auth_required": {"type": "boolean", "description": "API calls need a bearer token"},
        "llm_configured": {
            "type": "boolean",
            "description": "a model is set up, so links/suggest and ask can answer",
        },
        "search_providers": {
            "type": "array",
            "items": {"type": "string"},
            "description": "the search providers tried, in order",
        },
    },
}
_HEALTH = {
    "type": "object",
    "required": ["status"],
    "properties": {"status": {"const": "ok"}},
}
_READY = {
    "type": "object",
    "required": ["status", "cache"],
    "properties": {
        "status": {"enum": ["ready", "unavailable"]},
        "cache": {
            "type": "object",
            "required": ["backend", "reachable", "fallback"],
            "properties": {
                "backend": {"type": "string"},
                "reachable": {"type": "boolean"},
                "fallback": {"type": "boolean"},
                "error": {"type": "string"},
            },
        },
    },
}


def _query(name: str, description: str, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum}
    if maximum is not None:
        schema["maximum"] = maximum
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": schema,
    }


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _errors(*statuses: int) -> dict[str, Any]:
    error = _json({"$ref": "#/components/schemas/Error"})
    answers: dict[str, Any] = {}
    for status in sorted(set(statuses)):
        answer: dict[str, Any] = {"description": _WHY[status], "content": error}
        if status == 429:
            answer["headers"] = {"Retry-After": _header("seconds to wait", integer=True)}
        if status == 401:
            answer["headers"] = {"WWW-Authenticate": _header('Bearer realm="sleuth"')}
        answers[str(status)] = answer
    return answers


def _header(description: str, *, integer: bool = False) -> dict[str, Any]:
    return {
        "description": description,
        "required": True,
        "schema": {"type": "integer", "minimum": 1} if integer else {"type": "string"},
    }


def _get(
    summary: str,
    media: str = "application/json",
    schema: dict[str, Any] | None = None,
    *statuses: int,
    guarded: bool = False,
    auth: bool = False,
    ready: bool = False,
) -> dict[str, Any]:
    """A GET route; ``guarded`` ones answer 403/421 to a foreign Origin or Host (the probes
    answer any)."""
    responses: dict[str, Any] = {
        "200": {"description": "OK", "content": {media: {"schema": schema or {}}}}
    }
    if ready:
        responses["503"] = {
            "description": "the cache backend is unreachable",
            "content": _json(_READY),
        }
    extra = {*statuses, 500}
    if guarded:
        extra |= {403, 421}
    responses.update(_errors(*extra))
    operation: dict[str, Any] = {"summary": summary, "responses": responses}
    if auth:
        operation["security"] = [{"bearer": []}]
    return {"get": operation}


DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sleuth API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/docs.css">
<script src="/static/docs.js" defer></script>
</head><body>
<h1>sleuth API</h1>
<p>The machine-readable description is at <a href="openapi.json">/openapi.json</a>.
Send <code>Authorization: Bearer &lt;token&gt;</code> on every API call.</p>
<div id="ops">Loading…</div>
</body></html>
"""
