"""Small repositories, one per detector and per monorepo layout, written as path -> content.

Each name has an expected report in ``expected/<name>.json``.
"""

from __future__ import annotations

from detect.trees import Spec


def pom(
    artifact: str,
    *,
    parent: tuple[str, str] | None = None,
    deps: tuple[str, ...] = (),
    managed: tuple[str, ...] = (),
    packaging: str | None = None,
    modules: tuple[str, ...] = (),
    plugins: tuple[str, ...] = (),
) -> str:
    """A Maven POM; coordinates are ``group:artifact``."""

    def dep(coord: str, tag: str = "dependency") -> str:
        group, art = coord.split(":")
        return f"<{tag}><groupId>{group}</groupId><artifactId>{art}</artifactId></{tag}>"

    parts = ['<?xml version="1.0" encoding="UTF-8"?>']
    parts.append('<project xmlns="http://maven.apache.org/POM/4.0.0">')
    parts.append("<modelVersion>4.0.0</modelVersion>")
    if parent:
        parts.append(
            f"<parent><groupId>{parent[0]}</groupId><artifactId>{parent[1]}</artifactId>"
            "<version>1.0.0</version></parent>"
        )
    parts.append(f"<groupId>com.example</groupId><artifactId>{artifact}</artifactId>")
    parts.append("<version>1.0.0</version>")
    if packaging:
        parts.append(f"<packaging>{packaging}</packaging>")
    if modules:
        parts.append("<modules>" + "".join(f"<module>{m}</module>" for m in modules) + "</modules>")
    if managed:
        body = "".join(dep(c) for c in managed)
        parts.append(
            f"<dependencyManagement><dependencies>{body}</dependencies></dependencyManagement>"
        )
    if deps:
        parts.append("<dependencies>" + "".join(dep(c) for c in deps) + "</dependencies>")
    if plugins:
        body = "".join(dep(c, "plugin") for c in plugins)
        parts.append(f"<build><plugins>{body}</plugins></build>")
    parts.append("</project>")
    return "\n".join(parts)


def java(n: int, prefix: str = "src/main/java/com/example", ext: str = ".java") -> Spec:
    return {f"{prefix}/File{i}{ext}": "class X {}\n" for i in range(n)}


def files(prefix: str, names: tuple[str, ...]) -> Spec:
    return {f"{prefix}/{name}": "\n" for name in names}


