"""Dart packages managed with pub, and Flutter apps."""

from __future__ import annotations

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, ev, lock_evidence, sources, table
from sleuth.stack.finding import Finding
from sleuth.stack.formats.yaml_lite import load as load_yaml
from sleuth.stack.model import Build, Evidence, Run

# Flutter build targets by the platform folder that enables them, most deployable first.
FLUTTER_TARGETS = (("web", "web"), ("android", "apk"), ("linux", "linux"))


class PubDetector(StaticDetector):
    name = "pub"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "pubspec.yaml" not in candidate.files:
            return None
        evidence: list[Evidence] = []
        spec = load_yaml(candidate.read("pubspec.yaml") or "")
        if not isinstance(spec, dict):
            evidence.append(ev("problem", "pubspec.yaml", "is not a YAML mapping"))
            spec = {}
        evidence.append(ev("manifest", "pubspec.yaml", "pub package manifest"))
        finding = Finding(
            language="Dart", build_system="pub", runtime="Dart VM", manifests=["pubspec.yaml"]
        )
        name = spec.get("name")
        if isinstance(name, str):
            finding.project_name = name
        _, found = lock_evidence(candidate, "pubspec.lock")
        evidence += found
        evidence += sources(candidate, "Dart")
        flutter = table(spec, "dependencies", "flutter").get("sdk") == "flutter"
        caches = [".dart_tool", "~/.pub-cache"]
        if flutter:
            finding.framework = "Flutter"
            finding.runtime = "Flutter"
            evidence.append(ev("dependency", "pubspec.yaml", "depends on the Flutter SDK"))
            commands = ["flutter pub get"]
            target = next((t for folder, t in FLUTTER_TARGETS if folder in candidate.dirs), None)
            if target:
                commands.append(f"flutter build {target} --release")
            finding.build = Build(commands=commands, cache_dirs=caches)
        else:
            commands = ["dart pub get"]
            entries = [f for f in candidate.listdir("bin") if f.endswith(".dart")]
            preferred = [f"{finding.project_name}.dart", "server.dart", "main.dart"]
            entry = next((f for f in preferred if f in entries), entries[0] if entries else None)
            if entry:
                exe = entry.removesuffix(".dart")
                commands.append(f"dart compile exe bin/{entry} -o bin/{exe}")
                finding.run = Run(command=f"bin/{exe}")
            finding.build = Build(commands=commands, cache_dirs=caches)
        finding.evidence = evidence
        return finding
