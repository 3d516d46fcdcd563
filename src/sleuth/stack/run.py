"""``detect`` as the API and CLI run it: the mode decides whether a model is asked at all.

``full`` asks a model only when sleuth's own LLM settings name one (``SLEUTH_LLM_PROVIDER``
or ``SLEUTH_LLM_BASE_URL``) or a provider is passed: a vendor key exported for other tools
must not send a private repository's manifests anywhere. ``llm`` requires a model (vendor
keys count there: asking for it is explicit); ``static`` never opens a provider.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sleuth import log
from sleuth.cache import Cache
from sleuth.config import DetectSettings, LLMSettings
from sleuth.errors import LLMNotConfigured
from sleuth.stack.model import Project
from sleuth.stack.modes import normalize_mode
from sleuth.stack.walk import detect_projects

if TYPE_CHECKING:
    from sleuth.net import Clients


async def detect_stack(
    path: Path | str,
    *,
    detect: DetectSettings,
    llm: LLMSettings,
    clients: Clients,
    cache: Cache,
    mode: str | None = None,
    provider: str | None = None,
    model: str | None = None,
) -> list[Project]:
    """``clients`` opens the model's connection, when a model is asked."""
    from sleuth.llm.meter import Meter
    from sleuth.stack.llm import LLMDetector

    chosen = normalize_mode(mode or detect.detection_mode)
    fallback: LLMDetector | None = None
    chosen_by_user = bool(provider or llm.llm_provider or llm.llm_base_url)
    if chosen == "full" and not chosen_by_user:
        log.event("detect_static_only", reason="SLEUTH_LLM_PROVIDER is not set")
    elif chosen != "static":
        try:
            meter = Meter.connect(llm, clients, cache, provider=provider, model=model)
        except LLMNotConfigured:
            if chosen == "llm":
                raise
            log.event("detect_static_only", reason="no LLM provider is configured")
        else:
            fallback = LLMDetector(meter, required=chosen == "llm")
    try:
        return await detect_projects(
            path, mode=chosen, fallback=fallback, max_file_bytes=detect.detect_max_file_bytes
        )
    finally:
        if fallback is not None:
            await fallback.meter.aclose()
