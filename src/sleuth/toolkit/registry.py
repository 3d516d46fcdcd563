"""The tool registry: what an LLM (or an MCP client, or a caller's own loop) may run.

A tool is a typed argument model, a description and an async function. The
registry validates arguments, runs the call and turns every failure into a
:class:`ToolOutput` whose ``error`` the model can read and act on; only a
call that names no tool or carries bad arguments raises, as a
:class:`~sleuth.errors.ToolError`, for callers who want to raise.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from sleuth.errors import SleuthError, ToolError, UnknownTool
from sleuth.log import Progress
from sleuth.operation import Operation, operation_of
from sleuth.pages.result import ErrorInfo
from sleuth.toolkit.ledger import CitationLedger
from sleuth.toolkit.schema import argument_schema, output_schema
from sleuth.toolkit.services import Services


@dataclass
class ToolContext:
    """What a running tool may use: the session (an ``AsyncSleuth``) and its citation ledger."""

    client: Services
    ledger: CitationLedger = field(default_factory=CitationLedger)
    on_progress: Progress | None = None
    # Only a person (ask's --ignore-content-signals) may set the sites' signals aside.
    respect_content_signals: bool = True


@dataclass
class ToolOutput:
    """``text`` for a model, ``data`` for programs; ``error`` set when the call failed."""

    text: str
    data: BaseModel | None = None
    error: ErrorInfo | None = None


Runner = Callable[[ToolContext, Any], Awaitable[ToolOutput]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    output: type[BaseModel]
    run: Runner
    title: str = ""
    read_only: bool = True
    open_world: bool = True  # it reaches the web, whose content nobody vouches for
    local: bool = False  # it reads this machine's files
    # Offered to ``ask``'s own model. A site crawl per question would spend the answer's
    # time and context budget, so the crawl tools are for callers' loops and MCP only.
    in_ask: bool = True

    operation: Operation | None = None  # the declaration its arguments come from

    @classmethod
    def declared(
        cls,
        method: Callable[..., Any],
        run: Runner,
        output: type[BaseModel],
        **extra: Any,
    ) -> Tool:
        """The tool of a declared session operation: name, words and arguments are the
        declaration's; ``extra`` adds the tool's own presentation fields."""
        operation = operation_of(method)
        spec = operation.tool
        if spec is None:
            raise ValueError(f"{operation.name} is not declared as a tool")
        return cls(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            arguments=operation.model("tool", **extra),
            output=output,
            run=run,
            open_world=spec.open_world,
            local=operation.local,
            in_ask=spec.in_ask,
            operation=operation,
        )

    @functools.cached_property
    def parameters(self) -> dict[str, Any]:
        return argument_schema(self.arguments)

    @functools.cached_property
    def output_schema(self) -> dict[str, Any]:
        return output_schema(self.output)


@dataclass
class CallRecord:
    """One finished call, as ``ask --json`` reports it."""

    name: str
    arguments: dict[str, Any]
    outcome: str  # "ok" or an error code
    latency_ms: int
    output: ToolOutput


class Registry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def __iter__(self) -> Any:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is None:
            raise UnknownTool(
                f"there is no tool named {name!r}",
                hint=f"available tools: {', '.join(self._tools) or 'none'}",
            )
        return tool

    def validate(self, name: str, arguments: dict[str, Any] | None) -> tuple[Tool, BaseModel]:
        tool = self.get(name)
        try:
            return tool, tool.arguments.model_validate(arguments or {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'arguments'}: {error['msg']}"
                for error in exc.errors()[:5]
            )
            raise ToolError(
                f"invalid arguments for {name}: {problems}",
                hint="nothing ran; send one JSON object that matches this JSON Schema: "
                f"{json.dumps(tool.parameters)}",
            ) from None

    async def call(
        self,
        context: ToolContext,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        argument_error: str | None = None,
    ) -> CallRecord:
        """Run one call; never raises for the model's mistakes or the web's failures."""
        started = time.monotonic()
        try:
            if argument_error is not None:
                schema = json.dumps(self.get(name).parameters)
                raise ToolError(
                    f"invalid arguments for {name}: {argument_error}",
                    hint="nothing ran; send one JSON object that matches this JSON Schema: "
                    f"{schema}",
                )
            tool, parsed = self.validate(name, arguments)
            output = await tool.run(context, parsed)
        except SleuthError as error:
            info = ErrorInfo.from_error(error)  # a model or an MCP client reads it
            output = ToolOutput(text=f"error {info.code}: {info.message}", error=info)
        return CallRecord(
            name=name,
            arguments=dict(arguments or {}),
            outcome=output.error.code if output.error else "ok",
            latency_ms=int((time.monotonic() - started) * 1000),
            output=output,
        )
