"""Documentation sites built by a generator that is no package's dependency: MkDocs, Hugo,
mdBook and Sphinx, each from its own configuration file.

A Python library with an ``mkdocs.yml`` for its manual is the library, not a site, so MkDocs
and Sphinx claim only a folder whose other manifests are a site's: a ``requirements.txt`` of
plugins, a Sphinx ``Makefile``. Hugo's and mdBook's configuration names a site wherever it is,
except that a crate's ``book.toml`` is its manual beside the crate.
"""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, choose_ports, ev
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Run

_SITE_ONLY = frozenset({"requirements.txt", "Makefile", "makefile", "GNUmakefile"})
_SPHINX = re.compile(r"\bsphinx|^\s*html_theme\s*=", re.MULTILINE)
_HUGO = ("hugo.toml", "hugo.yaml", "hugo.json")
_MKDOCS = ("mkdocs.yml", "mkdocs.yaml")


def _alone(candidate: Candidate, config: str | None) -> bool:
    """No manifest beside the site's own config (in either spelling) but a site's."""
    others = set(candidate.manifests) - {config, *_MKDOCS}
    return others <= _SITE_ONLY


def _pip(candidate: Candidate) -> list[str]:
    return ["pip install -r requirements.txt"] if "requirements.txt" in candidate.files else []


class DocsSiteDetector(StaticDetector):
    name = "docs"

    def detect(self, candidate: Candidate) -> Finding | None:
        manifests = candidate.manifests
        hugo = next((n for n in _HUGO if n in manifests), None)
        if hugo is not None:
            return self._site(
                candidate,
                "Hugo",
                hugo,
                build=["hugo --minify"],
                caches=["resources/_gen"],
                run="hugo server --bind 0.0.0.0",
                port=1313,
            )
        if "book.toml" in manifests and "Cargo.toml" not in candidate.files:
            return self._site(
                candidate,
                "mdBook",
                "book.toml",
                build=["mdbook build"],
                run="mdbook serve -n 0.0.0.0",
                port=3000,
            )
        mkdocs = next((n for n in _MKDOCS if n in manifests), None)
        if mkdocs is not None and _alone(candidate, mkdocs):
            return self._site(
                candidate,
                "MkDocs",
                mkdocs,
                language="Python",
                build=[*_pip(candidate), "mkdocs build"],
                run="mkdocs serve -a 0.0.0.0:8000",
                port=8000,
            )
        if (
            "conf.py" in candidate.files
            and manifests
            and _alone(candidate, None)
            and _SPHINX.search(candidate.read("conf.py") or "")
        ):
            return self._site(
                candidate,
                "Sphinx",
                "conf.py",
                language="Python",
                build=[*_pip(candidate), "sphinx-build -M html . _build"],
            )
        return None

    @staticmethod
    def _site(
        candidate: Candidate,
        generator: str,
        config: str,
        *,
        language: str | None = None,
        build: list[str],
        caches: list[str] | None = None,
        run: str | None = None,
        port: int | None = None,
    ) -> Finding:
        evidence = [ev("manifest", config, f"{generator} site configuration")]
        finding = Finding(
            language=language,
            build_system=generator,
            framework=generator,
            runtime="CPython" if language == "Python" else None,
            manifests=[config] if config in candidate.manifests else [],
            build=Build(commands=build, cache_dirs=caches or []),
        )
        if run is not None:
            finding.run = Run(command=run)
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=run,
                default=port,
                default_reason=f"{run} serves on {port}",
            )
        finding.evidence = evidence
        return finding
