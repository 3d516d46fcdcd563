"""An empty final answer never exits 0: every documented stop reason becomes its own error.

Each loopback server answers in its provider's documented format (payloads_*.py):
Gemini's ``finishReason`` values and ``promptFeedback.blockReason``, Chat
Completions' ``finish_reason`` and ``refusal``, Responses' ``status`` and
``incomplete_details.reason`` and refusal parts, Anthropic's ``stop_reason``,
Ollama's ``done_reason``. The loop, the tools and the web behind them are real.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from llm import (
    payloads_anthropic,
    payloads_gemini,
    payloads_ollama,
    payloads_openai,
    payloads_responses,
)
from llm.conftest import ASK_TOOLS
from llm.test_cli_ask import ask_env, run_sleuth
from loopback import Web
from search.wire import Reply, Wire
from sleuth.agent import ask
from sleuth.api import AsyncSleuth
from sleuth.config import Settings
from sleuth.errors import (
    EXIT_CODES,
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

PATHS = {
    "openai": payloads_openai.PATH,
    "openai-responses": payloads_responses.PATH,
    "anthropic": payloads_anthropic.PATH,
    "gemini": payloads_gemini.PATH,
    "ollama": payloads_ollama.PATH,
}


@pytest.fixture
def settings(web: Web, llm_settings: Callable[..., Settings]) -> Callable[..., Settings]:
    def build(provider: str, **overrides: Any) -> Settings:
        values = web.settings().model_dump()
        values.update(llm_settings(provider).model_dump(exclude_unset=True))
        values.update({"llm_search": "local", **overrides})
        return Settings(**values)

    return build


async def asked(settings: Settings) -> Any:
    async with AsyncSleuth(settings) as client:
        return await ask(client, registry=ASK_TOOLS, question="What does Nimbus do on a timeout?")


gemini = payloads_gemini
# (provider, reply, error, exit code, words the message must hold)
CASES: list[tuple[str, Reply, type[LLMError], int, str]] = [
    ("gemini", gemini.finished("SAFETY"), LLMContentFiltered, 57, "(SAFETY)"),
    ("gemini", gemini.finished("IMAGE_SAFETY"), LLMContentFiltered, 57, "safety filter"),
    ("gemini", gemini.finished("RECITATION"), LLMRecitation, 70, "recited"),
    ("gemini", gemini.finished("BLOCKLIST"), LLMBlocklist, 71, "blocklist"),
    ("gemini", gemini.finished("PROHIBITED_CONTENT"), LLMProhibitedContent, 72, "prohibited"),
    ("gemini", gemini.finished("SPII"), LLMSensitiveInfo, 73, "personal information"),
    ("gemini", gemini.finished("LANGUAGE"), LLMUnsupportedLanguage, 75, "language"),
    ("gemini", gemini.finished("MAX_TOKENS"), LLMOutputLimit, 59, "(MAX_TOKENS)"),
    ("gemini", gemini.finished("MAX_TOKENS", ""), LLMOutputLimit, 59, "token limit"),
    ("gemini", gemini.finished("STOP"), LLMNoAnswer, 76, "without any text"),
    ("gemini", gemini.finished("OTHER"), LLMNoAnswer, 76, "(OTHER)"),
    ("gemini", gemini.finished("FINISH_REASON_UNSPECIFIED"), LLMNoAnswer, 76, "UNSPECIFIED"),
    ("gemini", gemini.finished("UNEXPECTED_TOOL_CALL"), LLMToolCallRejected, 78, "not given"),
    ("gemini", gemini.finished("TOO_MANY_TOOL_CALLS"), LLMToolCallRejected, 78, "too many"),
    ("gemini", gemini.finished("MALFORMED_RESPONSE"), LLMIncomplete, 79, "malformed"),
    ("gemini", gemini.blocked_prompt(), LLMPromptBlocked, 77, "PROHIBITED_CONTENT"),
    ("openai", payloads_openai.finished("length"), LLMOutputLimit, 59, "(length)"),
    ("openai", payloads_openai.finished("content_filter"), LLMContentFiltered, 57, "filter"),
    ("openai", payloads_openai.finished("stop", ""), LLMNoAnswer, 76, "(stop)"),
    (
        "openai",
        payloads_openai.finished("stop", None, "I can't help with that."),
        LLMRefused,
        58,
        "declined to answer (refusal): I can't help with that.",
    ),
    (
        "openai-responses",
        payloads_responses.truncated("", "max_output_tokens"),
        LLMOutputLimit,
        59,
        "(max_output_tokens)",
    ),
    (
        "openai-responses",
        payloads_responses.truncated("", "content_filter"),
        LLMContentFiltered,
        57,
        "(content_filter)",
    ),
    (
        "openai-responses",
        payloads_responses.refused("I can't help with that."),
        LLMRefused,
        58,
        "I can't help with that.",
    ),
    (
        "openai-responses",
        payloads_responses.failed("server_error", "The model failed to generate a response."),
        LLMIncomplete,
        79,
        "(failed): The model failed to generate a response.",
    ),
    ("openai-responses", payloads_responses.answer(""), LLMNoAnswer, 76, "(completed)"),
    ("anthropic", payloads_anthropic.stopped("max_tokens"), LLMOutputLimit, 59, "(max_tokens)"),
    ("anthropic", payloads_anthropic.stopped("refusal"), LLMRefused, 58, "(refusal)"),
    (
        "anthropic",
        payloads_anthropic.stopped("model_context_window_exceeded"),
        LLMContextLength,
        49,
        "context window",
    ),
    ("anthropic", payloads_anthropic.stopped("end_turn"), LLMNoAnswer, 76, "(end_turn)"),
    ("anthropic", payloads_anthropic.stopped("stop_sequence"), LLMNoAnswer, 76, "stop_sequence"),
    ("ollama", payloads_ollama.answer("", done_reason="length"), LLMOutputLimit, 59, "(length)"),
    ("ollama", payloads_ollama.answer(""), LLMNoAnswer, 76, "(stop)"),
    ("ollama", payloads_ollama.answer("", done_reason="load"), LLMIncomplete, 79, "(load)"),
    ("ollama", payloads_ollama.answer("<think>hm</think>  "), LLMNoAnswer, 76, "without"),
]


@pytest.mark.parametrize(
    ("provider", "reply", "error", "exit_code", "words"),
    CASES,
    ids=[f"{case[0]}-{case[2].__name__}-{index}" for index, case in enumerate(CASES)],
)
async def test_no_answer_text_is_a_typed_error(
    wire: Wire,
    settings: Callable[..., Settings],
    provider: str,
    reply: Reply,
    error: type[LLMError],
    exit_code: int,
    words: str,
) -> None:
    wire.on(PATHS[provider], reply)
    with pytest.raises(LLMError) as caught:
        await asked(settings(provider))
    assert type(caught.value) is error
    assert caught.value.exit_code == exit_code
    assert caught.value.provider == provider
    assert caught.value.message.startswith(f"{provider} gave no answer: ")
    assert words in caught.value.message
    assert caught.value.hint
    assert len(wire.to(PATHS[provider])) == 1  # no hidden retries


def test_every_new_code_has_its_own_exit() -> None:
    codes = [
        "llm_content_filtered",
        "llm_refused",
        "llm_output_limit",
        "llm_recitation",
        "llm_blocklist",
        "llm_prohibited_content",
        "llm_sensitive_info",
        "llm_malformed_tool_call",
        "llm_unsupported_language",
        "llm_empty_answer",
        "llm_prompt_blocked",
        "llm_tool_call_rejected",
        "llm_incomplete",
    ]
    exits = [EXIT_CODES[code] for code in codes]
    assert sorted(exits) == [57, 58, 59, *range(70, 80)]
    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES)


@pytest.mark.parametrize(
    ("provider", "reply", "stop"),
    [
        ("gemini", payloads_gemini.finished("MAX_TOKENS", "Nimbus waits thirty"), "max_tokens"),
        ("gemini", payloads_gemini.finished("SAFETY", "Nimbus waits"), "content_filter"),
        ("anthropic", payloads_anthropic.stopped("max_tokens", "Nimbus waits"), "max_tokens"),
        ("ollama", payloads_ollama.answer("Nimbus waits", done_reason="length"), "max_tokens"),
    ],
)
async def test_text_cut_short_is_kept_and_says_why(
    wire: Wire, settings: Callable[..., Settings], provider: str, reply: Reply, stop: str
) -> None:
    wire.on(PATHS[provider], reply)
    answer = await asked(settings(provider))
    assert answer.answer.startswith("Nimbus waits")
    assert answer.stop_reason == stop


# -- Gemini's MALFORMED_FUNCTION_CALL: asked again once, with a note ----------------------

MALFORMED = payloads_gemini.finished(
    "MALFORMED_FUNCTION_CALL",
    message="Malformed function call: print(default_api.fetch_page(url=https://a.example.com))",
)


async def test_a_malformed_gemini_call_is_asked_again_once_with_a_note(
    wire: Wire, settings: Callable[..., Settings]
) -> None:
    wire.on(PATHS["gemini"], MALFORMED, payloads_gemini.answer("Nimbus retries twice."))
    answer = await asked(settings("gemini"))
    assert answer.answer == "Nimbus retries twice."
    assert answer.turns == 2
    first, again = (request.json for request in wire.to(PATHS["gemini"]))
    # No empty model turn is sent; the note joins the user's turn.
    assert [content["role"] for content in again["contents"]] == ["user"]
    question, note = again["contents"][0]["parts"]
    assert question == first["contents"][0]["parts"][0]
    assert "your last reply tried to call a function, but the call was malformed" in note["text"]
    assert "print(default_api.fetch_page(url=https://a.example.com))" in note["text"]
    assert again["tools"] == first["tools"]


async def test_a_second_malformed_gemini_call_is_a_typed_error(
    wire: Wire, settings: Callable[..., Settings]
) -> None:
    wire.on(PATHS["gemini"], MALFORMED, MALFORMED, payloads_gemini.answer("never asked"))
    with pytest.raises(LLMMalformedToolCall) as caught:
        await asked(settings("gemini"))
    assert caught.value.exit_code == 74
    assert caught.value.retryable
    assert "(MALFORMED_FUNCTION_CALL): Malformed function call: print(" in caught.value.message
    assert len(wire.to(PATHS["gemini"])) == 2


async def test_a_malformed_call_on_the_last_turn_is_not_asked_again(
    wire: Wire, settings: Callable[..., Settings]
) -> None:
    wire.on(PATHS["gemini"], MALFORMED, payloads_gemini.answer("never asked"))
    with pytest.raises(LLMMalformedToolCall):
        async with AsyncSleuth(settings("gemini")) as client:
            await ask(client, registry=ASK_TOOLS, question="q?", max_turns=1)
    assert len(wire.to(PATHS["gemini"])) == 1


async def test_a_malformed_call_after_tool_results_keeps_the_exchange(
    wire: Wire, web: Web, settings: Callable[..., Settings]
) -> None:
    page = web.page("/nimbus", "Nimbus", ["Nimbus retries twice, then gives up for good."] * 3)
    wire.on(
        PATHS["gemini"],
        payloads_gemini.tool_call("fc-1", "fetch_page", {"url": page}),
        MALFORMED,
        payloads_gemini.answer("Nimbus retries twice [1]."),
    )
    answer = await asked(settings("gemini"))
    assert answer.answer == "Nimbus retries twice [1]."
    third = wire.to(PATHS["gemini"])[2].json
    roles = [content["role"] for content in third["contents"]]
    assert roles == ["user", "model", "user"]
    last_parts = third["contents"][2]["parts"]
    assert "functionResponse" in last_parts[0]
    assert "call was malformed" in last_parts[1]["text"]


# -- the CLI: an exit code, one line, no traceback ----------------------------------------


def test_sleuth_ask_exits_with_the_code_of_the_stop_reason(
    wire: Wire, web: Web, tmp_path: Path
) -> None:
    wire.on(payloads_openai.PATH, payloads_openai.finished("content_filter"))
    done = run_sleuth(tmp_path, "ask", "q?", env=ask_env(wire, web))
    assert done.returncode == 57, done.stderr
    assert done.stdout == ""
    assert "safety filter" in done.stderr
    assert "Traceback" not in done.stderr


def test_sleuth_ask_json_reports_the_empty_answer(wire: Wire, web: Web, tmp_path: Path) -> None:
    wire.on(payloads_openai.PATH, payloads_openai.finished("stop", ""))
    done = run_sleuth(tmp_path, "ask", "q?", "--json", env=ask_env(wire, web))
    assert done.returncode == 76, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "llm_empty_answer"
    assert "gave no answer" in error["message"]
