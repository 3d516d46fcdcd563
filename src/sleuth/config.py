"""The one config object: ``SLEUTH_*`` environment variables over an optional TOML file.

Precedence, highest first: environment, the TOML file (``--config PATH`` or
``config.toml`` in the user config dir), built-in defaults. :func:`load_settings`
also records where each value came from so ``sleuth config show`` can say it.

Lower layers never load anything: they are handed the section they read (``NetSettings``
for the guard and clients, ``CacheSettings`` for the cache ...), taken from the one
:class:`Settings` by :data:`SECTIONS`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit, urlunsplit

import platformdirs
from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict

from sleuth._version import __version__
from sleuth.errors import ConfigError, Ref

APP_NAME = "sleuth"
HOME_PAGE = "https://github.com/sleuth-dev/sleuth"
USER_AGENT = f"sleuth/{__version__} (+{HOME_PAGE})"


def _split_commas(value: Any) -> Any:
    """The one comma-list parser: ``"a, b,,c"`` is ``["a", "b", "c"]``; lists pass as given."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


CommaList = Annotated[list[str], NoDecode, BeforeValidator(_split_commas)]
LLMProviderName = Literal["openai", "openai-responses", "anthropic", "gemini", "ollama"]
PortList = Annotated[list[int], NoDecode, BeforeValidator(_split_commas)]
_RATE_PATTERN = r"^\s*[1-9][0-9]*\s*/\s*[0-9]*\s*(s|sec|second|m|min|minute|h|hour|d|day)s?\s*$"
RESERVED_SLUGS = ("auth", "static", "dashboard", "admin", "api", "u", "links", "metrics", "mcp")


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME))


def _alias(name: str, *others: str) -> AliasChoices:
    """Accept ``SLEUTH_<NAME>`` first, then the well-known names other tools use."""
    return AliasChoices(name, f"SLEUTH_{name.upper()}", *others)


class Section(BaseModel):
    """A frozen slice of :class:`Settings`: the fields one part of sleuth needs.

    Each section's own fields are the grouping (written once, here); :meth:`of` copies
    their validated values out of a :class:`Settings`, the one loader. Types match the
    ``Settings`` fields one for one; defaults, bounds, env names and TOML keys live there.
    """

    model_config = ConfigDict(frozen=True)

    @classmethod
    def of(cls, settings: Settings) -> Self:
        return cls.model_validate({name: getattr(settings, name) for name in cls.model_fields})

    def secret(self, name: str) -> str | None:
        """The plain value of a secret field, or None when unset or empty."""
        return _plain(getattr(self, name))


def _plain(value: Any) -> str | None:
    if isinstance(value, SecretStr):
        return value.get_secret_value() or None
    return None


class LogSettings(Section):
    """Logging."""

    log_format: Literal["human", "json"]
    log_level: Literal["debug", "info", "warning", "error"] | None


class NetSettings(Section):
    """Every HTTP exchange: what the guard lets through, the client's manners, body caps."""

    allow_hosts: list[str]
    allow_ports: list[int]
    user_agent: str
    connect_timeout: float
    read_timeout: float
    max_redirects: int
    max_bytes: int
    max_decoded_bytes: int
    proxy: str | None
    sleuth_no_proxy: list[str]
    proxy_sends_names: bool
    http_proxy: str | None
    https_proxy: str | None
    all_proxy: str | None
    no_proxy: list[str]


class FetchSettings(Section):
    """Reading pages: the per-page deadline, how many at once, how long they stay fresh."""

    fetch_deadline: float
    max_concurrent_fetches: int
    cache_ttl: int
    robots_cache_ttl: int


class StyleSettings(Section):
    """The page's linked style sheets, read to know what the page hides."""

    max_stylesheets: int
    max_stylesheet_bytes: int
    stylesheet_timeout: float
    strict_visibility: bool


class DocumentSettings(Section):
    """PDFs and text documents, fetched or local."""

    max_document_bytes: int
    max_document_pages: int
    document_timeout: float


class RenderSettings(Section):
    """The browser fallback."""

    render: Literal["auto", "always", "never"]
    chromium_path: str | None
    render_timeout: float
    max_concurrent_renders: int


class CacheSettings(Section):
    """Which cache backend, and where."""

    cache: Literal["memory", "file", "redis"]
    cache_dir: Path
    redis_url: str
    memory_cache_entries: int


