"""Records named like manifests, documentation sites, edge platforms, and names from manifests.

The record fixtures copy the shape of a package-manager registry's audit folder: thousands of
JSON records, one per tool, a few of them named after tools that also have manifests
(``composer.json``, ``elm.json``, ``vcpkg.json``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.trees import Repo, Spec
from sleuth.stack import detect_path
from sleuth.stack.model import Project
from sleuth.stack.scan import scan
from sleuth.stack.spots import find_spots


def record(tool: str, *, previous: bool = True) -> dict[str, object]:
    """One audit record: which registry a tool's name was resolved to, and why."""
    data: dict[str, object] = {
        "tool": tool,
        "selected": f"homebrew:{tool}",
        "alternatives": [f"crates.io:{tool}", f"npm:{tool}"],
        "selection_reason": "priority_fallback",
        "downloads_ratio": 5.88,
        "high_risk": True,
        "probe_results": [
            {"source": f"npm:{tool}", "downloads": 0, "version_count": 4, "has_repository": True}
        ],
        "disambiguated_at": "2026-02-17T00:15:14Z",
        "seeding_run": "2026-02-17T00:10:01Z",
    }
    if previous:
        data["previous_source"] = f"homebrew:{tool}"
    return data


def audit_folder(count: int, manifests: tuple[str, ...]) -> Spec:
    """``count`` records in one folder, among them one per manifest name in ``manifests``."""
    names = [f"tool{i:04d}" for i in range(count)] + [m.removesuffix(".json") for m in manifests]
    return {
        f"data/audit/{name}.json": record(name, previous=i % 3 != 0) for i, name in enumerate(names)
    }


def by_path(root: Path) -> dict[str, Project]:
    return {p.path: p for p in detect_path(root)}


HOST = {"go.mod": "module github.com/acme/registry\n\ngo 1.22\n", "main.go": "package main\n"}


def test_a_folder_of_records_named_like_manifests_is_no_project(repo: Repo) -> None:
    root = repo({**HOST, **audit_folder(200, ("composer.json", "elm.json", "vcpkg.json"))})
    assert list(by_path(root)) == ["."]


@pytest.mark.parametrize(
    "name",
    ["vcpkg.json", "elm.json", "project.json", "package.json", "composer.json", "deno.json"],
)
def test_one_record_named_like_a_manifest_is_no_project(repo: Repo, name: str) -> None:
    root = repo({**HOST, **audit_folder(20, (name,))})
    assert list(by_path(root)) == ["."]


def test_a_record_with_a_manifest_key_is_still_a_record_among_its_siblings(repo: Repo) -> None:
    # Registry entries carrying "name" and "version" pass package.json's key test; their
    # siblings, all shaped alike, show what they are.
    entries = {
        f"index/{n}.json": {"name": n, "version": "1.0.0", "sha256": "ab", "url": "https://x"}
        for n in ("left-pad", "lodash", "package", "react", "vue")
    }
    root = repo({**HOST, **entries})
    assert list(by_path(root)) == ["."]


# A project's own neighbours: JSON of other shapes, which never make its manifest a record.
NEIGHBOURS: Spec = {
    "tsconfig.json": {"compilerOptions": {}},
    ".eslintrc.json": {"rules": {}},
    "renovate.json": {"extends": ["config:base"]},
    "cspell.json": {"words": []},
}


def test_a_real_composer_manifest_beside_other_json_is_still_a_project(repo: Repo) -> None:
    composer = {"name": "acme/shop", "require": {"php": ">=8.2"}}
    root = repo({f"app/{k}": v for k, v in {"composer.json": composer, **NEIGHBOURS}.items()})
    found = by_path(root)
    assert (found["app"].build_system, found["app"].project_name) == ("Composer", "shop")


