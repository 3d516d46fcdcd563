"""Anthropic's Messages API over plain JSON.

What sets it apart from Chat Completions:

* the system prompt is a top-level ``system`` field, not a message;
* an assistant turn is a list of content blocks (``text``, ``thinking``,
  ``tool_use``, and for the server's own web search ``server_tool_use`` and
  ``web_search_tool_result``). The whole list is kept in ``Message.native`` and
  sent back verbatim, because thinking signatures and encrypted search results
  must come back unchanged and a ``pause_turn`` reply is continued by sending
  the paused turn back as it was;
* tool results are ``tool_result`` blocks inside one user message, so
  consecutive tool messages become one turn;
* citations hang off text blocks; each one is placed at the end of the block
  that carries it in the concatenated answer text.

Usage is reported with the meaning every sleuth provider shares: ``input_tokens``
counts the whole prompt (Anthropic's uncached ``input_tokens`` plus cache reads
and cache writes) and ``cached_tokens`` the part read from the cache, as
OpenAI's ``prompt_tokens`` and Gemini's ``promptTokenCount`` do.
"""

from __future__ import annotations

from typing import Any

from sleuth.errors import LLMError
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
from sleuth.llm.providers.base import HttpCall, Provider, parse_arguments, reply_fields

API_VERSION = "2023-06-01"
SEARCH_TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}

_STOP = {
    "end_turn": StopReason.END,
    "stop_sequence": StopReason.END,
    "tool_use": StopReason.TOOL_CALLS,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "pause_turn": StopReason.PAUSE,
    "refusal": StopReason.CONTENT_FILTER,
}

# Item types of OpenAI's Responses API, whose ``native`` is also a list of typed dicts:
# a conversation carried over from that provider is re-encoded, never echoed here.
_FOREIGN_TYPES = frozenset({"message", "reasoning", "function_call", "web_search_call"})


def _own_blocks(native: Any) -> list[dict[str, Any]] | None:
    """``native`` when it is a non-empty list of Anthropic content blocks, else None."""
    if not isinstance(native, list) or not native:
        return None
    for block in native:
        if not isinstance(block, dict):
            return None
        kind = block.get("type")
        if not isinstance(kind, str) or kind in _FOREIGN_TYPES:
            return None
    return native


def _blocks(message: Message) -> list[dict[str, Any]]:
    """The content blocks of one non-system message (empty when there is nothing to send)."""
    if message.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if message.content:
            block["content"] = message.content
        if message.is_error:
            block["is_error"] = True
        return [block]
    if message.role == "assistant":
        native = _own_blocks(message.native)
        if native is not None:
            return list(native)
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    if message.role == "assistant":
        blocks += [
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
            for call in message.tool_calls
        ]
    return blocks


