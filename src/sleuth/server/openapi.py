"""The OpenAPI 3.1 description of the server, built from the same models the routes use,
and a small self-contained page at ``/docs`` that renders it (no CDN, no script from elsewhere).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sleuth._version import __version__

_ERROR = {
    "type": "object",
    "required": ["error", "code", "retryable"],
    "properties": {
        "error": {"type": "string", "description": "what went wrong and what to do"},
        "code": {"type": "string", "examples": ["USAGE_ERROR", "LLM_NOT_CONFIGURED"]},
        "retryable": {"type": "boolean"},
    },
}


def build_spec() -> dict[str, Any]:
    from sleuth.agent.models import Answer
    from sleuth.digest.models import Digest
    from sleuth.discovery import DiscoveryResult
    from sleuth.pages.result import FetchResult
    from sleuth.server import routes
    from sleuth.suggest import Suggestion, SuggestRequest
    from sleuth.websearch import SearchResponse

    components: dict[str, Any] = {"Error": _ERROR}

    def ref(model: type[BaseModel], *, by_alias: bool = True) -> dict[str, Any]:
        schema = model.model_json_schema(
            by_alias=by_alias, ref_template="#/components/schemas/{model}"
        )
        components.update(schema.pop("$defs", {}))
        components[model.__name__] = schema
        return {"$ref": f"#/components/schemas/{model.__name__}"}

    def api(
        summary: str, body: type[BaseModel], result: type[BaseModel], extra: str = ""
    ) -> dict[str, Any]:
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
                    "200": {
                        "description": "the CLI's --json object",
                        "content": _json(ref(result)),
                    },
                    **_errors(),
                },
            }
        }

    paths: dict[str, Any] = {
        "/healthz": _plain("Liveness: the process answers.", auth=False),
        "/readyz": _plain("Readiness: the cache backend is reachable (503 if not).", auth=False),
        "/metrics": _plain("Prometheus metrics of this instance.", text=True),
        "/api/v1/search": api("Search the web", routes.SearchBody, SearchResponse),
        "/api/v1/fetch": api("Fetch one page", routes.FetchBody, FetchResult),
        "/api/v1/research": api(
            "Research a question into cited bullets",
            routes.ResearchBody,
            Digest,
            "With `Accept: text/event-stream` the answer is a stream of `progress` events, "
            "then one `result` (the digest) or `error` event.",
        ),
        "/api/v1/ask": api("Answer with an LLM that searches and cites", routes.AskBody, Answer),
        "/api/v1/discover": api(
            "Find where a developer tool comes from",
            routes.DiscoverBody,
            DiscoveryResult,
            "Never prompts: a source a person should confirm comes back with "
            "confirmation_required and confirmation_reason (send yes: true to accept); several "
            "equally good sources are a 409 AMBIGUOUS whose choices are the from strings.",
        ),
        "/api/v1/links/suggest": api(
            "Suggest slug, title, description and tags for a URL",
            SuggestRequest,
            Suggestion,
            "503 LLM_NOT_CONFIGURED when no model is set up (before anything else), 401 without "
            "a valid token, 400 for a bad body or URL, 502 LLM_ERROR when the model fails or "
            "answers something else than the JSON asked for. Invalid fields come back empty.",
        ),
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "sleuth",
            "version": __version__,
            "description": "Safe, fast, cited access to the web. MCP (streamable HTTP) is at "
            "/mcp behind the same bearer tokens.",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _errors() -> dict[str, Any]:
    error = _json({"$ref": "#/components/schemas/Error"})
    return {
        str(status): {"description": why, "content": error}
        for status, why in (
            (400, "bad input"),
            (401, "no valid bearer token"),
            (403, "refused by the network guard or robots.txt"),
            (404, "not found"),
            (422, "the page or request cannot be processed"),
            (429, "rate limit or budget spent; see Retry-After"),
            (502, "an upstream (site, search provider, model) failed"),
            (503, "not configured"),
            (504, "a deadline passed"),
        )
    }


def _plain(summary: str, *, auth: bool = True, text: bool = False) -> dict[str, Any]:
    media = "text/plain" if text else "application/json"
    operation: dict[str, Any] = {
        "summary": summary,
        "responses": {"200": {"description": "OK", "content": {media: {}}}},
    }
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
