"""OpenAI Chat Completions, and through a base URL every server that speaks it.

Ollama's ``/v1``, LM Studio, vLLM, llama.cpp's server and OpenRouter all
accept this shape. Arguments arrive as a JSON *string*; local servers often
say ``stop`` while calling tools, so tool calls decide the stop reason.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sleuth.errors import LLMError
from sleuth.llm.failures import classify
from sleuth.llm.http import Reply
from sleuth.llm.models import ChatRequest, Completion, Message, StopReason, Usage
from sleuth.llm.providers.base import HttpCall, Provider, parse_arguments, reply_fields

_FINISH = {
    "stop": StopReason.END,
    "tool_calls": StopReason.TOOL_CALLS,
    "function_call": StopReason.TOOL_CALLS,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
    "refusal": StopReason.CONTENT_FILTER,
}


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                # The string the model wrote, byte for byte, even when it is not JSON.
                "function": {"name": call.name, "arguments": call.raw_json()},
            }
            for call in message.tool_calls
        ]
    return wire


class OpenAIChat(Provider):
    name = "openai"
    default_base_url = "https://api.openai.com/v1"
    default_model = "gpt-5-mini"

    def build(self, request: ChatRequest) -> HttpCall:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_message(message) for message in request.messages],
        }
        # OpenAI's reasoning models refuse max_tokens; most compatible servers only know it.
        official = urlsplit(self.http.base_url).hostname == "api.openai.com"
        body["max_completion_tokens" if official else "max_tokens"] = request.max_output_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = self.declare_tools(request.tools)
            if request.tool_choice == "none":
                body["tool_choice"] = "none"
        if request.reply_schema:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.reply_schema.name,
                    "schema": request.reply_schema.schema,
                    "strict": False,  # strict mode would force every optional key into the reply
                },
            }
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return "/chat/completions", body, headers

    def parse(self, data: Any) -> Completion:
        choice = data["choices"][0]
        wire = choice["message"]
        calls = [
            parse_arguments(
                call.get("id") or f"call_{index}",
                call["function"]["name"],
                call["function"].get("arguments"),
            )
            for index, call in enumerate(wire.get("tool_calls") or [])
        ]
        content = str(wire.get("content") or "")
        finish = str(choice.get("finish_reason") or "")
        refusal = str(wire.get("refusal") or "")
        if refusal and not content and not calls:
            finish = "refusal"  # the model declined; its words are no answer
        stop = StopReason.TOOL_CALLS if calls else _FINISH.get(finish)
        usage = data.get("usage") or {}
        return Completion(
            message=Message("assistant", content, tool_calls=calls),
            stop_reason=stop or StopReason.OTHER,
            finish=finish,
            finish_message=refusal,
            usage=Usage(
                input_tokens=usage.get("prompt_tokens") or 0,
                output_tokens=usage.get("completion_tokens") or 0,
                cached_tokens=(usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0,
                reasoning_tokens=(usage.get("completion_tokens_details") or {}).get(
                    "reasoning_tokens"
                )
                or 0,
            ),
            model=str(data.get("model") or self.model),
        )

    def classify(self, reply: Reply) -> LLMError:
        message, code = reply_fields(reply)
        return classify(self.name, reply, message, code)
