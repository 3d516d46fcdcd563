"""The one error hierarchy of sleuth.

Every failure a caller can act on is a :class:`SleuthError` with a stable
``code`` (also the fetch ``outcome`` where one applies), a message that says
what to do, whether trying again may help, and the exit code the CLI uses::

    SleuthError
    ├── UsageError               bad input from the caller (exit 2)
    ├── ConfigError              a setting is wrong or missing (exit 3)
    ├── BlockedError             the SSRF guard refused a destination (blocked)
    ├── FetchError               a page could not be turned into text
    │   ├── RobotsDisallowed     robots_disallowed
    │   ├── HTTPStatusError      http_error (retryable for 5xx)
    │   ├── RateLimited          rate_limited (retryable)
    │   ├── FetchTimeout         timeout (retryable)
    │   ├── TooLarge             too_large
    │   ├── UnsupportedType      unsupported_type
    │   ├── BlockPage            block_page
    │   ├── JSRequired           js_required
    │   ├── EmptyExtraction      empty_extraction
    │   ├── Encrypted            encrypted (a PDF needs a password)
    │   ├── CorruptDocument      corrupt_document
    │   ├── NoTextLayer          no_text_layer (a scanned PDF; no OCR)
    │   └── NetworkError         network_error (retryable)
    ├── RenderUnavailable        the headless browser cannot be started
    ├── CacheError               a cache backend failed
    ├── SearchError              a search provider failed
    │   ├── ProviderAuthError    the key was refused (permanent)
    │   └── SearchUnavailable    no provider is configured or all failed
    ├── LLMError                 a language-model call failed
    │   ├── LLMNotConfigured     no provider is set up (the rest of sleuth still works)
    │   ├── LLMAuthError         the key was refused
    │   ├── LLMQuotaExceeded     the account is out of credit
    │   ├── LLMRateLimited       429: slow down (retryable)
    │   ├── LLMOverloaded        the service is overloaded (retryable)
    │   ├── LLMServerError       5xx (retryable)
    │   ├── LLMTimeout           the model took too long (retryable)
    │   ├── LLMInvalidRequest    the server rejected the request as malformed
    │   │   ├── LLMContextLength the conversation no longer fits the model
    │   │   └── LLMToolsUnsupported  the model cannot call tools
    │   ├── LLMTurnLimit         the model still wanted tools when its turns ran out
    │   ├── LLMNoAnswer          the model ended without an answer (llm_empty_answer), or:
    │   │   ├── LLMContentFiltered   a safety filter stopped it
    │   │   ├── LLMRefused           the model declined
    │   │   ├── LLMOutputLimit       the output token limit ran out before any text
    │   │   ├── LLMRecitation        it would have recited training data
    │   │   ├── LLMBlocklist         a blocklisted term
    │   │   ├── LLMProhibitedContent prohibited content
    │   │   ├── LLMSensitiveInfo     personal information (SPII)
    │   │   ├── LLMMalformedToolCall its tool call was malformed, even when asked again
    │   │   ├── LLMUnsupportedLanguage  a language the model does not serve
    │   │   ├── LLMPromptBlocked     the question itself was refused
    │   │   ├── LLMToolCallRejected  a tool call the request did not allow
    │   │   └── LLMIncomplete        the response failed, was cancelled or cut short
    │   ├── MalformedReply       the reply was not the JSON asked for (keeps the raw text)
    │   └── ReplayMiss           no recorded answer for this request
    ├── BudgetExceeded           a session or daily LLM budget is spent
    ├── Unauthorized             an HTTP request without an accepted bearer token
    ├── TooManyRequests          a token spent its share of SLEUTH_RATE_LIMIT (retryable)
    ├── DiscoverError            ``discover`` could not name a tool's source
    │   ├── DiscoverTimeout      the discovery ran out of time
    │   ├── VerificationFailed   GitHub says no (404, archived)
    │   ├── ConfirmationDenied   the person said no
    │   ├── ConfirmationRequired nobody could be asked and --yes was not given
    │   ├── DiscoverSearchFailed the web search behind LLM discovery failed (retryable)
    │   ├── Ambiguous            several packages fit; ``choices`` lists the --from strings
    │   └── NotFound             no stage found the tool
    └── ToolError                a tool call named no tool, or bad arguments
"""

from __future__ import annotations

from typing import ClassVar

