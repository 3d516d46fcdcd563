"""From settings to a ready provider: which one, which model, where, with which key.

``SLEUTH_LLM_*`` wins; the vendors' usual variables (``OPENAI_API_KEY``,
``OLLAMA_HOST`` ...) fill in for the provider they belong to. With nothing
set, LLM features raise :class:`~sleuth.errors.LLMNotConfigured` and the
rest of sleuth is untouched.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from sleuth.config import LLMSettings
from sleuth.errors import LLMNotConfigured, Ref, UsageError
from sleuth.llm.cassette import Cassette
from sleuth.llm.http import LLMHttp
from sleuth.llm.providers import PROVIDERS, Provider

if TYPE_CHECKING:
    from sleuth.net import Clients

CLOUD_TIMEOUT = 60.0
_KEYS = {
    "openai": "openai_api_key",
    "openai-responses": "openai_api_key",
    "anthropic": "anthropic_api_key",
    "gemini": "gemini_api_key",
}
_KEY_NAMES = {
    "openai": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}


@dataclass(frozen=True)
class LLMConfig:
    provider: str
    model: str
    base_url: str
    api_key: str | None
    timeout: float
    local: bool  # a server on this machine or network: no cost, a generous timeout


def is_local(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local


def _ollama_url(host: str) -> str:
    """``OLLAMA_HOST`` read as Ollama reads it: ``host:port`` without a scheme means port
    11434, a URL keeps its scheme's port and its path; ``0.0.0.0`` is where it listens."""
    bare = "://" not in host
    parts = urlsplit(f"http://{host}" if bare else host)
    name = parts.hostname or "127.0.0.1"
    if name in ("0.0.0.0", "::"):
        name = "127.0.0.1"
    if ":" in name:
        name = f"[{name}]"
    port = parts.port or (11434 if bare else None)
    netloc = f"{name}:{port}" if port else name
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def _guess(llm: LLMSettings) -> str | None:
    if llm.llm_base_url:
        return "openai"
    for provider, field in (
        ("anthropic", "anthropic_api_key"),
        ("openai", "openai_api_key"),
        ("gemini", "gemini_api_key"),
    ):
        if llm.secret(field):
            return provider
    return "ollama" if llm.ollama_host else None


def resolve(
    llm: LLMSettings, *, provider: str | None = None, model: str | None = None
) -> LLMConfig:
    name = (provider or llm.llm_provider or _guess(llm) or "").lower().replace("_", "-")
    if not name:
        raise LLMNotConfigured("no LLM provider is configured")
    if name not in PROVIDERS:
        raise UsageError(
            f"unknown LLM provider {name!r}",
            hint=f"choose one of {', '.join(sorted(PROVIDERS))}",
        )
    cls = PROVIDERS[name]
    vendor_url = llm.openai_base_url if name.startswith("openai") else None
    if name == "ollama" and llm.ollama_host:
        vendor_url = _ollama_url(llm.ollama_host)
    base_url = (llm.llm_base_url or vendor_url or cls.default_base_url).rstrip("/")
    api_key = llm.secret("llm_api_key") or (llm.secret(_KEYS[name]) if name in _KEYS else None)
    local = is_local(base_url)
    if api_key is None and not local and name in _KEYS and llm.llm_record != "replay":
        raise LLMNotConfigured(
            f"the {name} provider needs an API key",
            hint=f"set SLEUTH_LLM_API_KEY or {_KEY_NAMES[name]}, or point SLEUTH_LLM_BASE_URL "
            "at a local server",
        )
    timeout = llm.llm_timeout or (llm.llm_local_timeout if local else CLOUD_TIMEOUT)
    return LLMConfig(
        provider=name,
        model=model or llm.llm_model or cls.default_model,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        local=local,
    )


def open_provider(
    llm: LLMSettings,
    clients: Clients,
    *,
    provider: str | None = None,
    model: str | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> tuple[Provider, LLMConfig]:
    """A ready provider: the ``llm`` section says which and where; its client comes from
    the session's ``clients``, trusting the provider's base URL."""
    config = resolve(llm, provider=provider, model=model)
    cassette = None
    if llm.llm_record != "off":
        cassette = Cassette(llm.llm_record, llm.llm_cassette_dir, config.provider)
    http = LLMHttp(
        llm,
        clients,
        provider=config.provider,
        base_url=config.base_url,
        timeout=config.timeout,
        cassette=cassette,
        sleep=sleep,
    )
    cls = PROVIDERS[config.provider]
    return cls(model=config.model, http=http, api_key=config.api_key), config


SearchChoice = Literal["auto", "native", "local"]


def choose_search(
    choice: SearchChoice, provider: Provider, config: LLMConfig
) -> Literal["native", "local"]:
    """``auto`` prefers the provider's own search for cloud providers."""
    if choice == "native":
        if provider.native_search is None:
            raise UsageError(
                f"the {provider.name} provider has no native web search",
                hint="use {local} (sleuth's providers) or {auto}",
                refs={"local": Ref("search", "local"), "auto": Ref("search", "auto")},
            )
        return "native"
    if choice == "auto" and provider.native_search is not None and not config.local:
        return "native"
    return "local"
