from __future__ import annotations

from collections.abc import Iterator

import pytest

from loopback import Site, serve


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running
