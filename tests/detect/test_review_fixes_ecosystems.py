"""Review findings in the ecosystem detectors, each stated as the behaviour that was wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.trees import Repo, Spec
from sleuth.stack import Project, detect_path
from sleuth.stack.candidate import Candidate, Files
from sleuth.stack.ecosystems.common import sources
from sleuth.stack.ecosystems.gradle import included
from sleuth.stack.formats.yaml_lite import load, scalar
from sleuth.stack.scan import scan


def at(projects: list[Project], path: str) -> Project:
    found = [p for p in projects if p.path == path]
    assert len(found) == 1, [p.path for p in projects]
    return found[0]


def reasons(project: Project) -> list[str]:
    return [e.reason for e in project.evidence]


# 1. A port the run command binds, or the app's own config sets, beats the Dockerfile's EXPOSE.


def test_django_runserver_port_beats_dockerfile_expose(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "requirements.txt": "django==5.0\n",
                "manage.py": "import django\n",
                "Dockerfile": "FROM python:3.12\nEXPOSE 80\n",
            }
        )
    )[0]
    assert project.run.command == "python manage.py runserver 0.0.0.0:8000"
    assert project.run.ports == [8000]


def test_laravel_artisan_port_beats_php_fpm_expose(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "composer.json": {"require": {"laravel/framework": "^11.0"}},
                "artisan": "#!/usr/bin/env php\n",
                "Dockerfile": "FROM php:8.3-fpm\nEXPOSE 9000\n",
            }
        )
    )[0]
    assert project.run.command == "php artisan serve --host=0.0.0.0 --port=8000"
    assert project.run.ports == [8000]


def test_uvicorn_port_beats_dockerfile_expose(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "requirements.txt": "fastapi\nuvicorn\n",
                "main.py": "\n",
                "Dockerfile": "FROM python:3.12\nEXPOSE 80\n",
            }
        )
    )[0]
    assert project.run.ports == [8000]


@pytest.mark.parametrize(
    ("directive", "port"),
    [
        ('port ENV.fetch("PORT", 3000)\n', 3000),
        ("port ENV.fetch('PORT', '3001')\n", 3001),
        ('port ENV.fetch("PORT") { 3002 }\n', 3002),
        ('port ENV.fetch("PORT") { "3003" }\n', 3003),
        ('port ENV["PORT"] || 3004\n', 3004),
        ("port 3005\n", 3005),
    ],
)
def test_puma_port_forms_beat_dockerfile_expose(repo: Repo, directive: str, port: int) -> None:
    project = detect_path(
        repo(
            {
                "Gemfile": 'source "https://rubygems.org"\ngem "rails", "~> 8.0"\n',
                "config/puma.rb": 'threads_count = ENV.fetch("RAILS_MAX_THREADS", 3)\n' + directive,
                "Dockerfile": "FROM ruby:3.3\nEXPOSE 80\n",
            }
        )
    )[0]
    assert project.framework == "Rails"
    assert project.run.ports == [port]


def test_dockerfile_expose_still_beats_a_framework_default(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "Gemfile": 'gem "rails"\n',
                "Dockerfile": "FROM ruby:3.3\nEXPOSE 8080\n",
            }
        )
    )[0]
    assert project.run.ports == [8080]


# 2. Deeply nested manifests are problems, not crashes.

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("spec", "manifest", "language"),
    [
        ({"Cargo.toml": f"[package]\nname = 'x'\nv = {DEEP}\n"}, "Cargo.toml", "Rust"),
        ({"composer.json": DEEP}, "composer.json", "PHP"),
        ({"package.json": DEEP}, "package.json", "JavaScript"),
        ({"deno.jsonc": DEEP}, "deno.jsonc", "TypeScript"),
    ],
)
def test_deeply_nested_manifest_is_a_problem(
    repo: Repo, spec: Spec, manifest: str, language: str
) -> None:
    project = detect_path(repo(spec))[0]
    assert project.language == language
    problems = [e for e in project.evidence if e.kind == "problem"]
    assert [e.file for e in problems] == [manifest]
    assert "nested too deeply" in problems[0].reason
    assert not any("failed" in r for r in reasons(project)), reasons(project)


def test_deeply_nested_pubspec_does_not_crash(repo: Repo) -> None:
    nested = "".join(" " * (2 * i) + f"k{i}:\n" for i in range(600))
    project = detect_path(repo({"pubspec.yaml": "name: deep\n" + nested}))[0]
    assert project.language == "Dart"
    assert project.project_name == "deep"
    assert not any("failed" in r for r in reasons(project)), reasons(project)


def test_yaml_lite_bounds_depth_without_raising() -> None:
    nested = "".join(" " * i + f"k{i}:\n" for i in range(5000))
    data = load(nested)
    assert isinstance(data, dict)
    depth = 0
    while isinstance(data, dict) and data:
        data = next(iter(data.values()))
        depth += 1
    assert 10 < depth < 5000
    assert isinstance(scalar("[" * 50_000 + "]" * 50_000), list)
    sequences = "".join(" " * i + "-\n" for i in range(5000))
    assert isinstance(load(sequences), list)


# 3. Gradle includes that span lines; includeBuild is not a subproject.


def test_gradle_include_across_lines() -> None:
    groovy = "include ':app',\n        ':lib'\ninclude ':web'\n"
    assert included(groovy) == ["app", "lib", "web"]
    kotlin = 'include(\n    "app",\n    "lib", // the library\n)\nincludeBuild("build-logic")\n'
    assert included(kotlin) == ["app", "lib"]
    assert included('includeBuild("plugins")\nincludeBuild ":other"\n') == []


def test_gradle_multiline_include_gives_members_the_orchestrator(repo: Repo) -> None:
    projects = detect_path(
        repo(
            {
                "settings.gradle.kts": 'rootProject.name = "shop"\ninclude(\n    "app",\n'
                '    "lib",\n)\nincludeBuild("build-logic")\n',
                "app/build.gradle.kts": "plugins { java }\n",
                "lib/build.gradle.kts": "plugins { `java-library` }\n",
                "build-logic/build.gradle.kts": "plugins { `kotlin-dsl` }\n",
            }
        )
    )
    assert at(projects, "app").orchestrator == "Gradle multi-project"
    assert at(projects, "lib").orchestrator == "Gradle multi-project"
    assert at(projects, "build-logic").orchestrator is None


# 4. A Gradle root that only declares a plugin (apply false) is not that plugin's app.


def test_gradle_root_with_apply_false_plugin_is_not_an_app(repo: Repo) -> None:
    projects = detect_path(
        repo(
            {
                "settings.gradle.kts": 'rootProject.name = "shop"\ninclude("app")\n',
                "build.gradle.kts": "plugins {\n"
                '    id("org.springframework.boot") version "3.2.0" apply false\n'
                '    id("io.spring.dependency-management") version "1.1.4" apply false\n}\n',
                "gradlew": "#!/bin/sh\n",
                "app/build.gradle.kts": 'plugins {\n    id("org.springframework.boot")\n}\n',
                "app/src/main/java/shop/App.java": "\n",
            }
        )
    )
    root = at(projects, ".")
    assert root.framework is None
    assert root.run.command is None
    assert root.run.ports == []
    app = at(projects, "app")
    assert app.framework == "Spring Boot"
    assert app.run.command == "../gradlew bootRun"
    assert app.run.ports == [8080]


def test_gradle_multi_project_root_without_sources_has_nothing_to_run(repo: Repo) -> None:
    projects = detect_path(
        repo(
            {
                "settings.gradle": "include 'app'\n",
                "build.gradle": "subprojects {\n    apply plugin: 'org.springframework.boot'\n}\n",
                "app/build.gradle": "plugins { id 'org.springframework.boot' }\n",
                "app/src/main/java/App.java": "\n",
            }
        )
    )
    root = at(projects, ".")
    assert root.run.command is None
    assert root.run.ports == []
    assert at(projects, "app").run.ports == [8080]


# 5. npm libraries are not servers.


def test_peer_dependency_is_not_a_framework(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "package.json": {
                    "name": "express-helpers",
                    "main": "dist/index.js",
                    "peerDependencies": {"express": "^4"},
                },
                "src/index.ts": "\n",
            }
        )
    )[0]
    assert project.framework is None
    assert project.run.command is None
    assert project.run.ports == []


def test_main_alone_is_not_a_run_command(repo: Repo) -> None:
    project = detect_path(repo({"package.json": {"name": "lib", "main": "index.js"}}))[0]
    assert project.run.command is None


@pytest.mark.parametrize(
    ("bin_field", "command"),
    [("cli.js", "node cli.js"), ({"tool": "bin/tool.js"}, "node bin/tool.js")],
)
def test_bin_is_a_run_command(repo: Repo, bin_field: object, command: str) -> None:
    package = {"name": "tool", "main": "index.js", "bin": bin_field}
    project = detect_path(repo({"package.json": package}))[0]
    assert project.run.command == command


# 6. Nx integrated repositories.

NX: Spec = {
    "package.json": {
        "name": "acme",
        "private": True,
        "devDependencies": {"nx": "18.0.0", "next": "14.1.0", "@nestjs/core": "10.0.0"},
    },
    "package-lock.json": {"lockfileVersion": 3},
    "nx.json": {"targetDefaults": {}},
    "apps/api/project.json": {
        "name": "api",
        "targets": {
            "build": {"executor": "@nx/webpack:webpack"},
            "serve": {"executor": "@nx/js:node", "options": {"port": 3333}},
        },
    },
    "apps/api/src/main.ts": "\n",
    "apps/web/project.json": {
        "name": "web-app",
        "targets": {"build": {"executor": "@nx/next:build"}, "serve": {}},
    },
    "apps/web/pages/index.tsx": "\n",
    "libs/shared/project.json": {"name": "shared", "targets": {"lint": {}}},
    "libs/shared/src/index.ts": "\n",
}


def test_nx_root_does_not_take_a_framework_from_hoisted_dev_dependencies(repo: Repo) -> None:
    root = at(detect_path(repo(NX)), ".")
    assert root.orchestrator == "Nx"
    assert root.framework is None
    assert root.run.command is None
    assert root.run.ports == []


def test_nx_project_json_members_get_nx_commands(repo: Repo) -> None:
    projects = detect_path(repo(NX))
    api = at(projects, "apps/api")
    assert api.project_name == "api"
    assert api.build_system == "Nx"
    assert api.orchestrator == "Nx"
    assert api.language == "TypeScript"
    assert api.build.commands == ["npm ci", "npx nx build api"]
    assert api.run.command == "npx nx serve api"
    assert api.run.ports == [3333]
    web = at(projects, "apps/web")
    assert web.project_name == "web-app"
    assert web.build.commands == ["npm ci", "npx nx build web-app"]
    assert web.run.command == "npx nx serve web-app"
    shared = at(projects, "libs/shared")
    assert shared.build_system == "Nx"
    assert shared.build.commands == []
    assert shared.run.command is None
    assert shared.confidence >= 0.5


def test_project_json_outside_nx_is_left_alone(repo: Repo) -> None:
    project = detect_path(repo({"project.json": {"name": "x", "targets": {"build": {}}}}))
    assert all(p.build_system != "Nx" for p in project)


# 7. Python requirements layouts.


def test_requirements_includes_are_followed(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "requirements.txt": "-r requirements/production.txt\n",
                "requirements/production.txt": "--requirement=base.txt\ngunicorn\n",
                "requirements/base.txt": "django==5.0\n",
                "manage.py": "\n",
            }
        )
    )[0]
    assert project.framework == "Django"
    dependency = [e for e in project.evidence if e.kind == "dependency"]
    assert [e.file for e in dependency] == ["requirements/base.txt"]


def test_requirements_include_cycles_and_escapes_are_harmless(repo: Repo) -> None:
    root = repo(
        {
            "app/requirements.txt": "-r a.txt\n-r ../../outside.txt\n",
            "app/a.txt": "-r requirements.txt\nflask\n",
        }
    )
    (root.parent / "outside.txt").write_text("django\n")
    project = at(detect_path(root), "app")
    assert project.framework == "Flask"


def test_manage_py_is_django_evidence(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "pyproject.toml": '[project]\nname = "site"\nversion = "1"\n',
                "manage.py": "import os\nfrom django.core.management import "
                "execute_from_command_line\n",
            }
        )
    )[0]
    assert project.framework == "Django"
    assert project.run.command == "python manage.py runserver 0.0.0.0:8000"


def test_manage_py_of_another_tool_is_not_django(repo: Repo) -> None:
    project = detect_path(
        repo({"requirements.txt": "flask\n", "manage.py": "from flask_script import Manager\n"})
    )[0]
    assert project.framework == "Flask"


def test_dependency_evidence_names_the_file_that_declares_it(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "pyproject.toml": "[tool.black]\nline-length = 100\n",
                "requirements.txt": "flask\n",
                "app.py": "\n",
            }
        )
    )[0]
    dependency = [e for e in project.evidence if e.kind == "dependency"]
    assert [e.file for e in dependency] == ["requirements.txt"]


def test_tool_settings_only_pyproject_has_no_requirements_install(repo: Repo) -> None:
    project = detect_path(
        repo({"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "tool.py": "\n"})
    )[0]
    assert project.language == "Python"
    assert not any("requirements.txt" in c for c in project.build.commands)


# 8. One helper for source evidence.


def test_sources_is_a_list(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("\n")
    tree = scan(tmp_path, max_file_bytes=1000)
    candidate = Candidate(
        path=".",
        reason="sources",
        manifests=(),
        files=frozenset({"a.py"}),
        dirs=frozenset(),
        extensions={".py": 1},
        store=Files(tree, 1000),
    )
    assert [e.reason for e in sources(candidate, "Python")] == [
        "1 Python source file (100% of sources)"
    ]
    assert sources(candidate, "Rust") == []


def test_yaml_lite_keeps_what_follows_a_node_too_deep_to_read() -> None:
    down = "".join(" " * (i + 1) + f"k{i}:\n" for i in range(300))
    up = "".join(" " * (i + 1) + f"s{i}: v\n" for i in reversed(range(300)))
    data = load("name: x\nnested:\n" + down + up + "after: kept\n")
    assert isinstance(data, dict)
    assert data["name"] == "x"
    assert data["after"] == "kept"


def test_puma_bind_is_a_configured_port(repo: Repo) -> None:
    project = detect_path(
        repo(
            {
                "Gemfile": 'gem "rails"\n',
                "config/puma.rb": 'bind "tcp://0.0.0.0:3100"\n',
                "Dockerfile": "FROM ruby:3.3\nEXPOSE 80\n",
            }
        )
    )[0]
    assert project.run.ports == [3100]
