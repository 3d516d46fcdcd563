"""Edge and serverless platforms: where the code runs decides the ``runtime``, not the package.

A Cloudflare Worker is an npm (or Cargo) package whose code runs in Workers, not in Node.js; a
function under ``netlify/functions`` runs in Netlify's runtime. The ecosystem's detector finds
the package; the platform's own configuration file beside it then names the runtime, and a run
command when the package declares none. A file the platform only reads for hosting a static
site (a ``netlify.toml`` of redirects, a ``vercel.json`` of headers) changes nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import ev, table
from sleuth.stack.finding import Finding
from sleuth.stack.formats.jsonc import loads as jsonc_loads
from sleuth.stack.formats.yaml_lite import load as yaml_load
from sleuth.stack.model import Evidence, Run


@dataclass(frozen=True, slots=True)
class Hosted:
    """What a platform's configuration says about the project in its folder."""

    runtime: str
    evidence: Evidence
    command: str | None = None
    port: int | None = None


def _parsed(candidate: Candidate, name: str) -> dict[str, object] | None:
    """``name`` parsed by its extension; None when it is missing, unreadable or not a table."""
    text = candidate.read(name)
    if text is None:
        return None
    try:
        if name.endswith(".toml"):
            data: object = tomllib.loads(text)
        elif name.endswith((".json", ".jsonc")):
            data = jsonc_loads(text)
        else:
            data = yaml_load(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _first(candidate: Candidate, *names: str) -> str | None:
    return next((n for n in names if n in candidate.files), None)


def _cloudflare(candidate: Candidate) -> Hosted | None:
    name = _first(candidate, "wrangler.toml", "wrangler.json", "wrangler.jsonc")
    if name is None:
        return None
    config = _parsed(candidate, name) or {}
    if "pages_build_output_dir" in config:
        return Hosted("Cloudflare Pages", ev("config", name, "Cloudflare Pages project"))
    why = "Cloudflare Workers configuration"
    main = config.get("main")
    if isinstance(main, str) and main:
        why += f" (entry {main})"
    return Hosted("Cloudflare Workers", ev("config", name, why), "npx wrangler dev", 8787)


def _fastly(candidate: Candidate) -> Hosted | None:
    if "fastly.toml" not in candidate.files:
        return None
    config = _parsed(candidate, "fastly.toml") or {}
    if config.get("manifest_version") is None and "language" not in config:
        return None
    why = ev("config", "fastly.toml", "Fastly Compute package manifest")
    return Hosted("Fastly Compute", why, "fastly compute serve", 7676)


def _deno_deploy(candidate: Candidate) -> Hosted | None:
    name = _first(candidate, "deno.json", "deno.jsonc")
    if name is None or "deploy" not in (_parsed(candidate, name) or {}):
        return None
    return Hosted("Deno Deploy", ev("config", name, "deploys to Deno Deploy"))


def _netlify(candidate: Candidate) -> Hosted | None:
    if candidate.has_dir("netlify/edge-functions"):
        folder = "netlify/edge-functions"
        return Hosted("Netlify Edge Functions", ev("marker", folder, "Netlify edge functions"))
    config = _parsed(candidate, "netlify.toml") if "netlify.toml" in candidate.files else None
    functions = table(config, "functions").get("directory") if config else None
    folder = functions if isinstance(functions, str) else "netlify/functions"
    if not candidate.has_dir(folder):
        return None
    return Hosted("Netlify Functions", ev("marker", folder, "Netlify functions"))


def _vercel(candidate: Candidate) -> Hosted | None:
    if "vercel.json" not in candidate.files:
        return None
    config = _parsed(candidate, "vercel.json") or {}
    if table(config, "functions"):
        return Hosted("Vercel Functions", ev("config", "vercel.json", "declares functions"))
    if candidate.has_dir("api"):
        return Hosted("Vercel Functions", ev("marker", "api", "Vercel functions under api/"))
    return None


def _lambda(candidate: Candidate) -> Hosted | None:
    name = _first(candidate, "serverless.yml", "serverless.yaml")
    if name is not None:
        config = _parsed(candidate, name) or {}
        provider = config.get("provider")
        cloud = table(config, "provider").get("name") if isinstance(provider, dict) else provider
        if cloud == "aws":
            return Hosted("AWS Lambda", ev("config", name, "Serverless Framework service on AWS"))
    for name in ("template.yaml", "template.yml"):
        if name in candidate.files and "AWS::Serverless" in (candidate.read(name) or ""):
            why = ev("config", name, "AWS SAM template")
            return Hosted("AWS Lambda", why, "sam local start-api", 3000)
    return None


PLATFORMS: tuple[Callable[[Candidate], Hosted | None], ...] = (
    _cloudflare,
    _fastly,
    _deno_deploy,
    _netlify,
    _vercel,
    _lambda,
)


def place(candidate: Candidate, finding: Finding) -> bool:
    """Name the platform ``finding`` runs on, if the folder configures one; whether it did."""
    hosted = next((h for h in (p(candidate) for p in PLATFORMS) if h is not None), None)
    if hosted is None:
        return False
    finding.runtime = hosted.runtime
    finding.evidence = [*finding.evidence, hosted.evidence]
    if finding.run.command is None and hosted.command is not None:
        ports = [hosted.port] if hosted.port is not None else []
        finding.run = Run(command=hosted.command, ports=ports)
        reason = f"{hosted.command} serves on {hosted.port}"
        finding.evidence.append(ev("note", ".", reason))
    return True
