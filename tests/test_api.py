"""The public Python API: one-shot functions, their async twins, and the client objects."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import sleuth
from loopback import article, serve
from sleuth.cache import MemoryCache
from sleuth.pages import Outcome

PARAGRAPHS = [
    "The old mill on the river ground flour for the whole valley until the nineteen fifties, "
    "when the last miller retired and the wheel was left to rust in the current.",
    "A group of neighbours restored it over ten summers, replacing the oak paddles by hand and "
    "rebuilding the sluice gate from drawings kept in the parish archive.",
]


def test_the_documented_names_are_there() -> None:
    for name in sleuth.__all__:
        assert getattr(sleuth, name) is not None
    assert callable(sleuth.fetch)
    assert callable(sleuth.afetch)
    assert sleuth.FetchResult.__name__ == "FetchResult"


def test_importing_sleuth_does_not_load_the_extractor() -> None:
    code = "import sys, sleuth, sleuth.config; print('trafilatura' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_blocking_client_fetches_and_reuses_its_cache() -> None:
    with serve() as site:
        url = site.add("/mill", article("The old mill", PARAGRAPHS))
        settings = sleuth.Settings(allow_hosts=[f"127.0.0.1:{site.port}"], render="never")
        with sleuth.Sleuth(settings, cache=MemoryCache(10)) as client:
            first = client.fetch(url, respect_robots=False)
            second = client.fetch(url, respect_robots=False, format="markdown")
            third = client.fetch(url, respect_robots=False)
    assert (first.outcome, first.title) == (Outcome.OK, "The old mill")
    assert (first.cache, second.cache, third.cache) == ("miss", "miss", "hit")
    assert first.model_dump()["schema_version"] == 1


async def test_the_async_client_fetches() -> None:
    with serve() as site:
        url = site.add("/mill", article("The old mill", PARAGRAPHS))
        settings = sleuth.Settings(allow_hosts=[f"127.0.0.1:{site.port}"], render="never")
        async with sleuth.AsyncSleuth(settings, cache=MemoryCache(10)) as client:
            result = await client.fetch(url, respect_robots=False)
    assert "oak paddles" in result.text


def test_every_operation_is_a_typed_method_of_both_clients_and_fill_a_one_shot() -> None:
    from sleuth import api
    from sleuth.ops import NAMES

    for name in NAMES:
        method = getattr(api.AsyncSleuth, name)
        assert method.__name__ == getattr(api.Sleuth, name).__name__ == name
        twin = inspect.signature(getattr(api.Sleuth, name)).parameters
        assert list(twin)[1:] == list(inspect.signature(method).parameters)[1:]
    # fill's work is in sleuth.structured: the package never shadows the one-shot.
    import sleuth.structured

    assert inspect.isfunction(sleuth.fill)
    assert inspect.iscoroutinefunction(sleuth.afill)
    assert "schema" in inspect.signature(sleuth.fill).parameters


@pytest.mark.parametrize(
    "name", ["fetch", "search", "research", "ask", "detect", "suggest", "discover", "fill"]
)
def test_the_blocking_twin_and_one_shots_take_the_session_methods_typed_keywords(
    name: str,
) -> None:
    from sleuth import api

    declared = list(inspect.signature(getattr(api.AsyncSleuth, name)).parameters.values())[1:]
    blocking = list(inspect.signature(getattr(api.Sleuth, name)).parameters.values())[1:]
    assert blocking == declared
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in declared)
    for shot in (name, f"a{name}"):
        if hasattr(api, shot):
            assert list(inspect.signature(getattr(api, shot)).parameters.values()) == declared
            assert getattr(api, shot).__doc__ == getattr(api.AsyncSleuth, name).__doc__
