"""Google's Gemini API (``generateContent``) over plain JSON.

What sets it apart:

* turns are ``contents`` with roles ``user`` and ``model``; the system prompt is
  ``systemInstruction``; the key travels in ``x-goog-api-key``, never the URL;
* a model turn is a list of ``parts``. Thinking models attach an opaque
  ``thoughtSignature`` to parts, which must come back unchanged next turn, so the
  candidate's whole ``parts`` list is kept in ``Message.native`` and echoed;
* function calls say ``STOP``, so calls decide the stop reason. Older models
  send calls without an ``id``; those get ``gemini-call-<n>`` (n counts the calls
  in the reply) and the ``functionResponse`` then carries no id, matching by name
  and order as the API expects. A ``functionResponse`` echoes the id only when
  Gemini itself gave the call one;
* tools are declared with ``parameters`` (the OpenAPI-subset schema), not the
  newer ``parametersJsonSchema`` (full JSON Schema, mutually exclusive with
  ``parameters``): ``parameters`` has been accepted by every Gemini model and API
  version, while ``parametersJsonSchema`` is recent and not known to every model
  or version, and sleuth's tool schemas need nothing beyond the subset. Keywords
  outside that subset
  (``additionalProperties``, ``$schema``, ``default``, ``$ref`` ...) are dropped
  recursively, as are string formats other than ``enum`` and ``date-time``, and a
  JSON Schema type list such as ``["string", "null"]`` becomes ``type`` plus
  ``nullable``;
* grounding segments give UTF-8 *byte* offsets inside one part (``partIndex``,
  absent meaning 0); they are turned into character offsets in the answer text.
  When an offset runs past the part it names (responses with several text parts
  but no ``partIndex``), it is read as an offset into the whole answer text;
* ``web_search_requests`` is the number of ``webSearchQueries`` the server
  reports: Gemini reports queries, not billed search calls.

Usage follows the meaning shared by every sleuth provider: ``input_tokens`` is the
whole prompt including the tokens Google Search results added
(``toolUsePromptTokenCount``), and ``output_tokens`` includes the thinking
tokens (``thoughtsTokenCount``), which are also reported as ``reasoning_tokens``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from sleuth.errors import LLMError, LLMQuotaExceeded, LLMRateLimited
from sleuth.llm.failures import classify
from sleuth.llm.http import Reply
from sleuth.llm.models import (
    Annotation,
    ChatRequest,
    Completion,
    Message,
    NativeSource,
    StopReason,
    ToolCall,
    ToolSpec,
    Usage,
)
from sleuth.llm.providers.base import HttpCall, Provider, parse_arguments

GENERATED_ID = "gemini-call-"

_FINISH = {
    "STOP": StopReason.END,
    "MAX_TOKENS": StopReason.MAX_TOKENS,
    "SAFETY": StopReason.CONTENT_FILTER,
    "RECITATION": StopReason.CONTENT_FILTER,
    "BLOCKLIST": StopReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": StopReason.CONTENT_FILTER,
    "SPII": StopReason.CONTENT_FILTER,
    "IMAGE_SAFETY": StopReason.CONTENT_FILTER,
    "IMAGE_PROHIBITED_CONTENT": StopReason.CONTENT_FILTER,
    "IMAGE_RECITATION": StopReason.CONTENT_FILTER,
    "MALFORMED_FUNCTION_CALL": StopReason.MALFORMED_CALL,
}

# The keywords of Gemini's Schema object; everything else in a JSON Schema is dropped.
_SCHEMA_KEYS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "propertyOrdering",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "anyOf",
        "example",
    }
)
_FORMATS = frozenset({"enum", "date-time", "int32", "int64", "float", "double"})
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_VERSIONED = re.compile(r"/v1(?:alpha|beta)?$")


def gemini_schema(schema: Any) -> Any:
    """A JSON Schema cut down to the subset Gemini's ``parameters`` accepts."""
    if not isinstance(schema, dict):
        return schema
    clean: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _SCHEMA_KEYS:
            continue
        if key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            if len(kinds) < len(value):
                clean["nullable"] = True
            if kinds:
                clean["type"] = kinds[0]
        elif key == "format" and value not in _FORMATS:
            continue  # "uri", "hostname" ... are refused
        elif key == "properties" and isinstance(value, dict):
            clean[key] = {name: gemini_schema(item) for name, item in value.items()}
        elif key == "items":
            clean[key] = gemini_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            clean[key] = [gemini_schema(item) for item in value]
        else:
            clean[key] = value
    return clean


