"""A reply without answer text is never an empty success: it becomes a typed error here.

Every provider reports why a turn ended in its own words (Gemini's
``finishReason``, Chat Completions' ``finish_reason``, Responses' ``status`` and
``incomplete_details.reason``, Anthropic's ``stop_reason``, Ollama's
``done_reason``); :attr:`Completion.finish` keeps that word, and this table gives
each documented one its error class, so ``sleuth ask`` exits with a code that
says what happened instead of 0 with nothing printed.
"""

from __future__ import annotations

from sleuth.errors import (
    LLMBlocklist,
    LLMContentFiltered,
    LLMContextLength,
    LLMError,
    LLMIncomplete,
    LLMMalformedToolCall,
    LLMNoAnswer,
    LLMOutputLimit,
    LLMProhibitedContent,
    LLMPromptBlocked,
    LLMRecitation,
    LLMRefused,
    LLMSensitiveInfo,
    LLMToolCallRejected,
    LLMUnsupportedLanguage,
)
from sleuth.llm.models import Completion, StopReason

_CUT = "the output token limit ran out before any answer text"
_FILTERED = "the provider's safety filter stopped the answer"
_DECLINED = "the model declined to answer"
_UNFINISHED = "the response did not finish"

# The provider's own finish word -> (error, what happened).
_BY_FINISH: dict[str, tuple[type[LLMNoAnswer], str]] = {
    # Gemini: Candidate.finishReason
    "MAX_TOKENS": (LLMOutputLimit, _CUT),
    "SAFETY": (LLMContentFiltered, _FILTERED),
    "IMAGE_SAFETY": (LLMContentFiltered, _FILTERED),
    "RECITATION": (LLMRecitation, "the answer would have recited training data"),
    "IMAGE_RECITATION": (LLMRecitation, "the answer would have recited training data"),
    "BLOCKLIST": (LLMBlocklist, "the answer held a term on the blocklist"),
    "PROHIBITED_CONTENT": (LLMProhibitedContent, "the answer held prohibited content"),
    "IMAGE_PROHIBITED_CONTENT": (LLMProhibitedContent, "the answer held prohibited content"),
    "SPII": (LLMSensitiveInfo, "the answer held sensitive personal information"),
    "LANGUAGE": (LLMUnsupportedLanguage, "the question is in a language the model does not serve"),
    "MALFORMED_FUNCTION_CALL": (LLMMalformedToolCall, "the model wrote a malformed tool call"),
    "UNEXPECTED_TOOL_CALL": (LLMToolCallRejected, "the model called a tool it was not given"),
    "TOO_MANY_TOOL_CALLS": (LLMToolCallRejected, "the model made too many tool calls"),
    "MALFORMED_RESPONSE": (LLMIncomplete, "the model's response was malformed"),
    "MISSING_THOUGHT_SIGNATURE": (LLMIncomplete, "the request lacked a thought signature"),
    "PROMPT_BLOCKED": (LLMPromptBlocked, "the provider refused the question itself"),
    # Chat Completions: choices[].finish_reason (and message.refusal)
    "length": (LLMOutputLimit, _CUT),
    "content_filter": (LLMContentFiltered, _FILTERED),
    "refusal": (LLMRefused, _DECLINED),
    # Responses: status, incomplete_details.reason
    "max_output_tokens": (LLMOutputLimit, _CUT),
    "failed": (LLMIncomplete, "the response failed"),
    "cancelled": (LLMIncomplete, "the response was cancelled"),
    "queued": (LLMIncomplete, _UNFINISHED),
    "in_progress": (LLMIncomplete, _UNFINISHED),
    # Anthropic: stop_reason ("refusal" is shared with the two above)
    "max_tokens": (LLMOutputLimit, _CUT),
    "pause_turn": (LLMIncomplete, "the server paused a long turn and no turns were left"),
    # Ollama: done_reason
    "load": (LLMIncomplete, "the server only loaded the model"),
    "unload": (LLMIncomplete, "the server unloaded the model"),
}

_BY_STOP: dict[StopReason, tuple[type[LLMNoAnswer], str]] = {
    StopReason.MAX_TOKENS: (LLMOutputLimit, _CUT),
    StopReason.CONTENT_FILTER: (LLMContentFiltered, _FILTERED),
    StopReason.MALFORMED_CALL: (LLMMalformedToolCall, "the model wrote a malformed tool call"),
    StopReason.PAUSE: (LLMIncomplete, "the server paused a long turn and no turns were left"),
}

_RETRYABLE = frozenset({"failed", "MALFORMED_RESPONSE", "OTHER", "FINISH_REASON_UNSPECIFIED"})


def no_answer(completion: Completion, provider: str) -> LLMError:
    """The error for a final turn that carried no answer text."""
    finish = completion.finish
    words = f" ({finish})" if finish else ""
    detail = " ".join(completion.finish_message.split())
    said = f": {detail[:300]}" if detail else ""
    if finish == "model_context_window_exceeded":  # Anthropic
        return LLMContextLength(
            f"{provider} gave no answer: the conversation filled the model's context window"
            f"{words}{said}",
            provider=provider,
        )
    error, what = _BY_FINISH.get(finish) or _BY_STOP.get(
        completion.stop_reason, (LLMNoAnswer, "the model ended its turn without any text")
    )
    return error(
        f"{provider} gave no answer: {what}{words}{said}",
        finish=finish,
        provider=provider,
        retryable=True if finish in _RETRYABLE else None,
    )
