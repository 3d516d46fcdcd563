"""JSON schemas of the tools' pydantic models, as models and MCP clients read them.

``$defs`` are inlined everywhere; argument schemas are also simplified for
models, output schemas are kept exact for validating clients.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

# Any JSON value, spelled out: validating clients flag ``{}`` as a schema that checks nothing.
ANY_JSON: dict[str, Any] = {"type": ["string", "number", "boolean", "object", "array", "null"]}


class _Recursive(Exception):
    """A model that contains itself cannot be inlined."""


def _inline(schema: dict[str, Any], *, for_arguments: bool) -> dict[str, Any]:
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any, expanding: frozenset[str], names: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(item, expanding) for item in node]
        if not isinstance(node, dict):
            return node
        if names:  # a "properties" map: its keys are field names, "title" among them
            return {key: walk(value, expanding) for key, value in node.items()}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in expanding:
                raise _Recursive
            target = walk(defs[name], expanding | {name})
            rest = {k: walk(v, expanding) for k, v in node.items() if k not in ("$ref", "title")}
            return {**target, **rest}
        options = node.get("anyOf")
        if for_arguments and isinstance(options, list) and len(options) == 2:
            real = [option for option in options if option != {"type": "null"}]
            if len(real) == 1:
                merged = {**{k: v for k, v in node.items() if k != "anyOf"}, **real[0]}
                if merged.get("default", "") is None:
                    del merged["default"]
                return walk(merged, expanding)
        return {
            key: walk(value, expanding, names=key == "properties")
            for key, value in node.items()
            if key not in ("title", "$defs")
        }

    try:
        inlined: dict[str, Any] = walk(schema, frozenset())
    except _Recursive:
        return schema
    return inlined


def argument_schema(model: type[BaseModel]) -> dict[str, Any]:
    """What a model should send: titles dropped, optional ``X | None`` as plain ``X``.

    Models read plain schemas more reliably, and some APIs reject ``anyOf`` with null.
    """
    return _inline(model.model_json_schema(), for_arguments=True)


class _OutputSchema(GenerateJsonSchema):
    """Serialization schemas with no ``{}`` in them.

    A model's wrap serializer (ours only drop empty fields) is typed ``Any``, which pydantic
    writes as ``{}``; the model's own fields describe its output better. A field typed ``Any``
    holds any JSON value, and says so.
    """

    def ser_schema(
        self,
        schema: core_schema.SerSchema
        | core_schema.IncExSeqSerSchema
        | core_schema.IncExDictSerSchema,
    ) -> JsonSchemaValue | None:
        returns = schema.get("return_schema") if schema["type"] == "function-wrap" else None
        if isinstance(returns, dict) and returns.get("type") == "any":
            return None  # the model's fields, not the serializer's return type
        return super().ser_schema(schema)

    def any_schema(self, schema: core_schema.AnySchema) -> JsonSchemaValue:
        return dict(ANY_JSON)


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """What ``model.model_dump(mode="json")`` conforms to: nullable fields stay nullable,
    because MCP clients validate structured output against it."""
    schema = model.model_json_schema(mode="serialization", schema_generator=_OutputSchema)
    return _inline(schema, for_arguments=False)
