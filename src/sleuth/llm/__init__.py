"""The LLM layer: providers over plain HTTP, one conversation model, a bounded tool loop."""

from sleuth.llm.models import (
    Annotation,
    ChatRequest,
    Completion,
    Message,
    NativeSource,
    ReplySchema,
    StopReason,
    ToolCall,
    ToolSpec,
    Usage,
)
from sleuth.llm.providers import PROVIDERS, Provider
from sleuth.llm.setup import LLMConfig, open_provider, resolve

__all__ = [
    "PROVIDERS",
    "Annotation",
    "ChatRequest",
    "Completion",
    "LLMConfig",
    "Message",
    "NativeSource",
    "Provider",
    "ReplySchema",
    "StopReason",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "open_provider",
    "resolve",
]
