"""Breadth of ``sleuth detect``'s framework names against specfy/stack-analyser's framework list.

Usage::

    .venv/bin/python bench/detect_breadth.py [--repos DIR]

stack-analyser (MIT) publishes, per framework, the dependency names and files that signal it.
The table below restates those signals as facts. The repositories are the ones
``bench/detect.py`` generates (one service of each of its eight kinds) and the fixture
repositories of ``tests/detect``, plus every folder under ``--repos`` when given (a folder of
real checkouts). For each repository, a framework is *signalled* when one of its signals is in
the repository's manifests (package.json, requirements files, pyproject.toml, Pipfile, Gemfile,
composer.json, Cargo.toml) or one of its files is present, and *named* when a project that
``detect_path`` reports has that framework. Coverage is named / signalled.

A second measure, the probes, lays out the smallest project for each framework from its first
signal and checks whether detect names it: which of the list detect knows at all.
No network: everything is read from disk.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import sys
import tempfile
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sleuth.stack import detect_path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {"node_modules", "vendor", "target", "build", "dist", ".git", "__pycache__", "bin", "obj"}


@dataclass(frozen=True, slots=True)
class Signals:
    """One stack-analyser framework: its name, sleuth's name for it, and what signals it."""

    name: str
    sleuth: str
    npm: tuple[str, ...] = ()
    python: tuple[str, ...] = ()
    php: tuple[str, ...] = ()
    rust: tuple[str, ...] = ()
    ruby: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = field(default=())  # npm scopes, e.g. "@rails/"


# The framework rules of stack-analyser (src/rules/framework), by name. Docker images and CI
# actions are left out: a manifest check cannot see them.
FRAMEWORKS = (
    Signals("Alpine.js", "Alpine.js", npm=("alpinejs",)),
    Signals("Apache Thrift", "Apache Thrift", npm=("thrift",)),
    Signals("API Platform", "API Platform", php=("api-platform/core",)),
    Signals("Assemble", "Assemble", npm=("assemble",)),
    Signals("Astro", "Astro", npm=("astro",), files=("astro.config.mjs",)),
    Signals("Blitz", "Blitz.js", npm=("blitz",)),
    Signals("Dioxus", "Dioxus", rust=("dioxus", "dioxus-cli")),
    Signals("Django", "Django", python=("django",)),
    Signals(
        "Docusaurus",
        "Docusaurus",
        npm=("@docusaurus/core", "docusaurus"),
        files=("docusaurus.config.js",),
    ),
    Signals(
        "Drupal",
        "Drupal",
        php=("drupal/core", "drupal/core-recommended", "drupal/drupal-extension"),
    ),
    Signals(
        "Eleventy",
        "Eleventy",
        npm=("@11ty/eleventy",),
        files=(".eleventy.js", "eleventy.config.js", "eleventy.config.cjs"),
    ),
    Signals("Ember", "Ember", npm=("ember-cli", "ember-source"), files=("ember-cli-build.js",)),
    Signals("Expo", "Expo", npm=("expo",)),
    Signals("Fern", "Fern", npm=("fern-api",)),
    Signals(
        "Gatsby",
        "Gatsby",
        npm=("gatsby", "gatsby-cli"),
        files=("gatsby-config.js", "gatsby-config.ts"),
    ),
    Signals("Ghost", "Ghost", npm=("ghost-cli", "@tryghost/content-api")),
    Signals("Gradio", "Gradio", python=("gradio",)),
    Signals("Gridsome", "Gridsome", npm=("gridsome",), files=("gridsome.config.js",)),
    Signals("Hexo", "Hexo", npm=("hexo",)),
    Signals("Hugo", "Hugo", npm=("hugo-extended",), files=("hugo.toml",)),
    Signals("Jekyll", "Jekyll", ruby=("jekyll",)),
    Signals("Joomla", "Joomla", php=("joomla/application",)),
    Signals("Laravel", "Laravel", php=("laravel/framework",)),
    Signals(
        "Magento",
        "Magento",
        php=("magento/composer", "fastly/magento2", "smile/elasticsuite"),
    ),
    Signals("Meteor", "Meteor", npm=("meteor", "meteor-node-stubs")),
    Signals("Mintlify", "Mintlify", npm=("mintlify",), files=("mint.json",)),
    Signals("Mithril", "Mithril", npm=("mithril",)),
    Signals("MkDocs", "MkDocs", python=("mkdocs",), files=("mkdocs.yml",)),
    Signals("NestJS", "NestJS", npm=("@nestjs/core",)),
    Signals("Next.js", "Next.js", npm=("next",)),
    Signals("Nuxt", "Nuxt", npm=("nuxt", "nuxt3"), files=("nuxt.config.js",)),
    Signals("Payload", "Payload", npm=("payload",)),
    Signals("Phaser", "Phaser", npm=("phaser",)),
    # stack-analyser signals Rails by its npm packages only; the gem is added here.
    Signals("Rails", "Rails", npm=("rails",), ruby=("rails",), prefixes=("@rails/",)),
    Signals("Read the Docs", "Read the Docs", files=(".readthedocs.yml",)),
    Signals("RedwoodJS", "RedwoodJS", npm=("@redwoodjs/core",)),
    Signals("Refine", "Refine", npm=("@refinedev/core", "@refinedev/cli")),
    Signals("Remix", "Remix", npm=("@remix-run/node", "@remix-run/serve")),
    Signals("Remult", "Remult", npm=("remult",)),
    Signals("Shopify Hydrogen", "Hydrogen", npm=("@shopify/hydrogen",)),
    Signals("SolidJS", "SolidJS", npm=("solid-js",)),
    Signals("SvelteKit", "SvelteKit", npm=("@sveltejs/kit",)),
    Signals("Symfony", "Symfony", php=("symfony/symfony",)),
    Signals("TanStack Start", "TanStack Start", npm=("@tanstack/react-start",)),
    Signals(
        "Tauri", "Tauri", rust=("tauri",), files=("tauri.conf.js",), prefixes=("@tauri-apps/",)
    ),
    Signals("Wasp", "Wasp", files=("main.wasp", "main.wasp.ts")),
    Signals("WordPress", "WordPress", php=("roots/wordpress", "johnpbloch/wordpress")),
    Signals("Yii2", "Yii", php=("yiisoft/yii2",)),
)
_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", re.MULTILINE)
_GEM = re.compile(r"""^\s*gem\s+["']([^"']+)["']""", re.MULTILINE)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if path.is_file() and not SKIP.intersection(rel[:-1]):
            yield path


