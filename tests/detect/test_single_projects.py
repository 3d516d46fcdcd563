"""The brief's headline facts per ecosystem, stated directly rather than through golden files."""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.fixtures import SINGLE
from detect.trees import Repo, write_tree
from sleuth.stack import Project, detect_path


def only(tmp_path: Path, name: str) -> Project:
    projects = detect_path(write_tree(tmp_path / name, SINGLE[name]))
    roots = [p for p in projects if p.path == "."]
    assert len(roots) == 1, projects
    return roots[0]


@pytest.mark.parametrize(
    ("name", "language", "build_system", "framework", "runtime", "ports", "health"),
    [
        ("rust_axum", "Rust", "Cargo", "Axum", "native", [8081], None),
        ("rust_actix_renamed", "Rust", "Cargo", "Actix Web", "native", [], None),
        ("rust_rocket", "Rust", "Cargo", "Rocket", "native", [9000], None),
        ("java_spring_maven", "Java", "Maven", "Spring Boot", "JVM", [8081], "/actuator/health"),
        ("java_quarkus_maven", "Java", "Maven", "Quarkus", "JVM", [8088], "/q/health"),
        ("kotlin_micronaut_gradle", "Kotlin", "Gradle", "Micronaut", "JVM", [8082], "/health"),
        ("kotlin_ktor_catalog", "Kotlin", "Gradle", "Ktor", "JVM", [8080], None),
        (
            "java_spring_gradle_groovy",
            "Java",
            "Gradle",
            "Spring Boot",
            "JVM",
            [9090],
            "/actuator/health",
        ),
        ("scala_sbt", "Scala", "sbt", None, "JVM", [], None),
        ("node_express_yarn", "JavaScript", "Yarn", "Express", "Node.js", [3000], None),
        ("node_nest_pnpm", "TypeScript", "pnpm", "NestJS", "Node.js", [3000], None),
        ("node_fastify_bun", "TypeScript", "Bun", "Fastify", "Bun", [3000], None),
        ("node_nuxt_npm_unlocked", "TypeScript", "npm", "Nuxt", "Node.js", [3000], None),
        ("node_sveltekit_berry", "TypeScript", "Yarn", "SvelteKit", "Node.js", [3000], None),
        ("node_next_port", "JavaScript", "npm", "Next.js", "Node.js", [4000], None),
        ("deno_fresh", "TypeScript", "Deno", "Fresh", "Deno", [8000], None),
        ("python_django_requirements", "Python", "pip", "Django", "CPython", [8000], None),
        ("python_fastapi_poetry", "Python", "Poetry", "FastAPI", "CPython", [8000], None),
        ("python_flask_pipenv", "Python", "Pipenv", "Flask", "CPython", [5000], None),
        ("python_uv", "Python", "uv", None, "CPython", [], None),
        ("python_hatch", "Python", "Hatch", None, "CPython", [], None),
        ("python_pdm", "Python", "PDM", "Flask", "CPython", [5000], None),
        ("python_setuptools", "Python", "setuptools", None, "CPython", [], None),
        ("go_gin", "Go", "Go modules", "Gin", "native", [8080], None),
        ("go_echo_cmd", "Go", "Go modules", "Echo", "native", [], None),
        ("go_fiber", "Go", "Go modules", "Fiber", "native", [], None),
        ("dotnet_aspnet", "C#", ".NET", "ASP.NET Core", ".NET", [8085], "/healthz"),
        ("fsharp_console", "F#", ".NET", None, ".NET", [], None),
        ("ruby_rails", "Ruby", "Bundler", "Rails", "CRuby", [3005], "/up"),
        ("ruby_sinatra", "Ruby", "Bundler", "Sinatra", "CRuby", [4567], None),
        ("php_laravel", "PHP", "Composer", "Laravel", "PHP", [8000], "/up"),
        ("php_symfony", "PHP", "Composer", "Symfony", "PHP", [8000], None),
        ("elixir_phoenix", "Elixir", "Mix", "Phoenix", "BEAM", [4001], None),
        ("swift_vapor", "Swift", "SwiftPM", "Vapor", "native", [8080], None),
        ("dart_server", "Dart", "pub", None, "Dart VM", [], None),
        ("flutter_app", "Dart", "pub", "Flutter", "Flutter", [], None),
        ("zig_app", "Zig", "Zig build", None, "native", [], None),
        ("c_cmake", "C", "CMake", None, "native", [], None),
        ("cpp_meson", "C++", "Meson", None, "native", [], None),
        ("c_make", "C", "Make", None, "native", [], None),
        ("bazel_go", "Go", "Bazel", None, None, [], None),
    ],
)
def test_ecosystem_facts(
    tmp_path: Path,
    name: str,
    language: str,
    build_system: str,
    framework: str | None,
    runtime: str | None,
    ports: list[int],
    health: str | None,
) -> None:
    project = only(tmp_path, name)
    assert (project.language, project.build_system, project.framework, project.runtime) == (
        language,
        build_system,
        framework,
        runtime,
    )
    assert project.run.ports == ports
    assert project.run.health_endpoint == health
    assert project.source == "static"
    assert 0.5 <= project.confidence <= 1.0
    assert project.evidence, "every conclusion comes with evidence"


