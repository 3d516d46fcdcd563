"""The one error hierarchy of sleuth.

Every failure a caller can act on is a :class:`SleuthError` with a stable
``code`` (also the fetch ``outcome`` where one applies), a message that says
what to do, whether trying again may help, and the exit code the CLI uses::

    SleuthError
    ├── UsageError               bad input from the caller (exit 2)
    │   ├── SuspiciousName       a tool name that may be a homoglyph
    │   ├── StartPastEnd         a start_index past the end of the text (HTTP 422)
    │   ├── MisdirectedRequest   the server: a Host it does not answer to (421)
    │   ├── OriginNotAllowed     the server: a browser page of another origin (403)
    │   ├── BodyTooLarge         the server: a body over SLEUTH_MAX_BODY_BYTES (413)
    │   └── UnsupportedMediaType the server: a body not declared JSON (415)
    ├── ConfigError              a setting is wrong or missing (exit 3)
    ├── BlockedError             the SSRF guard refused a destination (blocked)
    │   └── OutOfScope           a crawl's redirect leaves its scope (out_of_scope)
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
    │   ├── StylesUnread         styles_unread (strict visibility: a sheet was unread)
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
    │   ├── ConfirmationRequired nobody could be asked, and web-found sources were not accepted
    │   ├── DiscoverSearchFailed the web search behind LLM discovery failed (retryable)
    │   ├── Ambiguous            several packages fit; ``choices`` lists BUILDER:SOURCE strings
    │   └── NotFound             no stage found the tool
    └── ToolError                a tool call named no tool, or bad arguments
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal, NamedTuple

Surface = Literal["cli", "api"]
RETRY_ADVICE = "This may be temporary: retry once, or use another source."
OTHER_ADVICE = "Use another source or different arguments."


@dataclass(frozen=True)
class Row:
    """One code's contract on every surface.

    ``exit`` is the CLI's exit code; ``None`` for a refusal only a server makes (the CLI
    never meets it apart from its parent class's code). ``status`` is the HTTP status,
    ``retryable`` whether the same call may succeed later, ``advice`` what a model (MCP)
    should do next (empty: the retryable/other default).
    """

    exit: int | None
    status: int
    retryable: bool = False
    advice: str = ""

    @property
    def model_advice(self) -> str:
        return self.advice or (RETRY_ADVICE if self.retryable else OTHER_ADVICE)


_SOURCE = "Use another source; "
# The one error table: every code sleuth reports, once. Exit codes and statuses are public
# contracts (docs/exit-codes.md, the OpenAPI description); never renumber one.
ERRORS: dict[str, Row] = {
    "ok": Row(0, 200),
    "internal_error": Row(
        1, 500, advice="The tool failed unexpectedly; try once more, then use another tool."
    ),
    "usage_error": Row(2, 400, advice="Change the arguments and call again."),
    "config_error": Row(3, 503),
    "cache_error": Row(4, 503, retryable=True),
    "blocked": Row(
        10, 403, advice="Do not retry this URL; sleuth only reads public web addresses."
    ),
    "robots_disallowed": Row(
        11, 403, advice="Do not retry this URL; use another source, such as another result."
    ),
    "http_error": Row(12, 502),
    "rate_limited": Row(13, 429, retryable=True),
    "timeout": Row(14, 504, retryable=True),
    "too_large": Row(15, 422, advice=_SOURCE + "this page is too large to read."),
    "unsupported_type": Row(16, 422, advice=_SOURCE + "this is not an HTML or text page."),
    "block_page": Row(17, 422, advice="Do not retry this URL; use another source."),
    "js_required": Row(18, 422, advice=_SOURCE + "the page needs JavaScript to show its text."),
    "empty_extraction": Row(19, 422, advice=_SOURCE + "the page has no readable text."),
    "network_error": Row(20, 502, retryable=True),
    "render_unavailable": Row(21, 503),
    "encrypted": Row(22, 422, advice=_SOURCE + "this document needs a password."),
    "corrupt_document": Row(23, 422, advice=_SOURCE + "this document is damaged."),
    "no_text_layer": Row(24, 422, advice=_SOURCE + "this document is scanned images without text."),
    "out_of_scope": Row(
        25, 403, advice="Do not follow this URL; it leaves the site being crawled."
    ),
    "styles_unread": Row(
        26, 422, advice=_SOURCE + "what this page hides could not be told from what it shows."
    ),
    "search_error": Row(30, 502, retryable=True),
    "provider_auth": Row(
        31, 502, advice="Searching is not set up correctly on this server; tell the user."
    ),
    "search_unavailable": Row(
        32, 503, advice="Searching is not set up on this server; tell the user."
    ),
    "search_budget_exhausted": Row(
        33, 429, advice="The search budget is spent; answer from what you have."
    ),
    "no_results": Row(34, 404, advice="Try other words, or drop the site and recency filters."),
    "llm_error": Row(40, 502),
    "llm_not_configured": Row(41, 503),
    "llm_auth": Row(42, 502),
    "llm_quota": Row(43, 502),
    "llm_rate_limited": Row(44, 429, retryable=True),
    "llm_overloaded": Row(45, 502, retryable=True),
    "llm_server_error": Row(46, 502, retryable=True),
    "llm_timeout": Row(47, 504, retryable=True),
    "llm_invalid_request": Row(48, 502),
    "llm_context_length": Row(49, 422),
    "llm_tools_unsupported": Row(50, 502),
    "llm_malformed_reply": Row(51, 502),
    "llm_replay_miss": Row(52, 503),
    "budget_exceeded": Row(53, 429),
    "unknown_tool": Row(54, 400, advice="Call one of the tools this server lists."),
    "invalid_arguments": Row(
        55, 400, advice="Fix the arguments to match the tool's input schema and call again."
    ),
    "llm_turn_limit": Row(56, 422),
    "llm_content_filtered": Row(57, 422),
    "llm_refused": Row(58, 422),
    "llm_output_limit": Row(59, 502),
    "discover_timeout": Row(60, 504),
    "verification_failed": Row(61, 422),
    "confirmation_denied": Row(62, 409),
    "discover_search_failed": Row(63, 502, retryable=True),
    "ambiguous": Row(64, 409),
    "not_found": Row(65, 404),
    "suspicious_name": Row(66, 400),
    "confirmation_required": Row(67, 409),
    "discover_error": Row(69, 502),
    "llm_recitation": Row(70, 422),
    "llm_blocklist": Row(71, 422),
    "llm_prohibited_content": Row(72, 422),
    "llm_sensitive_info": Row(73, 422),
    "llm_malformed_tool_call": Row(74, 502, retryable=True),
    "llm_unsupported_language": Row(75, 422),
    "llm_empty_answer": Row(76, 502),
    "llm_prompt_blocked": Row(77, 422),
    "llm_tool_call_rejected": Row(78, 502, retryable=True),
    "llm_incomplete": Row(79, 502, retryable=True),
    "unauthorized": Row(80, 401),
    "too_many_requests": Row(81, 429, retryable=True),
    # Refusals only the server makes: the CLI never meets them.
    "method_not_allowed": Row(None, 405),
    "body_too_large": Row(None, 413),
    "unsupported_media_type": Row(None, 415),
    "misdirected_request": Row(None, 421),
    "origin_not_allowed": Row(None, 403),
    # A start_index past the page's end: exit 2 (usage) on the CLI, 422 over HTTP.
    "start_past_end": Row(
        None, 422, advice="The text is shorter; call again with a smaller start_index."
    ),
}

# Classes whose default hint names a way out, by code (for :func:`api_words`).
_WORDED: dict[str, type[SleuthError]] = {}
# One exit code per outcome class, so scripts can branch without parsing text.
EXIT_CODES: dict[str, int] = {
    code: row.exit for code, row in ERRORS.items() if row.exit is not None
}


class Remedy(NamedTuple):
    """How one surface words a way out: the CLI names a flag, HTTP and MCP a field."""

    cli: str
    api: str


_WAY_OUT = re.compile(r"\{(\w+)\}")


def _fill(template: str, remedies: Mapping[str, Remedy], surface: Surface) -> str:
    """``template`` with each ``{name}`` of ``remedies`` in ``surface``'s words.

    Only named ways out are replaced: any other brace (a JSON schema in a hint, a URL a
    raiser put in its message) stays as written, so a template never fails to format.
    """
    if not remedies or "{" not in template:
        return template

    def word(match: re.Match[str]) -> str:
        remedy = remedies.get(match.group(1))
        return match.group(0) if remedy is None else getattr(remedy, surface)

    return _WAY_OUT.sub(word, template)


def api_words(code: str, text: str) -> str:
    """``text`` (an error as ``str()`` gives it, in the CLI's words) with the default hint
    of ``code``'s class worded for HTTP and MCP callers: for a message that has already
    left its exception (a fetch result's ``error``, a tool's error record)."""
    cls = _WORDED.get(code)
    if cls is None:
        return text
    return text.replace(cls.hint_for("cli"), cls.hint_for("api"))


_FROM = Remedy("--from BUILDER:SOURCE", 'from: "BUILDER:SOURCE"')
_RENDER = Remedy("--render always", 'render: "always"')


class SleuthError(Exception):
    """Base of every error sleuth raises on purpose.

    A class's ``default_hint`` may name a way out as ``{name}``; ``remedies[name]`` words
    it for each surface, so the CLI names a flag and an HTTP or MCP caller a field, and
    neither sees the other's words. A raiser does the same for one error: its ``message``
    and ``hint`` may name ways out that its ``remedies`` (and the class's) word::

        UsageError("no native search", hint="use {local}",
                   remedies={"local": Remedy("--search local", 'search: "local"')})

    ``str(error)``, ``message`` and ``hint`` are the CLI's wording; HTTP and MCP use
    :meth:`worded` with ``"api"``. Exit code, HTTP status and the default of ``retryable``
    come from the class's row of :data:`ERRORS` (or its nearest base class's).
    """

    code: ClassVar[str] = "internal_error"
    default_retryable: ClassVar[bool] = False
    default_hint: ClassVar[str] = ""
    remedies: ClassVar[dict[str, Remedy]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        row = ERRORS.get(cls.code)
        if row is not None and "default_retryable" not in cls.__dict__:
            cls.default_retryable = row.retryable
        if cls.remedies:
            _WORDED[cls.code] = cls

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        remedies: Mapping[str, Remedy] | None = None,
        url: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        self._ways_out: dict[str, Remedy] = {**type(self).remedies, **(remedies or {})}
        self._message = message
        self._hint = hint  # None: the class's default hint
        super().__init__(self.message)
        self.url = url
        self.retryable = self.default_retryable if retryable is None else retryable

    @property
    def message(self) -> str:
        """The message in the CLI's words."""
        return _fill(self._message, self._ways_out, "cli")

    @message.setter
    def message(self, text: str) -> None:
        self._message = text

    @property
    def hint(self) -> str:
        """The hint in the CLI's words."""
        return self.hint_in("cli")

    @hint.setter
    def hint(self, text: str) -> None:
        """A hint set after the fact replaces the class's default on every surface."""
        self._hint = text

    @classmethod
    def hint_for(cls, surface: Surface) -> str:
        """The class's default hint in ``surface``'s words."""
        return _fill(cls.default_hint, cls.remedies, surface)

    def hint_in(self, surface: Surface) -> str:
        """This error's hint in ``surface``'s words: the raiser's, else the class's."""
        if self._hint is None:
            return self.hint_for(surface)
        return _fill(self._hint, self._ways_out, surface)

    def worded(self, surface: Surface) -> str:
        """Message and hint as ``surface`` says them (``str(error)`` is the CLI's)."""
        message, hint = _fill(self._message, self._ways_out, surface), self.hint_in(surface)
        return f"{message} ({hint})" if hint else message

    @classmethod
    def row(cls) -> Row:
        """This class's row of :data:`ERRORS`, else its nearest base class's."""
        for base in cls.__mro__:
            code = getattr(base, "code", None)
            if isinstance(code, str) and code in ERRORS:
                return ERRORS[code]
        return ERRORS["internal_error"]

    @property
    def exit_code(self) -> int:
        for base in type(self).__mro__:
            row = ERRORS.get(getattr(base, "code", ""))
            if row is not None and row.exit is not None:
                return row.exit
        return 1

    @property
    def http_status(self) -> int:
        """The HTTP status of this error's row."""
        return self.row().status

    def __str__(self) -> str:
        return self.worded("cli")

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": str(self),
            "retryable": self.retryable,
            "url": self.url,
        }