def test_a_real_elm_manifest_beside_other_json_keeps_its_folder_a_candidate(repo: Repo) -> None:
    elm = {
        "type": "application",
        "source-directories": ["src"],
        "elm-version": "0.19.1",
        "dependencies": {"direct": {}, "indirect": {}},
    }
    root = repo({f"app/{k}": v for k, v in {"elm.json": elm, **NEIGHBOURS}.items()})
    spots = find_spots(scan(root, max_file_bytes=1 << 20))
    assert [(s.path, s.manifests) for s in spots] == [("app", ("elm.json",))]


def test_records_are_hidden_from_detectors_too(repo: Repo) -> None:
    # The folder is a candidate through a real vcpkg manifest, which no deterministic detector
    # reads; the Composer-named record beside it must not make it a PHP project.
    root = repo(
        {
            "pkg/vcpkg.json": {"name": "pkg", "dependencies": ["fmt"]},
            "pkg/composer.json": record("composer"),
        }
    )
    assert detect_path(root) == []


def test_a_vcpkg_manifest_still_makes_a_candidate(repo: Repo) -> None:
    # vcpkg has no deterministic detector: a real manifest keeps the folder a candidate, so a
    # CMake project beside it is found, and a record does not make one.
    root = repo(
        {
            "lib/vcpkg.json": {"name": "mylib", "version": "1.0", "dependencies": ["fmt"]},
            "lib/CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(mylib CXX)\n",
            "lib/src/a.cpp": "int main() { return 0; }\n",
        }
    )
    found = by_path(root)
    assert found["lib"].manifests == ["lib/CMakeLists.txt", "lib/vcpkg.json"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Cargo.toml", 'schema = 1\nbinary = "cargo"\n'),
        ("pyproject.toml", 'tool_name = "ruff"\nsource = "pypi"\n'),
        ("pubspec.yaml", "tool: dart\nsource: github\n"),
        ("gleam.toml", 'binary = "gleam"\n'),
    ],
)
def test_toml_and_yaml_named_like_manifests_need_their_keys(
    repo: Repo, name: str, text: str
) -> None:
    root = repo({**HOST, f"recipes/x/{name}": text})
    assert list(by_path(root)) == ["."]


# --- documentation sites ------------------------------------------------------------------


def test_a_docusaurus_site_is_named_from_its_dependency_and_config(repo: Repo) -> None:
    root = repo(
        {
            "website/package.json": {
                "name": "docs-site",
                "scripts": {"start": "docusaurus start", "build": "docusaurus build"},
                "dependencies": {"@docusaurus/core": "3.5.2", "react": "18"},
            },
            "website/docusaurus.config.ts": "export default {title: 'Docs'};\n",
            "website/docs/intro.md": "# Intro\n",
        }
    )
    site = by_path(root)["website"]
    assert site.framework == "Docusaurus"
    assert site.run.ports == [3000]
    reasons = {(e.file, e.reason) for e in site.evidence}
    assert ("website/package.json", "depends on @docusaurus/core") in reasons
    assert ("website/docusaurus.config.ts", "Docusaurus configuration") in reasons


def test_a_docusaurus_config_alone_names_the_framework(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {"name": "site", "dependencies": {"@docusaurus/preset-classic": "3"}},
            "docusaurus.config.js": "module.exports = {};\n",
        }
    )
    assert by_path(root)["."].framework == "Docusaurus"


