"""The one error hierarchy of sleuth, which is also its table of codes.

Every failure a caller can act on is a :class:`SleuthError` whose class gives its stable
``code`` (also the fetch ``outcome`` where one applies), the CLI's exit code, the HTTP
status, whether trying again may help and what a model should do next; the message says
what went wrong and the hint what to do. ``docs/exit-codes.md`` is the public contract of
the exit codes; each surface renders errors in its own module (the CLI in
:mod:`sleuth.commands.output`, HTTP in :mod:`sleuth.server.responses`, MCP in
:mod:`sleuth.server.mcp`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import ClassVar, NamedTuple


class Ref(NamedTuple):
    """A way out an error names: a Python parameter (and the value to give it), or a named
    hint key. ``words`` is how the library says it when that is not the parameter's own
    name; a surface with other words (the CLI's flags) spells it from ``key``."""

    key: str
    value: object = None
    words: str | None = None

    @property
    def wire(self) -> str:
        """The library's words, as Python, HTTP and MCP callers read them."""
        if self.words is not None:
            return self.words
        return self.key if self.value is None else f"{self.key}: {json.dumps(self.value)}"


Spell = Callable[[Ref], str]
_FIELD = re.compile(r"\{(\w+)\}")


def fill(template: str, refs: Mapping[str, Ref], spell: Spell | None = None) -> str:
    """``template`` with each ``{name}`` of ``refs`` spelled by ``spell`` (the library's
    words by default). Any other brace (a JSON schema, a URL) stays as written."""
    if not refs or "{" not in template:
        return template

    def word(match: re.Match[str]) -> str:
        ref = refs.get(match.group(1))
        if ref is None:
            return match.group(0)
        return ref.wire if spell is None else spell(ref)

    return _FIELD.sub(word, template)


# Every code, by the class that owns it (the last class to declare a code owns it).
ERRORS: dict[str, type[SleuthError]] = {}


class SleuthError(Exception):
    """Base of every error sleuth raises on purpose.

    The class is the contract of its code: ``exit_code`` (the CLI's), ``http_status``,
    whether the same call may succeed later (``default_retryable``) and what a model should
    do next (``advice``; empty means the retry-or-not default). Exit codes and statuses are
    public (docs/exit-codes.md, the OpenAPI description): never renumber one. A class
    without its own ``exit_code`` is a refusal only the server makes, and the CLI would
    report its parent's.

    A message or hint names a way out as ``{name}``, and ``refs[name]`` says which
    parameter or named hint key it is; ``str(error)`` spells them in the library's words,
    and a surface with other words passes its speller to :meth:`worded`::

        UsageError("no native search", hint="use {local}", refs={"local": Ref("search", "local")})
    """

    code: ClassVar[str] = "internal_error"
    exit_code: ClassVar[int] = 1
    http_status: ClassVar[int] = 500
    default_retryable: ClassVar[bool] = False
    advice: ClassVar[str] = "The tool failed unexpectedly; try once more, then use another tool."
    default_hint: ClassVar[str] = ""
    refs: ClassVar[dict[str, Ref]] = {}

    def __init_subclass__(
        cls,
        *,
        code: str | None = None,
        exit: int | None = None,
        status: int | None = None,
        retryable: bool = False,
        **kwargs: object,
    ) -> None:
        """``class X(Base, code=..., exit=..., status=..., retryable=...)``: the row of
        ``code``. Without ``exit`` the class keeps its parent's (a refusal only the server
        makes); advice and retrying belong to a code and are never inherited."""
        super().__init_subclass__(**kwargs)
        if exit is not None:
            cls.exit_code = exit
        if status is not None:
            cls.http_status = status
        cls.default_retryable = retryable
        if "advice" not in cls.__dict__:
            cls.advice = ""
        if code is not None:
            cls.code = code
            ERRORS[code] = cls

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        refs: Mapping[str, Ref] | None = None,
        url: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        self.names: dict[str, Ref] = {**type(self).refs, **(refs or {})}
        self._message = message
        self._hint = hint  # None: the class's default hint
        super().__init__(self.message)
        self.url = url
        self.retryable = self.default_retryable if retryable is None else retryable

    @property
    def message(self) -> str:
        return fill(self._message, self.names)

    @message.setter
    def message(self, text: str) -> None:
        self._message = text

    @property
    def hint(self) -> str:
        return self.hint_in()

    @hint.setter
    def hint(self, text: str) -> None:
        """A hint set after the fact replaces the class's default on every surface."""
        self._hint = text

    @classmethod
    def hint_for(cls, spell: Spell | None = None) -> str:
        """The class's default hint, its ways out spelled by ``spell``."""
        return fill(cls.default_hint, cls.refs, spell)

    def hint_in(self, spell: Spell | None = None) -> str:
        """This error's hint (the raiser's, else the class's), spelled by ``spell``."""
        if self._hint is None:
            return self.hint_for(spell)
        return fill(self._hint, self.names, spell)

    def worded(self, spell: Spell | None = None) -> str:
        """Message and hint, their ways out spelled by ``spell`` (``str(error)``: the
        library's words)."""
        message, hint = fill(self._message, self.names, spell), self.hint_in(spell)
        return f"{message} ({hint})" if hint else message

    def __str__(self) -> str:
        return self.worded()

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": str(self),
            "retryable": self.retryable,
            "url": self.url,
        }