def _json(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _keys(data: dict[str, object], *tables: str) -> set[str]:
    out: set[str] = set()
    for name in tables:
        table = data.get(name)
        if isinstance(table, dict):
            out.update(str(k) for k in table)
    return out


def manifest_deps(root: Path) -> tuple[dict[str, set[str]], set[str]]:
    """Dependency names per ecosystem, and the file names present, over the whole tree."""
    deps: dict[str, set[str]] = {k: set() for k in ("npm", "python", "php", "rust", "ruby")}
    names: set[str] = set()
    for path in _files(root):
        names.add(path.name)
        name = path.name
        if name == "package.json":
            deps["npm"] |= _keys(_json(path), "dependencies", "devDependencies", "peerDependencies")
        elif name == "composer.json":
            deps["php"] |= _keys(_json(path), "require", "require-dev")
        elif name == "Cargo.toml":
            data = _toml(path)
            deps["rust"] |= _keys(data, "dependencies", "dev-dependencies", "build-dependencies")
            workspace = data.get("workspace")
            if isinstance(workspace, dict):
                deps["rust"] |= _keys(workspace, "dependencies")
        elif name == "pyproject.toml":
            data = _toml(path)
            project = data.get("project")
            if isinstance(project, dict):
                for spec in project.get("dependencies") or []:
                    match = _REQ.match(str(spec))
                    if match:
                        deps["python"].add(_norm(match.group(1)))
            tool = data.get("tool")
            poetry = tool.get("poetry") if isinstance(tool, dict) else None
            if isinstance(poetry, dict):
                deps["python"] |= {_norm(k) for k in _keys(poetry, "dependencies")}
        elif name == "Pipfile":
            deps["python"] |= {_norm(k) for k in _keys(_toml(path), "packages", "dev-packages")}
        elif name.startswith("requirements") and name.endswith(".txt"):
            text = path.read_text(encoding="utf-8", errors="replace")
            deps["python"] |= {_norm(m) for m in _REQ.findall(text) if not m.startswith("-")}
        elif name == "Gemfile":
            deps["ruby"] |= set(_GEM.findall(path.read_text(encoding="utf-8", errors="replace")))
    return deps, names


def signalled(root: Path) -> dict[str, str]:
    """The frameworks whose signals are in ``root``, each with the ecosystem that signalled it."""
    deps, names = manifest_deps(root)
    found: dict[str, str] = {}
    for fw in FRAMEWORKS:
        for eco in ("npm", "python", "php", "rust", "ruby"):
            wanted = {_norm(n) if eco == "python" else n for n in getattr(fw, eco)}
            if wanted & deps[eco]:
                found[fw.name] = eco
                break
        else:
            if any(d.startswith(p) for p in fw.prefixes for d in deps["npm"]):
                found[fw.name] = "npm"
            elif set(fw.files) & names:
                found[fw.name] = "files"
    return found


def named(root: Path) -> set[str]:
    return {p.framework for p in detect_path(root, mode="static") if p.framework}


def _load(name: str, path: Path) -> object:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def repositories(tmp: Path, extra: Path | None) -> dict[str, Path]:
    """bench/detect.py's eight service kinds, tests/detect's fixtures, and ``extra``'s folders."""
    repos: dict[str, Path] = {}
    bench = _load("bench_detect", ROOT / "bench" / "detect.py")
    for i, kind in enumerate(("rust", "node", "maven", "gradle", "python", "go", "ruby", "dotnet")):
        path = tmp / "bench" / kind
        bench._service(path, kind, i, random.Random(i), 5)  # type: ignore[attr-defined]
        repos[f"bench:{kind}"] = path
    sys.path.insert(0, str(ROOT / "tests"))
    from detect.fixtures import MONO, SINGLE
    from detect.trees import write_tree

    for name, spec in {**SINGLE, **MONO}.items():
        repos[f"fixture:{name}"] = write_tree(tmp / "fixtures" / name, spec)
    if extra is not None:
        for path in sorted(p for p in extra.iterdir() if p.is_dir()):
            repos[f"repo:{path.name}"] = path
    return repos


def probes(tmp: Path, fw: Signals) -> Iterator[Path]:
    """The smallest projects that carry one of ``fw``'s signals: one per kind of signal."""
    base = tmp / "probes" / re.sub(r"\W+", "-", fw.name)
    for i, dep in enumerate([*fw.npm, *(f"{p}api" for p in fw.prefixes)]):
        manifest = {"name": "probe", "dependencies": {dep: "1"}, "scripts": {"build": "x"}}
        yield _lay(base / f"npm{i}", {"package.json": json.dumps(manifest)})
    if fw.python:
        yield _lay(base / "python", {"requirements.txt": f"{fw.python[0]}\n", "app.py": "\n"})
    if fw.php:
        composer = {"name": "acme/probe", "require": {fw.php[0]: "*"}}
        yield _lay(base / "php", {"composer.json": json.dumps(composer)})
    if fw.rust:
        cargo = (
            f'[package]\nname = "probe"\nversion = "0.1.0"\n\n[dependencies]\n{fw.rust[0]} = "1"\n'
        )
        yield _lay(base / "rust", {"Cargo.toml": cargo, "src/main.rs": "fn main() {}\n"})
    if fw.ruby:
        yield _lay(base / "ruby", {"Gemfile": f'gem "{fw.ruby[0]}"\n', "_config.yml": "title: p\n"})
    for i, name in enumerate(fw.files):
        body = (
            "{}"
            if name.endswith(".json")
            else 'title = "probe"\n'
            if name.endswith(".toml")
            else ("site_name: probe\n" if name.endswith(".yml") else "\n")
        )
        yield _lay(base / f"file{i}", {name: body})


def _lay(root: Path, spec: dict[str, str]) -> Path:
    for rel, text in spec.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, help="a folder of real checkouts to add")
    args = parser.parse_args()
    by_name = {fw.name: fw for fw in FRAMEWORKS}
    hits = Counter[str]()
    misses = Counter[str]()
    per_eco: dict[str, Counter[str]] = {}
    with tempfile.TemporaryDirectory(prefix="sleuth-breadth-") as tmp_name:
        tmp = Path(tmp_name)
        rows = []
        for label, root in repositories(tmp, args.repos).items():
            wanted = signalled(root)
            if not wanted:
                continue
            got = named(root)
            marks = []
            for fw_name, eco in sorted(wanted.items()):
                ok = by_name[fw_name].sleuth in got
                per_eco.setdefault(eco, Counter())["named" if ok else "missed"] += 1
                (hits if ok else misses)[fw_name] += 1
                marks.append(f"{fw_name}{'' if ok else ' (MISSED)'}")
            rows.append((label, ", ".join(marks)))
        known = {fw.name: any(fw.sleuth in named(p) for p in probes(tmp, fw)) for fw in FRAMEWORKS}

    width = max(len(label) for label, _ in rows)
    print(f"{'repository':<{width}}  signalled frameworks")
    print("-" * (width + 40))
    for label, marks in rows:
        print(f"{label:<{width}}  {marks}")
    total = sum(hits.values()) + sum(misses.values())
    print()
    print(f"coverage: {sum(hits.values())}/{total} signalled frameworks named")
    for eco, counts in sorted(per_eco.items()):
        print(f"  {eco:<7} {counts['named']}/{counts['named'] + counts['missed']}")
    print(
        "top missing by repositories:",
        ", ".join(f"{n} ({c})" for n, c in misses.most_common(10)) or "none",
    )
    count = sum(known.values())
    print()
    print(f"probes: detect names {count}/{len(FRAMEWORKS)} of stack-analyser's frameworks")
    print("  named:", ", ".join(n for n, ok in known.items() if ok))
    print("  not named:", ", ".join(n for n, ok in known.items() if not ok))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