@pytest.mark.parametrize(
    ("files", "framework"),
    [
        (
            {"package.json": {"devDependencies": {"vitepress": "1"}}, "docs/index.md": "# x\n"},
            "VitePress",
        ),
        ({"package.json": {"devDependencies": {"vuepress": "2"}}}, "VuePress"),
        (
            {"package.json": {"dependencies": {"astro": "4", "@astrojs/starlight": "0.2"}}},
            "Starlight",
        ),
        ({"package.json": {"dependencies": {"astro": "4"}}}, "Astro"),
        ({"package.json": {"dependencies": {"next": "14", "nextra": "3"}}}, "Nextra"),
        ({"package.json": {"devDependencies": {"docsify-cli": "4"}}}, "Docsify"),
        ({"package.json": {"dependencies": {"gatsby": "5"}}}, "Gatsby"),
        ({"mkdocs.yml": "site_name: Docs\ntheme:\n  name: material\n"}, "MkDocs"),
        ({"mkdocs.yml": "site_name: Docs\n", "mkdocs.yaml": "site_name: Docs\n"}, "MkDocs"),
        (
            {
                "mkdocs.yml": "site_name: Docs\n",
                "requirements.txt": "mkdocs-material==9.5\n",
            },
            "MkDocs",
        ),
        (
            {
                "conf.py": "extensions = ['sphinx.ext.autodoc']\nhtml_theme = 'furo'\n",
                "requirements.txt": "sphinx\nfuro\n",
                "index.rst": "Docs\n====\n",
            },
            "Sphinx",
        ),
        ({"hugo.toml": "baseURL = 'https://example.org/'\ntitle = 'Blog'\n"}, "Hugo"),
        ({"book.toml": "[book]\ntitle = 'Guide'\nsrc = 'src'\n"}, "mdBook"),
        (
            {
                "Gemfile": 'source "https://rubygems.org"\ngem "jekyll", "~> 4.3"\n',
                "_config.yml": "title: Blog\n",
            },
            "Jekyll",
        ),
    ],
)
def test_documentation_site_generators(repo: Repo, files: Spec, framework: str) -> None:
    found = by_path(repo({f"site/{k}": v for k, v in files.items()}))
    assert found["site"].framework == framework


def test_a_python_library_with_an_mkdocs_manual_stays_a_library(repo: Repo) -> None:
    root = repo(
        {
            "pyproject.toml": '[project]\nname = "lib"\nversion = "1"\n',
            "mkdocs.yml": "site_name: lib\n",
            "lib/__init__.py": "",
        }
    )
    project = by_path(root)["."]
    assert (project.framework, project.build_system) == (None, "setuptools")


def test_a_crate_with_its_book_stays_a_crate(repo: Repo) -> None:
    root = repo(
        {
            "Cargo.toml": '[package]\nname = "tool"\nversion = "0.1.0"\n',
            "book.toml": "[book]\ntitle = 'Tool'\n",
            "src/main.rs": "fn main() {}\n",
        }
    )
    assert by_path(root)["."].build_system == "Cargo"


def test_a_jekyll_plugin_gem_is_no_site(repo: Repo) -> None:
    root = repo(
        {
            "jekyll-seo.gemspec": 'Gem::Specification.new do |s|\n  s.name = "jekyll-seo"\n'
            '  s.add_dependency "jekyll", ">= 3.8"\nend\n',
            "lib/jekyll-seo.rb": "module Jekyll; end\n",
        }
    )
    assert by_path(root)["."].framework is None


# --- edge and serverless platforms --------------------------------------------------------


def test_a_cloudflare_worker_runs_on_workers(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {
                "name": "edge-api",
                "scripts": {"deploy": "wrangler deploy"},
                "dependencies": {"hono": "4"},
                "devDependencies": {"wrangler": "3"},
            },
            "wrangler.toml": 'name = "edge-api"\nmain = "src/index.ts"\n'
            'compatibility_date = "2024-09-01"\n',
            "src/index.ts": "export default { fetch() { return new Response('ok') } }\n",
        }
    )
    worker = by_path(root)["."]
    assert (worker.framework, worker.runtime) == ("Hono", "Cloudflare Workers")
    assert worker.run.command == "npx wrangler dev"
    assert worker.run.ports == [8787]
    assert any(e.file == "wrangler.toml" for e in worker.evidence)


def test_a_rust_worker_with_wrangler_jsonc_runs_on_workers(repo: Repo) -> None:
    root = repo(
        {
            "Cargo.toml": '[package]\nname = "worker-rs"\nversion = "0.1.0"\n\n'
            '[dependencies]\nworker = "0.4"\n',
            "wrangler.jsonc": '{\n  // the worker\n  "name": "worker-rs",\n'
            '  "main": "build/worker/shim.mjs"\n}\n',
            "src/lib.rs": "",
        }
    )
    assert by_path(root)["."].runtime == "Cloudflare Workers"


