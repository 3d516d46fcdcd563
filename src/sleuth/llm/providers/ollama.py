"""Ollama's native chat API (``POST /api/chat`` with ``stream: false``).

Arguments arrive as an *object*, tool calls usually carry no id (one is made
up from the call's position, ``ollama-call-<index>``, unless the server sent
one), a tool result is matched to its call by ``tool_name``, and the server
says ``done_reason: "stop"`` while calling tools, so tool calls decide the
stop reason. A thinking model's ``message.thinking`` never reaches the
answer text: the whole assistant message is kept as received in
``Message.native`` and sent back verbatim, thinking included, so a template
that replays the reasoning of a tool-calling turn (gpt-oss's does) gets it.
There is no native search.
"""

from __future__ import annotations

from typing import Any

from sleuth.errors import LLMError
from sleuth.llm.failures import classify
from sleuth.llm.http import Reply
from sleuth.llm.models import ChatRequest, Completion, Message, StopReason, ToolCall, Usage
from sleuth.llm.providers.base import HttpCall, Provider, parse_arguments, reply_fields

_DONE = {"stop": StopReason.END, "length": StopReason.MAX_TOKENS}


def _message(message: Message, names: dict[str, str]) -> dict[str, Any]:
    if message.role == "tool":
        wire: dict[str, Any] = {"role": "tool", "content": message.content}
        name = message.name or names.get(message.tool_call_id or "")
        if name:
            wire["tool_name"] = name
        return wire
    if message.role == "assistant" and message.native is not None:
        return dict(message.native)
    wire = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {"function": {"name": call.name, "arguments": _sent(call)}}
            for call in message.tool_calls
        ]
    return wire


def _sent(call: ToolCall) -> Any:
    """The arguments as the model sent them (Ollama takes an object, or what came instead)."""
    return call.raw if call.raw is not None else call.arguments


class Ollama(Provider):
    name = "ollama"
    default_base_url = "http://127.0.0.1:11434"
    default_model = "llama3.1"
    native_search = None

    def build(self, request: ChatRequest) -> HttpCall:
        # A tool result without a name still finds it through the call it answers.
        names = {
            call.id: call.name
            for message in request.messages
            if message.role == "assistant"
            for call in message.tool_calls
        }
        options: dict[str, Any] = {"num_predict": request.max_output_tokens}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_message(message, names) for message in request.messages],
            "stream": False,
            "options": options,
        }
        # Ollama has no tool_choice; a turn that may not call tools declares none.
        if request.tools and request.tool_choice == "auto":
            body["tools"] = self.declare_tools(request.tools)
        if request.reply_schema:
            body["format"] = request.reply_schema.schema
        # A local server wants no key; hosted Ollama (ollama.com) takes a bearer token.
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return "/api/chat", body, headers

    def parse(self, data: Any) -> Completion:
        wire = data["message"]
        if not isinstance(wire, dict):
            raise TypeError(f"message is a {type(wire).__name__}, not an object")
        calls = [
            parse_arguments(
                str(call.get("id") or f"ollama-call-{index}"),
                call["function"]["name"],
                call["function"].get("arguments"),
            )
            for index, call in enumerate(wire.get("tool_calls") or [])
        ]
        finish = str(data.get("done_reason") or "stop")
        stop = StopReason.TOOL_CALLS if calls else _DONE.get(finish, StopReason.OTHER)
        return Completion(
            message=Message(
                "assistant", str(wire.get("content") or ""), tool_calls=calls, native=dict(wire)
            ),
            stop_reason=stop,
            usage=Usage(
                input_tokens=data.get("prompt_eval_count") or 0,
                output_tokens=data.get("eval_count") or 0,
            ),
            model=str(data.get("model") or self.model),
            finish=finish,
        )

    def classify(self, reply: Reply) -> LLMError:
        message, code = reply_fields(reply)
        error = classify(self.name, reply, message, code)
        if reply.status == 404:
            if "model" in message.lower():
                error.hint = (
                    f"download it with `ollama pull {self.model}`, or set SLEUTH_LLM_MODEL "
                    "to a model `ollama list` shows"
                )
            else:  # the path itself is missing: not an Ollama server, or a /v1 base URL
                error.hint = (
                    "SLEUTH_LLM_BASE_URL must be the Ollama server itself "
                    "(http://127.0.0.1:11434, no /v1); for /v1 use the openai provider"
                )
        return error
