from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from loopback import Site, serve
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.pages import Fetcher
from webs import opened_fetcher

PARAGRAPHS = [
    "The lighthouse keepers of the northern coast kept detailed logbooks for more than a "
    "century, recording the weather, passing ships and the state of the lamp every night.",
    "Historians have recently digitised these logbooks, and the records show how storms "
    "grew more frequent in the late nineteenth century along the whole coastline.",
    "Each entry was written by hand, usually at dawn, after the keeper had trimmed the wick "
    "and cleaned the great lens that focused the flame towards the sea.",
    "The project's volunteers transcribed over forty thousand pages, checking every date "
    "against harbour records to correct the mistakes that tired keepers made.",
    "Their work now lets climate scientists compare old observations with modern satellite "
    "data, filling a gap that no other source from the period could fill.",
]


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


@pytest.fixture
def settings(site: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")


@pytest.fixture
async def fetcher(settings: Settings) -> AsyncIterator[Fetcher]:
    async with opened_fetcher(settings, cache=MemoryCache(100)) as f:
        yield f
