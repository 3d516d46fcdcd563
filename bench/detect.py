"""Benchmark for ``sleuth detect``: a large generated monorepo and a single small project.

Usage::

    .venv/bin/python bench/detect.py [--projects 250] [--files-per-project 200] [--repeat 5]

A monorepo of ``--projects`` services in eight ecosystems is written to a temporary folder,
each with ``--files-per-project`` source files spread over nested packages, plus the
dependency and build folders real checkouts carry (``node_modules/``, ``target/``, ...) and
``.gitignore`` files at the root and in some services. Detection runs in ``static`` mode, so
only the deterministic work is timed. The baseline is ``os.walk`` over the same tree
listing every file, which is the least any tool that looks at the tree must do. Each timing
is the median of ``--repeat`` runs after one warm-up run, so the page cache is warm for all.

The single-project timing is the median of many runs of ``detect_path`` on one small Cargo
crate: the latency a user sees for ``sleuth detect`` in an ordinary repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sleuth.stack import detect_path

GOALS = {"monorepo_s": 1.0, "single_ms": 10.0}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _sources(root: Path, rng: random.Random, count: int, ext: str, base: str) -> None:
    """``count`` files spread over a few levels of packages under ``root/base``."""
    for i in range(count):
        depth = rng.randint(0, 3)
        parts = [f"pkg{rng.randint(0, 4)}" for _ in range(depth)]
        _write(root / base / "/".join(parts) / f"file{i}{ext}", "// generated\n")


def _service(root: Path, kind: str, i: int, rng: random.Random, files: int) -> None:
    name = f"{kind}-{i}"
    if kind == "rust":
        _write(
            root / "Cargo.toml",
            f'[package]\nname = "{name}"\nversion = "0.1.0"\n\n[dependencies]\naxum = "0.7"\n',
        )
        _write(root / "Cargo.lock", "\n")
        _sources(root, rng, files, ".rs", "src")
        _sources(root, rng, 30, ".o", "target/release/deps")
    elif kind == "node":
        manifest = {
            "name": name,
            "scripts": {"build": "next build", "start": "next start"},
            "dependencies": {"next": "14", "react": "18"},
        }
        _write(root / "package.json", json.dumps(manifest))
        _write(root / "package-lock.json", "{}")
        _sources(root, rng, files, ".tsx", "app")
        _sources(root, rng, 60, ".js", "node_modules/dep")
    elif kind == "maven":
        _write(
            root / "pom.xml",
            (
                '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
                "<parent><groupId>org.springframework.boot</groupId>"
                "<artifactId>spring-boot-starter-parent</artifactId></parent>"
                f"<artifactId>{name}</artifactId></project>"
            ),
        )
        _write(root / "src/main/resources/application.properties", "server.port=8081\n")
        _sources(root, rng, files, ".java", "src/main/java/com/example")
        _sources(root, rng, 20, ".class", "target/classes")
    elif kind == "gradle":
        _write(root / "build.gradle.kts", 'plugins {\n    id("io.micronaut.application")\n}\n')
        _sources(root, rng, files, ".kt", "src/main/kotlin")
        _sources(root, rng, 20, ".class", "build/classes")
    elif kind == "python":
        _write(root / "pyproject.toml", f'[project]\nname = "{name}"\ndependencies = ["fastapi"]\n')
        _write(root / "uv.lock", "\n")
        _write(root / ".gitignore", "*.pyc\n.cache/\n")
        _sources(root, rng, files, ".py", "app")
        _sources(root, rng, 20, ".pyc", "app/__pycache__")
    elif kind == "go":
        _write(
            root / "go.mod", f"module example.com/{name}\n\nrequire github.com/gin-gonic/gin v1\n"
        )
        _write(root / "go.sum", "\n")
        _write(root / "main.go", "package main\n")
        _sources(root, rng, files - 1, ".go", "internal")
    elif kind == "ruby":
        _write(root / "Gemfile", 'gem "rails"\n')
        _write(root / "Gemfile.lock", "\n")
        _sources(root, rng, files, ".rb", "app")
        _sources(root, rng, 20, ".rb", "vendor/bundle")
    else:  # dotnet
        _write(root / f"{name}.csproj", '<Project Sdk="Microsoft.NET.Sdk.Web"></Project>')
        _sources(root, rng, files, ".cs", "Controllers")
        _sources(root, rng, 20, ".dll", "bin/Release")


def generate(root: Path, projects: int, files_per_project: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    kinds = ("rust", "node", "maven", "gradle", "python", "go", "ruby", "dotnet")
    _write(root / ".gitignore", "*.log\n/tmp-output/\ncoverage/\n**/generated/\n")
    _write(root / "README.md", "# monorepo\n")
    for i in range(projects):
        kind = kinds[i % len(kinds)]
        _service(root / f"services/group{i % 12}/{kind}-{i}", kind, i, rng, files_per_project)
    _sources(root, rng, 400, ".md", "docs")
    _sources(root, rng, 200, ".log", "logs")


def count_files(root: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(root))


def median_time(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    result = run()  # warm-up, and the result to report
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def walk_all(root: Path) -> int:
    n = 0
    for _, _, files in os.walk(root):
        n += len(files)
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", type=int, default=250)
    parser.add_argument("--files-per-project", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--single-runs", type=int, default=300)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sleuth-detect-bench-") as tmp:
        big = Path(tmp) / "monorepo"
        generate(big, args.projects, args.files_per_project)
        total = count_files(big)
        walk_s, _ = median_time(lambda: walk_all(big), args.repeat)
        detect_s, found = median_time(lambda: detect_path(big, mode="static"), args.repeat)
        assert isinstance(found, list)

        small = Path(tmp) / "single"
        rng = random.Random(1)
        _service(small, "rust", 0, rng, 10)
        small_files = count_files(small)
        small_times = []
        detect_path(small)
        for _ in range(args.single_runs):
            start = time.perf_counter()
            detect_path(small, mode="static")
            small_times.append(time.perf_counter() - start)
        single_ms = statistics.median(small_times) * 1000
        small_walk_s, _ = median_time(lambda: walk_all(small), args.single_runs)

    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {args.repeat} runs")
    print()
    header = f"{'scenario':<34}{'files':>8}{'projects':>10}{'wall':>11}{'files/s':>12}{'x walk':>8}"
    print(header)
    print("-" * len(header))
    print(
        f"{'os.walk baseline (monorepo)':<34}{total:>8,}{'-':>10}{walk_s:>10.3f}s"
        f"{total / walk_s:>12,.0f}{1.0:>7.2f}x"
    )
    print(
        f"{'sleuth detect --mode static':<34}{total:>8,}{len(found):>10}{detect_s:>10.3f}s"
        f"{total / detect_s:>12,.0f}{detect_s / walk_s:>7.2f}x"
    )
    print(
        f"{'os.walk baseline (single)':<34}{small_files:>8}{'-':>10}"
        f"{small_walk_s * 1000:>9.2f}ms{small_files / small_walk_s:>12,.0f}{1.0:>7.2f}x"
    )
    print(
        f"{'sleuth detect, single project':<34}{small_files:>8}{1:>10}{single_ms:>9.2f}ms"
        f"{small_files / (single_ms / 1000):>12,.0f}{single_ms / 1000 / small_walk_s:>7.2f}x"
    )
    print()
    ok_big = detect_s < GOALS["monorepo_s"]
    ok_small = single_ms < GOALS["single_ms"]
    print(
        f"goal: monorepo under {GOALS['monorepo_s']:.0f} s: {'met' if ok_big else 'MISSED'}; "
        f"single project under {GOALS['single_ms']:.0f} ms: {'met' if ok_small else 'MISSED'}"
    )
    return 0 if ok_big and ok_small else 1


if __name__ == "__main__":
    raise SystemExit(main())
