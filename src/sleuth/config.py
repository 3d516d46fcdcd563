"""The one config object: ``SLEUTH_*`` environment variables over an optional TOML file.

Precedence, highest first: environment, the TOML file (``--config PATH`` or
``config.toml`` in the user config dir), built-in defaults. :func:`load_settings`
also records where each value came from so ``sleuth config show`` can say it.

Each setting is declared once, in its section (``NetSettings`` for the guard and
clients, ``CacheSettings`` for the cache ...): its type, default, bounds and environment
names. :class:`Settings`, the one loader, is made of the sections, so ``settings.max_pages``
reads as before; the layers below are handed the section they read (``settings.net``), a
frozen copy built on first use. Users' names do not change: the TOML key is the field's
name and the variable ``SLEUTH_<NAME>`` (plus the vendors' names some fields accept).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Generic,
    Literal,
    Self,
    TypeVar,
    cast,
    overload,
)
from urllib.parse import urlsplit, urlunsplit

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from sleuth._version import __version__
from sleuth.errors import ConfigError, Ref

if TYPE_CHECKING:
    from http.cookiejar import Cookie  # read only for a [[sites]] entry's cookies file

APP_NAME = "sleuth"
HOME_PAGE = "https://github.com/sleuth-dev/sleuth"
USER_AGENT = f"sleuth/{__version__} (+{HOME_PAGE})"


def _split_commas(value: Any) -> Any:
    """The one comma-list parser: ``"a, b,,c"`` is ``["a", "b", "c"]``; lists pass as given."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _check_ports(value: list[int]) -> list[int]:
    bad = [port for port in value if not 1 <= port <= 65535]
    if bad:
        raise ValueError(f"ports must be 1-65535, not {bad[0]}")
    return value


def _check_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https", "redis", "rediss", "unix") or not (
        parts.netloc or parts.scheme == "unix"
    ):
        raise ValueError(f"{mask_url(value)!r} is not an absolute URL")
    return value


def _blank_is_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


CommaList = Annotated[list[str], BeforeValidator(_split_commas)]
PortList = Annotated[list[int], BeforeValidator(_split_commas), AfterValidator(_check_ports)]
Url = Annotated[str, AfterValidator(_check_url)]
BlankIsNone = Annotated[str | None, BeforeValidator(_blank_is_none)]


def _proxy_url(value: Any) -> Any:
    """curl's reading of a proxy: ``http://`` when no scheme is written; blank is unset."""
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip() if "://" in value else f"http://{value.strip()}"
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https", "socks5", "socks5h") or not parts.hostname:
        raise ValueError(f"{mask_url(value)!r} is not an http, https or socks5 proxy URL")
    return value


ProxyUrl = Annotated[str | None, BeforeValidator(_proxy_url)]


class SiteEntry(BaseModel):
    """One ``[[sites]]`` table: what the operator sends to exactly one origin.

    Resolved when the file is loaded: ``env:NAME`` values are read and the cookies file
    is parsed then, so an unset variable or a bad file is a config error naming the
    origin, never a surprise mid-fetch. The resolved secrets are private attributes,
    kept out of every dump; :mod:`sleuth.net.sites` decides where they go.
    """

    # Built on first validation, as the sections are: only a file with [[sites]] needs it.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    origin: str
    headers: dict[str, SecretStr] = {}
    cookies_file: Path | None = None
    allow_http: bool = False

    _secrets: dict[str, SecretStr] = PrivateAttr(default_factory=dict)
    _cookies: tuple[Cookie, ...] = PrivateAttr(default=())

    @field_validator("origin", mode="before")
    @classmethod
    def _exact_origin(cls, value: Any) -> Any:
        """``scheme://host[:port]``, lower-cased, with the scheme's port written out."""
        if not isinstance(value, str):
            return value
        parts = urlsplit(value.strip())
        try:
            port = parts.port
        except ValueError:
            port = -1
        if (
            parts.scheme.lower() not in ("http", "https")
            or not parts.hostname
            or parts.username is not None
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or port == -1
        ):
            raise ValueError(
                f"{mask_url(value)!r} is not an origin (scheme://host[:port], nothing more)"
            )
        scheme = parts.scheme.lower()
        host = parts.hostname.lower()
        host = f"[{host}]" if ":" in host else host
        return f"{scheme}://{host}:{port or (443 if scheme == 'https' else 80)}"

    @model_validator(mode="after")
    def _resolve(self) -> Self:
        entry = f"the [[sites]] entry for {self.origin}"
        if self.origin.startswith("http:") and not self.allow_http:
            raise ValueError(f"{entry} is plain http; it needs allow_http = true")
        for name, given in self.headers.items():
            value = given.get_secret_value()
            if value.startswith("env:"):
                variable = value[4:]
                found = os.environ.get(variable)
                if not found:
                    raise ValueError(f"{entry}: header {name} reads {variable}, which is unset")
                value = found
            self._secrets[name] = SecretStr(value)
        if self.cookies_file is not None:
            path = self.cookies_file.expanduser()
            object.__setattr__(self, "cookies_file", path)
            self._cookies = _read_cookies(path, entry)
        return self

    @property
    def header_values(self) -> dict[str, str]:
        """The headers as sent (variables read)."""
        return {name: value.get_secret_value() for name, value in self._secrets.items()}

    @property
    def cookies(self) -> tuple[Cookie, ...]:
        return self._cookies