SINGLE: dict[str, Spec] = {
    "rust_axum": {
        "Cargo.toml": '[package]\nname = "edge"\nversion = "0.1.0"\n\n[dependencies]\n'
        'axum = "0.7"\ntokio = { version = "1", features = ["full"] }\n',
        "Cargo.lock": "# lock\n",
        "src/main.rs": "fn main() {}\n",
        "src/routes.rs": "\n",
        "Dockerfile": "FROM rust:1 AS build\nEXPOSE 9999\nFROM debian\nARG PORT=8081\n"
        "EXPOSE ${PORT}/tcp\n",
    },
    "rust_actix_renamed": {
        "Cargo.toml": '[package]\nname = "api"\nversion = "0.1.0"\n\n'
        '[dependencies]\nweb = { package = "actix-web", version = "4" }\n',
        "src/main.rs": "fn main() {}\n",
    },
    "rust_rocket": {
        "Cargo.toml": '[package]\nname = "blog"\nversion = "0.1.0"\n\n'
        '[dependencies]\nrocket = "0.5"\n',
        "Rocket.toml": "[default]\nport = 9000\n",
        "src/main.rs": "\n",
    },
    "rust_library": {
        "Cargo.toml": '[package]\nname = "parser"\nversion = "0.1.0"\n',
        "src/lib.rs": "\n",
    },
    "java_spring_maven": {
        "pom.xml": pom(
            "orders",
            parent=("org.springframework.boot", "spring-boot-starter-parent"),
            deps=(
                "org.springframework.boot:spring-boot-starter-web",
                "org.springframework.boot:spring-boot-starter-actuator",
            ),
        ),
        "mvnw": "#!/bin/sh\n",
        "src/main/resources/application.properties": "spring.application.name=orders\n"
        "server.port=${PORT:8081}\n",
        **java(3),
    },
    "java_quarkus_maven": {
        "pom.xml": pom(
            "greeter",
            managed=("io.quarkus.platform:quarkus-bom",),
            deps=("io.quarkus:quarkus-rest", "io.quarkus:quarkus-smallrye-health"),
        ),
        "src/main/resources/application.properties": "quarkus.http.port=8088\n",
        **java(2),
    },
    "kotlin_micronaut_gradle": {
        "build.gradle.kts": 'plugins {\n    kotlin("jvm") version "1.9.0"\n'
        '    id("io.micronaut.application") version "4.2.1"\n}\n'
        "dependencies {\n"
        '    implementation("io.micronaut:micronaut-management")\n}\n',
        "settings.gradle.kts": 'rootProject.name = "inventory"\n',
        "src/main/resources/application.yml": "micronaut:\n  application:\n    name: inventory\n"
        "  server:\n    port: 8082\n",
        **java(4, "src/main/kotlin/com/example", ".kt"),
    },
    "kotlin_ktor_catalog": {
        "build.gradle.kts": "plugins {\n    alias(libs.plugins.kotlin.jvm)\n    application\n}\n"
        "dependencies {\n    implementation(libs.ktor.server.core)\n}\n",
        "settings.gradle.kts": 'rootProject.name = "chat"\n',
        "gradle/libs.versions.toml": "[libraries]\n"
        'ktor-server-core = { module = "io.ktor:ktor-server-core", version = "2.3.0" }\n\n'
        '[plugins]\nkotlin-jvm = { id = "org.jetbrains.kotlin.jvm", version = "1.9.0" }\n',
        "gradlew": "#!/bin/sh\n",
        **java(2, "src/main/kotlin", ".kt"),
    },
    "java_spring_gradle_groovy": {
        "build.gradle": "plugins {\n    id 'java'\n"
        "    id 'org.springframework.boot' version '3.2.0'\n}\n"
        "dependencies {\n"
        "    implementation 'org.springframework.boot:spring-boot-starter-actuator'\n}\n",
        "gradlew": "#!/bin/sh\n",
        "src/main/resources/application.yml": "server:\n  port: 9090\n---\nserver:\n  port: 1\n",
        **java(2),
    },
    "scala_sbt": {
        "build.sbt": 'name := "hello"\nscalaVersion := "3.3.1"\n',
        "src/main/scala/Main.scala": "@main def run = ()\n",
    },
    "scala_play": {
        "build.sbt": 'name := "portal"\n'
        'lazy val root = (project in file(".")).enablePlugins(PlayScala)\n',
        "project/plugins.sbt": 'addSbtPlugin("org.playframework" % "sbt-plugin" % "3.0.0")\n',
        "app/controllers/Home.scala": "\n",
    },
    "node_express_yarn": {
        "package.json": {
            "name": "shop-api",
            "main": "server.js",
            "scripts": {"start": "node server.js"},
            "dependencies": {"express": "^4.19.0"},
        },
        "yarn.lock": "# yarn lockfile v1\n",
        "server.js": "\n",
        "routes/items.js": "\n",
    },
    "node_nest_pnpm": {
        "package.json": {
            "name": "billing",
            "scripts": {"build": "nest build", "start:prod": "node dist/main"},
            "dependencies": {"@nestjs/core": "^10.0.0", "@nestjs/common": "^10.0.0"},
            "devDependencies": {"typescript": "^5.0.0"},
        },
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        "tsconfig.json": "{}\n",
        "src/main.ts": "\n",
        "src/app.module.ts": "\n",
    },
    "node_fastify_bun": {
        "package.json": {
            "name": "ingest",
            "scripts": {"start": "bun run index.ts"},
            "dependencies": {"fastify": "^4.0.0"},
        },
        "bun.lockb": b"\x00\x01",
        "index.ts": "\n",
    },
    "node_nuxt_npm_unlocked": {
        "package.json": {
            "name": "docs-site",
            "scripts": {"build": "nuxt build"},
            "devDependencies": {"nuxt": "^3.10.0"},
        },
        "app.vue": "\n",
        "nuxt.config.ts": "\n",
    },
    "node_sveltekit_berry": {
        "package.json": {
            "name": "board",
            "packageManager": "yarn@4.1.0",
            "scripts": {"build": "vite build"},
            "devDependencies": {"@sveltejs/kit": "^2.0.0"},
        },
        "yarn.lock": "__metadata:\n",
        ".yarnrc.yml": "nodeLinker: node-modules\n",
        "src/app.ts": "\n",
    },
    "node_next_port": {
        "package.json": {
            "name": "landing",
            "scripts": {"build": "next build", "start": "next start -p 4000"},
            "dependencies": {"next": "14.1.0", "react": "18.2.0"},
        },
        "package-lock.json": {"lockfileVersion": 3},
        "pages/index.js": "\n",
    },
    "deno_fresh": {
        "deno.json": "{\n  // Fresh app\n"
        '  "tasks": {"start": "deno run -A main.ts", "build": "deno run -A dev.ts build"},\n'
        '  "imports": {"$fresh/": "https://deno.land/x/fresh@1.6.0/"},\n}\n',
        "deno.lock": "{}\n",
        "main.ts": "\n",
        "routes/index.tsx": "\n",
    },
    "python_django_requirements": {
        "requirements.txt": "# web\nDjango==5.0.2\npsycopg[binary]>=3.1\n-r extra.txt\n",
        "manage.py": "\n",
        "mysite/settings.py": "\n",
        "mysite/urls.py": "\n",
    },
    "python_fastapi_poetry": {
        "pyproject.toml": '[tool.poetry]\nname = "quotes"\nversion = "0.1.0"\n\n'
        '[tool.poetry.dependencies]\npython = "^3.11"\nfastapi = "^0.110"\nuvicorn = "*"\n\n'
        '[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n',
        "poetry.lock": "\n",
        "app/main.py": "\n",
        "app/__init__.py": "\n",
    },
    "python_flask_pipenv": {
        "Pipfile": '[packages]\nFlask = "*"\n\n[requires]\npython_version = "3.12"\n',
        "Pipfile.lock": "{}\n",
        "app.py": "\n",
    },
    "python_uv": {
        "pyproject.toml": '[project]\nname = "crawler"\nversion = "1.0"\n'
        'dependencies = ["httpx>=0.27"]\n\n'
        "[tool.uv]\ndev-dependencies = []\n",
        "uv.lock": "version = 1\n",
        "src/crawler/__init__.py": "\n",
    },
    "python_hatch": {
        "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'
        'build-backend = "hatchling.build"\n\n'
        '[project]\nname = "toolkit"\nversion = "0.1"\n',
        "src/toolkit/__init__.py": "\n",
    },
    "python_pdm": {
        "pyproject.toml": '[project]\nname = "ledger"\nversion = "0.1"\n'
        'dependencies = ["flask>=3"]\n\n'
        '[build-system]\nrequires = ["pdm-backend"]\nbuild-backend = "pdm.backend"\n',
        "pdm.lock": "\n",
        "ledger/__init__.py": "\n",
    },
    "python_setuptools": {
        "setup.py": "from setuptools import setup\n\nsetup(\n    name='legacy-tool',\n"
        "    install_requires=['requests>=2', 'click'],\n)\n",
        "legacy_tool/__init__.py": "\n",
    },
    "go_gin": {
        "go.mod": "module github.com/acme/users\n\ngo 1.22\n\nrequire (\n"
        "\tgithub.com/gin-gonic/gin v1.9.1 // indirect comment\n\tgolang.org/x/net v0.20.0\n)\n",
        "go.sum": "\n",
        "main.go": "package main\n",
        "handlers/users.go": "package handlers\n",
    },
    "go_echo_cmd": {
        "go.mod": "module example.com/notify/v2\n\ngo 1.22\n\n"
        "require github.com/labstack/echo/v4 v4.11.4\n",
        "go.sum": "\n",
        "cmd/notifier/main.go": "package main\n",
        "internal/send.go": "package internal\n",
    },
    "go_fiber": {
        "go.mod": "module fiberapp\n\nrequire github.com/gofiber/fiber/v2 v2.52.0\n",
        "server.go": "package main\n",
    },
    "dotnet_aspnet": {
        "Catalog.Api.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web">\n  <PropertyGroup>\n'
        "    <TargetFramework>net8.0</TargetFramework>\n    <AssemblyName>Catalog</AssemblyName>\n"
        "  </PropertyGroup>\n</Project>\n",
        "appsettings.json": '{\n  // local\n  "Kestrel": {"Endpoints": {"Http": {"Url": "http://0.0.0.0:8085"}}}\n}\n',
        "Program.cs": 'var app = builder.Build();\napp.MapHealthChecks("/healthz");\n',
        "Controllers/ItemsController.cs": "\n",
    },
    "fsharp_console": {
        "Tool.fsproj": '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n'
        "    <OutputType>Exe</OutputType>\n    <TargetFramework>net8.0</TargetFramework>\n"
        "  </PropertyGroup>\n</Project>\n",
        "Program.fs": "\n",
    },
    "ruby_rails": {
        "Gemfile": 'source "https://rubygems.org"\ngem "rails", "~> 7.1"\ngem "puma"\n',
        "Gemfile.lock": "\n",
        "config/routes.rb": "Rails.application.routes.draw do\n"
        '  get "up" => "rails/health#show"\nend\n',
        "config/puma.rb": 'port ENV.fetch("PORT") { 3005 }\n',
        "app/assets/config/manifest.js": "\n",
        "app/models/user.rb": "\n",
        "config/application.rb": "\n",
    },
    "ruby_sinatra": {
        "Gemfile": "source 'https://rubygems.org'\ngem 'sinatra'\n",
        "app.rb": "\n",
    },
    "php_laravel": {
        "composer.json": {
            "name": "acme/portal",
            "require": {"php": "^8.2", "laravel/framework": "^11.0"},
        },
        "composer.lock": "{}\n",
        "artisan": "#!/usr/bin/env php\n",
        "bootstrap/app.php": "->withRouting(\n    health: '/up',\n)\n",
        "app/Models/User.php": "\n",
    },
    "php_symfony": {
        "composer.json": {"name": "acme/shop", "require": {"symfony/framework-bundle": "^7.0"}},
        "public/index.php": "\n",
        "src/Kernel.php": "\n",
    },
    "elixir_phoenix": {
        "mix.exs": "defmodule Chat.MixProject do\n  def project do\n"
        '    [app: :chat, version: "0.1.0",'
        " deps: deps()]\n  end\n  def application, do: [mod: {Chat.Application, []}]\n"
        '  defp deps, do: [{:phoenix, "~> 1.7"}, {:jason, "~> 1.4"}]\n'
        '  defp aliases, do: ["assets.deploy": ["esbuild default --minify"]]\nend\n',
        "mix.lock": "\n",
        "config/runtime.exs": 'port = String.to_integer(System.get_env("PORT") || "4001")\n',
        "lib/chat.ex": "\n",
    },
    "swift_vapor": {
        "Package.swift": 'let package = Package(\n    name: "Todos",\n    dependencies: [\n'
        '        .package(url: "https://github.com/vapor/vapor.git", from: "4.0.0"),\n    ],\n'
        '    targets: [\n        .executableTarget(name: "App"),\n    ]\n)\n',
        "Package.resolved": "{}\n",
        "Sources/App/main.swift": "\n",
    },
    "dart_server": {
        "pubspec.yaml": "name: relay\nenvironment:\n  sdk: ^3.0.0\n"
        "dependencies:\n  shelf: ^1.4.0\n",
        "pubspec.lock": "\n",
        "bin/server.dart": "\n",
        "lib/relay.dart": "\n",
    },
    "flutter_app": {
        "pubspec.yaml": "name: wallet\ndependencies:\n  flutter:\n    sdk: flutter\n",
        "lib/main.dart": "\n",
        "web/index.html": "\n",
        "android/app/build.gradle": "android {}\n",
    },
    "zig_app": {
        "build.zig": 'const std = @import("std");\npub fn build(b: *std.Build) void {\n'
        '    const run_step = b.step("run", "Run the app");\n    _ = run_step;\n}\n',
        "build.zig.zon": '.{\n    .name = .lexer,\n    .version = "0.0.1",\n}\n',
        "src/main.zig": "\n",
    },
    "c_cmake": {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(hello LANGUAGES C)\n"
        "add_subdirectory(lib)\nadd_executable(hello main.c)\n",
        "main.c": "\n",
        "lib/CMakeLists.txt": "add_library(util util.c)\n",
        "lib/util.c": "\n",
        "lib/util.h": "\n",
    },
    "cpp_meson": {
        "meson.build": "project('calc', 'cpp', version: '1.0')\nexecutable('calc', 'main.cpp')\n",
        "main.cpp": "\n",
        "src/parser.hpp": "\n",
    },
    "c_make": {
        "Makefile": "CC=cc\nbuild: main.o\n\t$(CC) -o tool main.o\nrun: build\n\t./tool\n",
        "main.c": "\n",
        "util.h": "\n",
    },
    "bazel_go": {
        "MODULE.bazel": 'module(name = "mono", version = "0.1")\n',
        "BUILD.bazel": "\n",
        ".bazelversion": "7.0.0\n",
        "svc/BUILD.bazel": "go_binary()\n",
        "svc/main.go": "package main\n",
        "svc/util.go": "package main\n",
    },
}