def _mixes_search_and_functions(model: str) -> bool:
    """Gemini 3 takes google_search together with functions; earlier models answer 400."""
    match = re.match(r"(?:models/)?gemini-(\d+)", model)
    return match is not None and int(match.group(1)) >= 3


def _declaration(tool: ToolSpec) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": gemini_schema(tool.parameters),
    }


def _own_parts(native: Any) -> list[dict[str, Any]] | None:
    """``native`` when it is a non-empty list of Gemini parts, else None.

    Gemini parts never carry ``type``; the native state of other providers
    (Anthropic blocks, Responses items) always does, and is re-encoded instead.
    """
    if not isinstance(native, list) or not native:
        return None
    if all(isinstance(part, dict) and "type" not in part for part in native):
        return native
    return None


def _calls_with_ids(messages: list[Message]) -> set[str]:
    """Ids Gemini gave its own function calls, as echoed in native parts."""
    ids: set[str] = set()
    for message in messages:
        for part in _own_parts(message.native) or []:
            call = part.get("functionCall")
            if isinstance(call, dict) and call.get("id"):
                ids.add(str(call["id"]))
    return ids


def _tool_names(messages: list[Message]) -> dict[str, str]:
    return {call.id: call.name for message in messages for call in message.tool_calls}


def _parts(message: Message, known_ids: set[str], names: dict[str, str]) -> list[dict[str, Any]]:
    """The parts of one non-system message (empty when there is nothing to send)."""
    if message.role == "tool":
        call_id = message.tool_call_id or ""
        key = "error" if message.is_error else "result"
        response: dict[str, Any] = {
            "name": message.name or names.get(call_id, ""),
            "response": {key: message.content},
        }
        if call_id in known_ids:
            response["id"] = call_id
        return [{"functionResponse": response}]
    if message.role == "assistant":
        native = _own_parts(message.native)
        if native is not None:
            return list(native)
    parts: list[dict[str, Any]] = []
    if message.content:
        parts.append({"text": message.content})
    if message.role == "assistant":
        for call in message.tool_calls:
            wire: dict[str, Any] = {"name": call.name, "args": _sent(call)}
            if call.id in known_ids:
                wire["id"] = call.id
            parts.append({"functionCall": wire})
    return parts


def _sent(call: ToolCall) -> Any:
    """The ``args`` as the model sent them, when it sent them at all."""
    return call.raw if call.raw is not None else call.arguments


def _contents(messages: list[Message]) -> list[dict[str, Any]]:
    known_ids = _calls_with_ids(messages)
    names = _tool_names(messages)
    contents: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        parts = _parts(message, known_ids, names)
        if not parts:
            continue  # the API refuses a turn without parts
        role = "model" if message.role == "assistant" else "user"
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)  # e.g. several functionResponse parts
        else:
            contents.append({"role": role, "parts": parts})
    return contents


def _char_offset(text: str, byte_offset: int) -> int:
    """The character offset in ``text`` at UTF-8 byte ``byte_offset`` (clamped to the text)."""
    return len(text.encode("utf-8")[: max(byte_offset, 0)].decode("utf-8", errors="ignore"))


