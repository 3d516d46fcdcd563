"""ask: a question answered by an LLM that searches and reads through sleuth's tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from sleuth.log import Progress
from sleuth.operation import BLANK_PATTERN, Arg, declare
from sleuth.ops.base import Http, LLMUse, Op, only_names
from sleuth.session import LLM_ERRORS, SEARCH_ERRORS, SIGNALS_ARG, AsyncSession

if TYPE_CHECKING:
    from sleuth.agent import Answer
    from sleuth.config import Settings


@declare(
    "ask",
    summary="Answer a question with an LLM that searches and reads the web.",
    errors=(*SEARCH_ERRORS, *LLM_ERRORS),
    surfaces=("cli", "http"),
)
async def ask(
    session: AsyncSession,
    question: Annotated[
        str,
        Arg(
            "The question to answer.",
            min_length=1,
            pattern=BLANK_PATTERN,
            positional=True,
            metavar="QUESTION",
        ),
    ],
    *,
    provider: Annotated[
        str | None,
        Arg(
            "openai, openai-responses, anthropic, gemini or ollama. "
            "Default: SLEUTH_LLM_PROVIDER, else guessed from the keys that are set.",
            metavar="NAME",
        ),
    ] = None,
    model: Annotated[str | None, Arg("Default: SLEUTH_LLM_MODEL.", metavar="MODEL")] = None,
    search: Annotated[
        Literal["auto", "native", "local"] | None,
        Arg(
            "native: the provider's own search; local: sleuth's search providers; "
            "auto: native for cloud providers that have it. Default: SLEUTH_LLM_SEARCH."
        ),
    ] = None,
    max_turns: Annotated[
        int | None,
        Arg(
            "Model calls at most. Default: SLEUTH_LLM_MAX_TURNS.",
            ge=1,
            le=50,
            metavar="N",
        ),
    ] = None,
    respect_content_signals: Annotated[bool, SIGNALS_ARG] = True,
    on_progress: Progress | None = None,
) -> Answer:
    """Answer ``question`` with an LLM that searches and reads through sleuth's tools.

    Raises :class:`~sleuth.errors.LLMNotConfigured` when no provider is set up.
    """
    from sleuth.agent import ask
    from sleuth.ops.builtin import default_registry

    return await ask(
        session,
        question,
        registry=default_registry(local=False, ask=True),  # the web tools fit for ask's model
        provider=provider,
        model=model,
        search=search,
        max_turns=max_turns,
        on_progress=on_progress,
        respect_content_signals=respect_content_signals,
    )


def progress(stage: str, detail: dict[str, Any]) -> str:
    """What is happening now: the model is working unless a tool runs."""
    if stage == "tool_call":
        return f"running {detail.get('name')}"
    if stage == "thinking":
        return f"waiting for the model (turn {detail.get('turn')})"
    return "waiting for the model"


def spent(answer: Any) -> LLMUse:
    return LLMUse(answer.provider, answer.turns, answer.usage, answer.cost_usd)


def providers(schema: dict[str, Any], settings: Settings | None) -> None:
    """The model providers this server knows; ``search: native`` asks the model's own web
    search, which only some have: name one of them, unless the server's own is one."""
    from sleuth.llm.providers import PROVIDERS

    only_names(schema, "provider", sorted(PROVIDERS))
    native = sorted(name for name, cls in PROVIDERS.items() if cls.native_search is not None)
    default = (settings.llm_provider or "") if settings is not None else ""
    choices: list[dict[str, Any]] = [{"type": "string", "enum": native}]
    then: dict[str, Any] = {"properties": {"provider": {"anyOf": choices}}}
    if default in native:
        choices.append({"type": "null"})
    else:
        then["required"] = ["provider"]
    schema["if"] = {"required": ["search"], "properties": {"search": {"const": "native"}}}
    schema["then"] = then


ASK = Op(
    ask,
    http=Http(
        "/api/v1/ask", "Answer with an LLM that searches and cites", llm=spent, refine=providers
    ),
    progress=progress,
)