MONO: dict[str, Spec] = {
    "polyglot": {
        "README.md": "# polyglot\n",
        "backend/pom.xml": pom(
            "backend",
            parent=("org.springframework.boot", "spring-boot-starter-parent"),
            deps=("org.springframework.boot:spring-boot-starter-web",),
        ),
        **java(3, "backend/src/main/java/com/example"),
        "backend/src/main/resources/application.yml": "spring:\n  application:\n"
        "    name: backend\n",
        "cli/Cargo.toml": '[package]\nname = "polyctl"\nversion = "0.1.0"\n\n'
        '[dependencies]\nclap = "4"\n',
        "cli/Cargo.lock": "\n",
        "cli/src/main.rs": "\n",
        "frontend/package.json": {
            "name": "frontend",
            "scripts": {"build": "next build", "start": "next start"},
            "dependencies": {"next": "14.1.0", "react": "18.2.0"},
            "devDependencies": {"typescript": "5.3.0"},
        },
        "frontend/package-lock.json": {"lockfileVersion": 3},
        "frontend/tsconfig.json": "{}\n",
        **files("frontend/app", ("page.tsx", "layout.tsx")),
    },
    "cargo_workspace": {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/experimental"]\n'
        'resolver = "2"\n',
        "Cargo.lock": "\n",
        "crates/core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n',
        "crates/core/src/lib.rs": "\n",
        "crates/server/Cargo.toml": '[package]\nname = "server"\nversion = "0.1.0"\n\n'
        '[dependencies]\naxum = { workspace = true }\ncore = { path = "../core" }\n',
        "crates/server/src/main.rs": "\n",
        "crates/experimental/Cargo.toml": '[package]\nname = "experimental"\nversion = "0.0.0"\n',
        "crates/experimental/src/lib.rs": "\n",
    },
    "npm_workspaces": {
        "package.json": {"name": "acme", "private": True, "workspaces": ["packages/*"]},
        "package-lock.json": {"lockfileVersion": 3},
        "packages/ui/package.json": {
            "name": "@acme/ui",
            "scripts": {"build": "tsc"},
            "devDependencies": {"typescript": "^5"},
        },
        "packages/ui/src/index.ts": "\n",
        "packages/api/package.json": {
            "name": "@acme/api",
            "scripts": {"start": "node index.js"},
            "dependencies": {"express": "^4"},
        },
        "packages/api/index.js": "\n",
    },
    "pnpm_workspaces": {
        "package.json": {
            "name": "platform",
            "private": True,
            "scripts": {"build": "pnpm -r build"},
        },
        "pnpm-workspace.yaml": "packages:\n  - 'apps/*'\n  - 'libs/**'\n  - '!**/fixtures/**'\n",
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        "apps/web/package.json": {
            "name": "web",
            "scripts": {"build": "svelte-kit build"},
            "devDependencies": {"@sveltejs/kit": "^2"},
        },
        "apps/web/src/app.ts": "\n",
        "libs/utils/package.json": {"name": "utils", "main": "index.js"},
        "libs/utils/index.js": "\n",
        "libs/utils/fixtures/sample/package.json": {"name": "sample"},
    },
    "yarn_workspaces": {
        "package.json": {"name": "kit", "private": True, "workspaces": {"packages": ["pkgs/*"]}},
        "yarn.lock": "# yarn lockfile v1\n",
        "pkgs/cli/package.json": {"name": "kit-cli", "scripts": {"build": "tsc"}},
        "pkgs/cli/src/main.ts": "\n",
    },
    "turborepo": {
        "package.json": {
            "name": "turbo-mono",
            "private": True,
            "packageManager": "pnpm@8.15.0",
            "devDependencies": {"turbo": "^1.12"},
        },
        "pnpm-workspace.yaml": "packages:\n  - apps/*\n",
        "pnpm-lock.yaml": "lockfileVersion: '6.0'\n",
        "turbo.json": '{\n  // pipeline\n  "pipeline": {"build": {}},\n}\n',
        "apps/site/package.json": {
            "name": "site",
            "scripts": {"build": "next build", "start": "next start"},
            "dependencies": {"next": "14"},
        },
        "apps/site/pages/index.tsx": "\n",
    },
    "nx_monorepo": {
        "package.json": {"name": "nx-org", "private": True, "devDependencies": {"nx": "18.0.0"}},
        "package-lock.json": {"lockfileVersion": 3},
        "nx.json": {"targetDefaults": {}},
        "apps/gateway/package.json": {
            "name": "gateway",
            "scripts": {"build": "tsc"},
            "dependencies": {"fastify": "^4"},
        },
        "apps/gateway/src/main.ts": "\n",
        "tools/scripts/project.json": {"name": "scripts"},
        "tools/scripts/release.py": "\n",
    },
    "lerna_monorepo": {
        "package.json": {"name": "lerna-root", "private": True},
        "lerna.json": {"packages": ["modules/*"], "version": "independent"},
        "yarn.lock": "\n",
        "modules/core/package.json": {"name": "@l/core", "main": "lib/index.js"},
        "modules/core/lib/index.js": "\n",
    },
    "rush_monorepo": {
        "rush.json": '{\n  /* Rush config */\n  "pnpmVersion": "8.0.0",\n  "projects": [\n'
        '    {"packageName": "@r/app", "projectFolder": "apps/app"},\n  ],\n}\n',
        "apps/app/package.json": {
            "name": "@r/app",
            "scripts": {"build": "tsc"},
            "dependencies": {"express": "^4"},
        },
        "apps/app/src/index.ts": "\n",
    },
    "gradle_multi": {
        "settings.gradle.kts": 'rootProject.name = "shop"\ninclude("app", "lib:core")\n',
        "build.gradle.kts": "plugins {\n    java\n}\n",
        "gradlew": "#!/bin/sh\n",
        "app/build.gradle.kts": 'plugins {\n    id("org.springframework.boot") version "3.2.0"\n}\n'
        'dependencies {\n    implementation("org.springframework.boot:spring-boot-starter-web")\n'
        '    implementation(project(":lib:core"))\n}\n',
        **java(2, "app/src/main/java/shop"),
        "lib/core/build.gradle.kts": "plugins {\n    `java-library`\n}\n",
        **java(1, "lib/core/src/main/java/shop/core"),
    },
    "maven_multi": {
        "pom.xml": pom("platform", packaging="pom", modules=("service", "common")),
        "mvnw": "#!/bin/sh\n",
        "service/pom.xml": pom(
            "service",
            parent=("com.example", "platform"),
            deps=(
                "org.springframework.boot:spring-boot-starter-web",
                "org.springframework.boot:spring-boot-starter-actuator",
                "com.example:common",
            ),
        ),
        **java(2, "service/src/main/java/com/example/service"),
        "common/pom.xml": pom("common", parent=("com.example", "platform")),
        **java(1, "common/src/main/java/com/example/common"),
    },
    "go_workspace": {
        "go.work": "go 1.22\n\nuse (\n\t./api\n\t./worker // background jobs\n)\n",
        "go.work.sum": "\n",
        "api/go.mod": "module example.com/api\n\nrequire github.com/gin-gonic/gin v1.9.1\n",
        "api/main.go": "package main\n",
        "worker/go.mod": "module example.com/worker\n",
        "worker/main.go": "package main\n",
    },
    "dotnet_solution": {
        "Shop.sln": "Microsoft Visual Studio Solution File, Format Version 12.00\n"
        'Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "Api", '
        '"src\\Api\\Api.csproj", "{1}"\n'
        "EndProject\n"
        'Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "Core", '
        '"src\\Core\\Core.csproj", "{2}"\n'
        "EndProject\n"
        'Project("{2150E333-8FDC-42A3-9474-1A3956D46DE8}") = "docs", "docs", "{3}"\nEndProject\n',
        "src/Api/Api.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>\n',
        "src/Api/Program.cs": "\n",
        "src/Core/Core.csproj": '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n'
        '    <PackageReference Include="Dapper" Version="2.1.0" />\n  </ItemGroup>\n</Project>\n',
        "src/Core/Order.cs": "\n",
    },
    "mix_umbrella": {
        "mix.exs": "defmodule Hub.Umbrella.MixProject do\n  def project do\n"
        '    [apps_path: "apps", deps: []]\n  end\nend\n',
        "mix.lock": "\n",
        "apps/web/mix.exs": '[app: :hub_web, deps: [{:phoenix, "~> 1.7"}]]\n',
        "apps/web/lib/web.ex": "\n",
        "apps/core/mix.exs": "[app: :hub_core, deps: []]\n",
        "apps/core/lib/core.ex": "\n",
    },
    "uv_workspace": {
        "pyproject.toml": '[project]\nname = "suite"\nversion = "0"\n\n[tool.uv.workspace]\n'
        'members = ["packages/*"]\n',
        "uv.lock": "\n",
        "packages/etl/pyproject.toml": '[project]\nname = "etl"\nversion = "0"\n'
        'dependencies = ["fastapi"]\n',
        "packages/etl/main.py": "\n",
    },
}