@pytest.mark.parametrize(
    ("files", "runtime"),
    [
        (
            {"wrangler.toml": 'name = "site"\npages_build_output_dir = "dist"\n'},
            "Cloudflare Pages",
        ),
        ({"vercel.json": {"functions": {"api/*.ts": {"memory": 1024}}}}, "Vercel Functions"),
        ({"vercel.json": {}, "api/hello.ts": "export default () => 1\n"}, "Vercel Functions"),
        ({"netlify/functions/hello.mjs": "export default () => 1\n"}, "Netlify Functions"),
        (
            {"netlify/edge-functions/geo.ts": "export default () => 1\n"},
            "Netlify Edge Functions",
        ),
        (
            {"fastly.toml": 'manifest_version = 3\nname = "edge"\nlanguage = "javascript"\n'},
            "Fastly Compute",
        ),
        (
            {"serverless.yml": "service: api\nprovider:\n  name: aws\n  runtime: nodejs20.x\n"},
            "AWS Lambda",
        ),
        (
            {"template.yaml": "Transform: AWS::Serverless-2016-10-31\nResources: {}\n"},
            "AWS Lambda",
        ),
    ],
)
def test_edge_and_serverless_platforms(repo: Repo, files: Spec, runtime: str) -> None:
    spec: dict[str, object] = {"package.json": {"name": "app", "dependencies": {"react": "18"}}}
    spec.update(files)
    assert by_path(repo(spec))["."].runtime == runtime  # type: ignore[arg-type]


def test_deno_deploy(repo: Repo) -> None:
    root = repo({"deno.json": {"tasks": {"start": "deno run main.ts"}, "deploy": {"project": "x"}}})
    assert by_path(root)["."].runtime == "Deno Deploy"


def test_a_static_netlify_config_changes_nothing(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {"name": "app", "dependencies": {"express": "4"}},
            "netlify.toml": '[[redirects]]\nfrom = "/a"\nto = "/b"\n',
            "vercel.json": {"headers": []},
        }
    )
    assert by_path(root)["."].runtime == "Node.js"


# --- a checkout under another folder name ---------------------------------------------------


@pytest.mark.parametrize(
    ("files", "name"),
    [
        ({"x.gemspec": 'Gem::Specification.new do |s|\n  s.name = "rack".freeze\nend\n'}, "rack"),
        ({"y.gemspec": "Gem::Specification.new do |spec|\n  spec.name = %q{puma}\nend\n"}, "puma"),
        ({"thor.gemspec": "Gem::Specification.new do |s|\n  s.name = NAME\nend\n"}, "thor"),
        ({"Gemfile": "gemspec\n", "sidekiq.gemspec": "s.name = Sidekiq::NAME\n"}, "sidekiq"),
        ({"setup.cfg": "[metadata]\nname = attrs\nversion = 1\n"}, "attrs"),
        ({"pyproject.toml": '[project]\nname = "httpx"\n'}, "httpx"),
        ({"Cargo.toml": '[package]\nname = "ripgrep"\nversion = "14.0.0"\n'}, "ripgrep"),
        ({"go.mod": "module github.com/cli/cli/v2\n\ngo 1.22\n"}, "cli"),
        ({"package.json": {"name": "@acme/ui", "version": "1.0.0"}}, "@acme/ui"),
        ({"composer.json": {"name": "laravel/laravel"}}, "laravel"),
    ],
)
def test_a_checkout_under_another_name_is_named_by_its_manifest(
    tmp_path: Path, files: Spec, name: str
) -> None:
    from detect.trees import write_tree

    root = write_tree(tmp_path / "owner+repo", files)
    assert [p.project_name for p in detect_path(root)] == [name]
