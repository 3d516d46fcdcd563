"""A scripted model for the LLM fallback: an OpenAI-compatible server on loopback.

It answers each folder summary with the JSON a capable model would give for that folder
(keyed by the folder name in the summary), in Chat Completions' documented response shape.
The cassettes in ``cassettes/`` were recorded from it; re-record after changing the
fallback's prompt with ``python tests/detect/llm_model.py``.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CASSETTES = Path(__file__).parent / "cassettes"

# What each repository looks like on disk: the stacks only the model names.
REPOS: dict[str, dict[str, str]] = {
    "zig-tool": {
        "build.zig": 'const std = @import("std");\n\npub fn build(b: *std.Build) void {\n'
        '    const exe = b.addExecutable(.{ .name = "zig-tool", .root_source_file = '
        'b.path("src/main.zig") });\n    b.installArtifact(exe);\n}\n',
        "build.zig.zon": '.{ .name = "zig-tool", .version = "0.1.0", .paths = .{""} }\n',
        "src/main.zig": 'const std = @import("std");\npub fn main() !void {}\n',
    },
    "deno-api": {
        "deno.json": '{\n  "tasks": {"start": "deno run --allow-net main.ts"},\n'
        '  "imports": {"hono": "jsr:@hono/hono@^4"}\n}\n',
        "main.ts": 'import { Hono } from "hono";\nconst app = new Hono();\n'
        'app.get("/health", (c) => c.text("ok"));\nDeno.serve({ port: 8000 }, app.fetch);\n',
    },
    "bazel-mono": {
        "MODULE.bazel": 'module(name = "bazel_mono")\nbazel_dep(name = "rules_java", '
        'version = "7.6.1")\n',
        "BUILD.bazel": 'java_binary(\n    name = "server",\n    srcs = glob(["src/**/*.java"]),\n'
        '    main_class = "com.example.Server",\n)\n',
        "src/com/example/Server.java": "package com.example;\npublic class Server {}\n",
    },
    "gleam-app": {
        "gleam.toml": 'name = "gleam_app"\nversion = "1.0.0"\n\n[dependencies]\n'
        'gleam_stdlib = ">= 0.34.0"\nwisp = ">= 1.0.0"\nmist = ">= 1.0.0"\n',
        "src/gleam_app.gleam": "import wisp\npub fn main() { Nil }\n",
    },
}

ANSWERS: dict[str, dict[str, Any]] = {
    "zig-tool": {
        "project_name": "zig-tool",
        "language": "Zig",
        "build_system": "Zig build",
        "framework": None,
        "runtime": "native",
        "build_commands": ["zig build -Doptimize=ReleaseSafe"],
        "cache_dirs": [".zig-cache", "zig-out"],
        "run_command": "zig build run",
        "ports": [],
        "health_endpoint": None,
        "confidence": 0.93,
        "evidence": [
            {"file": "build.zig", "reason": "Zig build script adding an executable"},
            {"file": "build.zig.zon", "reason": "Zig package manifest"},
        ],
    },
    "deno-api": {
        "project_name": "deno-api",
        "language": "TypeScript",
        "build_system": "Deno",
        "framework": "Hono",
        "runtime": "Deno",
        "build_commands": ["deno cache main.ts"],
        "cache_dirs": ["~/.cache/deno"],
        "run_command": "deno task start",
        "ports": [8000],
        "health_endpoint": "/health",
        "confidence": 0.9,
        "evidence": [
            {"file": "deno.json", "reason": "Deno config with a start task and a jsr: Hono"},
            {"file": "main.ts", "reason": "Deno.serve on port 8000 with a /health route"},
            {"file": "server.ts", "reason": "a file the model imagined"},
        ],
    },
    "bazel-mono": {
        "project_name": "bazel_mono",
        "language": "Java",
        "build_system": "Bazel",
        "framework": None,
        "runtime": "JVM",
        "build_commands": ["bazel build //:server"],
        "cache_dirs": ["~/.cache/bazel"],
        "run_command": "bazel run //:server",
        "ports": [],
        "health_endpoint": None,
        "confidence": 0.88,
        "evidence": [
            {"file": "MODULE.bazel", "reason": "Bzlmod module with rules_java"},
            {"file": "BUILD.bazel", "reason": "java_binary target named server"},
        ],
    },
    "gleam-app": {
        "project_name": "gleam_app",
        "language": "Gleam",
        "build_system": "Gleam",
        "framework": "Wisp",
        "runtime": "BEAM",
        "build_commands": ["gleam build"],
        "cache_dirs": ["build"],
        "run_command": "gleam run",
        "ports": [8000],
        "health_endpoint": None,
        "confidence": 0.86,
        "evidence": [{"file": "gleam.toml", "reason": "Gleam manifest depending on wisp and mist"}],
    },
}
_FOLDER = re.compile(r"Folder: (\S+)")


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-C3pV7w1JkXr9mYtB2nQd5sLfGhA0e",
        "object": "chat.completion",
        "created": 1763782800,
        "model": "qwen3-coder:30b",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 812, "completion_tokens": 164, "total_tokens": 976},
    }


class ScriptedModel:
    """Answers per folder name; ``answers`` may be edited by a test before requests arrive."""

    def __init__(self, answers: dict[str, str | dict[str, Any]]) -> None:
        self.answers = answers
        self.asked: list[str] = []
        self.port = 0

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        summary = body["messages"][-1]["content"]
        match = _FOLDER.search(summary)
        name = match.group(1) if match else "?"
        self.asked.append(name)
        answer = self.answers.get(name, {"confidence": 0.1})
        text = answer if isinstance(answer, str) else "```json\n" + json.dumps(answer) + "\n```"
        return completion(text)


@contextmanager
def serve(model: ScriptedModel) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            data = json.dumps(model.reply(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    model.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{model.port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def write_repo(root: Path, name: str) -> Path:
    folder = root / name
    for rel, text in REPOS[name].items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def record() -> None:
    """Re-record the cassettes the replay tests use."""
    import asyncio
    import shutil
    import tempfile

    from sleuth.cache import MemoryCache
    from sleuth.config import Settings
    from sleuth.net import Clients
    from sleuth.stack.run import detect_stack

    shutil.rmtree(CASSETTES, ignore_errors=True)
    model = ScriptedModel(dict(ANSWERS))
    with serve(model) as url, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            llm_provider="openai",
            llm_base_url=url,
            llm_model="qwen3-coder:30b",
            llm_record="record",
            llm_cassette_dir=CASSETTES,
            cache="memory",
        )
        for name in ("zig-tool", "deno-api", "bazel-mono"):
            folder = write_repo(Path(tmp), name)
            asyncio.run(
                detect_stack(
                    folder,
                    detect=settings.detect,
                    llm=settings.llm,
                    clients=Clients(settings.net),
                    cache=MemoryCache(),
                    mode="llm",
                )
            )
    print(f"recorded {len(model.asked)} calls into {CASSETTES}", file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    record()