def _read_cookies(path: Path, entry: str) -> tuple[Cookie, ...]:
    """A Netscape cookies.txt, ``#HttpOnly_`` lines included; expired ones are kept, as
    expiry is judged when a request is sent. An error never quotes a line: lines hold
    cookie values."""
    from http.cookiejar import LoadError, MozillaCookieJar

    jar = MozillaCookieJar()
    try:
        with warnings.catch_warnings():  # its warning on a bad line would print the line
            warnings.simplefilter("ignore")
            jar.load(str(path), ignore_discard=True, ignore_expires=True)
    except FileNotFoundError:
        raise ValueError(f"{entry}: cookies file {path} does not exist") from None
    except LoadError:
        raise ValueError(
            f"{entry}: cookies file {path} is not a Netscape cookies.txt file"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{entry}: cannot read cookies file {path}: {exc}") from None
    return tuple(jar)


LLMProviderName = Literal["openai", "openai-responses", "anthropic", "gemini", "ollama"]
_RATE_PATTERN = r"^\s*[1-9][0-9]*\s*/\s*[0-9]*\s*(s|sec|second|m|min|minute|h|hour|d|day)s?\s*$"
RESERVED_SLUGS = ("auth", "static", "dashboard", "admin", "api", "u", "links", "metrics", "mcp")


def default_config_path() -> Path:
    return _user_dir("config") / "config.toml"


def default_cache_dir() -> Path:
    return _user_dir("cache")


def _user_dir(kind: Literal["config", "cache"]) -> Path:
    """The user's config or cache folder of sleuth, as platformdirs places it.

    On Linux the XDG rule is read here, as importing platformdirs costs every command's
    start-up; on other systems, and in the rule's special cases (Android, a HOME that is
    not an absolute path), platformdirs decides.
    """
    home = os.environ.get("HOME", "")
    android = hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ
    if sys.platform == "linux" and not android and os.path.isabs(home):
        given = os.environ.get(f"XDG_{kind.upper()}_HOME", "")
        base = given if os.path.isabs(given) else os.path.expanduser(f"~/.{kind}")
        return Path(base, APP_NAME)
    import platformdirs  # only where the rule above does not hold

    found = platformdirs.user_config_dir if kind == "config" else platformdirs.user_cache_dir
    return Path(found(APP_NAME))


def _alias(name: str, *others: str) -> AliasChoices:
    """Accept the field's own name first (as ``SLEUTH_<NAME>`` too), then the well-known
    names other tools use."""
    return AliasChoices(name, f"SLEUTH_{name.upper()}", *others)


S = TypeVar("S", bound="Section")


class SectionAttribute(Generic[S]):
    """``settings.net``: the section a field group makes, copied out of the whole
    :class:`Settings` on first read and kept until a field changes.

    Declared in the section's own body, so a section is named in one place; on a section
    instance it is that instance.
    """

    def __set_name__(self, owner: type[S], name: str) -> None:
        self.model = owner
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> SectionAttribute[S]: ...

    @overload
    def __get__(self, instance: Section, owner: type[Any]) -> S: ...

    def __get__(self, instance: Section | None, owner: type[Any]) -> SectionAttribute[S] | S:
        if instance is None:
            return self
        if type(instance) is self.model:
            return instance  # a section read as itself
        built = self.model.of(instance)
        instance.__dict__[self.name] = built  # as functools.cached_property keeps it
        return built


class Section(BaseModel):
    """A group of settings, declared here once; frozen, and handed to the part of sleuth
    that reads it.

    Schemas are built on first validation: :func:`load_settings` validates only the
    sections given a value, and :meth:`of` copies values already validated, so a command
    run on default settings builds none.
    """

    model_config = ConfigDict(
        frozen=True,
        populate_by_name=True,
        allow_inf_nan=False,
        validate_default=True,
        defer_build=True,
    )

    @classmethod
    def of(cls, settings: Section) -> Self:
        """This section's fields, copied from settings that hold them (already validated)."""
        values = {name: _copied(getattr(settings, name)) for name in cls.model_fields}
        return cast(Self, cls.model_construct(**values))

    def secret(self, name: str) -> str | None:
        """The plain value of a secret field, or None when unset or empty."""
        return _plain(getattr(self, name))


def _copied(value: Any) -> Any:
    """A list is the section's own, so a change to the loader's list never reaches it."""
    return list(value) if isinstance(value, list) else value


def _plain(value: Any) -> str | None:
    if isinstance(value, SecretStr):
        return value.get_secret_value() or None
    return None


# Section attribute names never shadow a field (``cache`` and ``render`` are fields, so
# their sections are ``caching`` and ``browser``).


class LogSettings(Section):
    """Logging."""

    log: ClassVar[SectionAttribute[LogSettings]] = SectionAttribute()

    log_format: Literal["human", "json"] = "human"
    log_level: Literal["debug", "info", "warning", "error"] | None = None


class NetSettings(Section):
    """Every HTTP exchange: what the guard lets through, the client's manners, body caps."""

    net: ClassVar[SectionAttribute[NetSettings]] = SectionAttribute()

    allow_hosts: CommaList = Field(
        [],
        description="hosts, host:port, host:* or CIDRs the guard lets through",
    )
    allow_ports: PortList = [80, 443]
    user_agent: str = USER_AGENT
    connect_timeout: float = Field(5.0, gt=0)
    read_timeout: float = Field(8.0, gt=0)
    max_bytes: int = Field(4 * 1024 * 1024, gt=0, description="bytes on the wire per response")
    max_decoded_bytes: int = Field(
        16 * 1024 * 1024, gt=0, description="bytes after decompression per response"
    )
    max_redirects: int = Field(5, ge=0, le=5)
    # Proxy: SLEUTH_PROXY over the variables curl, pip and httpx read (either case, the
    # lower-case spelling first, as curl reads them)
    proxy: ProxyUrl = Field(None, description="one proxy URL for every scheme")
    sleuth_no_proxy: CommaList = Field(
        [],
        validation_alias=AliasChoices("sleuth_no_proxy"),
        description="bypass entries added to NO_PROXY",
    )
    proxy_sends_names: bool = Field(False, description="ask the proxy for names, not addresses")
    http_proxy: ProxyUrl = Field(None, validation_alias=AliasChoices("http_proxy"))
    https_proxy: ProxyUrl = Field(None, validation_alias=AliasChoices("https_proxy"))
    all_proxy: ProxyUrl = Field(None, validation_alias=AliasChoices("all_proxy"))
    no_proxy: CommaList = Field([], validation_alias=AliasChoices("no_proxy"))
    # The operator's credentials per origin: TOML only ([[sites]] tables), never a variable.
    sites: list[SiteEntry] = Field(
        [],
        validation_alias=AliasChoices("sites"),
        description="[[sites]]: headers and cookies sent to exactly one origin",
    )


class FetchSettings(Section):
    """Reading pages: the per-page deadline, how many at once, how long they stay fresh."""

    fetch: ClassVar[SectionAttribute[FetchSettings]] = SectionAttribute()

    fetch_deadline: float = Field(15.0, gt=0, description="overall seconds for one fetch")
    max_concurrent_fetches: int = Field(5, ge=1)
    cache_ttl: int = Field(24 * 3600, ge=0, description="seconds a fetched page stays fresh")
    robots_cache_ttl: int = Field(24 * 3600, ge=0)


class DocumentSettings(Section):
    """PDFs and text documents, fetched or local."""

    documents: ClassVar[SectionAttribute[DocumentSettings]] = SectionAttribute()

    max_document_bytes: int = Field(
        32 * 1024 * 1024, gt=0, description="bytes of one PDF or text document, fetched or local"
    )
    max_document_pages: int = Field(200, ge=1, description="pages read from one PDF")
    document_timeout: float = Field(
        10.0, gt=0, description="seconds to parse one PDF or text document"
    )


class StyleSettings(Section):
    """The page's linked style sheets, read to know what the page hides."""

    styles: ClassVar[SectionAttribute[StyleSettings]] = SectionAttribute()

    max_stylesheets: int = Field(32, ge=0, description="linked style sheets read for one page")
    max_stylesheet_bytes: int = Field(
        4 * 1024 * 1024, gt=0, description="bytes of one linked style sheet"
    )
    stylesheet_timeout: float = Field(
        8.0, gt=0, description="seconds to read a page's linked sheets, inside its deadline"
    )
    strict_visibility: bool = Field(
        False, description="a page with a style sheet that could not be read is styles_unread"
    )


class RenderSettings(Section):
    """The browser fallback."""

    browser: ClassVar[SectionAttribute[RenderSettings]] = SectionAttribute()

    render: Literal["auto", "always", "never"] = "auto"
    chromium_path: str | None = None
    render_timeout: float = Field(15.0, gt=0)
    max_concurrent_renders: int = Field(2, ge=1)


class CacheSettings(Section):
    """Which cache backend, and where."""

    caching: ClassVar[SectionAttribute[CacheSettings]] = SectionAttribute()

    cache: Literal["memory", "file", "redis"] = "file"
    cache_dir: Path = Field(default_factory=default_cache_dir)
    redis_url: Url = Field(
        "redis://127.0.0.1:6379/0", validation_alias=_alias("redis_url", "REDIS_URL")
    )
    memory_cache_entries: int = Field(1024, ge=1)


class SearchSettings(Section):
    """Web search: the providers, their keys and endpoints, the hourly budget."""

    search: ClassVar[SectionAttribute[SearchSettings]] = SectionAttribute()

    search_providers: CommaList = []
    searches_per_hour: int = Field(120, ge=0)
    search_timeout: float = Field(5.0, gt=0)
    search_cache_ttl: int = Field(3600, ge=0)
    brave_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("brave_api_key", "BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")
    )
    tavily_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("tavily_api_key", "TAVILY_API_KEY")
    )
    serpapi_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("serpapi_api_key", "SERPAPI_API_KEY")
    )
    searxng_url: Url | None = Field(None, validation_alias=_alias("searxng_url", "SEARXNG_URL"))
    # Endpoint overrides: for self-hosted mirrors and for tests on loopback.
    duckduckgo_url: Url = "https://html.duckduckgo.com/html/"
    duckduckgo_lite_url: Url = "https://lite.duckduckgo.com/lite/"
    brave_url: Url = "https://api.search.brave.com/res/v1/web/search"
    tavily_url: Url = "https://api.tavily.com/search"
    serpapi_url: Url = "https://serpapi.com/search.json"


