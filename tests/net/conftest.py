"""Fixtures: a scripted resolver, a recording socket layer, and clients built on them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator

import httpx
import pytest

from sleuth.config import Settings
from sleuth.net import make_client, make_sync_client

from .fakes import FakeResolver, RecordingBackend, SyncRecordingBackend

ClientFactory = Callable[..., httpx.AsyncClient]
SyncClientFactory = Callable[..., httpx.Client]


@pytest.fixture
def resolver() -> FakeResolver:
    return FakeResolver()


@pytest.fixture
def backend() -> RecordingBackend:
    return RecordingBackend()


@pytest.fixture
def sync_backend() -> SyncRecordingBackend:
    return SyncRecordingBackend()


@pytest.fixture
async def client_for(
    resolver: FakeResolver, backend: RecordingBackend
) -> AsyncIterator[ClientFactory]:
    """``client_for(settings=None, trusted_urls=())``: a make_client client on the fakes."""
    made: list[httpx.AsyncClient] = []

    def factory(
        settings: Settings | None = None, trusted_urls: Iterable[str] = ()
    ) -> httpx.AsyncClient:
        client = make_client(
            (settings or Settings()).net,
            trusted_urls=trusted_urls,
            resolver=resolver,
            network_backend=backend,
        )
        made.append(client)
        return client

    yield factory
    for client in made:
        await client.aclose()


@pytest.fixture
def sync_client_for(
    resolver: FakeResolver, sync_backend: SyncRecordingBackend
) -> Iterator[SyncClientFactory]:
    made: list[httpx.Client] = []

    def factory(settings: Settings | None = None, trusted_urls: Iterable[str] = ()) -> httpx.Client:
        client = make_sync_client(
            (settings or Settings()).net,
            trusted_urls=trusted_urls,
            resolver=resolver,
            network_backend=sync_backend,
        )
        made.append(client)
        return client

    yield factory
    for client in made:
        client.close()