class UsageError(SleuthError):
    code = "usage_error"


class StartPastEnd(UsageError):
    """A valid ``start_index`` beyond the text the page turned out to have (HTTP 422: the
    request is well formed, the page is shorter; exit 2 on the CLI like any bad input)."""

    code = "start_past_end"
    default_hint = "start below the length of the page's text"


class MisdirectedRequest(UsageError):
    """The ``Host`` names something this server does not answer to (421, as the MCP SDK)."""

    code = "misdirected_request"
    default_hint = (
        "address the server as localhost or 127.0.0.1, or list its name in SLEUTH_SERVER_HOSTS"
    )


class OriginNotAllowed(UsageError):
    """A browser sent the request from a page of another origin."""

    code = "origin_not_allowed"
    default_hint = "list the page's origin in SLEUTH_CORS_ORIGINS on the server to let it in"


class BodyTooLarge(UsageError):
    """The request body is over ``SLEUTH_MAX_BODY_BYTES`` (413)."""

    code = "body_too_large"
    default_hint = "send less, or raise SLEUTH_MAX_BODY_BYTES on the server"


class UnsupportedMediaType(UsageError):
    """A body that is not declared ``application/json`` (415): a browser sends ``text/plain``
    cross-site without asking first, so it is never read as JSON."""

    code = "unsupported_media_type"
    default_hint = "send the body with Content-Type: application/json"