def _retry_delay(details: list[Any]) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail (``"13s"``, ``"1.5s"``)."""
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith(".RetryInfo"):
            match = _DURATION.match(str(detail.get("retryDelay") or ""))
            if match:
                return float(match.group(1))
    return None


def _detail_values(details: list[Any], type_suffix: str, key: str) -> list[str]:
    return [
        str(detail.get(key))
        for detail in details
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith(type_suffix)
    ]


def _quota_ids(details: list[Any]) -> list[str]:
    ids: list[str] = []
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith(".QuotaFailure"):
            violations = detail.get("violations")
            if isinstance(violations, list):  # an error body is data: any shape may arrive
                ids += [str(v.get("quotaId") or "") for v in violations if isinstance(v, dict)]
    return ids


class Gemini(Provider):
    name = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com"
    default_model = "gemini-2.5-flash"
    native_search = "google_search"

    def path(self) -> str:
        """``/v1beta/models/{model}:generateContent``; ``models/x`` and ``tunedModels/x`` kept.

        A base URL that already ends in an API version (``.../v1beta``) is not given another.
        """
        model = self.model if "/" in self.model else f"models/{self.model}"
        version = "" if _VERSIONED.search(urlsplit(self.http.base_url).path) else "/v1beta"
        return f"{version}/{quote(model, safe='/')}:generateContent"

    @staticmethod
    def declare(tool: ToolSpec) -> dict[str, Any]:
        return _declaration(tool)

    @classmethod
    def declare_tools(cls, tools: list[ToolSpec]) -> list[dict[str, Any]]:
        """Gemini groups every function in one ``functionDeclarations`` entry."""
        return [{"functionDeclarations": [cls.declare(tool) for tool in tools]}] if tools else []

    def build(self, request: ChatRequest) -> HttpCall:
        body: dict[str, Any] = {"contents": _contents(request.messages)}
        system = [m.content for m in request.messages if m.role == "system" and m.content]
        if system:
            body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
        functions = self.functions(request)
        if request.native_search and not _mixes_search_and_functions(self.model):
            functions = []  # Gemini 2.x refuses google_search beside function declarations
        tools = self.declare_tools(functions)
        if request.native_search:
            tools.append({"google_search": {}})
        if tools:
            body["tools"] = tools
        if functions and request.tool_choice == "none":
            body["toolConfig"] = {"functionCallingConfig": {"mode": "NONE"}}
        config: dict[str, Any] = {"maxOutputTokens": request.max_output_tokens}
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.reply_schema:
            config["responseMimeType"] = "application/json"
            config["responseSchema"] = gemini_schema(request.reply_schema.schema)
        body["generationConfig"] = config
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["x-goog-api-key"] = self.api_key
        return self.path(), body, headers

    def parse(self, data: Any) -> Completion:
        metadata = data.get("usageMetadata") or {}
        model = str(data.get("modelVersion") or self.model)
        candidates = data.get("candidates")
        if not candidates:
            feedback = data.get("promptFeedback") or {}
            if feedback.get("blockReason"):  # the prompt itself was refused
                usage = _usage(metadata, searches=0)
                return Completion(
                    Message("assistant"),
                    StopReason.CONTENT_FILTER,
                    usage,
                    model,
                    finish="PROMPT_BLOCKED",
                    finish_message=" ".join(
                        str(feedback.get(key) or "")
                        for key in ("blockReason", "blockReasonMessage")
                    ).strip(),
                )
            raise KeyError("candidates")
        candidate = candidates[0]
        parts = (candidate.get("content") or {}).get("parts") or []
        texts: list[str] = []
        starts: dict[int, int] = {}  # part index -> character offset of its text in the answer
        calls: list[ToolCall] = []
        offset = 0
        for index, part in enumerate(parts):
            if "functionCall" in part:
                call = part["functionCall"]
                call_id = str(call.get("id") or f"{GENERATED_ID}{len(calls)}")
                calls.append(parse_arguments(call_id, call["name"], call.get("args")))
            elif "text" in part and not part.get("thought"):
                text = str(part["text"])
                starts[index] = offset
                texts.append(text)
                offset += len(text)
        content = "".join(texts)
        annotations, sources, searches = _grounding(
            candidate.get("groundingMetadata") or {}, content, starts, parts
        )
        finish = str(candidate.get("finishReason") or "")
        stop = StopReason.TOOL_CALLS if calls else _FINISH.get(finish, StopReason.OTHER)
        return Completion(
            message=Message("assistant", content, tool_calls=calls, native=parts or None),
            stop_reason=stop,
            usage=_usage(metadata, searches=len(searches)),
            model=model,
            annotations=annotations,
            sources=sources,
            searches=searches,
            finish=finish,
            finish_message=str(candidate.get("finishMessage") or ""),
        )

    def classify(self, reply: Reply) -> LLMError:
        # {"error": {"code": 429, "message": ..., "status": "RESOURCE_EXHAUSTED", "details": []}}
        try:
            data = reply.json()
        except ValueError:
            data = None
        if isinstance(data, list) and data:  # some Google front ends wrap the error in a list
            data = data[0]
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, dict):
            return classify(self.name, reply, reply.text[:300])
        message = str(error.get("message") or "")
        status = str(error.get("status") or "")
        details = error.get("details")
        if not isinstance(details, list):
            details = []
        code = status
        if "API_KEY_INVALID" in _detail_values(details, ".ErrorInfo", "reason"):
            code = "invalid_api_key"
        elif status == "UNAVAILABLE" and "overloaded" in message.lower():
            code = "overloaded"
        delay = _retry_delay(details)
        result = classify(self.name, reply, message, code, delay=delay)
        # Gemini words its per-minute limits "You exceeded your current quota ... billing",
        # which reads as an empty account. A RetryInfo or a quota that is not per day says
        # it is a limit that passes; a per-day quota stays spent until tomorrow.
        quotas = _quota_ids(details)
        passing = delay is not None or bool(quotas)
        daily = any("PerDay" in quota for quota in quotas)
        if isinstance(result, LLMQuotaExceeded) and reply.status == 429 and passing and not daily:
            return LLMRateLimited(
                result.message,
                provider=self.name,
                status=reply.status,
                retry_after=result.retry_after,
            )
        return result


def _usage(metadata: dict[str, Any], *, searches: int) -> Usage:
    thoughts = metadata.get("thoughtsTokenCount") or 0
    return Usage(
        input_tokens=(metadata.get("promptTokenCount") or 0)
        + (metadata.get("toolUsePromptTokenCount") or 0),
        output_tokens=(metadata.get("candidatesTokenCount") or 0) + thoughts,
        cached_tokens=metadata.get("cachedContentTokenCount") or 0,
        reasoning_tokens=thoughts,
        web_search_requests=searches,
    )


def _grounding(
    metadata: dict[str, Any], content: str, starts: dict[int, int], parts: list[Any]
) -> tuple[list[Annotation], list[NativeSource], list[str]]:
    """Annotations, sources and queries from a candidate's ``groundingMetadata``."""
    searches = [str(q) for q in metadata.get("webSearchQueries") or [] if q]
    chunks: list[NativeSource | None] = []
    for chunk in metadata.get("groundingChunks") or []:
        web = chunk.get("web") if isinstance(chunk, dict) else None
        uri = str((web or {}).get("uri") or "")
        chunks.append(NativeSource(uri, str(web.get("title") or "")) if web and uri else None)
    unique: dict[str, NativeSource] = {}
    for source in chunks:
        if source is not None:
            unique.setdefault(source.url, source)
    annotations: list[Annotation] = []
    for support in metadata.get("groundingSupports") or []:
        segment = support.get("segment") or {}
        if "endIndex" not in segment:
            continue
        end = _segment_end(segment, content, starts, parts)
        for index in support.get("groundingChunkIndices") or []:
            source = chunks[index] if 0 <= index < len(chunks) else None
            if source is not None:
                cited = str(segment.get("text") or "")
                annotations.append(Annotation(end, NativeSource(source.url, source.title, cited)))
    return annotations, list(unique.values()), searches


def _segment_end(
    segment: dict[str, Any], content: str, starts: dict[int, int], parts: list[Any]
) -> int:
    """The character offset in ``content`` where a grounding segment ends."""
    end = int(segment["endIndex"])
    index = int(segment.get("partIndex") or 0)
    if index in starts:
        text = str(parts[index]["text"])
        if end <= len(text.encode("utf-8")):
            return starts[index] + _char_offset(text, end)
    return _char_offset(content, end)