# One exit code per outcome class, so scripts can branch without parsing text.
EXIT_CODES: dict[str, int] = {
    "ok": 0,
    "internal_error": 1,
    "usage_error": 2,
    "config_error": 3,
    "cache_error": 4,
    "blocked": 10,
    "robots_disallowed": 11,
    "http_error": 12,
    "rate_limited": 13,
    "timeout": 14,
    "too_large": 15,
    "unsupported_type": 16,
    "block_page": 17,
    "js_required": 18,
    "empty_extraction": 19,
    "network_error": 20,
    "render_unavailable": 21,
    "encrypted": 22,
    "corrupt_document": 23,
    "no_text_layer": 24,
    "search_error": 30,
    "provider_auth": 31,
    "search_unavailable": 32,
    "search_budget_exhausted": 33,
    "no_results": 34,
    "llm_error": 40,
    "llm_not_configured": 41,
    "llm_auth": 42,
    "llm_quota": 43,
    "llm_rate_limited": 44,
    "llm_overloaded": 45,
    "llm_server_error": 46,
    "llm_timeout": 47,
    "llm_invalid_request": 48,
    "llm_context_length": 49,
    "llm_tools_unsupported": 50,
    "llm_malformed_reply": 51,
    "llm_replay_miss": 52,
    "budget_exceeded": 53,
    "unknown_tool": 54,
    "invalid_arguments": 55,
    "llm_turn_limit": 56,
    "llm_content_filtered": 57,
    "llm_refused": 58,
    "llm_output_limit": 59,
    "discover_timeout": 60,
    "verification_failed": 61,
    "confirmation_denied": 62,
    "discover_search_failed": 63,
    "ambiguous": 64,
    "not_found": 65,
    "suspicious_name": 66,
    "confirmation_required": 67,
    "discover_error": 69,
    "llm_recitation": 70,
    "llm_blocklist": 71,
    "llm_prohibited_content": 72,
    "llm_sensitive_info": 73,
    "llm_malformed_tool_call": 74,
    "llm_unsupported_language": 75,
    "llm_empty_answer": 76,
    "llm_prompt_blocked": 77,
    "llm_tool_call_rejected": 78,
    "llm_incomplete": 79,
    "unauthorized": 80,
    "too_many_requests": 81,
}


class SleuthError(Exception):
    """Base of every error sleuth raises on purpose."""

    code: ClassVar[str] = "internal_error"
    default_retryable: ClassVar[bool] = False
    default_hint: ClassVar[str] = ""

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        url: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        self.url = url
        self.retryable = self.default_retryable if retryable is None else retryable

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.code, 1)

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": str(self),
            "retryable": self.retryable,
            "url": self.url,
        }


class UsageError(SleuthError):
    code = "usage_error"


class ConfigError(SleuthError):
    code = "config_error"
    default_hint = "check the SLEUTH_* environment variables and the config file"


class CacheError(SleuthError):
    code = "cache_error"
    default_retryable = True


class BlockedError(SleuthError):
    code = "blocked"
    default_hint = (
        "sleuth only fetches public addresses on ports 80 and 443; an operator can allow "
        "more with SLEUTH_ALLOW_HOSTS or SLEUTH_ALLOW_PORTS"
    )


class FetchError(SleuthError):
    code = "network_error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        url: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint, url=url, retryable=retryable)
        self.status = status


class RobotsDisallowed(FetchError):
    code = "robots_disallowed"
    default_hint = "the site's robots.txt forbids it; a person may pass --ignore-robots"


class HTTPStatusError(FetchError):
    code = "http_error"

    def __init__(
        self, message: str, *, status: int, hint: str | None = None, url: str | None = None
    ) -> None:
        super().__init__(message, status=status, hint=hint, url=url, retryable=status >= 500)


class RateLimited(FetchError):
    code = "rate_limited"
    default_retryable = True
    default_hint = "the server asked us to slow down; try again later"


class FetchTimeout(FetchError):
    code = "timeout"
    default_retryable = True
    default_hint = "the server was too slow; try again or raise SLEUTH_FETCH_DEADLINE"


class TooLarge(FetchError):
    code = "too_large"
    default_hint = (
        "if the page is legitimate, raise SLEUTH_MAX_BYTES (bytes on the wire) or "
        "SLEUTH_MAX_DECODED_BYTES (bytes after decompression)"
    )


class UnsupportedType(FetchError):
    code = "unsupported_type"
    default_hint = (
        "sleuth reads HTML, XHTML, PDF and text (plain, Markdown, reST, CSV, JSON, XML, RSS, Atom)"
    )


class BlockPage(FetchError):
    code = "block_page"
    default_hint = "the site served a bot check instead of the page; sleuth does not bypass these"


class JSRequired(FetchError):
    code = "js_required"
    default_hint = (
        "the page builds its text in JavaScript; try --render always (needs sleuth[render])"
    )


class EmptyExtraction(FetchError):
    code = "empty_extraction"
    default_hint = "if scripts build the page, try --render always (needs sleuth[render])"