class ResearchSettings(Section):
    """The research digest."""

    research: ClassVar[SectionAttribute[ResearchSettings]] = SectionAttribute()

    max_results: int = Field(8, ge=1, le=10)
    max_pages: int = Field(3, ge=1, le=10)
    research_deadline: float = Field(12.0, gt=0)
    max_bullets: int = Field(8, ge=1, le=20)
    max_bullet_chars: int = Field(300, ge=80)


class LLMSettings(Section):
    """The model: provider, keys, timeouts, turns, recording, budgets; the vendors' usual
    variable names are accepted as fallbacks."""

    llm: ClassVar[SectionAttribute[LLMSettings]] = SectionAttribute()

    llm_provider: LLMProviderName | None = None
    llm_model: str | None = None
    llm_base_url: Url | None = None
    llm_api_key: SecretStr | None = None
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("openai_api_key", "OPENAI_API_KEY")
    )
    openai_base_url: Url | None = Field(
        None, validation_alias=_alias("openai_base_url", "OPENAI_BASE_URL")
    )
    anthropic_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("anthropic_api_key", "ANTHROPIC_API_KEY")
    )
    gemini_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("gemini_api_key", "GEMINI_API_KEY", "GOOGLE_API_KEY")
    )
    ollama_host: str | None = Field(None, validation_alias=_alias("ollama_host", "OLLAMA_HOST"))
    llm_timeout: float | None = Field(
        None, gt=0, description="seconds per LLM call; default 60, or llm_local_timeout locally"
    )
    llm_local_timeout: float = Field(300.0, gt=0, description="per call, for local servers")
    llm_deadline: float = Field(300.0, gt=0, description="overall seconds for one `ask`")
    llm_max_turns: int = Field(5, ge=1, le=50)
    llm_max_output_tokens: int = Field(2048, ge=16)
    llm_retries: int = Field(3, ge=0, le=10)
    llm_search: Literal["auto", "native", "local"] = "auto"
    llm_record: Literal["off", "record", "replay", "auto"] = "off"
    llm_cassette_dir: Path = Path("cassettes")
    llm_session_budget_usd: float = Field(1.0, ge=0, description="0 means no limit")
    llm_daily_budget_usd: float = Field(10.0, ge=0, description="0 means no limit")
    llm_prices_file: Path | None = None

    @field_validator("llm_provider", mode="before")
    @classmethod
    def _provider_spelling(cls, value: Any) -> Any:
        """``OpenAI_Responses`` and ``openai_responses`` name the same provider."""
        if isinstance(value, str):
            return value.strip().lower().replace("_", "-") or None
        return value


