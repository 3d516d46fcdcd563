"""Ruby projects managed with Bundler: Rails and Sinatra apps, and gems."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    choose_ports,
    ev,
    lock_evidence,
    parse_port,
    sources,
)
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Evidence, Run

_GEM = re.compile(r"""^\s*gem\s+["']([^"']+)["']""", re.MULTILINE)
_SPEC_DEP = re.compile(r"""add_(?:runtime_)?dependency\s*\(?\s*["']([^"']+)["']""")
# ``s.name = "rails"``, ``spec.name = %q{rails}.freeze``, ``Gem::Specification.new "rails"``.
_SPEC_NAME = re.compile(
    r"""\.name\s*=\s*(?:["']([^"']+)["']|%q[{(\[<]([^})\]>]+)[})\]>])"""
    r"""|Gem::Specification\.new\s*\(?\s*["']([^"']+)["']"""
)
# ``port 3000``, ``port ENV.fetch("PORT", 3000)``, ``port ENV.fetch("PORT") { 3000 }``,
# ``port ENV["PORT"] || 3000``, parenthesised or not, the number quoted or not.
_PUMA_PORT = re.compile(
    r"""^[ \t]*port[ \t(]+(?:ENV(?:\.fetch\([ \t]*["']PORT["'][ \t]*(?:,|\)[ \t]*\{)"""
    r"""|\[[ \t]*["']PORT["'][ \t]*\][ \t]*(?:\|\||\bor\b))[ \t]*)?["']?(\d{2,5})\b""",
    re.MULTILINE,
)
_PUMA_BIND = re.compile(r"""^[ \t]*bind[ \t(]+["']tcp://[^"'\s]*:(\d{2,5})["']""", re.MULTILINE)
_RAILS_HEALTH = re.compile(r"""["']rails/health#show["']""")
_UP_ROUTE = re.compile(r"""get\s+["']/?(\w[\w/-]*)["']\s*=>\s*["']rails/health#show["']""")


def _gem_name(spec: str, text: str) -> str:
    """The gem's declared name; a name computed in Ruby is the file's, by gem convention."""
    match = _SPEC_NAME.search(text)
    if match:
        return next(group for group in match.groups() if group)
    return spec.removesuffix(".gemspec")


class RubyDetector(StaticDetector):
    name = "ruby"

    def detect(self, candidate: Candidate) -> Finding | None:
        gemspecs = sorted(n for n in candidate.files if n.endswith(".gemspec"))
        if "Gemfile" not in candidate.files and not gemspecs:
            return None
        evidence: list[Evidence] = []
        manifests = (["Gemfile"] if "Gemfile" in candidate.files else []) + gemspecs
        finding = Finding(
            language="Ruby", build_system="Bundler", runtime="CRuby", manifests=manifests
        )
        gems: set[str] = set()
        if "Gemfile" in candidate.files:
            gems.update(_GEM.findall(candidate.read("Gemfile") or ""))
            evidence.append(ev("manifest", "Gemfile", "Bundler Gemfile"))
        for spec in gemspecs:
            text = candidate.read(spec) or ""
            gems.update(_SPEC_DEP.findall(text))
            if finding.project_name is None:
                finding.project_name = _gem_name(spec, text)
            evidence.append(ev("manifest", spec, "gem specification"))
        _, found = lock_evidence(candidate, "Gemfile.lock")
        evidence += found
        evidence += sources(candidate, "Ruby")
        commands = ["bundle config set --local path vendor/bundle", "bundle install"]
        if "rails" in gems or "railties" in gems:
            finding.framework = "Rails"
            evidence.append(ev("dependency", "Gemfile", "depends on rails"))
            if candidate.has_dir("app/assets") or candidate.has_dir("app/javascript"):
                commands.append("bundle exec rails assets:precompile")
            finding.run = Run(command="bundle exec rails server -b 0.0.0.0")
            configured = []
            puma = candidate.read("config/puma.rb") or ""
            for pattern, setting in ((_PUMA_PORT, "the port directive"), (_PUMA_BIND, "bind")):
                match = pattern.search(puma)
                port = parse_port(match.group(1)) if match else None
                if port is not None:
                    configured.append((port, "config/puma.rb", setting))
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                configured=configured,
                default=3000,
                default_reason="rails server listens on 3000 by default",
            )
            routes = candidate.read("config/routes.rb")
            if routes and _RAILS_HEALTH.search(routes):
                up = _UP_ROUTE.search(routes)
                finding.run.health_endpoint = "/" + (up.group(1) if up else "up")
                evidence.append(ev("config", "config/routes.rb", "routes rails/health#show"))
        elif "sinatra" in gems:
            finding.framework = "Sinatra"
            evidence.append(ev("dependency", "Gemfile", "depends on sinatra"))
            if "config.ru" in candidate.files:
                finding.run = Run(command="bundle exec rackup --host 0.0.0.0")
                default, why = 9292, "rackup listens on 9292 by default"
            else:
                main = next(
                    (n for n in ("app.rb", "main.rb", "server.rb") if n in candidate.files), None
                )
                finding.run = Run(command=f"bundle exec ruby {main}" if main else None)
                default, why = 4567, "Sinatra listens on 4567 by default"
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                default=default,
                default_reason=why,
            )
        elif ("jekyll" in gems or "github-pages" in gems) and "_config.yml" in candidate.files:
            # a site has its _config.yml; a plugin gem that depends on jekyll has none
            gem = "jekyll" if "jekyll" in gems else "github-pages"
            finding.framework = "Jekyll"
            evidence.append(ev("dependency", "Gemfile", f"depends on {gem}"))
            evidence.append(ev("config", "_config.yml", "Jekyll site configuration"))
            commands.append("bundle exec jekyll build")
            finding.run = Run(command="bundle exec jekyll serve --host 0.0.0.0")
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                default=4000,
                default_reason="jekyll serve listens on 4000 by default",
            )
        finding.build = Build(commands=commands, cache_dirs=["vendor/bundle"])
        finding.evidence = evidence
        return finding