class SearchSettings(Section):
    """Web search: the providers, their keys and endpoints, the hourly budget."""

    search_providers: list[str]
    searches_per_hour: int
    search_timeout: float
    search_cache_ttl: int
    brave_api_key: SecretStr | None
    tavily_api_key: SecretStr | None
    serpapi_api_key: SecretStr | None
    searxng_url: str | None
    duckduckgo_url: str
    duckduckgo_lite_url: str
    brave_url: str
    tavily_url: str
    serpapi_url: str


class ResearchSettings(Section):
    """The research digest."""

    max_results: int
    max_pages: int
    research_deadline: float
    max_bullets: int
    max_bullet_chars: int


class LLMSettings(Section):
    """The model: provider, keys, timeouts, turns, recording, budgets."""

    llm_provider: LLMProviderName | None
    llm_model: str | None
    llm_base_url: str | None
    llm_api_key: SecretStr | None
    openai_api_key: SecretStr | None
    openai_base_url: str | None
    anthropic_api_key: SecretStr | None
    gemini_api_key: SecretStr | None
    ollama_host: str | None
    llm_timeout: float | None
    llm_local_timeout: float
    llm_deadline: float
    llm_max_turns: int
    llm_max_output_tokens: int
    llm_retries: int
    llm_search: Literal["auto", "native", "local"]
    llm_record: Literal["off", "record", "replay", "auto"]
    llm_cassette_dir: Path
    llm_session_budget_usd: float
    llm_daily_budget_usd: float
    llm_prices_file: Path | None


class DetectSettings(Section):
    """Stack detection."""

    detection_mode: Literal["full", "static", "llm"]
    detect_max_file_bytes: int


class DiscoverSettings(Section):
    """Tool discovery: registries, ecosystem probes, GitHub verification."""

    discover_registry: str | None
    discover_timeout: float
    discover_probe_timeout: float
    probe_crates_io_url: str
    probe_npm_url: str
    probe_npm_downloads_url: str
    probe_pypi_url: str
    probe_rubygems_url: str
    probe_go_url: str
    probe_homebrew_url: str
    probe_cask_url: str
    probe_cpan_url: str
    github_api_url: str
    github_token: SecretStr | None


class CrawlSettings(Section):
    """Map and crawl: the ceilings on how long a site may hold them."""

    max_crawl_delay: float
    max_retry_after: float
    crawl_tool_deadline: float
    crawl_job_deadline: float


class ServerSettings(Section):
    """The HTTP server (``sleuth serve``)."""

    api_tokens: SecretStr | None
    rate_limit: str | None
    cors_origins: list[str]
    server_hosts: list[str]
    max_body_bytes: int
    shutdown_grace: float
    crawl_jobs_per_token: int
    crawl_job_max_pages: int


class SuggestSettings(Section):
    """Link suggestions."""

    suggest_timeout: float
    suggest_prompt: str | None
    suggest_reserved_slugs: list[str]
    suggest_fetch: bool


# Settings property -> its section. Property names never shadow a field (``cache`` and
# ``render`` are fields, so their sections are ``caching`` and ``browser``).
SECTIONS: dict[str, type[Section]] = {
    "log": LogSettings,
    "net": NetSettings,
    "fetch": FetchSettings,
    "documents": DocumentSettings,
    "styles": StyleSettings,
    "browser": RenderSettings,
    "caching": CacheSettings,
    "search": SearchSettings,
    "research": ResearchSettings,
    "llm": LLMSettings,
    "detect": DetectSettings,
    "discover": DiscoverSettings,
    "crawl": CrawlSettings,
    "server": ServerSettings,
    "suggest": SuggestSettings,
}