class DetectSettings(Section):
    """Stack detection."""

    detect: ClassVar[SectionAttribute[DetectSettings]] = SectionAttribute()

    detection_mode: Literal["full", "static", "llm"] = Field(
        "full", description="full: static, then the LLM for what it cannot place"
    )
    detect_max_file_bytes: int = Field(1 << 20, ge=1, description="larger files are not read")

    @field_validator("detection_mode", mode="before")
    @classmethod
    def _mode_synonyms(cls, value: Any) -> Any:
        """``llm_only`` (the name other tools use) means ``llm``."""
        if isinstance(value, str):
            lowered = value.strip().lower()
            return "llm" if lowered in ("llm_only", "llm-only") else lowered
        return value


class DiscoverSettings(Section):
    """Tool discovery (``sleuth discover``): registries, ecosystem probes, GitHub
    verification."""

    discover: ClassVar[SectionAttribute[DiscoverSettings]] = SectionAttribute()

    discover_registry: str | None = Field(
        None, description="registry folders, os.pathsep-separated, consulted before the bundled one"
    )
    discover_timeout: float = Field(15.0, gt=0, description="seconds for the LLM stage")
    discover_probe_timeout: float = Field(3.0, gt=0, description="one deadline for all probes")
    probe_crates_io_url: Url = "https://crates.io"
    probe_npm_url: Url = "https://registry.npmjs.org"
    probe_npm_downloads_url: Url = "https://api.npmjs.org"
    probe_pypi_url: Url = "https://pypi.org"
    probe_rubygems_url: Url = "https://rubygems.org"
    probe_go_url: Url = "https://proxy.golang.org"
    probe_homebrew_url: Url = "https://formulae.brew.sh"
    probe_cask_url: Url = "https://formulae.brew.sh"
    probe_cpan_url: Url = "https://fastapi.metacpan.org"
    github_api_url: Url = "https://api.github.com"
    github_token: SecretStr | None = Field(
        None, validation_alias=_alias("github_token", "GITHUB_TOKEN")
    )