class Encrypted(FetchError):
    code = "encrypted"
    default_hint = "the PDF needs a password; sleuth reads only documents anyone can open"


class CorruptDocument(FetchError):
    code = "corrupt_document"
    default_hint = "the file is damaged or not what its type says; try another copy"


class NoTextLayer(FetchError):
    code = "no_text_layer"
    default_hint = "the PDF is scanned images without a text layer; sleuth does not run OCR"


class NetworkError(FetchError):
    code = "network_error"
    default_retryable = True


class RenderUnavailable(SleuthError):
    code = "render_unavailable"
    default_hint = (
        "install the extra with `pip install 'sleuth[render]'` and Chromium "
        "(`apt-get install chromium`), or set SLEUTH_CHROMIUM_PATH"
    )


class SearchError(SleuthError):
    code = "search_error"
    default_retryable = True

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        hint: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint, retryable=retryable)
        self.provider = provider


class ProviderAuthError(SearchError):
    code = "provider_auth"
    default_retryable = False


class SearchUnavailable(SearchError):
    code = "search_unavailable"
    default_retryable = False
    default_hint = (
        "set BRAVE_API_KEY, TAVILY_API_KEY, SERPAPI_API_KEY or SEARXNG_URL, or list "
        "providers in SLEUTH_SEARCH_PROVIDERS"
    )


class SearchBudgetExhausted(SearchError):
    code = "search_budget_exhausted"
    default_retryable = False
    default_hint = "the hourly search budget is spent; raise SLEUTH_SEARCHES_PER_HOUR or wait"


class LLMError(SleuthError):
    """A language-model call failed; ``provider`` and ``status`` say where and how."""

    code = "llm_error"

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        hint: str | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, hint=hint, retryable=retryable)
        self.provider = provider
        self.status = status
        self.retry_after = retry_after


class LLMNotConfigured(LLMError):
    code = "llm_not_configured"
    default_hint = (
        "set SLEUTH_LLM_PROVIDER (openai, openai-responses, anthropic, gemini, ollama) and its "
        "key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) or a local SLEUTH_LLM_BASE_URL; "
        "search, fetch and research work without one"
    )


class LLMAuthError(LLMError):
    code = "llm_auth"
    default_hint = "check the API key (SLEUTH_LLM_API_KEY or the vendor's usual variable)"


class LLMQuotaExceeded(LLMError):
    code = "llm_quota"
    default_hint = "the account has no credit left; add credit or use another provider"


class LLMRateLimited(LLMError):
    code = "llm_rate_limited"
    default_retryable = True
    default_hint = "the provider asked us to slow down; try again later"


class LLMOverloaded(LLMError):
    code = "llm_overloaded"
    default_retryable = True
    default_hint = "the provider is overloaded; try again in a minute"


class LLMServerError(LLMError):
    code = "llm_server_error"
    default_retryable = True
    default_hint = "the provider failed; try again later"


class LLMTimeout(LLMError):
    code = "llm_timeout"
    default_retryable = True
    default_hint = "the model was too slow; raise SLEUTH_LLM_TIMEOUT or SLEUTH_LLM_DEADLINE"


class LLMInvalidRequest(LLMError):
    code = "llm_invalid_request"
    default_hint = "check SLEUTH_LLM_MODEL and SLEUTH_LLM_BASE_URL"


class LLMContextLength(LLMInvalidRequest):
    code = "llm_context_length"
    default_hint = "the conversation is too long for the model; lower --max-turns or max_chars"


class LLMToolsUnsupported(LLMInvalidRequest):
    code = "llm_tools_unsupported"
    default_hint = "the model cannot call tools; sleuth falls back to search directives"


class LLMTurnLimit(LLMError):
    code = "llm_turn_limit"
    default_hint = "raise --max-turns (SLEUTH_LLM_MAX_TURNS) or ask a narrower question"


class LLMNoAnswer(LLMError):
    """The model finished without answer text; ``finish`` is the provider's own reason."""

    code = "llm_empty_answer"
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


class LLMContentFiltered(LLMNoAnswer):
    code = "llm_content_filtered"
    default_hint = "the provider's safety filter stopped the answer; rephrase the question"


class LLMRefused(LLMNoAnswer):
    code = "llm_refused"
    default_hint = "the model declined to answer; rephrase the question or use another model"


class LLMOutputLimit(LLMNoAnswer):
    code = "llm_output_limit"
    default_hint = "raise SLEUTH_LLM_MAX_OUTPUT_TOKENS (thinking models spend tokens first)"


class LLMRecitation(LLMNoAnswer):
    code = "llm_recitation"
    default_hint = "the answer would have recited a source verbatim; ask for a summary instead"