class Settings(BaseSettings):
    """Everything sleuth can be told; each field is also ``SLEUTH_<FIELD>``.

    This is the one loader. The code below the entry points holds the settings in
    sections (``settings.net``, ``settings.caching`` ...; see :data:`SECTIONS`), frozen
    copies of the fields each part needs; the names users write do not change.
    """

    model_config = SettingsConfigDict(
        env_prefix="SLEUTH_",
        case_sensitive=False,
        extra="ignore",
        populate_by_name=True,
        allow_inf_nan=False,
    )

    # Logging
    log_format: Literal["human", "json"] = "human"
    log_level: Literal["debug", "info", "warning", "error"] | None = None

    # Network guard
    allow_hosts: CommaList = Field(
        default_factory=list,
        description="hosts, host:port, host:* or CIDRs the guard lets through",
    )
    allow_ports: PortList = Field(default_factory=lambda: [80, 443])
    user_agent: str = USER_AGENT

    # Proxy: SLEUTH_PROXY over the variables curl, pip and httpx read (either case)
    proxy: str | None = Field(None, description="one proxy URL for every scheme")
    sleuth_no_proxy: CommaList = Field(
        default_factory=list,
        validation_alias=AliasChoices("sleuth_no_proxy"),
        description="bypass entries added to NO_PROXY",
    )
    proxy_sends_names: bool = Field(False, description="ask the proxy for names, not addresses")
    http_proxy: str | None = Field(None, validation_alias=AliasChoices("http_proxy"))
    https_proxy: str | None = Field(None, validation_alias=AliasChoices("https_proxy"))
    all_proxy: str | None = Field(None, validation_alias=AliasChoices("all_proxy"))
    no_proxy: CommaList = Field(default_factory=list, validation_alias=AliasChoices("no_proxy"))

    # Fetch limits
    connect_timeout: float = Field(5.0, gt=0)
    read_timeout: float = Field(8.0, gt=0)
    fetch_deadline: float = Field(15.0, gt=0, description="overall seconds for one fetch")
    max_bytes: int = Field(4 * 1024 * 1024, gt=0, description="bytes on the wire per response")
    max_decoded_bytes: int = Field(
        16 * 1024 * 1024, gt=0, description="bytes after decompression per response"
    )
    max_redirects: int = Field(5, ge=0, le=5)
    max_document_bytes: int = Field(
        32 * 1024 * 1024, gt=0, description="bytes of one PDF or text document, fetched or local"
    )
    max_document_pages: int = Field(200, ge=1, description="pages read from one PDF")
    document_timeout: float = Field(
        10.0, gt=0, description="seconds to parse one PDF or text document"
    )
    max_concurrent_fetches: int = Field(5, ge=1)
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

    # Browser fallback
    render: Literal["auto", "always", "never"] = "auto"
    chromium_path: str | None = None
    render_timeout: float = Field(15.0, gt=0)
    max_concurrent_renders: int = Field(2, ge=1)

    # Cache
    cache: Literal["memory", "file", "redis"] = "file"
    cache_dir: Path = Field(default_factory=default_cache_dir)
    redis_url: str = Field(
        "redis://127.0.0.1:6379/0", validation_alias=_alias("redis_url", "REDIS_URL")
    )
    cache_ttl: int = Field(24 * 3600, ge=0, description="seconds a fetched page stays fresh")
    search_cache_ttl: int = Field(3600, ge=0)
    robots_cache_ttl: int = Field(24 * 3600, ge=0)
    memory_cache_entries: int = Field(1024, ge=1)

    # Search
    search_providers: CommaList = Field(default_factory=list)
    searches_per_hour: int = Field(120, ge=0)
    search_timeout: float = Field(5.0, gt=0)
    brave_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("brave_api_key", "BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")
    )
    tavily_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("tavily_api_key", "TAVILY_API_KEY")
    )
    serpapi_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("serpapi_api_key", "SERPAPI_API_KEY")
    )
    searxng_url: str | None = Field(None, validation_alias=_alias("searxng_url", "SEARXNG_URL"))
    # Endpoint overrides: for self-hosted mirrors and for tests on loopback.
    duckduckgo_url: str = "https://html.duckduckgo.com/html/"
    duckduckgo_lite_url: str = "https://lite.duckduckgo.com/lite/"
    brave_url: str = "https://api.search.brave.com/res/v1/web/search"
    tavily_url: str = "https://api.tavily.com/search"
    serpapi_url: str = "https://serpapi.com/search.json"

    # Research digest
    max_results: int = Field(8, ge=1, le=10)
    max_pages: int = Field(3, ge=1, le=10)
    research_deadline: float = Field(12.0, gt=0)
    max_bullets: int = Field(8, ge=1, le=20)
    max_bullet_chars: int = Field(300, ge=80)

    # LLM: the provider, and the vendors' usual variable names as fallbacks
    llm_provider: LLMProviderName | None = None
    llm_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("openai_api_key", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
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
    llm_cassette_dir: Path = Field(default_factory=lambda: Path("cassettes"))
    llm_session_budget_usd: float = Field(1.0, ge=0, description="0 means no limit")
    llm_daily_budget_usd: float = Field(10.0, ge=0, description="0 means no limit")
    llm_prices_file: Path | None = None

    # Stack detection
    detection_mode: Literal["full", "static", "llm"] = Field(
        "full", description="full: static, then the LLM for what it cannot place"
    )
    detect_max_file_bytes: int = Field(1 << 20, ge=1, description="larger files are not read")

    # Tool discovery (sleuth discover): registries, ecosystem probes, GitHub verification
    discover_registry: str | None = Field(
        None, description="registry folders, os.pathsep-separated, consulted before the bundled one"
    )
    discover_timeout: float = Field(15.0, gt=0, description="seconds for the LLM stage")
    discover_probe_timeout: float = Field(3.0, gt=0, description="one deadline for all probes")
    probe_crates_io_url: str = "https://crates.io"
    probe_npm_url: str = "https://registry.npmjs.org"
    probe_npm_downloads_url: str = "https://api.npmjs.org"
    probe_pypi_url: str = "https://pypi.org"
    probe_rubygems_url: str = "https://rubygems.org"
    probe_go_url: str = "https://proxy.golang.org"
    probe_homebrew_url: str = "https://formulae.brew.sh"
    probe_cask_url: str = "https://formulae.brew.sh"
    probe_cpan_url: str = "https://fastapi.metacpan.org"
    github_api_url: str = "https://api.github.com"
    github_token: SecretStr | None = Field(
        None, validation_alias=_alias("github_token", "GITHUB_TOKEN")
    )

    # Map and crawl: ceilings on the waits a site may ask for
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

    # HTTP server (sleuth serve) and link suggestions
    api_tokens: SecretStr | None = Field(
        None, description="bearer tokens: a comma list, or @path to a file of sha256 hashes"
    )
    rate_limit: str | None = Field(
        None, pattern=_RATE_PATTERN, description="requests per token, like 60/minute"
    )
    cors_origins: CommaList = Field(default_factory=list)
    server_hosts: CommaList = Field(
        default_factory=list, description="Host names the server answers to besides loopback"
    )
    max_body_bytes: int = Field(64 * 1024, ge=1, description="request body cap")
    shutdown_grace: float = Field(10.0, ge=0, description="seconds in-flight requests get")
    crawl_jobs_per_token: int = Field(2, ge=1, description="crawl jobs one caller may run at once")
    crawl_job_max_pages: int = Field(500, ge=1, description="pages one HTTP crawl job may read")
    suggest_timeout: float = Field(15.0, gt=0)
    suggest_prompt: str | None = Field(None, description="a file path or the template text")
    suggest_reserved_slugs: CommaList = Field(default_factory=lambda: list(RESERVED_SLUGS))
    suggest_fetch: bool = Field(False, description="read the page when no title is sent")

    @field_validator("rate_limit", "suggest_prompt", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("llm_provider", mode="before")
    @classmethod
    def _provider_spelling(cls, value: Any) -> Any:
        """``OpenAI_Responses`` and ``openai_responses`` name the same provider."""
        if isinstance(value, str):
            return value.strip().lower().replace("_", "-") or None
        return value

    @field_validator("detection_mode", mode="before")
    @classmethod
    def _mode_synonyms(cls, value: Any) -> Any:
        """``llm_only`` (the name other tools use) means ``llm``."""
        if isinstance(value, str):
            lowered = value.strip().lower()
            return "llm" if lowered in ("llm_only", "llm-only") else lowered
        return value

    @field_validator("proxy", "http_proxy", "https_proxy", "all_proxy", mode="before")
    @classmethod
    def _proxy_url(cls, value: Any, info: ValidationInfo) -> Any:
        """curl's reading: lower case first, ``http://`` when no scheme is written."""
        name = info.field_name or ""
        if name != "proxy" and value == os.environ.get(name.upper()) and name in os.environ:
            value = os.environ[name]
        if not isinstance(value, str) or not value.strip():
            return None
        value = value.strip() if "://" in value else f"http://{value.strip()}"
        parts = urlsplit(value)
        if parts.scheme.lower() not in ("http", "https", "socks5", "socks5h") or not parts.hostname:
            raise ValueError(f"{mask_url(value)!r} is not an http, https or socks5 proxy URL")
        return value

    @field_validator("no_proxy", mode="before")
    @classmethod
    def _lower_no_proxy(cls, value: Any) -> Any:
        if value == os.environ.get("NO_PROXY") and "no_proxy" in os.environ:
            return _split_commas(os.environ["no_proxy"])
        return _split_commas(value)

    @field_validator("allow_ports")
    @classmethod
    def _check_ports(cls, value: list[int]) -> list[int]:
        bad = [port for port in value if not 1 <= port <= 65535]
        if bad:
            raise ValueError(f"ports must be 1-65535, not {bad[0]}")
        return value

    @field_validator(
        "searxng_url",
        "duckduckgo_url",
        "duckduckgo_lite_url",
        "brave_url",
        "tavily_url",
        "serpapi_url",
        "redis_url",
        "llm_base_url",
        "openai_base_url",
        "probe_crates_io_url",
        "probe_npm_url",
        "probe_npm_downloads_url",
        "probe_pypi_url",
        "probe_rubygems_url",
        "probe_go_url",
        "probe_homebrew_url",
        "probe_cask_url",
        "probe_cpan_url",
        "github_api_url",
    )
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https", "redis", "rediss", "unix") or not (
            parts.netloc or parts.scheme == "unix"
        ):
            raise ValueError(f"{mask_url(value)!r} is not an absolute URL")
        return value

    def secret(self, name: str) -> str | None:
        """The plain value of a secret field, or None when unset or empty."""
        return _plain(getattr(self, name))

    @property
    def config_sources(self) -> dict[str, str]:
        return dict(getattr(self, "_sources", {}))

    # The sections, each built on first use from the fields above (see SECTIONS).
    @cached_property
    def log(self) -> LogSettings:
        return LogSettings.of(self)

    @cached_property
    def net(self) -> NetSettings:
        return NetSettings.of(self)

    @cached_property
    def fetch(self) -> FetchSettings:
        return FetchSettings.of(self)

    @cached_property
    def documents(self) -> DocumentSettings:
        return DocumentSettings.of(self)

    @cached_property
    def styles(self) -> StyleSettings:
        return StyleSettings.of(self)

    @cached_property
    def browser(self) -> RenderSettings:
        return RenderSettings.of(self)

    @cached_property
    def caching(self) -> CacheSettings:
        return CacheSettings.of(self)

    @cached_property
    def search(self) -> SearchSettings:
        return SearchSettings.of(self)

    @cached_property
    def research(self) -> ResearchSettings:
        return ResearchSettings.of(self)

    @cached_property
    def llm(self) -> LLMSettings:
        return LLMSettings.of(self)

    @cached_property
    def detect(self) -> DetectSettings:
        return DetectSettings.of(self)

    @cached_property
    def discover(self) -> DiscoverSettings:
        return DiscoverSettings.of(self)

    @cached_property
    def crawl(self) -> CrawlSettings:
        return CrawlSettings.of(self)

    @cached_property
    def server(self) -> ServerSettings:
        return ServerSettings.of(self)

    @cached_property
    def suggest(self) -> SuggestSettings:
        return SuggestSettings.of(self)

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


def _env_names(name: str) -> list[str]:
    field = Settings.model_fields[name]
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return list(dict.fromkeys(str(choice).upper() for choice in alias.choices))
    return [f"SLEUTH_{name.upper()}"]


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid UTF-8 TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    table = data.get("sleuth", data)
    unknown = sorted(set(table) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(
            f"config file {path} has unknown setting(s): {', '.join(unknown)}",
            hint="see {names} for the names sleuth knows",
            refs={"names": Ref("settings_names", words="`sleuth.config.Settings`")},
        )
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


def load_settings(config_path: Path | str | None = None, **overrides: Any) -> Settings:
    """Build the effective settings and remember where each value came from.

    ``overrides`` win over everything (the Python API uses them); a missing
    ``--config`` file is an error, a missing default file is not.
    """
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

    env_values = EnvSettingsSource(Settings)()
    try:
        settings = Settings(**{**file_values, **env_values, **overrides})
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
    for name in Settings.model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            plain = value.get_secret_value()
            shown = f"{plain[:2]}…{'*' * 6}" if len(plain) > 8 else ("******" if plain else "")
        elif isinstance(value, list):
            shown = ",".join(str(v) for v in value)
        elif isinstance(value, str) and "://" in value:
            shown = mask_url(value)
        else:
            shown = "" if value is None else str(value)
        rows.append((name, shown, sources.get(name, "default")))
    return rows
