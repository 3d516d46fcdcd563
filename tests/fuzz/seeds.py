"""Starting points for the mutating strategies: inputs as people and servers really write them."""

from __future__ import annotations

import gzip
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
DATA = TESTS.parent.parent / "shared" / "data"

HOSTS = [
    "example.com",
    "EXAMPLE.com.",
    "127.0.0.1",
    "0x7f.1",
    "2130706433",
    "0177.0.0.01",
    "\uff10x7f.0.0.1",
    "%31%32%37.0.0.1",
    "[::ffff:7f00:1]",
    "[fe80::1%25eth0]",
    "[2001:db8::1]",
    "b\u00fccher.example",
    "xn--bcher-kva.example",
    "sub.localhost",
    "metadata.google.internal",
    "169.254.169.254",
    "a..b",
    "1.2.3.4.5",
    "999.1.1.1",
    "[::]",
    "0",
    "x" * 70 + ".com",
]
HOST_TOKENS = [".", "..", "%", "%2e", "%00", "%ff", "0x", "0", "[", "]", ":", "::", "%25", "\u3002"]

URLS = [
    "https://example.com/",
    "http://example.com:8080/path?q=1#frag",
    "https://user:pw@example.com/",
    "http://[::1]:80/",
    "http://0x7f.1/",
    "https://xn--bcher-kva.example/b\u00fccher?\u00e4=1",
    "ftp://example.com/file",
    "http://example.com:0/",
    "http://example.com:99999/",
    "//example.com/relative",
    "http://%65xample.com/",
    "https://example.com/a/../../b/./c",
    "http://[2001:db8::1%25en0]:443/",
]
URL_TOKENS = [
    "://",
    "@",
    ":",
    "[",
    "]",
    "%",
    "#",
    "?",
    "/",
    "\\",
    "..",
    "%2F",
    "\t",
    " ",
    *HOSTS[:8],
]

ALLOW_ENTRIES = [
    "wiki.intranet",
    "*.corp.example",
    "10.0.0.0/8",
    "[fd00::]/8:443",
    "host:8080",
    "host:*",
    "192.168.1.5",
    "[::1]:*",
    "2001:db8::/32",
]

ROBOTS = [
    "User-agent: *\nDisallow: /private/\nAllow: /private/ok\nCrawl-delay: 2\n",
    "User-agent: sleuth\nDisallow: /\n\nUser-agent: *\nAllow: /\nSitemap: https://e.example/s.xml\n",
    "User-agent: *\nDisallow: /*.pdf$\nDisallow: /search?q=*\nAllow: /$\n",
    "# comment only\n\n",
    "\ufeffUser-Agent: *\r\nDisallow: /a%3Cb\r\nRequest-rate: 1/5\r\n",
]
ROBOTS_TOKENS = ["User-agent:", "Disallow:", "Allow:", "*", "$", "%", "%2F", "#", "\n", ":", "/"]
ROBOTS_PATHS = ["/", "/private/x", "/private/ok", "/a%3Cb", "/x.pdf", "/search?q=1", "/%zz", ""]

CONFIG = [
    'cache = "redis"\nredis_url = "redis://127.0.0.1:6379/0"\n'
    'allow_hosts = ["wiki.intranet", "10.20.0.0/16"]\nsearch_providers = ["brave"]\n',
    "[sleuth]\nmax_pages = 3\nfetch_deadline = 12.5\nallow_ports = [80, 443, 8080]\n",
    'log_format = "json"\nrender = "never"\nllm_provider = "ollama"\n',
    "max_bytes = 1_000_000\nrecency_days = 0\n",
    'allow_hosts = "a.example,b.example"\n',
]
CONFIG_TOKENS = ["=", "[", "]", '"', "'", "{", "}", ",", "\n", "[sleuth]", "inf", "nan", "1e400"]