class ConfigError(SleuthError):
    code = "config_error"
    default_hint = "check the SLEUTH_* environment variables and the config file"


class CacheError(SleuthError):
    code = "cache_error"


class BlockedError(SleuthError):
    code = "blocked"
    default_hint = (
        "sleuth only fetches public addresses on ports 80 and 443; an operator can allow "
        "more with SLEUTH_ALLOW_HOSTS or SLEUTH_ALLOW_PORTS"
    )


class OutOfScope(BlockedError):
    """A crawl's redirect leads outside its boundary: reported, not followed."""

    code = "out_of_scope"
    default_hint = "the crawl stays inside its {scope}; widen it to follow this redirect"
    remedies: ClassVar[dict[str, Remedy]] = {"scope": Remedy("--scope", "scope")}


class FetchError(SleuthError):
    code = "network_error"
    default_retryable = False  # a base: NetworkError, its code's own class, is retryable

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        remedies: Mapping[str, Remedy] | None = None,
        url: str | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint, remedies=remedies, url=url, retryable=retryable)
        self.status = status


class RobotsDisallowed(FetchError):
    code = "robots_disallowed"
    default_hint = "the site's robots.txt forbids it{override}"
    remedies: ClassVar[dict[str, Remedy]] = {
        "override": Remedy("; a person may pass --ignore-robots", "")
    }


