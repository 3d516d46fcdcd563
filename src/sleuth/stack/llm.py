"""The detector of last resort: a model reads a compact summary of a folder and names its stack.

It sits behind the same :class:`~sleuth.stack.detector.FallbackDetector` interface as any
detector, so the walk never knows a model answered. The model only sees file names,
extension counts and capped manifest text, inside an untrusted-data envelope; its JSON is
validated against a schema, and its own confidence decides: below 0.5 the answer is
dropped, up to 0.7 it is kept with a warning, above that it is kept. Answers are cached per
summary for the run, so identical folders cost one call.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter

from pydantic import BaseModel, Field

from sleuth import log
from sleuth.errors import LLMError, LLMNotConfigured
from sleuth.llm.envelope import Envelope
from sleuth.llm.jsonreply import parse_reply
from sleuth.llm.meter import Meter
from sleuth.llm.models import ChatRequest, Message
from sleuth.stack.candidate import Candidate
from sleuth.stack.finding import Finding
from sleuth.stack.model import Build, Evidence, Run, Source

REJECT_BELOW = 0.5
WARN_BELOW = 0.7
MAX_ROOT_FILES = 80
MAX_TREE_FILES = 60
MAX_EXTENSIONS = 15
MAX_MANIFEST_CHARS = 2500
MAX_SUMMARY_CHARS = 9000

PROMPT = """You identify the technology stack of one project folder in a code repository.
Reply with one JSON object and nothing else, with these keys:
{"project_name": str|null, "language": str|null, "build_system": str|null,
 "framework": str|null, "runtime": str|null, "build_commands": [str],
 "cache_dirs": [str], "run_command": str|null, "ports": [int],
 "health_endpoint": str|null, "confidence": number from 0 to 1,
 "evidence": [{"file": str, "reason": str}]}
Use the usual names ("Rust", "Cargo", "Spring Boot", "Node.js"). Use null where the files do
not show it; never guess ports or commands the files do not support. Evidence must name files
from the summary. Confidence below 0.5 means you cannot tell."""


class StackReply(BaseModel):
    """What the model must answer; anything else is a malformed reply."""

    project_name: str | None = None
    language: str | None = None
    build_system: str | None = None
    framework: str | None = None
    runtime: str | None = None
    build_commands: list[str] = Field(default_factory=list, max_length=10)
    cache_dirs: list[str] = Field(default_factory=list, max_length=10)
    run_command: str | None = None
    ports: list[int] = Field(default_factory=list, max_length=10)
    health_endpoint: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: list[EvidenceReply] = Field(default_factory=list, max_length=10)


class EvidenceReply(BaseModel):
    file: str
    reason: str


StackReply.model_rebuild()


def summarize(candidate: Candidate) -> str:
    """What the model sees: names, counts and capped manifest text, never the whole tree.

    The folder's place in the repository is left out, so identical folders cost one call.
    """
    lines = [f"Folder: {candidate.name}"]
    files = sorted(candidate.files)
    lines.append(f"Files here ({len(files)}): " + ", ".join(files[:MAX_ROOT_FILES]))
    if candidate.dirs:
        lines.append("Sub-folders: " + ", ".join(sorted(candidate.dirs)[:MAX_ROOT_FILES]))
    counts = Counter(candidate.extensions).most_common(MAX_EXTENSIONS)
    if counts:
        lines.append("Files by extension: " + ", ".join(f"{ext} {n}" for ext, n in counts))
    tree = candidate.tree(MAX_TREE_FILES)
    if tree:
        lines.append("Some paths: " + ", ".join(tree))
    budget = MAX_SUMMARY_CHARS - sum(len(line) for line in lines)
    for name in candidate.manifests:
        text = candidate.read(name)
        if text is None or budget <= 0:
            continue
        shown = text[: min(MAX_MANIFEST_CHARS, budget)]
        budget -= len(shown)
        cut = "" if len(shown) == len(text) else f"\n[cut: {len(text)} characters in all]"
        lines.append(f"--- {name} ---\n{shown}{cut}")
    return "\n".join(lines)


class LLMDetector:
    """A :class:`~sleuth.stack.detector.FallbackDetector` that asks a model."""

    name = "llm"
    source: Source = "llm"

    def __init__(self, meter: Meter, *, required: bool = False, max_output_tokens: int = 2048):
        self.meter = meter
        self.required = required  # --mode llm: a failing model is an error, not a shrug
        self.max_output_tokens = max_output_tokens
        self.envelope = Envelope()
        # One task per distinct summary: folders asked about at the same time share a call.
        self._answers: dict[str, asyncio.Task[Finding | None]] = {}

    async def detect(self, candidate: Candidate) -> Finding | None:
        summary = summarize(candidate)
        key = hashlib.sha256(summary.encode()).hexdigest()
        if key not in self._answers:
            self._answers[key] = asyncio.ensure_future(self._ask(candidate, summary))
        return await self._answers[key]

    async def _ask(self, candidate: Candidate, summary: str) -> Finding | None:
        request = ChatRequest(
            [
                Message("system", f"{PROMPT}\n\n{self.envelope.rule()}"),
                Message("user", self.envelope.wrap("repository", summary)),
            ],
            max_output_tokens=self.max_output_tokens,
        )
        try:
            completion = await self.meter.complete(request)
            reply = parse_reply(completion.message.content, StackReply)
        except LLMNotConfigured:
            raise
        except LLMError as error:
            if self.required:
                raise
            log.warn("detect_llm_failed", path=candidate.path, code=error.code, error=error.message)
            return None
        if reply.confidence < REJECT_BELOW:
            log.warn("detect_llm_rejected", path=candidate.path, confidence=reply.confidence)
            return None
        if reply.confidence < WARN_BELOW:
            log.warn("detect_llm_unsure", path=candidate.path, confidence=reply.confidence)
        known = set(candidate.files) | set(candidate.tree(MAX_TREE_FILES))
        evidence = [
            Evidence(file=item.file, reason=f"model: {item.reason}", kind="guess", strength=0.5)
            for item in reply.evidence
            if item.file in known  # a file the model made up is no evidence
        ]
        return Finding(
            project_name=reply.project_name,
            language=reply.language,
            build_system=reply.build_system,
            framework=reply.framework,
            runtime=reply.runtime,
            manifests=[name for name in candidate.manifests if name in known],
            build=Build(commands=reply.build_commands, cache_dirs=reply.cache_dirs),
            run=Run(
                command=reply.run_command,
                ports=[port for port in reply.ports if 0 < port < 65536],
                health_endpoint=reply.health_endpoint,
            ),
            confidence=reply.confidence,
            evidence=evidence
            or [Evidence(file=".", reason="model: named from the folder summary", kind="guess")],
        )
