"""Rust projects built with Cargo, including Cargo workspaces.

A virtual manifest (``[workspace]`` without ``[package]``) is still reported: it is where
``cargo build --workspace`` runs and where ``target/`` lives for every member.
"""

from __future__ import annotations

from typing import Any

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    HERE,
    StaticDetector,
    cache_at_root,
    choose_ports,
    ev,
    lock_evidence,
    parse_port,
    read_toml,
    sources,
    strings,
    table,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.model import Build, Evidence, Run

# Crate name -> framework, in the order a project using several is named.
# An app framework (desktop or full-stack) first: its server side may use a web framework.
FRAMEWORKS = (
    ("tauri", "Tauri"),
    ("dioxus", "Dioxus"),
    ("actix-web", "Actix Web"),
    ("axum", "Axum"),
    ("rocket", "Rocket"),
)


def _dependency_names(manifest: dict[str, Any]) -> set[str]:
    """Crates in ``[dependencies]`` and target-specific dependency tables, renames resolved."""
    tables = [table(manifest, "dependencies")]
    tables += [table(spec, "dependencies") for spec in table(manifest, "target").values()]
    names: set[str] = set()
    for deps in tables:
        for key, spec in deps.items():
            real = spec.get("package") if isinstance(spec, dict) else None
            names.add(real if isinstance(real, str) else key)
    return names


def _rocket_port(candidate: Candidate) -> int | None:
    if "Rocket.toml" not in candidate.files:
        return None
    scratch: list[Evidence] = []
    config = read_toml(candidate, "Rocket.toml", scratch) or {}
    for profile in ("release", "global", "default"):
        port = parse_port(table(config, profile).get("port"))
        if port is not None:
            return port
    return None


class CargoDetector(StaticDetector):
    name = "cargo"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "Cargo.toml" not in candidate.files:
            return None
        evidence: list[Evidence] = []
        finding = Finding(
            language="Rust", build_system="Cargo", runtime="native", manifests=["Cargo.toml"]
        )
        manifest = read_toml(candidate, "Cargo.toml", evidence)
        if manifest is None:
            evidence.append(ev("manifest", "Cargo.toml", "Cargo manifest (contents unknown)"))
            manifest = {}
        package = table(manifest, "package")
        workspace = table(manifest, "workspace")
        name = package.get("name")
        if isinstance(name, str):
            finding.project_name = name
            evidence.append(ev("manifest", "Cargo.toml", f"declares the crate {name}"))
        members = strings(workspace.get("members"))
        if members:
            finding.orchestrator = "Cargo workspaces"
            excluded = [f"!{path}" for path in strings(workspace.get("exclude"))]
            finding.workspace = Workspace(
                orchestrator="Cargo workspaces",
                members=members + excluded,
                member_manifests=["Cargo.toml"],
            )
            evidence.append(
                ev("workspace", "Cargo.toml", f"[workspace] members: {', '.join(members)}")
            )
            if not package:
                evidence.append(ev("manifest", "Cargo.toml", "virtual workspace manifest"))
        if manifest and not package and not members:
            evidence.append(ev("manifest", "Cargo.toml", "Cargo manifest"))
        lock, found = lock_evidence(candidate, "Cargo.lock")
        evidence += found
        evidence += sources(candidate, "Rust")

        deps = _dependency_names(manifest)
        for crate, framework in FRAMEWORKS:
            if crate in deps:
                finding.framework = framework
                evidence.append(ev("dependency", "Cargo.toml", f"depends on {crate}"))
                break

        locked = " --locked" if lock else ""
        whole = " --workspace" if members else ""
        finding.build = Build(
            commands=[f"cargo build --release{whole}{locked}"],
            cache_dirs=[cache_at_root(candidate, "target"), "~/.cargo/registry", "~/.cargo/git"],
        )
        binary = (
            candidate.has("src/main.rs")
            or candidate.has_dir("src/bin")
            or bool(manifest.get("bin"))
        )
        if package and binary:
            finding.run = Run(command="cargo run --release")
            configured = []
            if finding.framework == "Rocket":
                port = _rocket_port(candidate)
                if port is not None:
                    configured.append((port, "Rocket.toml", "the port setting"))
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                configured=configured,
                default=8000 if finding.framework == "Rocket" else None,
                default_reason="Rocket listens on 8000 by default",
            )
        elif members and not package:
            evidence.append(ev("note", HERE, "virtual workspace: nothing to run at the root"))
        finding.evidence = evidence
        return finding