ERRORS[SleuthError.code] = SleuthError


_SOURCE = "Use another source; "
_FROM = Ref("from_source", "BUILDER:SOURCE", 'from: "BUILDER:SOURCE"')
_RENDER = Ref("render", "always")


class UsageError(SleuthError, code="usage_error", exit=2, status=400):
    advice = "Change the arguments and call again."


class StartPastEnd(UsageError, code="start_past_end", status=422):
    """A valid ``start_index`` beyond the text the page turned out to have (HTTP 422: the
    request is well formed, the page is shorter; exit 2 on the CLI like any bad input)."""

    advice = "The text is shorter; call again with a smaller start_index."
    default_hint = "start below the length of the page's text"


class MisdirectedRequest(UsageError, code="misdirected_request", status=421):
    """The ``Host`` names something this server does not answer to (421, as the MCP SDK)."""

    default_hint = (
        "address the server as localhost or 127.0.0.1, or list its name in SLEUTH_SERVER_HOSTS"
    )


class OriginNotAllowed(UsageError, code="origin_not_allowed", status=403):
    """A browser sent the request from a page of another origin."""

    default_hint = "list the page's origin in SLEUTH_CORS_ORIGINS on the server to let it in"


class BodyTooLarge(UsageError, code="body_too_large", status=413):
    """The request body is over ``SLEUTH_MAX_BODY_BYTES`` (413)."""

    default_hint = "send less, or raise SLEUTH_MAX_BODY_BYTES on the server"


class UnsupportedMediaType(UsageError, code="unsupported_media_type", status=415):
    """A body that is not declared ``application/json`` (415): a browser sends ``text/plain``
    cross-site without asking first, so it is never read as JSON."""

    default_hint = "send the body with Content-Type: application/json"


class MethodNotAllowed(UsageError, code="method_not_allowed", status=405):
    """The server: a method the path does not answer (405)."""


class SchemaRefused(UsageError, code="schema_refused", status=422):
    """A fill's JSON Schema that sleuth will not fill (invalid, too deep, too many leaves,
    a ``$ref`` outside itself): well-formed JSON, so HTTP says 422; the CLI's exit stays 2."""


class ConfigError(SleuthError, code="config_error", exit=3, status=503):
    default_hint = "check the SLEUTH_* environment variables and the config file"


class CacheError(SleuthError, code="cache_error", exit=4, status=503, retryable=True):
    pass


class BlockedError(SleuthError, code="blocked", exit=10, status=403):
    advice = "Do not retry this URL; sleuth only reads public web addresses."
    default_hint = (
        "sleuth only fetches public addresses on ports 80 and 443; an operator can allow "
        "more with SLEUTH_ALLOW_HOSTS or SLEUTH_ALLOW_PORTS"
    )


