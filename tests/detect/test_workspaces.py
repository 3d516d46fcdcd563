"""Workspace roots are projects with their orchestrator; members carry the orchestrator of the
innermost workspace that lists them, and member commands reach the workspace root."""

from __future__ import annotations

from pathlib import Path

from detect.fixtures import MONO, pom
from detect.trees import Repo, write_tree
from sleuth.stack import Project, detect_path


def layout(tmp_path: Path, name: str) -> dict[str, Project]:
    return {p.path: p for p in detect_path(write_tree(tmp_path / name, MONO[name]))}


def test_polyglot_repo_yields_one_project_per_service(tmp_path: Path) -> None:
    projects = layout(tmp_path, "polyglot")
    assert sorted(projects) == ["backend", "cli", "frontend"]
    backend, cli, frontend = projects["backend"], projects["cli"], projects["frontend"]
    assert (backend.language, backend.build_system, backend.framework) == (
        "Java",
        "Maven",
        "Spring Boot",
    )
    assert backend.run.ports == [8080]
    assert (cli.project_name, cli.language, cli.build_system) == ("polyctl", "Rust", "Cargo")
    assert (frontend.language, frontend.framework, frontend.runtime) == (
        "TypeScript",
        "Next.js",
        "Node.js",
    )
    assert all(p.orchestrator is None for p in projects.values())


def test_cargo_workspace_root_and_members(tmp_path: Path) -> None:
    projects = layout(tmp_path, "cargo_workspace")
    root = projects["."]
    assert root.orchestrator == "Cargo workspaces"
    assert root.build.commands == ["cargo build --release --workspace --locked"]
    assert root.run.command is None
    for member in ("crates/core", "crates/server"):
        assert projects[member].orchestrator == "Cargo workspaces"
        assert projects[member].build.cache_dirs[0] == "../../target/"
        assert any(e.file == "Cargo.lock" for e in projects[member].evidence)
    assert projects["crates/server"].framework == "Axum"


def test_excluded_crate_is_reported_but_not_a_member(tmp_path: Path) -> None:
    experimental = layout(tmp_path, "cargo_workspace")["crates/experimental"]
    assert experimental.orchestrator is None
    assert experimental.build.cache_dirs[0] == "target/"


def test_npm_workspace_members_use_the_root_lockfile(tmp_path: Path) -> None:
    projects = layout(tmp_path, "npm_workspaces")
    assert projects["."].orchestrator == "npm workspaces"
    assert projects["."].build.commands == ["npm ci", "npm run build --workspaces --if-present"]
    ui = projects["packages/ui"]
    assert (ui.project_name, ui.orchestrator) == ("@acme/ui", "npm workspaces")
    assert ui.build.commands == ["npm ci", "npm run build"]
    assert "../../node_modules/" in ui.build.cache_dirs


def test_pnpm_workspace_globs_and_exclusions(tmp_path: Path) -> None:
    projects = layout(tmp_path, "pnpm_workspaces")
    assert projects["."].orchestrator == "pnpm workspaces"
    assert projects["apps/web"].orchestrator == "pnpm workspaces"
    assert projects["apps/web"].build_system == "pnpm"
    assert projects["libs/utils"].orchestrator == "pnpm workspaces"
    excluded = projects["libs/utils/fixtures/sample"]
    assert excluded.orchestrator is None
    assert excluded.build_system == "npm"


def test_monorepo_tools_name_the_orchestrator(tmp_path: Path) -> None:
    assert layout(tmp_path, "turborepo")["apps/site"].orchestrator == "Turborepo"
    assert layout(tmp_path, "nx_monorepo")["apps/gateway"].orchestrator == "Nx"
    assert layout(tmp_path, "lerna_monorepo")["modules/core"].orchestrator == "Lerna"
    rush = layout(tmp_path, "rush_monorepo")
    assert rush["."].orchestrator == "Rush"
    assert rush["apps/app"].build.commands == ["rush install", "rush build --to @r/app"]
    assert layout(tmp_path, "yarn_workspaces")["pkgs/cli"].orchestrator == "Yarn workspaces"


def test_gradle_multi_project_members_call_the_root_wrapper(tmp_path: Path) -> None:
    projects = layout(tmp_path, "gradle_multi")
    assert projects["."].orchestrator == "Gradle multi-project"
    assert projects["."].project_name == "shop"
    app, core = projects["app"], projects["lib/core"]
    assert (app.framework, app.orchestrator) == ("Spring Boot", "Gradle multi-project")
    assert app.build.commands == ["../gradlew assemble"]
    assert app.run.command == "../gradlew bootRun"
    assert core.build.commands == ["../../gradlew assemble"]
    assert core.orchestrator == "Gradle multi-project"


