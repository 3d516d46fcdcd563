"""The user's JSON Schema: checked, bounded, its local ``$ref`` resolved, its leaves known.

A schema is refused before any page or model request when it is not valid JSON Schema,
deeper than :data:`MAX_DEPTH`, has more than :data:`MAX_LEAVES` leaves, or points with
``$ref`` anywhere but into itself. What is left is a tree of :class:`Node`: objects,
arrays (one item template) and leaves, the shape the model is asked to fill.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsonschema import SchemaError
from jsonschema.validators import validator_for

from sleuth.errors import SchemaRefused

MAX_DEPTH = 8
MAX_LEAVES = 100
REPLY_NAME = "fill"
_SCALARS = ("string", "number", "integer", "boolean")
_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")
# Annotations and bookkeeping a model need not see; everything else of a leaf is sent.
_DROPPED = frozenset({"$schema", "$id", "$defs", "definitions", "$comment", "examples", "default"})


def _refused(problem: str) -> SchemaRefused:
    return SchemaRefused(
        f"the schema {problem}",
        hint="send a JSON Schema object of at most 8 levels and 100 leaves, "
        "with $ref only to its own #/$defs",
    )


@dataclass
class Node:
    """One place in the schema; ``kind`` is ``object``, ``array`` or ``leaf``."""

    kind: str
    schema: dict[str, Any]  # resolved: no $ref left inside
    nullable: bool = False
    properties: dict[str, Node] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    items: Node | None = None

    @property
    def leaf_kind(self) -> str:
        """How a leaf's value is checked: string, date, number, choice or any."""
        if "enum" in self.schema or "const" in self.schema:
            return "choice"
        types = [t for t in _types(self.schema) if t != "null"]
        if types == ["boolean"]:
            return "choice"
        if types and all(t in ("number", "integer") for t in types):
            return "number"
        if types == ["string"]:
            return "date" if self.schema.get("format") in ("date", "date-time") else "string"
        return "any"


@dataclass
class Schema:
    """A checked schema: the user's own (to validate ``data``) and its tree."""

    source: dict[str, Any]
    root: Node
    leaves: int

    def reply_schema(self) -> dict[str, Any]:
        """The schema's shape with every leaf as ``{"value": …, "quote": "…"}``."""
        return _wrapped(self.root)


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    return []


def _pointer_get(document: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer (``~1`` is ``/``, ``~0`` is ``~``)."""
    target = document
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            raise _refused(f"has a $ref to #{pointer}, which is not in it")
    return target


def _resolve(document: dict[str, Any], node: Any, trail: tuple[str, ...] = ()) -> Any:
    """``node`` with every local ``$ref`` replaced by what it points to (its siblings kept)."""
    if isinstance(node, list):
        return [_resolve(document, item, trail) for item in node]
    if not isinstance(node, dict):
        return node
    for key in _REF_KEYS[1:]:
        if key in node:
            raise _refused(f"uses {key}, which fill does not follow")
    out: dict[str, Any] = {}
    ref = node.get("$ref")
    if ref is not None:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise _refused(f"has a $ref to {str(ref)[:200]!r}, outside itself")
        if ref in trail:
            raise _refused(f"has a $ref to {ref} inside itself (a recursive schema)")
        target = _pointer_get(document, ref[1:])
        if not isinstance(target, dict):
            raise _refused(f"has a $ref to {ref}, which is not a schema object")
        out.update(_resolve(document, target, (*trail, ref)))
    for key, value in node.items():
        if key == "$ref" or key in ("$defs", "definitions"):
            continue
        if key in ("properties", "patternProperties", "dependentSchemas"):
            out[key] = (
                {k: _resolve(document, v, trail) for k, v in value.items()}
                if isinstance(value, dict)
                else value
            )
        else:
            out[key] = _resolve(document, value, trail)
    return out


def _outside_refs(node: Any) -> None:
    """A ``$ref`` anywhere (even under an unused ``$defs``) to another document is refused."""
    if isinstance(node, list):
        for item in node:
            _outside_refs(item)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            raise _refused(f"has a $ref to {ref[:200]!r}, outside itself")
        for value in node.values():
            _outside_refs(value)


def _unwrap_nullable(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``anyOf``/``oneOf`` of one schema and ``{"type": "null"}`` is that schema, nullable."""
    nullable = "null" in _types(schema) or schema.get("nullable") is True
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if not isinstance(branches, list):
            continue
        rest = [b for b in branches if not (isinstance(b, dict) and _types(b) == ["null"])]
        if len(rest) == 1 and len(rest) < len(branches) and isinstance(rest[0], dict):
            merged = {k: v for k, v in schema.items() if k != key}
            merged.update(rest[0])
            return merged, True
    if "enum" in schema and None in schema["enum"]:
        nullable = True
    return schema, nullable


def _tree(schema: Any, depth: int, count: list[int]) -> Node:
    if not isinstance(schema, dict):
        schema = {}  # ``true``: anything at all, checked as any leaf
    schema, nullable = _unwrap_nullable(schema)
    types = _types(schema)
    if "properties" in schema or "object" in types:
        if depth + 1 > MAX_DEPTH:
            raise _refused(f"is deeper than {MAX_DEPTH} levels")
        properties = schema.get("properties") or {}
        if not isinstance(properties, dict):
            raise _refused("has properties that are not an object")
        return Node(
            "object",
            schema,
            nullable,
            properties={name: _tree(sub, depth + 1, count) for name, sub in properties.items()},
            required=frozenset(str(r) for r in schema.get("required") or ()),
        )
    if "array" in types or ("items" in schema and not types):
        if depth + 1 > MAX_DEPTH:
            raise _refused(f"is deeper than {MAX_DEPTH} levels")
        items = schema.get("items", {})
        return Node("array", schema, nullable, items=_tree(items, depth + 1, count))
    count[0] += 1
    if count[0] > MAX_LEAVES:
        raise _refused(f"has more than {MAX_LEAVES} leaves")
    return Node("leaf", schema, nullable)


def check_schema(schema: Any) -> Schema:
    """The checked schema, or a :class:`UsageError` naming what is wrong with it."""
    if not isinstance(schema, dict):
        raise _refused(f"is a JSON {type(schema).__name__}, not an object")
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.path)
        raise _refused(
            f"is not valid JSON Schema: {exc.message[:200]}" + (f" (at {where})" if where else "")
        ) from None
    _outside_refs(schema)
    resolved = _resolve(schema, schema)
    count = [0]
    root = _tree(resolved, 0, count)
    if root.kind != "object":
        raise _refused("does not describe an object at its root")
    return Schema(schema, root, count[0])


def leaf_schema(node: Node) -> dict[str, Any]:
    """A leaf's own schema as the model is shown it, null allowed when the schema allows it."""
    return {k: v for k, v in node.schema.items() if k not in _DROPPED}


def _wrapped(node: Node) -> dict[str, Any]:
    if node.kind == "object":
        return {
            "type": "object",
            "properties": {name: _wrapped(sub) for name, sub in node.properties.items()},
        }
    if node.kind == "array":
        assert node.items is not None
        return {"type": "array", "items": _wrapped(node.items)}
    return {
        "type": "object",
        "properties": {"value": leaf_schema(node), "quote": {"type": "string"}},
        "required": ["value", "quote"],
    }


def pointer(parts: list[str | int]) -> str:
    """An RFC 6901 JSON Pointer to ``parts`` (``~`` as ``~0``, ``/`` as ``~1``)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
