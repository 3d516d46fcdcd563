"""PHP projects managed with Composer: Laravel, Symfony and plain ``public/`` apps."""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    choose_ports,
    ev,
    lock_evidence,
    read_json,
    sources,
    table,
)
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Evidence, Run

# A CMS or API layer built on Laravel or Symfony is named before the framework under it.
FRAMEWORKS = (
    ("drupal/core-recommended", "Drupal"),
    ("drupal/core", "Drupal"),
    ("roots/wordpress", "WordPress"),
    ("johnpbloch/wordpress", "WordPress"),
    ("api-platform/core", "API Platform"),
    ("laravel/framework", "Laravel"),
    ("symfony/framework-bundle", "Symfony"),
    ("symfony/symfony", "Symfony"),
    ("yiisoft/yii2", "Yii"),
)
_LARAVEL_HEALTH = re.compile(r"""health\s*:\s*["']([^"']+)["']""")


class ComposerDetector(StaticDetector):
    name = "composer"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "composer.json" not in candidate.files:
            return None
        evidence: list[Evidence] = []
        finding = Finding(
            language="PHP", build_system="Composer", runtime="PHP", manifests=["composer.json"]
        )
        composer = read_json(candidate, "composer.json", evidence)
        evidence.append(ev("manifest", "composer.json", "Composer manifest"))
        composer = composer or {}
        name = composer.get("name")
        if isinstance(name, str) and name:
            finding.project_name = name.rpartition("/")[2]
        _, found = lock_evidence(candidate, "composer.lock")
        evidence += found
        evidence += sources(candidate, "PHP")
        required = set(table(composer, "require")) | set(table(composer, "require-dev"))
        finding.build = Build(
            commands=["composer install --no-dev --optimize-autoloader --no-interaction"],
            cache_dirs=["vendor", "~/.cache/composer"],
        )
        runtime_deps = set(table(composer, "require"))
        chosen = next((pair for pair in FRAMEWORKS if pair[0] in runtime_deps), None)
        chosen = chosen or next((pair for pair in FRAMEWORKS if pair[0] in required), None)
        framework = chosen[1] if chosen else None
        if chosen is not None:
            finding.framework = chosen[1]
            evidence.append(ev("dependency", "composer.json", f"requires {chosen[0]}"))
        command: str | None = None
        if framework == "Laravel" and "artisan" in candidate.files:
            command = "php artisan serve --host=0.0.0.0 --port=8000"
        elif candidate.has("public/index.php"):
            command = "php -S 0.0.0.0:8000 -t public"
        if command is not None:
            finding.run = Run(command=command)
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=command,
                default=8000,
                default_reason="the run command serves on 8000",
            )
        if framework == "Laravel":
            match = _LARAVEL_HEALTH.search(candidate.read("bootstrap/app.php") or "")
            if match:
                finding.run.health_endpoint = match.group(1)
                evidence.append(ev("config", "bootstrap/app.php", f"health route {match.group(1)}"))
        finding.evidence = evidence
        return finding