class CrawlSettings(Section):
    """Map and crawl: the ceilings on how long a site may hold them."""

    crawl: ClassVar[SectionAttribute[CrawlSettings]] = SectionAttribute()

    max_crawl_delay: float = Field(
        30.0, ge=0, description="seconds; a host whose Crawl-delay is longer is skipped"
    )
    max_retry_after: float = Field(
        30.0, ge=0, description="seconds a Retry-After may pause a host; longer ends the page"
    )
    crawl_tool_deadline: float = Field(
        30.0, gt=0, description="seconds map_site and crawl_site run before returning"
    )
    crawl_job_deadline: float = Field(
        3600.0, gt=0, description="seconds an HTTP crawl job runs before it ends"
    )


class ServerSettings(Section):
    """The HTTP server (``sleuth serve``)."""

    server: ClassVar[SectionAttribute[ServerSettings]] = SectionAttribute()

    api_tokens: SecretStr | None = Field(
        None, description="bearer tokens: a comma list, or @path to a file of sha256 hashes"
    )
    rate_limit: BlankIsNone = Field(
        None, pattern=_RATE_PATTERN, description="requests per token, like 60/minute"
    )
    cors_origins: CommaList = []
    server_hosts: CommaList = Field(
        [], description="Host names the server answers to besides loopback"
    )
    max_body_bytes: int = Field(64 * 1024, ge=1, description="request body cap")
    shutdown_grace: float = Field(10.0, ge=0, description="seconds in-flight requests get")
    crawl_jobs_per_token: int = Field(2, ge=1, description="crawl jobs one caller may run at once")
    crawl_job_max_pages: int = Field(500, ge=1, description="pages one HTTP crawl job may read")
    webhook_secret: SecretStr | None = Field(
        None, description="the key that signs crawl jobs' webhooks, shared by every instance"
    )
    worker_lease: float = Field(
        30.0, gt=0, description="seconds a silent worker keeps a crawl job's page before another"
    )
    serve_worker: bool = Field(
        True,
        description="sleuth serve and sleuth mcp read crawl jobs' pages too (off: sleuth worker "
        "does)",
    )