class OutOfScope(BlockedError, code="out_of_scope", exit=25, status=403):
    """A crawl's redirect leads outside its boundary: reported, not followed."""

    advice = "Do not follow this URL; it leaves the site being crawled."
    default_hint = "the crawl stays inside its {scope}; widen it to follow this redirect"
    refs: ClassVar[dict[str, Ref]] = {"scope": Ref("scope")}


class FetchError(SleuthError, code="network_error", exit=20, status=502):
    """A page could not be turned into text: a base that does not retry (NetworkError, the
    class of its code, does)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        refs: Mapping[str, Ref] | None = None,
        url: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint, refs=refs, url=url, retryable=retryable)
        self.status = status


class RobotsDisallowed(FetchError, code="robots_disallowed", exit=11, status=403):
    advice = "Do not retry this URL; use another source, such as another result."
    default_hint = "the site's robots.txt forbids it{override}"
    # Only a person may override robots.txt: the library names no way out.
    refs: ClassVar[dict[str, Ref]] = {"override": Ref("robots_override", words="")}


class ContentSignalRefused(RobotsDisallowed, code="content_signal"):
    """The site's robots.txt says ``Content-Signal: ai-input=no`` and the page was for a
    model: a record among the pages not read, with no exit code of its own (should a caller
    report it alone, it exits as robots.txt's refusal does)."""

    advice = "Do not retry this URL; the site asks that its pages not be given to a model."
    default_hint = "the site's robots.txt says ai-input=no{override}"
    # Only a person may set the signal aside: the library names no way out.
    refs: ClassVar[dict[str, Ref]] = {"override": Ref("signals_override", words="")}


class HTTPStatusError(FetchError, code="http_error", exit=12, status=502):
    def __init__(
        self, message: str, *, status: int, hint: str | None = None, url: str | None = None
    ) -> None:
        super().__init__(message, status=status, hint=hint, url=url, retryable=status >= 500)


class RateLimited(FetchError, code="rate_limited", exit=13, status=429, retryable=True):
    default_hint = "the server asked us to slow down; try again later"


class FetchTimeout(FetchError, code="timeout", exit=14, status=504, retryable=True):
    default_hint = "the server was too slow; try again or raise SLEUTH_FETCH_DEADLINE"


class TooLarge(FetchError, code="too_large", exit=15, status=422):
    advice = _SOURCE + "this page is too large to read."
    default_hint = (
        "if the page is legitimate, raise SLEUTH_MAX_BYTES (bytes on the wire) or "
        "SLEUTH_MAX_DECODED_BYTES (bytes after decompression)"
    )


class UnsupportedType(FetchError, code="unsupported_type", exit=16, status=422):
    advice = _SOURCE + "this is not an HTML or text page."
    default_hint = (
        "sleuth reads HTML, XHTML, PDF and text (plain, Markdown, reST, CSV, JSON, XML, RSS, Atom)"
    )


class BlockPage(FetchError, code="block_page", exit=17, status=422):
    advice = "Do not retry this URL; use another source."
    default_hint = "the site served a bot check instead of the page; sleuth does not bypass these"


class JSRequired(FetchError, code="js_required", exit=18, status=422):
    advice = _SOURCE + "the page needs JavaScript to show its text."
    default_hint = "the page builds its text in JavaScript; try {render} (needs sleuth[render])"
    refs: ClassVar[dict[str, Ref]] = {"render": _RENDER}


class EmptyExtraction(FetchError, code="empty_extraction", exit=19, status=422):
    advice = _SOURCE + "the page has no readable text."
    default_hint = "if scripts build the page, try {render} (needs sleuth[render])"
    refs: ClassVar[dict[str, Ref]] = {"render": _RENDER}


class Encrypted(FetchError, code="encrypted", exit=22, status=422):
    advice = _SOURCE + "this document needs a password."
    default_hint = "the PDF needs a password; sleuth reads only documents anyone can open"


class CorruptDocument(FetchError, code="corrupt_document", exit=23, status=422):
    advice = _SOURCE + "this document is damaged."
    default_hint = "the file is damaged or not what its type says; try another copy"


class NoTextLayer(FetchError, code="no_text_layer", exit=24, status=422):
    advice = _SOURCE + "this document is scanned images without text."
    default_hint = "the PDF is scanned images without a text layer; sleuth does not run OCR"


class StylesUnread(FetchError, code="styles_unread", exit=26, status=422):
    advice = _SOURCE + "what this page hides could not be told from what it shows."
    default_hint = (
        "a style sheet of the page could not be read, so what it hides is unknown; "
        "render the page (sleuth[render]) or unset SLEUTH_STRICT_VISIBILITY"
    )


class NetworkError(FetchError, code="network_error", exit=20, status=502, retryable=True):
    pass


class RenderUnavailable(SleuthError, code="render_unavailable", exit=21, status=503):
    default_hint = (
        "install the extra with `pip install 'sleuth[render]'` and Chromium "
        "(`apt-get install chromium`), or set SLEUTH_CHROMIUM_PATH"
    )


class SearchError(SleuthError, code="search_error", exit=30, status=502, retryable=True):
    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        hint: str | None = None,
        refs: Mapping[str, Ref] | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint, refs=refs, retryable=retryable)
        self.provider = provider


