"""A scripted OpenAI-compatible model on loopback and a meter aimed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from fill.fakemodel import FakeModel, running
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.llm.meter import Meter
from sleuth.net import Clients


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with running(FakeModel()) as served:
        yield served


def model_settings(model: FakeModel, tmp_path: Path) -> Settings:
    return Settings(
        llm_provider="openai",
        llm_model="test-model",
        llm_base_url=model.base_url,
        cache="memory",
        cache_dir=tmp_path / "cache",
        llm_cassette_dir=tmp_path / "cassettes",
    )


@pytest.fixture
async def meter(model: FakeModel, tmp_path: Path) -> AsyncIterator[Meter]:
    settings = model_settings(model, tmp_path)
    opened = Meter.connect(settings.llm, Clients(settings.net), MemoryCache(100))
    try:
        yield opened
    finally:
        await opened.aclose()
