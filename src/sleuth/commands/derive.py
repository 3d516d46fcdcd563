"""A command's options, derived from its operation's declaration, and the one command of
each operation the CLI offers.

A command module writes only what is the CLI's own (``--json``, where output goes, how it
is shown); the operation's parameters, their flags, help and bounds come from
:mod:`sleuth.operation`. The command of operation ``name`` lives in
``sleuth.commands.<name>``, which is imported only when a run names it (or lists every
command), so a run of another command never pays for it.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_origin

import typer

from sleuth.commands.options import JsonFlag

if TYPE_CHECKING:
    from sleuth.operation import Operation, Param
    from sleuth.ops import Op


class Command:
    """A typer callback: the operation's CLI parameters, then the function's own.

    ``function(arguments, **own)`` gets the operation's keyword arguments as one dict, in
    Python's terms (``--ignore-robots`` already turned into ``respect_robots=False``).
    """

    def __init__(self, op: Op, function: Callable[..., None], place: int) -> None:
        self.op = op
        self.place = place  # where ``sleuth --help`` lists it, among every command
        self._function = function
        functools.update_wrapper(self, function, assigned=("__module__", "__name__", "__doc__"))
        delattr(self, "__wrapped__")  # typer must read our signature, not the function's

    @property
    def operation(self) -> Operation:
        return self.op.operation

    @functools.cached_property
    def _params(self) -> tuple[Param, ...]:
        # Arguments first, in order, as typer lists them.
        cli = self.operation.on("cli")
        return tuple(p for p in cli if p.arg.positional) + tuple(
            p for p in cli if not p.arg.positional
        )

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        own = [
            parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for parameter in list(
                inspect.signature(self._function, eval_str=True).parameters.values()
            )[1:]
        ]
        derived = [_parameter(param) for param in self._params]
        return inspect.Signature([*derived, *own])

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def __call__(self, **values: Any) -> None:
        arguments = {param.name: _from_cli(param, values.pop(param.name)) for param in self._params}
        self._function(arguments, **values)


def command(op: Op, *, place: int) -> Callable[[Callable[..., None]], Command]:
    """Make the decorated function the command of ``op``, listed by ``sleuth --help`` at
    ``place`` among every command (the hand-written ones' places are in :mod:`sleuth.cli`).
    """

    def wrap(function: Callable[..., None]) -> Command:
        return Command(op, function, place)

    return wrap


def offered(op: Op) -> bool:
    """Whether ``op`` is a command of ``sleuth``: its declaration names the CLI."""
    return "cli" in op.operation.surfaces


# Where an operation's command without a place of its own is listed: after the others.
LAST = 1000


def command_of(op: Op) -> Command:
    """The command of ``op``: the one its module ``sleuth.commands.<name>`` declares, or,
    when it has no such module, the one its declaration and presenters make."""
    name = f"sleuth.commands.{op.name}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name != name:
            raise
        return _derived(op)
    found = [made for made in vars(module).values() if isinstance(made, Command) and made.op is op]
    if len(found) != 1:
        raise LookupError(f"{module.__name__} declares no command of {op.name} (derive.command)")
    return found[0]


def _derived(op: Op) -> Command:
    """The command of an operation without a command module: its result (or each item it
    yields) as JSON; or, when the operation has words for a person (its ``Person``), as
    their text unless ``--json`` asks for JSON, with a spinner fed by its progress lines
    and the exit code its result stands for."""
    person = op.person
    reports = "on_progress" in inspect.signature(op.method).parameters

    def run(arguments: dict[str, Any], json_output: bool) -> None:
        from sleuth.commands import output
        from sleuth.commands.options import STATE, session

        STATE.json = json_output
        if person is not None and person.prepare is not None:
            person.prepare(arguments)
        client = session()
        shown = person is not None and output.interactive(json_output)

        async def work(status: Any) -> Any:
            def progress(stage: str, detail: dict[str, Any]) -> None:
                if status is not None:
                    status.update(output.escape(op.progress(stage, detail)))

            if reports:
                arguments["on_progress"] = progress
            async with client:
                made = op.method(client, **arguments)
                if inspect.isasyncgen(made):
                    return [item async for item in made]
                return await made

        with output.status(person.waiting if person else op.name, shown) as status:
            result = asyncio.run(work(status))
        if person is None or json_output:
            output.print_json(_plain(result))
        else:
            output.out(person.text(result) + "\n")
        error = person.error(result) if person is not None else None
        if error is not None:
            output.finish(error.exit_code)

    if person is None:

        def as_json(arguments: dict[str, Any]) -> None:
            run(arguments, json_output=True)

        function: Callable[..., None] = as_json
    else:

        def with_text(arguments: dict[str, Any], json_output: JsonFlag = False) -> None:
            run(arguments, json_output)

        function = with_text
    function.__name__ = op.name
    more = person.help if person is not None else ""
    function.__doc__ = "\n\n".join(filter(None, (op.operation.summary, more)))
    place = person.place if person is not None else None
    return Command(op, function, LAST if place is None else place)


def _plain(value: Any) -> Any:
    """A result as JSON values: models dumped, lists of them too."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


def _cli_type(param: Param) -> Any:
    """The type typer parses: lists as repeated options, ``Path | str`` as a path."""
    from sleuth.operation import optional

    kind, is_optional = optional(param.type)
    if param.arg.negate:
        return bool
    if param.arg.comma:
        return str | None
    if get_origin(kind) in (list, tuple) or str(get_origin(kind)).endswith("Sequence'>"):
        (item,) = get_args(kind)[:1]
        return list[item] | None  # type: ignore[valid-type]
    if get_origin(kind) is not Literal and len(members := get_args(kind)) > 1:
        kind = Path if Path in members else members[0]
    return kind | None if is_optional else kind


def _parameter(param: Param) -> inspect.Parameter:
    bounds = param.bounds("cli")
    help_text = param.help_on("cli")
    default: Any = param.default_on("cli")
    info: Any
    if param.arg.positional:
        info = typer.Argument(metavar=param.arg.metavar, help=help_text, show_default=False)
    else:
        flags = (param.arg.negate,) if param.arg.negate else param.arg.flags
        flags = flags or ("--" + param.name.replace("_", "-"),)
        info = typer.Option(
            *flags,
            metavar=param.arg.metavar,
            help=help_text,
            min=bounds.get("ge", bounds.get("gt")),
            max=bounds.get("le"),
            show_default=default not in (None, (), False) and not param.arg.negate,
        )
        if param.arg.negate:
            default = False
        elif param.is_list:
            default = None
    if param.arg.positional and isinstance(default, str) and param.type is not str:
        default = Path(default)  # a ``Path | str`` argument (detect's PATH) parses as a path
    return inspect.Parameter(
        param.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=Annotated[_cli_type(param), info],
    )


def _from_cli(param: Param, value: Any) -> Any:
    """A parsed option's value as the Python parameter takes it."""
    if param.arg.negate:
        return not value
    if param.arg.comma:
        if value is None:
            return None
        return [part.strip() for part in value.split(",") if part.strip()]
    if param.is_list:
        return tuple(value or ())
    return value


__all__ = ["LAST", "Command", "command", "command_of", "offered"]