class ProviderAuthError(SearchError, code="provider_auth", exit=31, status=502):
    advice = "Searching is not set up correctly on this server; tell the user."


class SearchUnavailable(SearchError, code="search_unavailable", exit=32, status=503):
    advice = "Searching is not set up on this server; tell the user."
    default_hint = (
        "set BRAVE_API_KEY, TAVILY_API_KEY, SERPAPI_API_KEY or SEARXNG_URL, or list "
        "providers in SLEUTH_SEARCH_PROVIDERS"
    )


class SearchBudgetExhausted(SearchError, code="search_budget_exhausted", exit=33, status=429):
    advice = "The search budget is spent; answer from what you have."
    default_hint = "the hourly search budget is spent; raise SLEUTH_SEARCHES_PER_HOUR or wait"


class NoResults(SearchError, code="no_results", exit=34, status=404):
    """Nothing matched: a search's or a research's outcome, not raised."""

    advice = "Try other words, or drop the site and recency filters."


class LLMError(SleuthError, code="llm_error", exit=40, status=502):
    """A language-model call failed; ``provider`` and ``status`` say where and how."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        hint: str | None = None,
        refs: Mapping[str, Ref] | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, hint=hint, refs=refs, retryable=retryable)
        self.provider = provider
        self.status = status
        self.retry_after = retry_after


class LLMNotConfigured(LLMError, code="llm_not_configured", exit=41, status=503):
    default_hint = (
        "set SLEUTH_LLM_PROVIDER (openai, openai-responses, anthropic, gemini, ollama) and its "
        "key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) or a local SLEUTH_LLM_BASE_URL; "
        "search, fetch and research work without one"
    )


class LLMAuthError(LLMError, code="llm_auth", exit=42, status=502):
    default_hint = "check the API key (SLEUTH_LLM_API_KEY or the vendor's usual variable)"


class LLMQuotaExceeded(LLMError, code="llm_quota", exit=43, status=502):
    default_hint = "the account has no credit left; add credit or use another provider"


class LLMRateLimited(LLMError, code="llm_rate_limited", exit=44, status=429, retryable=True):
    default_hint = "the provider asked us to slow down; try again later"


class LLMOverloaded(LLMError, code="llm_overloaded", exit=45, status=502, retryable=True):
    default_hint = "the provider is overloaded; try again in a minute"


class LLMServerError(LLMError, code="llm_server_error", exit=46, status=502, retryable=True):
    default_hint = "the provider failed; try again later"


class LLMTimeout(LLMError, code="llm_timeout", exit=47, status=504, retryable=True):
    default_hint = "the model was too slow; raise SLEUTH_LLM_TIMEOUT or SLEUTH_LLM_DEADLINE"


class LLMInvalidRequest(LLMError, code="llm_invalid_request", exit=48, status=502):
    default_hint = "check SLEUTH_LLM_MODEL and SLEUTH_LLM_BASE_URL"


class LLMContextLength(LLMInvalidRequest, code="llm_context_length", exit=49, status=422):
    default_hint = "the conversation is too long for the model; lower {turns} or max_chars"
    refs: ClassVar[dict[str, Ref]] = {"turns": Ref("max_turns")}


class LLMToolsUnsupported(LLMInvalidRequest, code="llm_tools_unsupported", exit=50, status=502):
    default_hint = "the model cannot call tools; sleuth falls back to search directives"


class LLMTurnLimit(LLMError, code="llm_turn_limit", exit=56, status=422):
    default_hint = "raise {turns} or ask a narrower question"
    refs: ClassVar[dict[str, Ref]] = {"turns": Ref("max_turns_setting", words="max_turns")}


class LLMNoAnswer(LLMError, code="llm_empty_answer", exit=76, status=502):
    """The model finished without answer text; ``finish`` is the provider's own reason."""

    default_hint = "try again, rephrase the question or use another model"

    def __init__(
        self,
        message: str,
        *,
        finish: str = "",
        provider: str | None = None,
        hint: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, provider=provider, hint=hint, retryable=retryable)
        self.finish = finish