class HTTPStatusError(FetchError):
    code = "http_error"

    def __init__(
        self, message: str, *, status: int, hint: str | None = None, url: str | None = None
    ) -> None:
        super().__init__(message, status=status, hint=hint, url=url, retryable=status >= 500)


class RateLimited(FetchError):
    code = "rate_limited"
    default_hint = "the server asked us to slow down; try again later"


class FetchTimeout(FetchError):
    code = "timeout"
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
    default_hint = "the page builds its text in JavaScript; try {render} (needs sleuth[render])"
    remedies: ClassVar[dict[str, Remedy]] = {"render": _RENDER}


class EmptyExtraction(FetchError):
    code = "empty_extraction"
    default_hint = "if scripts build the page, try {render} (needs sleuth[render])"
    remedies: ClassVar[dict[str, Remedy]] = {"render": _RENDER}


class Encrypted(FetchError):
    code = "encrypted"
    default_hint = "the PDF needs a password; sleuth reads only documents anyone can open"


class CorruptDocument(FetchError):
    code = "corrupt_document"
    default_hint = "the file is damaged or not what its type says; try another copy"


class NoTextLayer(FetchError):
    code = "no_text_layer"
    default_hint = "the PDF is scanned images without a text layer; sleuth does not run OCR"


class StylesUnread(FetchError):
    code = "styles_unread"
    default_hint = (
        "a style sheet of the page could not be read, so what it hides is unknown; "
        "render the page (sleuth[render]) or unset SLEUTH_STRICT_VISIBILITY"
    )


class NetworkError(FetchError):
    code = "network_error"


class RenderUnavailable(SleuthError):
    code = "render_unavailable"
    default_hint = (
        "install the extra with `pip install 'sleuth[render]'` and Chromium "
        "(`apt-get install chromium`), or set SLEUTH_CHROMIUM_PATH"
    )


class SearchError(SleuthError):
    code = "search_error"

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        hint: str | None = None,
        remedies: Mapping[str, Remedy] | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint, remedies=remedies, retryable=retryable)
        self.provider = provider