def test_maven_modules_build_through_the_aggregator(tmp_path: Path) -> None:
    projects = layout(tmp_path, "maven_multi")
    assert projects["."].orchestrator == "Maven multi-module"
    assert projects["."].run.command is None
    service = projects["service"]
    assert service.build.commands == [
        "../mvnw -B -f ../pom.xml -pl :service -am package -DskipTests"
    ]
    assert service.run.health_endpoint == "/actuator/health"
    assert projects["common"].orchestrator == "Maven multi-module"


def test_go_dotnet_mix_and_uv_workspaces(tmp_path: Path) -> None:
    go = layout(tmp_path, "go_workspace")
    assert {go[p].orchestrator for p in (".", "api", "worker")} == {"Go workspaces"}
    dotnet = layout(tmp_path, "dotnet_solution")
    assert {dotnet[p].orchestrator for p in (".", "src/Api", "src/Core")} == {".NET solution"}
    assert dotnet["src/Api"].framework == "ASP.NET Core"
    mix = layout(tmp_path, "mix_umbrella")
    assert mix["apps/web"].framework == "Phoenix"
    assert mix["apps/web"].build.cache_dirs[:2] == ["../../deps/", "../../_build/"]
    uv = layout(tmp_path, "uv_workspace")
    assert uv["packages/etl"].build_system == "uv"
    assert uv["packages/etl"].orchestrator == "uv workspaces"


def test_innermost_workspace_wins_and_nested_roots_keep_their_own(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {"name": "outer", "workspaces": ["packages/*", "packages/*/*"]},
            "package-lock.json": {},
            "packages/tools/package.json": {"name": "tools", "workspaces": ["plugins/*"]},
            "packages/tools/plugins/a/package.json": {"name": "a"},
            "packages/lone/package.json": {"name": "lone"},
        }
    )
    projects = {p.path: p for p in detect_path(root)}
    assert projects["packages/tools"].orchestrator == "npm workspaces"
    plugin = projects["packages/tools/plugins/a"]
    member_of = [e.reason for e in plugin.evidence if e.reason.startswith("member of")]
    assert member_of == ["member of the npm workspaces rooted at packages/tools"]
    assert projects["packages/lone"].orchestrator == "npm workspaces"


def test_maven_module_outside_the_aggregator_folder_is_a_member(repo: Repo) -> None:
    root = repo(
        {
            "parent/pom.xml": pom("parent", packaging="pom", modules=("../shared",)),
            "shared/a/pom.xml": pom("x"),
            "shared/pom.xml": pom("shared"),
        }
    )
    projects = {p.path: p for p in detect_path(root)}
    assert projects["parent"].orchestrator == "Maven multi-module"
    assert projects["shared/a"].orchestrator is None
    # as deep as its aggregator, so claimed after detection: orchestrator only
    assert projects["shared"].orchestrator == "Maven multi-module"
    assert projects["shared"].build.commands == ["mvn -B package -DskipTests"]


def test_member_must_hold_the_workspace_manifest(repo: Repo) -> None:
    root = repo(
        {
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
            "crates/web/package.json": {"name": "web"},
        }
    )
    projects = {p.path: p for p in detect_path(root)}
    assert projects["crates/web"].orchestrator is None


def test_deno_and_bun_workspaces(repo: Repo) -> None:
    root = repo(
        {
            "deno.json": {"workspace": ["./add", "./sub"]},
            "add/deno.json": {"name": "@math/add", "tasks": {"start": "deno run main.ts"}},
            "add/main.ts": "\n",
            "js/package.json": {"name": "js", "workspaces": ["pkgs/*"]},
            "js/bun.lock": "{}\n",
            "js/pkgs/a/package.json": {"name": "a", "scripts": {"build": "tsc"}},
        }
    )
    projects = {p.path: p for p in detect_path(root)}
    assert projects["."].orchestrator == "Deno workspaces"
    assert projects["add"].orchestrator == "Deno workspaces"
    assert projects["add"].run.command == "deno task start"
    assert projects["js"].orchestrator == "Bun workspaces"
    member = projects["js/pkgs/a"]
    assert (member.build_system, member.runtime, member.orchestrator) == (
        "Bun",
        "Bun",
        "Bun workspaces",
    )
    assert member.build.commands == ["bun install --frozen-lockfile", "bun run build"]