class LLMContentFiltered(LLMNoAnswer, code="llm_content_filtered", exit=57, status=422):
    default_hint = "the provider's safety filter stopped the answer; rephrase the question"


class LLMRefused(LLMNoAnswer, code="llm_refused", exit=58, status=422):
    default_hint = "the model declined to answer; rephrase the question or use another model"


class LLMOutputLimit(LLMNoAnswer, code="llm_output_limit", exit=59, status=502):
    default_hint = "raise SLEUTH_LLM_MAX_OUTPUT_TOKENS (thinking models spend tokens first)"


class LLMRecitation(LLMNoAnswer, code="llm_recitation", exit=70, status=422):
    default_hint = "the answer would have recited a source verbatim; ask for a summary instead"


class LLMBlocklist(LLMNoAnswer, code="llm_blocklist", exit=71, status=422):
    default_hint = "the answer held a term on the provider's blocklist; rephrase the question"


class LLMProhibitedContent(LLMNoAnswer, code="llm_prohibited_content", exit=72, status=422):
    default_hint = "the provider refuses this content; rephrase the question"


class LLMSensitiveInfo(LLMNoAnswer, code="llm_sensitive_info", exit=73, status=422):
    default_hint = "the answer held sensitive personal information; ask without personal details"


class LLMMalformedToolCall(
    LLMNoAnswer, code="llm_malformed_tool_call", exit=74, status=502, retryable=True
):
    default_hint = "the model could not write a valid tool call; try again or another model"


class LLMUnsupportedLanguage(LLMNoAnswer, code="llm_unsupported_language", exit=75, status=422):
    default_hint = "ask in a language the model supports"


class LLMPromptBlocked(LLMNoAnswer, code="llm_prompt_blocked", exit=77, status=422):
    default_hint = "the provider refused the question itself; rephrase it"


class LLMToolCallRejected(
    LLMNoAnswer, code="llm_tool_call_rejected", exit=78, status=502, retryable=True
):
    default_hint = "the model called tools it was not allowed to; try again or lower {turns}"
    refs: ClassVar[dict[str, Ref]] = {"turns": Ref("max_turns")}


class LLMIncomplete(LLMNoAnswer, code="llm_incomplete", exit=79, status=502, retryable=True):
    default_hint = "the provider did not finish the response; try again"


class MalformedReply(LLMError, code="llm_malformed_reply", exit=51, status=502):
    """The model's text is not what was asked for; ``raw`` keeps it for the log."""

    default_hint = "the model did not answer in the requested format; try again or another model"

    def __init__(self, message: str, *, raw: str, provider: str | None = None) -> None:
        super().__init__(message, provider=provider)
        self.raw = raw


class ReplayMiss(LLMError, code="llm_replay_miss", exit=52, status=503):
    """Replay mode met a request no cassette holds; ``request`` shows which."""

    default_hint = "record it with SLEUTH_LLM_RECORD=record (or auto) against a real server"

    def __init__(self, message: str, *, request: str, provider: str | None = None) -> None:
        super().__init__(message, provider=provider)
        self.request = request


