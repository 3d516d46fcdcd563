"""One declaration per operation, from which every surface is derived.

An operation is a function whose first parameter is the session (a function in
:mod:`sleuth.ops`, bound to the session class with :class:`Bound`):
a coroutine, an async generator, or a plain function that returns what the caller runs
(``crawl``'s run). Its signature *is* the
declaration: each parameter a surface may offer carries an :class:`Arg` in ``Annotated``
(help, bounds, the surfaces that offer it, its JSON and CLI spellings), and
:func:`declare` adds what the signature cannot say (summary, errors, surfaces,
the tool it becomes). The CLI's options, the HTTP request models and their OpenAPI, the
tool arguments an LLM or an MCP client sees and the checks a Python call passes are all
read from here, so a bound or a name is written once. A parameter without ``Arg`` is for
Python callers only (a callback).

As the MCP SDK does with a function's signature, and as httpx keeps its one-shots typed,
the Python surface stays a plain typed method; the other surfaces are views of it.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import operator
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    Annotated,
    Any,
    Concatenate,
    Generic,
    Literal,
    NoReturn,
    ParamSpec,
    TypeVar,
    Union,
    get_args,
    get_origin,
    overload,
)

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    create_model,
)

from sleuth.errors import Ref, UsageError

Surface = Literal["python", "cli", "http", "tool"]
# python: the typed methods and one-shots; cli: the sleuth command; http: /api/v1; tool: what
# an LLM (ask's loop, a caller's loop) and an MCP client (stdio or /mcp) are offered.
SURFACES: tuple[Surface, ...] = ("python", "cli", "http", "tool")
_EVERYWHERE: frozenset[Surface] = frozenset(SURFACES)
_UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()
BLANK_PATTERN = r"\S"  # text that must hold more than whitespace

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Own:
    """One surface's own default, bounds or wording. Allowed only in a declaration: a
    model's context is smaller than a program's, so a tool may read less by default."""

    default: Any = _UNSET
    ge: float | None = None
    le: float | None = None
    help: str | None = None


@dataclass(frozen=True)
class Arg:
    """How one parameter shows on every surface that offers it.

    Bounds hold everywhere; on a list they bound each item (``max_items`` bounds the list).
    ``schema`` adds JSON Schema words that describe a check done elsewhere (a URI format,
    a pattern the validator's engine cannot run).
    """

    help: str
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    max_items: int | None = None
    pattern: str | None = None
    schema: Mapping[str, Any] | None = None
    on: Iterable[Surface] = _EVERYWHERE
    wire: str | None = None  # its name in JSON (request bodies, tool arguments)
    flags: tuple[str, ...] = ()  # its CLI spellings; default --the-name
    metavar: str | None = None
    positional: bool = False  # a CLI argument rather than an option
    negate: str | None = None  # a CLI flag that passes False (--ignore-robots for robots=True)
    comma: bool = False  # a CLI list given as one comma-separated value, not a repeated flag
    what: str | None = None  # how an error names it ("the search query"); default its name
    own: Mapping[Surface, Own] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "on", frozenset(self.on) | {"python"})


@dataclass(frozen=True)
class Param:
    """A declared parameter: its Python name, type and default, and its :class:`Arg`."""

    name: str
    type: Any
    default: Any
    arg: Arg

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    def required_on(self, surface: Surface) -> bool:
        return self.default_on(surface) is inspect.Parameter.empty

    @property
    def wire(self) -> str:
        return self.arg.wire or self.name

    @property
    def field(self) -> str:
        """Its name in a surface's pydantic model: ``schema_`` where the name is one of
        ``BaseModel``'s own (the JSON keeps ``schema``)."""
        return self.name + "_" if hasattr(BaseModel, self.name) else self.name

    @property
    def is_list(self) -> bool:
        return _list_item(self.type) is not None

    def offered(self, surface: Surface) -> bool:
        return surface in self.arg.on

    def default_on(self, surface: Surface) -> Any:
        own = self.arg.own.get(surface)
        return own.default if own is not None and own.default is not _UNSET else self.default

    def help_on(self, surface: Surface) -> str:
        own = self.arg.own.get(surface)
        return own.help if own is not None and own.help is not None else self.arg.help

    def bounds(self, surface: Surface) -> dict[str, Any]:
        """The bounds ``surface`` shows and checks (a surface's own replacing the common)."""
        found = {
            "ge": self.arg.ge,
            "gt": self.arg.gt,
            "le": self.arg.le,
            "min_length": self.arg.min_length,
            "max_length": self.arg.max_length,
            "max_items": self.arg.max_items,
            "pattern": self.arg.pattern,
        }
        own = self.arg.own.get(surface)
        if own is not None:
            found.update({k: v for k, v in (("ge", own.ge), ("le", own.le)) if v is not None})
        return {k: v for k, v in found.items() if v is not None}


@dataclass(frozen=True)
class ToolOffer:
    """How the operation is offered as a tool: the name and words a model reads."""

    name: str
    title: str
    description: str
    in_ask: bool = True  # offered to ask's own model too
    open_world: bool = True  # it reaches the web, whose content nobody vouches for


@dataclass(frozen=True, eq=False)
class Operation:
    name: str
    summary: str
    errors: tuple[str, ...]
    surfaces: frozenset[Surface]
    function: Callable[..., Any]
    tool: ToolOffer | None = None
    local: bool = False  # reads this machine's files: never served over HTTP (/api or /mcp)
    lenient: bool = False  # its HTTP body ignores unknown keys and coerces (a kept contract)
    # "module:Name" where what a caller reads is not what the function returns (a crawl's
    # run yields page records); otherwise the return annotation names it.
    result: str | None = None

    @functools.cached_property
    def signature(self) -> inspect.Signature:
        return inspect.signature(self.function)

    @functools.cached_property
    def params(self) -> tuple[Param, ...]:
        """Every declared parameter, in signature order (``self`` and Python-only ones out)."""
        found = []
        for name, parameter in self.signature.parameters.items():
            annotation = _evaluate(parameter.annotation, self.function)
            if get_origin(annotation) is not Annotated:
                continue
            kind, *extras = get_args(annotation)
            arg = next((extra for extra in extras if isinstance(extra, Arg)), None)
            if arg is not None:
                found.append(Param(name, kind, parameter.default, arg))
        return tuple(found)

    def on(self, surface: Surface) -> tuple[Param, ...]:
        return tuple(param for param in self.params if param.offered(surface))

    def result_model(self) -> type[BaseModel]:
        """The model of the result: the return annotation's (a list's item), evaluated
        only when a surface asks, so declaring costs no import."""
        if self.result is not None:
            module, _, name = self.result.partition(":")
            __import__(module)
            found: Any = getattr(sys.modules[module], name)
        else:
            found = _resolve(self.signature.return_annotation, self.function)
            if get_origin(found) is list:
                found = get_args(found)[0]
        if not (isinstance(found, type) and issubclass(found, BaseModel)):
            raise TypeError(f"{self.name} returns {found!r}, not a model: declare its result")
        return found

    def model(self, surface: Literal["http", "tool"], **extra: Any) -> type[BaseModel]:
        """The JSON arguments ``surface`` takes, as a pydantic model (its JSON Schema is the
        request body's or the tool's input schema). ``extra`` adds a surface's presentation
        fields (how much of a crawl's text a tool returns), which are not the operation's."""
        return _model(self, surface, tuple(sorted(extra.items())))

    def arguments(self, surface: Surface, values: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
        """Python keyword arguments from a surface's validated values (by Python name)."""
        if isinstance(values, Mapping):
            return {param.name: values.get(param.name) for param in self.on(surface)}
        return {param.name: getattr(values, param.field) for param in self.on(surface)}

    def check(self, arguments: Mapping[str, Any]) -> None:
        """Refuse a Python call's value outside the declared bounds, as a
        :class:`UsageError` naming the parameter as each surface spells it."""
        for param in self.params:
            value = arguments.get(param.name)
            if value is not None:
                _check(param, value, param.bounds("python"))


OPERATIONS: dict[str, Operation] = {}


def declare(
    name: str,
    *,
    summary: str,
    errors: Sequence[str] = (),
    surfaces: Iterable[Surface] = SURFACES,
    tool: ToolOffer | None = None,
    local: bool = False,
    lenient: bool = False,
    result: str | None = None,
) -> Callable[[F], F]:
    """Declare the decorated session method (or function of the session) as operation
    ``name``; its calls are checked against the declared bounds, as every other surface's
    are."""
    offered: frozenset[Surface] = frozenset((*surfaces, "python"))
    if local and "http" in offered:
        raise ValueError(f"{name} reads local files and cannot be offered over HTTP")
    if tool is None and "tool" in offered:
        raise ValueError(f"{name} is offered as a tool but declares no ToolOffer")

    def wrap(function: F) -> F:
        operation = Operation(
            name,
            summary,
            tuple(errors),
            offered,
            function,
            tool=tool,
            local=local,
            lenient=lenient,
            result=result,
        )

        def checked(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            operation.check(operation.signature.bind_partial(*args, **kwargs).arguments)

        wrapped: Callable[..., Any]
        if inspect.isasyncgenfunction(function):

            async def stream(*args: Any, **kwargs: Any) -> Any:
                checked(args, kwargs)
                async for item in function(*args, **kwargs):
                    yield item

            wrapped = stream
        elif inspect.iscoroutinefunction(function):

            async def call(*args: Any, **kwargs: Any) -> Any:
                checked(args, kwargs)
                return await function(*args, **kwargs)

            wrapped = call
        else:  # it returns what the caller runs (a crawl's run), checked before it starts

            def made(*args: Any, **kwargs: Any) -> Any:
                checked(args, kwargs)
                return function(*args, **kwargs)

            wrapped = made
        functools.update_wrapper(wrapped, function)
        setattr(wrapped, "__operation__", operation)  # noqa: B010 - read by operation_of
        OPERATIONS[name] = operation
        return wrapped  # type: ignore[return-value]

    return wrap


class Bound(Generic[P, R]):
    """An operation's work function (the session its first parameter) as a typed method
    of a session class: ``fill = Bound(ops.fill.fill)``. Read on the class it is the
    declared function itself, so the surfaces find its declaration as on any method."""

    def __init__(self, function: Callable[Concatenate[Any, P], R]) -> None:
        self.function = function

    @overload
    def __get__(self, session: None, owner: type) -> Callable[Concatenate[Any, P], R]: ...

    @overload
    def __get__(self, session: object, owner: type | None = None) -> Callable[P, R]: ...

    def __get__(self, session: object, owner: type | None = None) -> Callable[..., R]:
        if session is None:
            return self.function
        bound: Callable[P, R] = types.MethodType(self.function, session)
        return bound


def operation_of(method: Callable[..., Any]) -> Operation:
    """The declaration behind a session method."""
    found: Operation = getattr(method, "__operation__")  # noqa: B009 - set by declare
    return found


# -- what the surfaces share ------------------------------------------------------------


def optional(kind: Any) -> tuple[Any, bool]:
    """``X | None`` as ``(X, True)``; anything else as ``(kind, False)``."""
    if get_origin(kind) in (Union, types.UnionType):
        members = [m for m in get_args(kind) if m is not type(None)]
        if len(members) < len(get_args(kind)):
            joined = members[0] if len(members) == 1 else functools.reduce(operator.or_, members)
            return joined, True
    return kind, False


def _list_item(kind: Any) -> Any:
    inner, _ = optional(kind)
    if get_origin(inner) in (list, tuple, Sequence, Iterable) and inner is not str:
        return get_args(inner)[0]
    return None


def _evaluate(annotation: Any, function: Callable[..., Any]) -> Any:
    """A string annotation evaluated in its module; names only a type checker imports
    (a callback's type) stand for ``Any``, as they only ever annotate Python-only parameters."""
    if not isinstance(annotation, str):
        return annotation
    module = vars(sys.modules[function.__module__])

    class Lenient(dict[str, Any]):
        def __missing__(self, key: str) -> Any:
            return module.get(key, getattr(builtins, key, Any))

    return eval(annotation, {"__builtins__": builtins}, Lenient())  # our own source


def _resolve(annotation: Any, function: Callable[..., Any]) -> Any:
    """A string annotation evaluated in its module, the names it imports only for a type
    checker included (imported now, when a surface asks)."""
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules[function.__module__]
    namespace = {**_checking_names(module.__name__), **vars(module)}
    return eval(annotation, namespace)  # our own source


@functools.cache
def _checking_names(name: str) -> dict[str, Any]:
    """What the ``if TYPE_CHECKING:`` imports of module ``name`` bind."""
    found: dict[str, Any] = {}
    tree = ast.parse(inspect.getsource(sys.modules[name]))
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                source = importlib.import_module(statement.module)
                for alias in statement.names:
                    found[alias.asname or alias.name] = getattr(source, alias.name)
    return found


def _check(param: Param, value: Any, bounds: dict[str, Any]) -> None:
    if isinstance(value, (list, tuple)):
        if "max_items" in bounds and len(value) > bounds["max_items"]:
            _refuse(param, f"takes at most {bounds['max_items']} values")
        for item in value:
            _check_one(param, item, bounds)
    else:
        _check_one(param, value, bounds)


def _check_one(param: Param, value: Any, bounds: dict[str, Any]) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "ge" in bounds and value < bounds["ge"]:
            _refuse(param, f"must be at least {_number(bounds['ge'])}, not {value}")
        if "gt" in bounds and value <= bounds["gt"]:
            _refuse(param, f"must be more than {_number(bounds['gt'])}, not {value}")
        if "le" in bounds and value > bounds["le"]:
            _refuse(param, f"must be at most {_number(bounds['le'])}, not {value}")
    elif isinstance(value, str):
        if "min_length" in bounds and len(value) < bounds["min_length"]:
            _refuse(param, "is empty" if not value else "is too short")
        if "max_length" in bounds and len(value) > bounds["max_length"]:
            _refuse(param, f"is longer than {bounds['max_length']} characters")
        if "pattern" in bounds and not re.search(bounds["pattern"], value):
            _refuse(
                param,
                "is empty" if bounds["pattern"] == BLANK_PATTERN else f"is not valid: {value!r}",
            )


def _refuse(param: Param, what: str) -> NoReturn:
    """A :class:`UsageError` naming the parameter, by its field (HTTP's and a tool's);
    the CLI spells it from the declaration. An ``Arg.what`` is the same everywhere."""
    if param.arg.what:
        raise UsageError(f"{param.arg.what} {what}")
    raise UsageError(f"{{param}} {what}", refs={"param": Ref(param.name, words=param.wire)})


def _number(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def pascal(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


@functools.cache
def _model(
    operation: Operation, surface: Literal["http", "tool"], extra: tuple[tuple[str, Any], ...]
) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    # JSON says what it means over HTTP: "5" is not a number and 1 is not true.
    strict = surface == "http" and not operation.lenient
    for param in operation.on(surface):
        fields[param.field] = _field(param, surface, strict=strict)
    fields.update(dict(extra))
    # Its validator and schema are built when first used, not when a tool is declared at
    # import: a command that never calls the tool never pays for them.
    extras: Literal["forbid", "ignore"] = "forbid"
    if surface == "http":
        name = f"{pascal(operation.name)}Body"
        if operation.lenient:
            extras = "ignore"
    else:
        assert operation.tool is not None
        name = f"{pascal(operation.tool.name)}Args"
    config = ConfigDict(extra=extras, validate_by_name=False, defer_build=True)
    model: type[BaseModel] = create_model(name, __config__=config, **fields)
    return model


def _json_number(value: object) -> object:
    """No ``"5"`` for 5 and no ``true`` for 1; 4.0 is the integer 4, as JSON says."""
    if isinstance(value, str | bool):
        raise ValueError("must be a JSON number")  # noqa: TRY004 (pydantic reads ValueError)
    return value


def _typed(kind: Any, constraints: dict[str, Any], *, strict: bool) -> Any:
    """``kind`` with its bounds, taking only the JSON type it names when ``strict`` (lax
    pydantic would coerce). The bounds come first, so JSON Schema shows them."""
    metadata: list[Any] = [Field(**constraints)] if constraints else []
    if strict and kind in (int, float):
        metadata.append(BeforeValidator(_json_number))
    elif strict:
        kind = {bool: StrictBool, str: StrictStr}.get(kind, kind)
    return Annotated[(kind, *metadata)] if metadata else kind


def _field(param: Param, surface: Surface, *, strict: bool) -> tuple[Any, Any]:
    """The pydantic field of ``param`` on a JSON surface. Bounds sit on the value's own
    type (inside ``| None`` and on a list's items), where JSON Schema shows them."""
    bounds = param.bounds(surface)
    kind, is_optional = optional(param.type)
    item = _list_item(param.type)
    base = item if item is not None else kind
    members = get_args(base) if get_origin(base) in (Union, types.UnionType) else (base,)
    if Path in members:  # a path travels as a string, unless the JSON surfaces take more
        rest = [m for m in members if m not in (Path, str)]
        base = rest[0] if len(rest) == 1 else str
    own: dict[str, Any] = {
        k: bounds.pop(k)
        for k in ("ge", "gt", "le", "min_length", "max_length", "pattern")
        if k in bounds
    }
    base = _typed(base, own, strict=strict)
    kind = base
    if item is not None:
        kind = list[base]  # type: ignore[valid-type]
        if "max_items" in bounds:
            kind = Annotated[kind, Field(max_length=bounds["max_items"])]
    if is_optional:
        kind = kind | None
    options: dict[str, Any] = {"description": param.help_on(surface)}
    if param.wire != param.field:
        options["alias"] = param.wire
    if param.arg.schema:
        options["json_schema_extra"] = dict(param.arg.schema)
    default = param.default_on(surface)
    if param.required_on(surface):
        return kind, Field(**options)
    if isinstance(default, (tuple, list)) and not default:
        return kind, Field(default_factory=list, **options)
    return kind, Field(default, **options)