# One file per manifest format, as a small but real project would have it.
MANIFESTS: dict[str, str] = {
    "package.json": json.dumps(
        {
            "name": "web",
            "scripts": {"dev": "next dev -p 3001", "build": "next build", "start": "next start"},
            "dependencies": {"next": "14.2.0", "react": "18.3.0"},
            "workspaces": ["packages/*"],
            "packageManager": "pnpm@9.1.0",
            "bin": {"web": "./cli.js"},
        }
    ),
    "Cargo.toml": '[package]\nname = "api"\nedition = "2021"\n\n[dependencies]\n'
    'axum = "0.7"\ntokio = { version = "1", features = ["full"] }\n\n'
    '[workspace]\nmembers = ["crates/*"]\n',
    "pyproject.toml": '[project]\nname = "svc"\ndependencies = ["fastapi>=0.110", "uvicorn"]\n'
    '[project.scripts]\nsvc = "svc.main:run"\n[tool.uv]\ndev-dependencies = ["pytest"]\n'
    '[tool.poetry.dependencies]\npython = "^3.12"\ndjango = "*"\n',
    "requirements.txt": "flask==3.0.0\n-r base.txt\ngunicorn>=21 ; python_version > '3.8'\n"
    "git+https://github.com/x/y.git#egg=y\n",
    "Pipfile": '[packages]\ndjango = "*"\n[requires]\npython_version = "3.12"\n',
    "setup.py": "from setuptools import setup\nsetup(name='lib', install_requires=['requests'])\n",
    "setup.cfg": "[metadata]\nname = lib\n[options]\ninstall_requires =\n    click\n",
    "go.mod": "module github.com/acme/api\n\ngo 1.22\n\nrequire (\n\tgithub.com/gin-gonic/gin "
    "v1.9.1\n)\nreplace example.com/x => ../x\n",
    "go.work": "go 1.22\n\nuse (\n\t./api\n\t./worker\n)\nuse ./cli\n",
    "pom.xml": '<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">'
    "<modelVersion>4.0.0</modelVersion><artifactId>app</artifactId><packaging>pom</packaging>"
    "<parent><groupId>org.springframework.boot</groupId>"
    "<artifactId>spring-boot-starter-parent</artifactId></parent>"
    "<modules><module>core</module></modules><dependencies><dependency>"
    "<groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId>"
    "</dependency></dependencies><properties><java.version>21</java.version></properties>"
    "</project>",
    "build.gradle.kts": 'plugins {\n    id("org.springframework.boot") version "3.2.0"\n'
    '    kotlin("jvm") version "1.9.22"\n}\ndependencies {\n'
    '    implementation("io.ktor:ktor-server-core:2.3.7")\n'
    "    implementation(libs.spring.web)\n}\n",
    "build.gradle": "plugins { id 'java'; id 'io.quarkus' }\ndependencies {\n"
    "  implementation 'io.micronaut:micronaut-http'\n}\n/* comment */\n",
    "settings.gradle": "rootProject.name = 'multi'\ninclude 'app', 'lib'\n"
    "include(\n  ':a',\n  ':b:c'\n)\n",
    "build.sbt": 'lazy val root = (project in file("."))\n  .settings(name := "x", '
    'libraryDependencies += "com.typesafe.akka" %% "akka-http" % "10.5.0")\n',
    "deno.json": '{\n  // comment\n  "tasks": {"start": "deno run -A main.ts"},\n'
    '  "imports": {"hono": "jsr:@hono/hono@4"},\n}\n',
    "rush.json": '{"projects": [{"packageName": "a", "projectFolder": "apps/a"}], /* c */}',
    "composer.json": json.dumps(
        {"name": "acme/site", "require": {"laravel/framework": "^11.0", "php": ">=8.2"}}
    ),
    "Gemfile": "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\ngem \"puma\"\n",
    "mix.exs": "defmodule App.MixProject do\n  def project, do: [app: :app, deps: deps()]\n"
    '  defp deps, do: [{:phoenix, "~> 1.7"}]\nend\n',
    "Package.swift": "// swift-tools-version:5.9\nimport PackageDescription\nlet package = "
    'Package(name: "Srv", dependencies: [.package(url: "https://github.com/vapor/vapor.git", '
    'from: "4.0.0")])\n',
    "pubspec.yaml": "name: app\nenvironment:\n  sdk: '>=3.0.0 <4.0.0'\ndependencies:\n"
    "  flutter:\n    sdk: flutter\n  shelf: ^1.4.0\n",
    "build.zig": 'const std = @import("std");\npub fn build(b: *std.Build) void {\n'
    '    const exe = b.addExecutable(.{ .name = "app" });\n    _ = exe;\n}\n',
    "build.zig.zon": '.{ .name = "app", .version = "0.1.0", .dependencies = .{} }\n',
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(tool LANGUAGES CXX)\n"
    "add_executable(tool main.cpp)\nadd_subdirectory(lib)\n",
    "meson.build": "project('tool', 'c', version : '1.0')\nexecutable('tool', 'main.c')\n",
    "Makefile": "CC ?= cc\nall: app\napp: main.c\n\t$(CC) -o $@ $^\n.PHONY: all\n",
    "MODULE.bazel": 'module(name = "app")\nbazel_dep(name = "rules_go", version = "0.46.0")\n',
    "BUILD.bazel": 'go_binary(name = "app", srcs = ["main.go"])\n',
    "app.csproj": '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup>'
    "<TargetFramework>net8.0</TargetFramework><AssemblyName>App</AssemblyName></PropertyGroup>"
    '<ItemGroup><PackageReference Include="Swashbuckle.AspNetCore" Version="6.5.0" />'
    "</ItemGroup></Project>",
    "app.sln": 'Microsoft Visual Studio Solution File, Format Version 12.00\nProject("{FAE04EC0}") '
    '= "App", "src\\App\\App.csproj", "{1234}"\nEndProject\n',
    "app.gemspec": "Gem::Specification.new do |s|\n  s.name = 'lib'\n"
    "  s.add_dependency 'sinatra'\nend\n",
    "pnpm-workspace.yaml": "packages:\n  - 'apps/*'\n  - \"packages/**\"\n  - '!**/test/**'\n",
    "Dockerfile": "FROM python:3.12-slim AS base\nARG PORT=8000\nENV PORT=$PORT \\\n"
    '    X=1\nEXPOSE ${PORT} 9000/udp\nEXPOSE 80\nCMD ["python", "-m", "app"]\n',
    "src/main/resources/application.properties": "server.port=8081\nspring.application.name"
    " = app\\\n  continued\n# comment\n! other\nkey:value\n",
    "src/main/resources/application.yml": "server:\n  port: ${PORT:8082}\nspring:\n"
    "  profiles:\n    active: dev # comment\nlist:\n  - a\n  - {b: c}\n  - [d, e]\n"
    "text: |\n  block\n  scalar\n---\nsecond: doc\n",
    "appsettings.json": json.dumps(
        {
            "Kestrel": {"Endpoints": {"Http": {"Url": "http://0.0.0.0:5005"}}},
            "Urls": "http://*:5000",
        }
    ),
    "Properties/launchSettings.json": json.dumps(
        {"profiles": {"App": {"applicationUrl": "https://localhost:7001;http://localhost:5001"}}}
    ),
    "lerna.json": json.dumps({"packages": ["packages/*"], "version": "independent"}),
    "nx.json": json.dumps({"targetDefaults": {"build": {"dependsOn": ["^build"]}}}),
    "project.json": json.dumps({"name": "app", "targets": {"serve": {"executor": "@nx/node"}}}),
    "turbo.json": '{"pipeline": {"build": {"outputs": ["dist/**"]}}, // x\n}',
    "Rocket.toml": "[default]\nport = 8000\n[release]\nport = 80\n",
    "config/runtime.exs": "config :app, AppWeb.Endpoint, http: [port: String.to_integer("
    'System.get_env("PORT") || "4000")]\n',
    "manage.py": "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'site.settings')\n",
    ".gitignore": "build/\n*.log\n!keep.log\n\\#x\n[a-z]*.tmp\n**/out/**\n",
}
MANIFEST_TOKENS = [
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    "=",
    "\n  ",
    "- ",
    "<",
    "/>",
    "</",
    "${",
    "//",
    "/*",
    "*/",
    "#",
    "\\",
    "[workspace]",
    "members",
    "port",
    "EXPOSE ",
    "include",
    "../",
    "/etc/passwd",
    "99999",
    "-1",
    "0",
]

# Pages shipped with the tests: the fallback when ../shared/data is not there.
FIXTURE_PAGES = TESTS / "extract" / "fixtures"


@cache
def pages(limit: int = 120) -> tuple[str, ...]:
    """Real pages from the shared data sets, else the small pages shipped in the tests."""
    files: list[Path] = []
    for folder in (
        DATA / "wcxb-dev" / "dev" / "html",
        DATA / "article-extraction-benchmark" / "html",
    ):
        if folder.is_dir():
            files += sorted(folder.glob("*.html.gz"))
    texts: list[str] = []
    if files:
        for path in random.Random(13).sample(files, min(limit, len(files))):
            texts.append(gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace"))
    texts += [path.read_text(encoding="utf-8") for path in sorted(FIXTURE_PAGES.glob("*.html"))]
    return tuple(texts)


def payload_bodies(*replies: Any) -> list[Any]:
    """The JSON documents of scripted replies (``search.wire.Reply``)."""
    out = []
    for reply in replies:
        try:
            out.append(json.loads(reply.body))
        except ValueError:
            continue
    return out
