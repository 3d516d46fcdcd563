"""Frameworks from specfy/stack-analyser's list that detect did not name, each on a small
repository shaped like a real one of its kind (see ``bench/detect_breadth.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.trees import Repo, Spec
from sleuth.stack import detect_path
from sleuth.stack.model import Project


def by_path(root: Path) -> dict[str, Project]:
    return {p.path: p for p in detect_path(root)}


@pytest.mark.parametrize(
    ("files", "framework"),
    [
        (
            {
                "package.json": {
                    "name": "mobile",
                    "main": "expo-router/entry",
                    "scripts": {"start": "expo start", "android": "expo run:android"},
                    "dependencies": {"expo": "~51.0.0", "react": "18.2.0", "react-native": "0.74"},
                },
                "app.json": {"expo": {"name": "mobile", "slug": "mobile"}},
                "app/index.tsx": "export default function Home() { return null }\n",
            },
            "Expo",
        ),
        (
            {
                "package.json": {
                    "name": "blog",
                    "scripts": {"build": "eleventy", "start": "eleventy --serve"},
                    "devDependencies": {"@11ty/eleventy": "^3.0.0"},
                },
                "eleventy.config.js": "export default function (config) {}\n",
                "src/index.md": "# Blog\n",
            },
            "Eleventy",
        ),
        (
            {
                "package.json": {
                    "name": "dashboard",
                    "scripts": {"build": "ember build --environment=production"},
                    "devDependencies": {"ember-cli": "~5.8", "ember-source": "~5.8"},
                },
                "ember-cli-build.js": "module.exports = function (defaults) {};\n",
                "app/app.js": "\n",
            },
            "Ember",
        ),
        (
            {
                "package.json": {
                    "name": "hexo-site",
                    "scripts": {"build": "hexo generate", "server": "hexo server"},
                    "dependencies": {"hexo": "^7.0.0", "hexo-renderer-marked": "^6.0.0"},
                },
                "_config.yml": "title: Notes\ntheme: landscape\n",
                "source/_posts/hello.md": "# Hello\n",
            },
            "Hexo",
        ),
        (
            {
                "package.json": {
                    "name": "site",
                    "scripts": {"build": "gridsome build"},
                    "dependencies": {"gridsome": "^0.7.23", "vue": "2"},
                },
                "gridsome.config.js": "module.exports = {};\n",
            },
            "Gridsome",
        ),
        (
            {
                "package.json": {
                    "name": "shop",
                    "scripts": {"build": "shopify hydrogen build"},
                    "dependencies": {
                        "@shopify/hydrogen": "2024.7.0",
                        "@remix-run/node": "2",
                        "@remix-run/react": "2",
                    },
                },
                "app/root.tsx": "\n",
            },
            "Hydrogen",
        ),
        (
            {
                "package.json": {
                    "name": "app",
                    "scripts": {"build": "blitz build", "start": "blitz start"},
                    "dependencies": {"blitz": "2.0.0", "next": "13.5", "react": "18"},
                },
                "src/pages/index.tsx": "\n",
            },
            "Blitz.js",
        ),
        (
            {
                "package.json": {
                    "name": "start-app",
                    "scripts": {"build": "vite build"},
                    "dependencies": {"@tanstack/react-start": "^1.120", "react": "19"},
                },
                "src/router.tsx": "\n",
            },
            "TanStack Start",
        ),
        (
            {
                "package.json": {
                    "name": "chat",
                    "scripts": {"start": "meteor run"},
                    "dependencies": {"@babel/runtime": "7", "meteor-node-stubs": "^1.2.5"},
                },
                ".meteor/release": "METEOR@3.0\n",
                "client/main.js": "\n",
            },
            "Meteor",
        ),
    ],
)
def test_node_frameworks(repo: Repo, files: Spec, framework: str) -> None:
    found = by_path(repo({f"app/{k}": v for k, v in files.items()}))
    assert found["app"].framework == framework


def test_an_eleventy_config_alone_names_the_framework(repo: Repo) -> None:
    root = repo({"package.json": {"name": "site"}, ".eleventy.js": "module.exports = {};\n"})
    assert by_path(root)["."].framework == "Eleventy"


def test_a_redwood_app_is_named_at_its_root(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {
                "private": True,
                "workspaces": {"packages": ["api", "web"]},
                "devDependencies": {"@redwoodjs/core": "8.0.0"},
            },
            "redwood.toml": "[web]\n  port = 8910\n[api]\n  port = 8911\n",
            "api/package.json": {"name": "api", "dependencies": {"@redwoodjs/api": "8.0.0"}},
            "web/package.json": {"name": "web", "dependencies": {"@redwoodjs/web": "8.0.0"}},
        }
    )
    assert by_path(root)["."].framework == "RedwoodJS"


def test_a_gradio_app_runs_its_script_on_gradios_port(repo: Repo) -> None:
    root = repo(
        {
            "requirements.txt": "gradio==4.44.0\ntransformers\n",
            "app.py": "import gradio as gr\ngr.Interface(fn=str, inputs='text', outputs='text')\n",
        }
    )
    project = by_path(root)["."]
    assert project.framework == "Gradio"
    assert project.run is not None
    assert project.run.command == "python app.py"
    assert project.run.ports == [7860]


@pytest.mark.parametrize(
    ("require", "framework"),
    [
        ({"drupal/core-recommended": "^10.3", "drush/drush": "^13"}, "Drupal"),
        ({"roots/wordpress": "^6.6", "vlucas/phpdotenv": "^5"}, "WordPress"),
        ({"yiisoft/yii2": "~2.0.45", "yiisoft/yii2-bootstrap5": "~2.0"}, "Yii"),
        (
            {"api-platform/core": "^3.3", "symfony/framework-bundle": "7.1.*"},
            "API Platform",
        ),
    ],
)
def test_php_frameworks(repo: Repo, require: dict[str, str], framework: str) -> None:
    root = repo(
        {
            "composer.json": {"name": "acme/site", "require": {"php": ">=8.2", **require}},
            "public/index.php": "<?php\n",
        }
    )
    assert by_path(root)["."].framework == framework


def test_a_tauri_app_names_tauri_in_its_rust_folder(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {
                "name": "desktop",
                "scripts": {"tauri": "tauri"},
                "devDependencies": {"@tauri-apps/cli": "^2", "vite": "5"},
            },
            "src-tauri/Cargo.toml": '[package]\nname = "desktop"\nversion = "0.1.0"\n\n'
            '[build-dependencies]\ntauri-build = "2"\n\n[dependencies]\ntauri = "2"\n'
            'serde = "1"\n',
            "src-tauri/src/main.rs": "fn main() {}\n",
        }
    )
    assert by_path(root)["src-tauri"].framework == "Tauri"


def test_a_dioxus_fullstack_app_is_dioxus_not_its_server(repo: Repo) -> None:
    root = repo(
        {
            "Cargo.toml": '[package]\nname = "web"\nversion = "0.1.0"\n\n[dependencies]\n'
            'dioxus = { version = "0.6", features = ["fullstack"] }\n'
            'axum = { version = "0.7", optional = true }\n',
            "src/main.rs": "fn main() {}\n",
        }
    )
    assert by_path(root)["."].framework == "Dioxus"
