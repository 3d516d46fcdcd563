"""OpenAI's Responses API (``POST /responses``), which LM Studio serves too.

A reply is a list of output items rather than one message: ``message`` items
hold the text and its ``url_citation`` annotations, ``function_call`` items
the tool calls (arguments as a JSON *string*, answered by ``call_id``),
``web_search_call`` items the provider's own searches, and ``reasoning``
items the model's hidden state. All of them are kept in ``Message.native``
and sent back verbatim as the next turn's input, so reasoning survives a
tool round trip.
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

_INCOMPLETE = {
    "max_output_tokens": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}
# Without this the search items name their queries but not the pages they read.
_SOURCES = "web_search_call.action.sources"


def _assistant(message: Message) -> list[dict[str, Any]]:
    """An assistant turn as input items: what the server sent, or rebuilt from the model."""
    if message.native is not None:
        return list(message.native)
    items: list[dict[str, Any]] = []
    if message.content or not message.tool_calls:
        items.append({"role": "assistant", "content": message.content})
    items += [
        {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.raw_json(),
        }
        for call in message.tool_calls
    ]
    return items


def _item(message: Message) -> list[dict[str, Any]]:
    if message.role == "assistant":
        return _assistant(message)
    if message.role == "tool":
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": message.content,
            }
        ]
    return [{"role": "user", "content": message.content}]


class _Reading:
    """What one pass over the output items gathers."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.length = 0
        self.calls: list[ToolCall] = []
        self.annotations: list[Annotation] = []
        self.cited: list[NativeSource] = []
        self.searched: list[str] = []
        self.searches: list[str] = []
        self.search_requests = 0
        self.refusal: list[str] = []

    def message(self, item: dict[str, Any]) -> None:
        for part in item.get("content") or []:
            kind = part.get("type")
            if kind == "output_text":
                self._text(str(part["text"]), part.get("annotations") or [])
            elif kind == "refusal":
                self.refusal.append(str(part.get("refusal") or ""))

    def _text(self, text: str, notes: list[dict[str, Any]]) -> None:
        for note in notes:
            if note.get("type") != "url_citation":
                continue  # file citations point into uploaded files, not the web
            end = min(int(note["end_index"]), len(text))
            start = min(max(int(note["start_index"]), 0), end)
            source = NativeSource(str(note["url"]), str(note.get("title") or ""), text[start:end])
            # Offsets count from the start of this part; the answer is all parts joined.
            self.annotations.append(Annotation(self.length + end, source))
            self.cited.append(NativeSource(source.url, source.title))
        self.text.append(text)
        self.length += len(text)

    def function_call(self, item: dict[str, Any], index: int) -> None:
        call_id = item.get("call_id") or item.get("id") or f"call_{index}"
        self.calls.append(parse_arguments(str(call_id), item["name"], item.get("arguments")))

    def web_search(self, item: dict[str, Any]) -> None:
        action = item.get("action") or {}
        kind = action.get("type")
        # Only search actions are billed; opening or searching within a page is not.
        if kind in (None, "search"):
            self.search_requests += 1
        if kind == "search":
            queries = action.get("queries") or [action.get("query")]
            self.searches += [str(query) for query in queries if query]
            self.searched += [
                str(source["url"]) for source in action.get("sources") or [] if source.get("url")
            ]
        elif kind in ("open_page", "find") and action.get("url"):
            self.searched.append(str(action["url"]))

    def sources(self) -> list[NativeSource]:
        """Cited pages first (they have titles), then the other pages the searches used."""
        unique: dict[str, NativeSource] = {}
        for source in self.cited:
            unique.setdefault(source.url, source)
        for url in self.searched:
            unique.setdefault(url, NativeSource(url))
        return list(unique.values())


class OpenAIResponses(Provider):
    name = "openai-responses"
    default_base_url = "https://api.openai.com/v1"
    default_model = "gpt-5-mini"
    native_search = "web_search"

    @staticmethod
    def declare(tool: ToolSpec) -> dict[str, Any]:
        # Responses makes a schema strict unless told not to, which would turn every
        # optional parameter into a required one.
        return {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }

    def build(self, request: ChatRequest) -> HttpCall:
        instructions = "\n\n".join(
            message.content
            for message in request.messages
            if message.role == "system" and message.content
        )
        items = [
            item
            for message in request.messages
            if message.role != "system"
            for item in _item(message)
        ]
        body: dict[str, Any] = {
            "model": self.model,
            "input": items,
            "max_output_tokens": request.max_output_tokens,
        }
        if instructions:
            body["instructions"] = instructions
        if request.temperature is not None:
            body["temperature"] = request.temperature
        tools = self.declare_tools(
            [
                t
                for t in request.tools
                if not (request.native_search and t.name == self.native_search)
            ]
        )
        if request.native_search:
            tools.append({"type": "web_search"})
            body["include"] = [_SOURCES]
        if tools:
            body["tools"] = tools
            if request.tool_choice == "none":
                body["tool_choice"] = "none"
        if request.reply_schema:
            body["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": request.reply_schema.name,
                    "schema": request.reply_schema.schema,
                    "strict": False,  # strict mode would force every optional key into the reply
                }
            }
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return "/responses", body, headers

    def parse(self, data: Any) -> Completion:
        output = data["output"]
        if not isinstance(output, list):
            raise TypeError(f"output is a {type(output).__name__}, not a list")
        reading = _Reading()
        for index, item in enumerate(output):
            kind = item.get("type")
            if kind == "message":
                reading.message(item)
            elif kind == "function_call":
                reading.function_call(item, index)
            elif kind == "web_search_call":
                reading.web_search(item)
        status = str(data.get("status") or "completed")
        finish, finish_message = status, ""
        if reading.calls:
            stop = StopReason.TOOL_CALLS
        elif reading.refusal and not reading.text:
            stop, finish = StopReason.CONTENT_FILTER, "refusal"
            finish_message = "".join(reading.refusal)
        elif status == "completed":
            stop = StopReason.END
        elif status == "incomplete":
            finish = str((data.get("incomplete_details") or {}).get("reason") or status)
            stop = _INCOMPLETE.get(finish, StopReason.OTHER)
        else:  # failed, cancelled, queued, in_progress: no answer came
            stop = StopReason.OTHER
            error = data.get("error")
            if isinstance(error, dict):
                finish_message = str(error.get("message") or error.get("code") or "")
        usage = data.get("usage") or {}
        return Completion(
            message=Message(
                "assistant", "".join(reading.text), tool_calls=reading.calls, native=list(output)
            ),
            stop_reason=stop,
            usage=Usage(
                input_tokens=usage.get("input_tokens") or 0,
                output_tokens=usage.get("output_tokens") or 0,
                cached_tokens=(usage.get("input_tokens_details") or {}).get("cached_tokens") or 0,
                reasoning_tokens=(usage.get("output_tokens_details") or {}).get("reasoning_tokens")
                or 0,
                web_search_requests=reading.search_requests,
            ),
            model=str(data.get("model") or self.model),
            annotations=reading.annotations,
            sources=reading.sources(),
            searches=reading.searches,
            finish=finish,
            finish_message=finish_message,
        )

    def classify(self, reply: Reply) -> LLMError:
        message, code = reply_fields(reply)
        return classify(self.name, reply, message, code)