class ProviderAuthError(SearchError):
    code = "provider_auth"


class SearchUnavailable(SearchError):
    code = "search_unavailable"
    default_hint = (
        "set BRAVE_API_KEY, TAVILY_API_KEY, SERPAPI_API_KEY or SEARXNG_URL, or list "
        "providers in SLEUTH_SEARCH_PROVIDERS"
    )


class SearchBudgetExhausted(SearchError):
    code = "search_budget_exhausted"
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
        remedies: Mapping[str, Remedy] | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, hint=hint, remedies=remedies, retryable=retryable)
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
    default_hint = "the provider asked us to slow down; try again later"


class LLMOverloaded(LLMError):
    code = "llm_overloaded"
    default_hint = "the provider is overloaded; try again in a minute"


class LLMServerError(LLMError):
    code = "llm_server_error"
    default_hint = "the provider failed; try again later"


class LLMTimeout(LLMError):
    code = "llm_timeout"
    default_hint = "the model was too slow; raise SLEUTH_LLM_TIMEOUT or SLEUTH_LLM_DEADLINE"


class LLMInvalidRequest(LLMError):
    code = "llm_invalid_request"
    default_hint = "check SLEUTH_LLM_MODEL and SLEUTH_LLM_BASE_URL"


class LLMContextLength(LLMInvalidRequest):
    code = "llm_context_length"
    default_hint = "the conversation is too long for the model; lower {turns} or max_chars"
    remedies: ClassVar[dict[str, Remedy]] = {"turns": Remedy("--max-turns", "max_turns")}


class LLMToolsUnsupported(LLMInvalidRequest):
    code = "llm_tools_unsupported"
    default_hint = "the model cannot call tools; sleuth falls back to search directives"


class LLMTurnLimit(LLMError):
    code = "llm_turn_limit"
    default_hint = "raise {turns} or ask a narrower question"
    remedies: ClassVar[dict[str, Remedy]] = {
        "turns": Remedy("--max-turns (SLEUTH_LLM_MAX_TURNS)", "max_turns")
    }


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
    default_hint = "the model could not write a valid tool call; try again or another model"


class LLMUnsupportedLanguage(LLMNoAnswer):
    code = "llm_unsupported_language"
    default_hint = "ask in a language the model supports"


class LLMPromptBlocked(LLMNoAnswer):
    code = "llm_prompt_blocked"
    default_hint = "the provider refused the question itself; rephrase it"


class LLMToolCallRejected(LLMNoAnswer):
    code = "llm_tool_call_rejected"
    default_hint = "the model called tools it was not allowed to; try again or lower {turns}"
    remedies: ClassVar[dict[str, Remedy]] = {"turns": Remedy("--max-turns", "max_turns")}


class LLMIncomplete(LLMNoAnswer):
    code = "llm_incomplete"
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
    default_hint = "raise {timeout}, or name the source with {source}"
    remedies: ClassVar[dict[str, Remedy]] = {
        "timeout": Remedy("--timeout", "timeout"),
        "source": _FROM,
    }


class VerificationFailed(DiscoverError):
    code = "verification_failed"
    default_hint = "name the source with {source} if you know it"
    remedies: ClassVar[dict[str, Remedy]] = {"source": _FROM}


class ConfirmationDenied(DiscoverError):
    code = "confirmation_denied"
    default_hint = "name another source with {source}"
    remedies: ClassVar[dict[str, Remedy]] = {"source": _FROM}


class ConfirmationRequired(DiscoverError):
    code = "confirmation_required"


class DiscoverSearchFailed(DiscoverError):
    code = "discover_search_failed"
    default_hint = "the web search failed; try again, or name the source with {source}"
    remedies: ClassVar[dict[str, Remedy]] = {"source": Remedy("--from", "from")}


class Ambiguous(DiscoverError):
    """Several packages fit equally well; ``choices`` are ``builder:source`` strings."""

    code = "ambiguous"

    def __init__(
        self,
        message: str,
        *,
        choices: list[str],
        hint: str | None = None,
        remedies: Mapping[str, Remedy] | None = None,
    ) -> None:
        super().__init__(message, hint=hint, remedies=remedies)
        self.choices = choices

    def to_dict(self) -> dict[str, object]:
        return {**super().to_dict(), "choices": list(self.choices)}


class NotFound(DiscoverError):
    code = "not_found"