def test_cargo_commands_and_caches(tmp_path: Path) -> None:
    project = only(tmp_path, "rust_axum")
    assert project.build.commands == ["cargo build --release --locked"]
    assert project.build.cache_dirs == ["target/", "~/.cargo/registry", "~/.cargo/git"]
    assert project.run.command == "cargo run --release"


def test_library_crate_has_nothing_to_run(tmp_path: Path) -> None:
    project = only(tmp_path, "rust_library")
    assert project.run.command is None
    assert project.run.ports == []


def test_npm_builds_only_when_a_build_script_exists(tmp_path: Path) -> None:
    with_script = only(tmp_path, "node_next_port")
    without = only(tmp_path, "node_express_yarn")
    assert with_script.build.commands == ["npm ci", "npm run build"]
    assert without.build.commands == ["yarn install --frozen-lockfile"]


def test_configured_port_beats_dockerfile_and_default(repo: Repo) -> None:
    root = repo(
        {
            "pom.xml": SINGLE["java_spring_maven"]["pom.xml"],
            "src/main/resources/application.yml": "server:\n  port: 7001\n",
            "Dockerfile": "FROM eclipse-temurin\nEXPOSE 7002\n",
        }
    )
    assert detect_path(root)[0].run.ports == [7001]
    (root / "src/main/resources/application.yml").unlink()
    assert detect_path(root)[0].run.ports == [7002]
    (root / "Dockerfile").unlink()
    assert detect_path(root)[0].run.ports == [8080]


def test_confidence_rises_with_agreeing_evidence(repo: Repo) -> None:
    root = repo({"Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n'})
    bare = detect_path(root)[0].confidence
    (root / "src").mkdir()
    (root / "src/main.rs").write_text("fn main() {}\n")
    with_sources = detect_path(root)[0].confidence
    (root / "Cargo.lock").write_text("\n")
    with_lock = detect_path(root)[0].confidence
    assert bare < with_sources < with_lock <= 1.0
    assert bare >= 0.5


def test_a_module_named_setup_py_is_no_build_script(tmp_path: Path) -> None:
    tree = {
        "pyproject.toml": '[project]\nname = "app"\n[build-system]\n'
        'build-backend = "hatchling.build"\n',
        "src/app/__init__.py": "",
        "src/app/llm/setup.py": "def resolve(settings):\n    return settings\n",
        "src/app/llm/models.py": "X = 1\n",
    }
    projects = detect_path(write_tree(tmp_path / "app", tree))
    assert [(p.path, p.build_system) for p in projects] == [(".", "Hatch")]