class SuggestSettings(Section):
    """Link suggestions."""

    suggest: ClassVar[SectionAttribute[SuggestSettings]] = SectionAttribute()

    suggest_timeout: float = Field(15.0, gt=0)
    suggest_prompt: BlankIsNone = Field(None, description="a file path or the template text")
    suggest_reserved_slugs: CommaList = list(RESERVED_SLUGS)
    suggest_fetch: bool = Field(False, description="read the page when no title is sent")


class Settings(
    LogSettings,
    NetSettings,
    FetchSettings,
    DocumentSettings,
    StyleSettings,
    RenderSettings,
    CacheSettings,
    SearchSettings,
    ResearchSettings,
    LLMSettings,
    DetectSettings,
    DiscoverSettings,
    CrawlSettings,
    ServerSettings,
    SuggestSettings,
):
    """Everything sleuth can be told: the sections above, listed here once.

    This is the one loader. ``Settings(**values)`` validates every field and reads the
    environment under the keywords; :func:`load_settings` adds the file and the sources.
    The code below the entry points holds the settings in sections (``settings.net``,
    ``settings.caching`` ...; see :data:`SECTIONS`).
    """

    model_config = ConfigDict(frozen=False, extra="ignore")

    def __init__(self, **values: Any) -> None:
        _known(values, "Settings(...)")
        super().__init__(**{**_from_environment(), **values})

    @property
    def config_sources(self) -> dict[str, str]:
        return dict(getattr(self, "_sources", {}))

    def _forget_sections(self) -> None:
        for name in SECTIONS:
            self.__dict__.pop(name, None)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in type(self).model_fields:
            self._forget_sections()

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy whose sections are rebuilt from its own (possibly updated) fields."""
        copied = super().model_copy(update=update, deep=deep)
        copied._forget_sections()
        return copied


def _sections() -> dict[str, type[Section]]:
    found: dict[str, type[Section]] = {}
    for model in Settings.__mro__:
        for attribute in vars(model).values():
            if isinstance(attribute, SectionAttribute):
                found[attribute.name] = attribute.model
    return found


# The attribute of Settings -> its section, in the order Settings lists them.
SECTIONS: dict[str, type[Section]] = _sections()


# Settings only a config file can give (a list of tables has no variable spelling).
TOML_ONLY = frozenset(("sites",))


def _env_names(name: str) -> list[str]:
    """The variables a field reads, the first one set winning."""
    alias = Settings.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices):
        return list(dict.fromkeys(str(choice).upper() for choice in alias.choices))
    return [f"SLEUTH_{name.upper()}"]


def _from_environment() -> dict[str, str]:
    """The fields set in the environment, by field name; variable names match in any case.

    Values stay text (comma lists included): the fields' validators parse them, as they
    parse the TOML file's values.
    """
    environ: dict[str, str] = {}
    for key, value in os.environ.items():
        if key.islower() or key.lower() not in environ:  # http_proxy over HTTP_PROXY, as curl
            environ[key.lower()] = value
    found: dict[str, str] = {}
    for name in Settings.model_fields:
        if name in TOML_ONLY:
            continue
        for env in _env_names(name):
            given = environ.get(env.lower())
            if given is not None:
                found[name] = given
                break
    return found


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only a run with a config file reads one

    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid UTF-8 TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    table = data.get("sleuth", data)
    _known(table, f"config file {path}", Settings.model_fields)  # its keys: the names alone
    return dict(table)


def _where_set(
    name: str,
    overrides: dict[str, Any],
    env_values: dict[str, Any],
    file_values: dict[str, Any],
    path: Path,
) -> str:
    """Point at the one place the bad value came from, never at a file that does not exist."""
    if name in overrides:
        return f"fix the {name} argument"
    if name not in Settings.model_fields:
        return "see `sleuth config show` for the settings and where each comes from"
    names = _env_names(name)
    if name in env_values:
        present = [env for env in names if env in os.environ]
        return f"fix the environment variable {(present or names)[0]}"
    if name in file_values:
        return f"fix `{name}` in {path}"
    return f"fix {names[0]} or `{name}` in a config file"


def _field_names() -> dict[str, str]:
    """Every key a value may be given under (a field's name, or one of its aliases) -> the
    field."""
    names: dict[str, str] = {}
    for name, field in Settings.model_fields.items():
        names[name] = name
        if isinstance(field.validation_alias, AliasChoices):
            names.update((str(choice), name) for choice in field.validation_alias.choices)
    return names


_FIELD_OF = _field_names()


def _validated(values: dict[str, Any]) -> Settings:
    """Settings from the given values, validated section by section.

    A section given no value holds its defaults, valid as written (a test holds them to
    it), so it is not validated: a run whose settings are mostly defaults builds the
    schemas of few sections, or none. The result is what ``Settings(**values)`` gives.
    """
    fields: dict[str, Any] = {}
    given: set[str] = set()
    sections: dict[str, Section] = {}
    for attribute, model in SECTIONS.items():
        mine = {
            key: value for key, value in values.items() if _FIELD_OF.get(key) in model.model_fields
        }
        section = model.model_validate(mine) if mine else model.model_construct()
        given.update(_FIELD_OF[key] for key in mine)
        fields.update((name, _copied(getattr(section, name))) for name in model.model_fields)
        sections[attribute] = section
    settings = Settings.model_construct(_fields_set=given, **fields)
    settings.__dict__.update(sections)  # each section read as built, as SectionAttribute keeps it
    return settings


def _known(values: Mapping[str, Any], given_as: str, names: Iterable[str] | None = None) -> None:
    """Refuse a setting sleuth does not have (of ``names``; by default any name or alias a
    value may be given under): a misspelt one would otherwise be dropped without a word,
    and the run would use the default."""
    import difflib  # only a run with a bad name reads it

    unknown = sorted(set(values) - set(_FIELD_OF if names is None else names))
    if not unknown:
        return
    near = difflib.get_close_matches(unknown[0], list(Settings.model_fields), n=1)
    guess = f"; did you mean {near[0]}?" if near else ""
    raise ConfigError(
        f"unknown setting{'s' if len(unknown) > 1 else ''} in {given_as}: "
        f"{', '.join(unknown)}{guess}",
        hint="see {names} for the names sleuth knows",
        refs={"names": Ref("settings_names", words="`sleuth.config.Settings`")},
    )


def load_settings(config_path: Path | str | None = None, **overrides: Any) -> Settings:
    """Build the effective settings and remember where each value came from.

    ``overrides`` win over everything (the Python API uses them); a missing
    ``--config`` file is an error, a missing default file is not.
    """
    _known(overrides, "the keyword arguments")
    named_by = "{config}" if config_path is not None else "SLEUTH_CONFIG"
    explicit = config_path is not None or bool(os.environ.get("SLEUTH_CONFIG"))
    path = Path(config_path or os.environ.get("SLEUTH_CONFIG") or default_config_path())
    file_values: dict[str, Any] = {}
    if path.is_file():
        file_values = _read_toml(path)
    elif explicit:
        what = "is not a file" if path.exists() else "does not exist"
        raise ConfigError(
            f"config file {path} {what}",
            hint=f"check {named_by}",
            refs={"config": Ref("config_path")},
        )

    env_values = _from_environment()
    try:
        settings = _validated({**file_values, **env_values, **overrides})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        name = str(first["loc"][0]) if first["loc"] else "settings"
        raise ConfigError(
            f"invalid setting {where}: {first['msg']}",
            hint=_where_set(name, overrides, env_values, file_values, path),
        ) from None

    sources: dict[str, str] = {}
    for name in Settings.model_fields:
        if name in overrides:
            sources[name] = "argument"
        elif name in env_values:
            names = _env_names(name)
            present = [
                env for upper in names for env in (upper.lower(), upper) if env in os.environ
            ]
            sources[name] = f"env {present[0] if present else 'SLEUTH_' + name.upper()}"
        elif name in file_values:
            sources[name] = f"file {path}"
        else:
            sources[name] = "default"
    object.__setattr__(settings, "_sources", sources)
    return settings


def mask_url(value: str) -> str:
    """A URL with its password and query values hidden (``redis://:pw@host`` and ``?token=``)."""
    parts = urlsplit(value)
    if not parts.scheme or not parts.netloc:
        return value
    netloc = parts.netloc
    if parts.password:
        netloc = netloc.replace(f":{parts.password}@", ":******@", 1)
    query = "&".join(
        f"{name}=******" if _ else name
        for name, _, _ in (pair.partition("=") for pair in parts.query.split("&") if pair)
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def describe(settings: Settings) -> list[tuple[str, str, str]]:
    """``(name, masked value, source)`` rows for ``sleuth config show``."""
    rows = []
    sources = settings.config_sources
    for name in (name for model in SECTIONS.values() for name in model.model_fields):
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            plain = value.get_secret_value()
            shown = f"{plain[:2]}…{'*' * 6}" if len(plain) > 8 else ("******" if plain else "")
        elif name == "sites":
            shown = "; ".join(_site_shown(entry) for entry in value)
        elif isinstance(value, list):
            shown = ",".join(str(v) for v in value)
        elif isinstance(value, str) and "://" in value:
            shown = mask_url(value)
        else:
            shown = "" if value is None else str(value)
        rows.append((name, shown, sources.get(name, "default")))
    return rows


def _site_shown(entry: SiteEntry) -> str:
    """An entry as ``config show`` lists it: the origin, header names, the cookies file."""
    parts = [entry.origin]
    parts += [f"{name}: ******" for name in entry.headers]
    if entry.cookies_file is not None:
        parts.append(f"cookies from {entry.cookies_file} ({len(entry.cookies)})")
    if entry.allow_http:
        parts.append("allow_http")
    return " ".join(parts[:1]) + (f" ({', '.join(parts[1:])})" if parts[1:] else "")