class LLMBlocklist(LLMNoAnswer):
    code = "llm_blocklist"
    default_hint = "the answer held a term on the provider's blocklist; rephrase the question"


class LLMProhibitedContent(LLMNoAnswer):
    code = "llm_prohibited_content"
    default_hint = "the provider refuses this content; rephrase the question"


class LLMSensitiveInfo(LLMNoAnswer):
    code = "llm_sensitive_info"
    default_hint = "the answer held sensitive personal information; ask without personal details"


class LLMMalformedToolCall(LLMNoAnswer):
    code = "llm_malformed_tool_call"
    default_retryable = True
    default_hint = "the model could not write a valid tool call; try again or another model"


class LLMUnsupportedLanguage(LLMNoAnswer):
    code = "llm_unsupported_language"
    default_hint = "ask in a language the model supports"


class LLMPromptBlocked(LLMNoAnswer):
    code = "llm_prompt_blocked"
    default_hint = "the provider refused the question itself; rephrase it"


class LLMToolCallRejected(LLMNoAnswer):
    code = "llm_tool_call_rejected"
    default_retryable = True
    default_hint = "the model called tools it was not allowed to; try again or lower --max-turns"


class LLMIncomplete(LLMNoAnswer):
    code = "llm_incomplete"
    default_retryable = True
    default_hint = "the provider did not finish the response; try again"


class MalformedReply(LLMError):
    """The model's text is not what was asked for; ``raw`` keeps it for the log."""

    code = "llm_malformed_reply"
    default_hint = "the model did not answer in the requested format; try again or another model"

    def __init__(self, message: str, *, raw: str, provider: str | None = None) -> None:
        super().__init__(message, provider=provider)
        self.raw = raw


class ReplayMiss(LLMError):
    """Replay mode met a request no cassette holds; ``request`` shows which."""

    code = "llm_replay_miss"
    default_hint = "record it with SLEUTH_LLM_RECORD=record (or auto) against a real server"

    def __init__(self, message: str, *, request: str, provider: str | None = None) -> None:
        super().__init__(message, provider=provider)
        self.request = request


class BudgetExceeded(SleuthError):
    code = "budget_exceeded"
    default_hint = (
        "raise SLEUTH_LLM_SESSION_BUDGET_USD or SLEUTH_LLM_DAILY_BUDGET_USD, or wait for tomorrow"
    )


class ToolError(SleuthError):
    """A tool call sleuth cannot run: it names no tool or its arguments are invalid."""

    code = "invalid_arguments"


class UnknownTool(ToolError):
    code = "unknown_tool"


class Unauthorized(SleuthError):
    """An HTTP request without a bearer token the server accepts."""

    code = "unauthorized"
    default_hint = "send Authorization: Bearer <token> with a token listed in SLEUTH_API_TOKENS"


class TooManyRequests(SleuthError):
    """A token spent its share of ``SLEUTH_RATE_LIMIT``; ``retry_after`` is in seconds."""

    code = "too_many_requests"
    default_retryable = True

    def __init__(self, message: str, *, retry_after: float, hint: str | None = None) -> None:
        super().__init__(message, hint=hint or f"try again in {max(1, round(retry_after))} s")
        self.retry_after = retry_after


class SuspiciousName(UsageError):
    """A tool name with non-ASCII or mixed-script characters: possibly a homoglyph."""

    code = "suspicious_name"


class DiscoverError(SleuthError):
    """``discover`` could not settle on a source; the hint says how to name one."""

    code = "discover_error"
    usage: dict[str, object] | None = None  # model usage spent before the failure

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        if self.usage is not None:
            data["usage"] = self.usage
        return data


class DiscoverTimeout(DiscoverError):
    code = "discover_timeout"
    default_hint = "raise --timeout, or name the source with --from BUILDER:SOURCE"


class VerificationFailed(DiscoverError):
    code = "verification_failed"
    default_hint = "name the source with --from BUILDER:SOURCE if you know it"


class ConfirmationDenied(DiscoverError):
    code = "confirmation_denied"
    default_hint = "name another source with --from BUILDER:SOURCE"


class ConfirmationRequired(DiscoverError):
    code = "confirmation_required"


class DiscoverSearchFailed(DiscoverError):
    code = "discover_search_failed"
    default_retryable = True
    default_hint = "the web search failed; try again, or name the source with --from"


class Ambiguous(DiscoverError):
    """Several packages fit equally well; ``choices`` are ``builder:source`` strings."""

    code = "ambiguous"

    def __init__(self, message: str, *, choices: list[str], hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.choices = choices

    def to_dict(self) -> dict[str, object]:
        return {**super().to_dict(), "choices": list(self.choices)}


class NotFound(DiscoverError):
    code = "not_found"