def _messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Non-system messages as alternating turns; tool results lead their user turn."""
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for message in messages:
        if message.role == "system":
            continue
        blocks = _blocks(message)
        if not blocks:
            continue  # the API refuses empty turns
        role = "assistant" if message.role == "assistant" else "user"
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    wire: list[dict[str, Any]] = []
    for role, blocks in turns:
        if role == "user":  # tool_result blocks must come before any text in their turn
            blocks.sort(key=lambda block: block.get("type") != "tool_result")
        if len(blocks) == 1 and blocks[0].keys() == {"type", "text"}:
            wire.append({"role": role, "content": blocks[0]["text"]})
        else:
            wire.append({"role": role, "content": blocks})
    return wire


def _usage(usage: dict[str, Any]) -> Usage:
    cache_read = usage.get("cache_read_input_tokens") or 0
    cache_write = usage.get("cache_creation_input_tokens") or 0
    server = usage.get("server_tool_use") or {}
    return Usage(
        input_tokens=(usage.get("input_tokens") or 0) + cache_read + cache_write,
        output_tokens=usage.get("output_tokens") or 0,
        cached_tokens=cache_read,
        web_search_requests=server.get("web_search_requests") or 0,
    )


class Anthropic(Provider):
    name = "anthropic"
    default_base_url = "https://api.anthropic.com"
    default_model = "claude-sonnet-4-5"
    native_search = "web_search"

    @staticmethod
    def declare(tool: ToolSpec) -> dict[str, Any]:
        return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}

    def build(self, request: ChatRequest) -> HttpCall:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_output_tokens,
            "messages": _messages(request.messages),
        }
        system = [m.content for m in request.messages if m.role == "system" and m.content]
        if system:
            body["system"] = "\n\n".join(system)
        if request.temperature is not None:
            body["temperature"] = min(max(request.temperature, 0.0), 1.0)  # Anthropic's range
        tools = self.declare_tools(
            [
                t
                for t in request.tools
                if not (request.native_search and t.name == self.native_search)
            ]
        )
        if request.native_search:
            tools.append(dict(SEARCH_TOOL))
        if request.reply_schema:
            # Anthropic's structured output: one tool whose input is the reply, called for sure.
            name = request.reply_schema.name
            tools.append(
                {
                    "name": name,
                    "description": "Give the answer.",
                    "input_schema": request.reply_schema.schema,
                }
            )
            body["tool_choice"] = {"type": "tool", "name": name}
        if tools:
            body["tools"] = tools
            if request.tool_choice == "none" and not request.reply_schema:
                body["tool_choice"] = {"type": "none"}
        headers = {"anthropic-version": API_VERSION, "content-type": "application/json"}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return "/v1/messages", body, headers

    def parse(self, data: Any) -> Completion:
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError(f"content is {type(blocks).__name__}, not a list of blocks")
        texts: list[str] = []
        end = 0
        calls: list[ToolCall] = []
        annotations: list[Annotation] = []
        results: dict[str, NativeSource] = {}
        cited: dict[str, NativeSource] = {}
        searches: list[str] = []
        after_tool = False
        for block in blocks:
            kind = block["type"]
            if kind == "text":
                text = str(block.get("text") or "")
                if after_tool and texts:
                    # Narration before a search and the answer after it are paragraphs;
                    # blocks split only by citations join seamlessly.
                    text = "\n\n" + text.lstrip()
                after_tool = False
                texts.append(text)
                end += len(text)
                for citation in block.get("citations") or []:
                    if citation.get("type") != "web_search_result_location":
                        continue
                    url = str(citation.get("url") or "")
                    if not url:
                        continue
                    title = str(citation.get("title") or "")
                    quote = str(citation.get("cited_text") or "")
                    annotations.append(Annotation(end, NativeSource(url, title, quote)))
                    cited.setdefault(url, NativeSource(url, title))
            elif kind == "tool_use":
                after_tool = True
                calls.append(parse_arguments(block["id"], block["name"], block.get("input")))
            elif kind in ("server_tool_use", "web_search_tool_result"):
                after_tool = True
            if kind == "server_tool_use" and block.get("name") == self.native_search:
                query = (block.get("input") or {}).get("query")
                if isinstance(query, str) and query:
                    searches.append(query)
            if kind == "web_search_tool_result":
                # A failed search carries one web_search_tool_result_error object, not a list.
                content = block.get("content")
                for result in content if isinstance(content, list) else []:
                    url = str(result.get("url") or "")
                    if result.get("type") == "web_search_result" and url:
                        results.setdefault(url, NativeSource(url, str(result.get("title") or "")))
        sources = list(results.values()) + [s for url, s in cited.items() if url not in results]
        finish = str(data.get("stop_reason") or "")
        stop = StopReason.TOOL_CALLS if calls else _STOP.get(finish)
        return Completion(
            message=Message("assistant", "".join(texts), tool_calls=calls, native=blocks),
            stop_reason=stop or StopReason.OTHER,
            usage=_usage(data.get("usage") or {}),
            model=str(data.get("model") or self.model),
            annotations=annotations,
            sources=sources,
            searches=searches,
            finish=finish,
        )

    def classify(self, reply: Reply) -> LLMError:
        # {"type": "error", "error": {"type": "overloaded_error", "message": ...}, ...}
        message, code = reply_fields(reply)
        return classify(self.name, reply, message, code)
