"""JavaScript and TypeScript packages: npm, Yarn, pnpm and Bun, their workspaces, and the
monorepo tools on top of them (Turborepo, Nx, Lerna, Rush).

The package manager is the one ``packageManager`` names, else the workspace's, else the one
whose lockfile is present, else npm. Members run the same install command as their root:
npm (7+), Yarn, pnpm and Bun all find the workspace root from a member folder. In an Nx
workspace a folder may have only a ``project.json``; Nx builds and serves it by project name.

A framework is what the package runs on: ``peerDependencies`` name what a library plugs into,
and at a Turborepo or Nx root devDependencies are hoisted there for the members. A run command
comes from a ``start`` script, a ``bin``, or the framework's own server, never from ``main``
alone, which every library has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from shlex import quote
from typing import Any

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    cache_at_root,
    choose_ports,
    ev,
    lockfile,
    parse_port,
    read_json,
    sources,
    strings,
    table,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.formats.yaml_lite import load as load_yaml
from sleuth.stack.languages import dominant
from sleuth.stack.model import Build, Evidence, Run

MANAGERS = ("npm", "Yarn", "pnpm", "Bun")
LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "Yarn"),
    ("bun.lock", "Bun"),
    ("bun.lockb", "Bun"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
)


@dataclass(frozen=True, slots=True)
class NodeFramework:
    package: str
    name: str
    port: int
    cache: str | None  # the framework's own build cache, worth keeping between builds
    serve: str | None  # how to serve a production build when there is no start script
    configs: tuple[str, ...] = ()  # config files that name the framework on their own


def _configs(*stems: str) -> tuple[str, ...]:
    return tuple(f"{stem}.{ext}" for stem in stems for ext in ("js", "ts", "mjs", "mts", "cjs"))


# The more specific first: a Nextra site is a Next.js app, a Starlight site an Astro one.
FRAMEWORKS = (
    NodeFramework(
        "@docusaurus/core",
        "Docusaurus",
        3000,
        ".docusaurus",
        "npx docusaurus serve",
        _configs("docusaurus.config"),
    ),
    # VitePress and VuePress keep their config in hidden folders, which the scan skips.
    NodeFramework("vitepress", "VitePress", 5173, None, None),
    NodeFramework("vuepress", "VuePress", 8080, None, None),
    NodeFramework("@astrojs/starlight", "Starlight", 4321, None, None),
    NodeFramework("nextra", "Nextra", 3000, ".next/cache", "npx next start"),
    NodeFramework("docsify-cli", "Docsify", 3000, None, None),
    NodeFramework(
        "gatsby", "Gatsby", 8000, ".cache", "npx gatsby serve", _configs("gatsby-config")
    ),
    NodeFramework("astro", "Astro", 4321, None, None, _configs("astro.config")),
    NodeFramework(
        "@11ty/eleventy", "Eleventy", 8080, None, None, _configs(".eleventy", "eleventy.config")
    ),
    NodeFramework("hexo", "Hexo", 4000, None, None),
    NodeFramework("gridsome", "Gridsome", 8080, ".cache", None, _configs("gridsome.config")),
    # Hydrogen is a Remix app, Blitz and RedwoodJS bring their own React stack.
    NodeFramework("@shopify/hydrogen", "Hydrogen", 3000, None, None),
    NodeFramework("@remix-run/node", "Remix", 3000, None, None),
    NodeFramework("@redwoodjs/core", "RedwoodJS", 8910, None, None),
    NodeFramework("blitz", "Blitz.js", 3000, ".next/cache", "npx blitz start"),
    NodeFramework("@tanstack/react-start", "TanStack Start", 3000, None, None),
    NodeFramework("expo", "Expo", 8081, ".expo", None),
    NodeFramework("meteor-node-stubs", "Meteor", 3000, None, None),
    NodeFramework("ember-source", "Ember", 4200, None, None, ("ember-cli-build.js",)),
    NodeFramework("@angular/core", "Angular", 4200, ".angular/cache", None),
    NodeFramework("next", "Next.js", 3000, ".next/cache", "npx next start"),
    NodeFramework("nuxt", "Nuxt", 3000, ".nuxt", "node .output/server/index.mjs"),
    NodeFramework("@sveltejs/kit", "SvelteKit", 3000, ".svelte-kit", "node build"),
    NodeFramework("@nestjs/core", "NestJS", 3000, None, "node dist/main"),
    NodeFramework("fastify", "Fastify", 3000, None, None),
    NodeFramework("express", "Express", 3000, None, None),
    NodeFramework("koa", "Koa", 3000, None, None),
    NodeFramework("@hapi/hapi", "hapi", 3000, None, None),
    NodeFramework("hono", "Hono", 3000, None, None),
)
# Monorepo tools by marker file, in the order they win when several are present.
ORCHESTRATORS = (
    ("turbo.json", "Turborepo", "npx turbo run build", ".turbo"),
    ("nx.json", "Nx", "npx nx run-many -t build", ".nx/cache"),
    ("lerna.json", "Lerna", "npx lerna run build", None),
)
STORES = {
    "npm": "~/.npm",
    "Yarn": "~/.cache/yarn",
    "pnpm": "~/.local/share/pnpm/store",
    "Bun": "~/.bun/install/cache",
}
_PORT_FLAG = re.compile(r"(?:-p|--port)[ =](\d{2,5})\b|\bPORT=(\d{2,5})\b")


@dataclass(frozen=True, slots=True)
class Manager:
    name: str
    lock: str | None
    berry: bool  # Yarn 2+, which has different flags and keeps its cache in the repo

    def install(self) -> str:
        if self.name == "npm":
            return "npm ci" if self.lock else "npm install"
        if self.name == "Yarn":
            if self.berry:
                return "yarn install --immutable" if self.lock else "yarn install"
            return "yarn install --frozen-lockfile" if self.lock else "yarn install"
        frozen = " --frozen-lockfile" if self.lock else ""
        return f"{self.name.lower()} install{frozen}"

    def run(self, script: str) -> str:
        if self.name == "npm":
            return "npm start" if script == "start" else f"npm run {script}"
        return f"{self.name.lower()} run {script}"

    def recursive_build(self) -> str:
        return {
            "npm": "npm run build --workspaces --if-present",
            "pnpm": "pnpm -r run build",
            "Bun": "bun run --filter '*' build",
        }.get(
            self.name,
            "yarn workspaces foreach -A run build" if self.berry else "yarn workspaces run build",
        )

    def store(self, candidate: Candidate) -> str:
        if self.name == "Yarn" and self.berry:
            up = candidate.workspace.up + "/" if candidate.workspace else ""
            return f"{up}.yarn/cache"
        return STORES[self.name]


def _manager(candidate: Candidate, package: dict[str, Any], evidence: list[Evidence]) -> Manager:
    declared = package.get("packageManager")
    name: str | None = None
    berry = False
    if isinstance(declared, str) and "@" in declared:
        tool, _, version = declared.partition("@")
        name = {"npm": "npm", "yarn": "Yarn", "pnpm": "pnpm", "bun": "Bun"}.get(tool)
        berry = tool == "yarn" and not version.startswith("1.")
        if name:
            evidence.append(ev("marker", "package.json", f"packageManager is {declared}"))
    workspace = candidate.workspace
    if name is None and workspace is not None and workspace.build_system in MANAGERS:
        name = workspace.build_system
    lock: str | None = None
    for file, manager in LOCKFILES:
        if name in (None, manager):
            lock = lockfile(candidate, file)
            if lock is not None:
                name = manager
                evidence.append(ev("lockfile", lock, f"{manager} lockfile"))
                break
    name = name or "npm"
    if name == "Yarn" and not berry:
        berry = ".yarnrc.yml" in candidate.files or (
            workspace is not None and ".yarnrc.yml" in workspace.files
        )
    return Manager(name, lock, berry)


def _dependencies(package: dict[str, Any], *keys: str) -> set[str]:
    names: set[str] = set()
    for key in keys:
        names.update(table(package, key))
    return names


def _bin(package: dict[str, Any]) -> str | None:
    """The executable a package installs: its only ``bin``, or the one named after it."""
    declared = package.get("bin")
    if isinstance(declared, str):
        return declared or None
    if not isinstance(declared, dict):
        return None
    paths = {k: v for k, v in declared.items() if isinstance(v, str) and v}
    name = str(package.get("name", "")).rpartition("/")[2]
    if name in paths:
        return paths[name]
    return next(iter(paths.values()), None) if len(paths) == 1 else None


def _workspace_globs(
    candidate: Candidate, package: dict[str, Any], evidence: list[Evidence]
) -> list[str]:
    declared = package.get("workspaces")
    globs = strings(declared.get("packages") if isinstance(declared, dict) else declared)
    if globs:
        evidence.append(ev("workspace", "package.json", f"workspaces: {', '.join(globs)}"))
    if "pnpm-workspace.yaml" in candidate.files:
        data = load_yaml(candidate.read("pnpm-workspace.yaml") or "")
        listed = strings(data.get("packages")) if isinstance(data, dict) else []
        if listed:
            globs += listed
            evidence.append(
                ev("workspace", "pnpm-workspace.yaml", f"packages: {', '.join(listed)}")
            )
    return globs


def _language(candidate: Candidate, deps: set[str]) -> str:
    counted = dominant(candidate.languages(), ("TypeScript", "JavaScript"))
    if counted:
        return counted
    return (
        "TypeScript" if "tsconfig.json" in candidate.files or "typescript" in deps else "JavaScript"
    )


def _framework_config(
    candidate: Candidate, frameworks: tuple[NodeFramework, ...]
) -> tuple[NodeFramework, str] | None:
    """The first of ``frameworks`` whose own config file is in the folder, and that file."""
    for framework in frameworks:
        for config in framework.configs:
            if candidate.has(config):
                return framework, config
    return None


class NodeDetector(StaticDetector):
    name = "node"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "package.json" not in candidate.files:
            if "rush.json" in candidate.files:
                return self._rush_root(candidate)
            workspace = candidate.workspace
            if "project.json" in candidate.files and workspace and workspace.orchestrator == "Nx":
                return self._nx_project(candidate)
            return None
        evidence: list[Evidence] = []
        finding = Finding(manifests=["package.json"])
        package = read_json(candidate, "package.json", evidence)
        if package is None:
            evidence.append(ev("manifest", "package.json", "npm package manifest (unreadable)"))
            package = {}
        else:
            name = package.get("name")
            label = (
                f"declares the package {name}" if isinstance(name, str) else "npm package manifest"
            )
            evidence.append(ev("manifest", "package.json", label))
            if isinstance(name, str) and name:
                finding.project_name = name
        manager = _manager(candidate, package, evidence)
        finding.build_system = manager.name
        finding.runtime = "Bun" if manager.name == "Bun" else "Node.js"
        finding.language = _language(
            candidate, _dependencies(package, "dependencies", "devDependencies", "peerDependencies")
        )
        evidence += sources(candidate, "TypeScript", "JavaScript")
        if "tsconfig.json" in candidate.files:
            evidence.append(ev("marker", "tsconfig.json", "TypeScript compiler settings"))

        scripts = {k: v for k, v in table(package, "scripts").items() if isinstance(v, str)}
        # A peer dependency is what a library plugs into, not what it runs on; at a monorepo
        # root, devDependencies are hoisted there for the members and say nothing of the root.
        monorepo = "nx.json" in candidate.files or "turbo.json" in candidate.files
        runtime_deps = _dependencies(package, "dependencies")
        deps = (
            runtime_deps if monorepo else runtime_deps | _dependencies(package, "devDependencies")
        )
        framework = next((f for f in FRAMEWORKS if f.package in deps), None)
        if framework is not None:
            evidence.append(ev("dependency", "package.json", f"depends on {framework.package}"))
            named = _framework_config(candidate, (framework,))
        else:
            named = _framework_config(candidate, FRAMEWORKS)
        if named is not None:
            framework, config = named
            evidence.append(ev("config", config, f"{framework.name} configuration"))
        if framework is not None:
            finding.framework = framework.name

        orchestrator, root_build, tool_cache = self._orchestrate(
            candidate, package, manager, finding, evidence
        )
        commands = [manager.install()]
        if "build" in scripts:
            commands.append(manager.run("build"))
        elif root_build:
            commands.append(root_build)
        workspace = candidate.workspace
        if workspace is not None and workspace.orchestrator == "Rush":
            name = finding.project_name or candidate.name
            commands = ["rush install", f"rush build --to {name}"]
        modules = ["node_modules"]
        if workspace is not None:
            modules.insert(0, f"{workspace.up}/node_modules")
        caches = [manager.store(candidate), *modules]
        if framework is not None and framework.cache:
            caches.append(framework.cache)
        if tool_cache:
            caches.append(tool_cache)
        finding.build = Build(commands=commands, cache_dirs=caches)
        finding.orchestrator = orchestrator

        command: str | None = None
        main = package.get("main")
        executable = _bin(package)
        if "start" in scripts:
            command = manager.run("start")
        elif framework is not None and framework.serve:
            command = framework.serve
        elif executable is not None:
            command = f"node {executable}"
        elif framework is not None and framework.package in runtime_deps and isinstance(main, str):
            command = f"node {main}"  # a server's entry point; a library's main is not run
        if command is not None or framework is not None:
            finding.run = Run(command=command)
            configured: list[tuple[int, str, str]] = []
            match = _PORT_FLAG.search(scripts.get("start", ""))
            if match:
                port = int(match.group(1) or match.group(2))
                configured.append((port, "package.json", "the start script"))
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=command,
                configured=configured,
                default=framework.port if framework else None,
                default_reason=f"{framework.name} serves on {framework.port} by default"
                if framework
                else "",
            )
        finding.evidence = evidence
        return finding

    @staticmethod
    def _orchestrate(
        candidate: Candidate,
        package: dict[str, Any],
        manager: Manager,
        finding: Finding,
        evidence: list[Evidence],
    ) -> tuple[str | None, str | None, str | None]:
        """The monorepo tool at this folder, its build-everything command and its cache."""
        globs = _workspace_globs(candidate, package, evidence)
        for marker, name, build, cache in ORCHESTRATORS:
            if marker not in candidate.files:
                continue
            evidence.append(ev("marker", marker, f"{name} configuration"))
            members = list(globs)
            if not members and name == "Lerna":
                scratch: list[Evidence] = []
                lerna = read_json(candidate, "lerna.json", scratch) or {}
                members = strings(lerna.get("packages")) or ["packages/*"]
            if not members and name == "Nx":
                members = ["**"]
            manifests = ["package.json", "project.json"] if name == "Nx" else ["package.json"]
            finding.workspace = Workspace(
                orchestrator=name, members=members, member_manifests=manifests
            )
            return name, build, cache
        if globs:
            name = f"{manager.name} workspaces"
            finding.workspace = Workspace(
                orchestrator=name, members=globs, member_manifests=["package.json"]
            )
            return name, manager.recursive_build(), None
        return None, None, None

    @staticmethod
    def _nx_project(candidate: Candidate) -> Finding:
        """A folder of an Nx workspace that only has a ``project.json``: Nx builds and serves
        it through the targets listed there, from anywhere in the workspace."""
        evidence: list[Evidence] = []
        project = read_json(candidate, "project.json", evidence) or {}
        declared = project.get("name")
        name = declared if isinstance(declared, str) and declared else candidate.name
        evidence.append(ev("manifest", "project.json", f"Nx project {name}"))
        targets = table(project, "targets") or table(project, "architect")
        language = dominant(candidate.languages()) or _language(candidate, set())
        finding = Finding(
            project_name=name,
            language=language,
            build_system="Nx",
            runtime="Node.js" if language in ("TypeScript", "JavaScript") else None,
            manifests=["project.json"],
        )
        evidence += sources(candidate, language)
        if targets:
            listed = ", ".join(sorted(str(t) for t in targets))
            evidence.append(ev("config", "project.json", f"targets: {listed}"))
        if "build" in targets or "serve" in targets:
            manager = _manager(candidate, {}, evidence)
            commands = [manager.install()]
            if "build" in targets:
                commands.append(f"npx nx build {quote(name)}")
            caches = [manager.store(candidate), cache_at_root(candidate, "node_modules")]
            caches.append(cache_at_root(candidate, ".nx/cache"))
            finding.build = Build(commands=commands, cache_dirs=caches)
        if "serve" in targets:
            command = f"npx nx serve {quote(name)}"
            configured: list[tuple[int, str, str]] = []
            port = parse_port(table(targets, "serve", "options").get("port"))
            if port is not None:
                configured.append((port, "project.json", "the serve target's port option"))
            finding.run = Run(command=command)
            finding.run.ports = choose_ports(
                candidate, evidence, command=command, configured=configured
            )
        finding.evidence = evidence
        return finding

    @staticmethod
    def _rush_root(candidate: Candidate) -> Finding:
        evidence: list[Evidence] = []
        rush = read_json(candidate, "rush.json", evidence, comments=True)
        finding = Finding(runtime="Node.js", orchestrator="Rush", manifests=["rush.json"])
        evidence.append(ev("manifest", "rush.json", "Rush monorepo configuration"))
        if rush is None:
            rush = {}
        finding.build_system = (
            "pnpm" if "pnpmVersion" in rush else "Yarn" if "yarnVersion" in rush else "npm"
        )
        projects = rush.get("projects")
        folders = [
            p["projectFolder"]
            for p in (projects if isinstance(projects, list) else [])
            if isinstance(p, dict) and isinstance(p.get("projectFolder"), str)
        ]
        if folders:
            evidence.append(ev("workspace", "rush.json", f"{len(folders)} projects"))
        finding.workspace = Workspace(
            orchestrator="Rush", members=folders, member_manifests=["package.json"]
        )
        finding.language = _language(candidate, set())
        finding.build = Build(commands=["rush install", "rush build"], cache_dirs=["common/temp"])
        finding.evidence = evidence
        return finding