class BudgetExceeded(SleuthError, code="budget_exceeded", exit=53, status=429):
    default_hint = (
        "raise SLEUTH_LLM_SESSION_BUDGET_USD or SLEUTH_LLM_DAILY_BUDGET_USD, or wait for tomorrow"
    )


class ToolError(SleuthError, code="invalid_arguments", exit=55, status=400):
    """A tool call sleuth cannot run: it names no tool or its arguments are invalid."""

    advice = "Fix the arguments to match the tool's input schema and call again."


class UnknownTool(ToolError, code="unknown_tool", exit=54, status=400):
    advice = "Call one of the tools this server lists."


class Unauthorized(SleuthError, code="unauthorized", exit=80, status=401):
    """An HTTP request without a bearer token the server accepts."""

    default_hint = "send Authorization: Bearer <token> with a token listed in SLEUTH_API_TOKENS"


class TooManyRequests(SleuthError, code="too_many_requests", exit=81, status=429, retryable=True):
    """A token spent its share of ``SLEUTH_RATE_LIMIT``; ``retry_after`` is in seconds."""

    def __init__(self, message: str, *, retry_after: float, hint: str | None = None) -> None:
        super().__init__(message, hint=hint or f"try again in {max(1, round(retry_after))} s")
        self.retry_after = retry_after


class SuspiciousName(UsageError, code="suspicious_name", exit=66, status=400):
    """A tool name with non-ASCII or mixed-script characters: possibly a homoglyph."""


class DiscoverError(SleuthError, code="discover_error", exit=69, status=502):
    """``discover`` could not settle on a source; the hint says how to name one."""

    usage: dict[str, object] | None = None  # model usage spent before the failure

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        if self.usage is not None:
            data["usage"] = self.usage
        return data


class DiscoverTimeout(DiscoverError, code="discover_timeout", exit=60, status=504):
    default_hint = "raise {timeout}, or name the source with {source}"
    refs: ClassVar[dict[str, Ref]] = {"timeout": Ref("timeout"), "source": _FROM}


class VerificationFailed(DiscoverError, code="verification_failed", exit=61, status=422):
    default_hint = "name the source with {source} if you know it"
    refs: ClassVar[dict[str, Ref]] = {"source": _FROM}


class ConfirmationDenied(DiscoverError, code="confirmation_denied", exit=62, status=409):
    default_hint = "name another source with {source}"
    refs: ClassVar[dict[str, Ref]] = {"source": _FROM}


class ConfirmationRequired(DiscoverError, code="confirmation_required", exit=67, status=409):
    pass


class DiscoverSearchFailed(
    DiscoverError, code="discover_search_failed", exit=63, status=502, retryable=True
):
    default_hint = "the web search failed; try again, or name the source with {source}"
    refs: ClassVar[dict[str, Ref]] = {"source": Ref("from_source", words="from")}


class Ambiguous(DiscoverError, code="ambiguous", exit=64, status=409):
    """Several packages fit equally well; ``choices`` are ``builder:source`` strings."""

    def __init__(
        self,
        message: str,
        *,
        choices: list[str],
        hint: str | None = None,
        refs: Mapping[str, Ref] | None = None,
    ) -> None:
        super().__init__(message, hint=hint, refs=refs)
        self.choices = choices

    def to_dict(self) -> dict[str, object]:
        return {**super().to_dict(), "choices": list(self.choices)}


class NotFound(DiscoverError, code="not_found", exit=65, status=404):
    pass


class FillIncomplete(SleuthError, code="incomplete", exit=90, status=200):
    """A fill whose answer lacks a required value the pages do not support. Not raised:
    the answer is still printed (and sent with 200); only the CLI's exit code says so."""


# One exit code per outcome, so scripts can branch without parsing text: the public
# contract of docs/exit-codes.md. A refusal only the server makes has none of its own.
EXIT_CODES: dict[str, int] = {
    "ok": 0,
    **{code: cls.exit_code for code, cls in ERRORS.items() if "exit_code" in vars(cls)},
}
