"""Third-party providers found through a real installed distribution's entry points."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from search.wire import json_reply
from sleuth.errors import ConfigError
from sleuth.websearch import ENTRY_POINT_GROUP, SearchQuery, known_providers
from webs import chain_of

PLUGIN_MODULE = '''
"""A search provider shipped by someone else: it speaks a made-up JSON API."""

import os

from sleuth.websearch import SearchProvider
from sleuth.websearch.results import RawHit, make_hits


class ExampleProvider(SearchProvider):
    name = "example"

    def is_configured(self, settings):
        return bool(os.environ.get("EXAMPLE_SEARCH_URL"))

    @property
    def trusted_urls(self):
        return [os.environ["EXAMPLE_SEARCH_URL"]]

    async def search(self, query, client):
        response = await self.send(
            client, "GET", os.environ["EXAMPLE_SEARCH_URL"], params={"text": query.query}
        )
        self.check_status(response)
        items = self.parse_json(response)["items"]
        return make_hits(self.name, (RawHit(i["name"], i["href"], i["summary"]) for i in items))


class NotAProvider:
    name = "notaprovider"
'''


def install(site: Path, dist: str, module: str, source: str, entry_points: dict[str, str]) -> None:
    """Lay out a module and its ``.dist-info`` exactly as pip would."""
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "\n".join(f"{name} = {target}" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}\n")


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    install(
        tmp_path,
        "sleuth_example_search",
        "sleuth_example_search",
        PLUGIN_MODULE,
        {
            "example": "sleuth_example_search:ExampleProvider",
            "notaprovider": "sleuth_example_search:NotAProvider",
            "misnamed": "sleuth_example_search:ExampleProvider",
            "missing": "sleuth_no_such_module:Provider",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("sleuth_example_search", None)  # the next test installs a fresh copy


async def test_plugin_provider_is_found_and_used_through_the_chain(
    plugin_site, make_settings, cache, wire, health, monkeypatch
):
    monkeypatch.setenv("EXAMPLE_SEARCH_URL", wire.url("/example/api"))
    wire.on(
        "/example/api",
        json_reply(
            {
                "items": [
                    {
                        "name": "Example <b>hit</b>",
                        "href": "https://example.org/a",
                        "summary": "from a plugin",
                    }
                ]
            }
        ),
    )
    assert "example" in known_providers()
    settings = make_settings(search_providers=["example", "duckduckgo"])
    async with chain_of(settings, cache, health=health) as chain:
        response = await chain.search(SearchQuery(query="plugins"))
    assert [(a.name, a.outcome) for a in response.providers_tried] == [("example", "ok")]
    assert [(h.title, h.url, h.provider) for h in response.results] == [
        ("Example hit", "https://example.org/a", "example")
    ]
    assert wire.to("/example/api")[0].query == {"text": "plugins"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("notaprovider", "is not a SearchProvider subclass"),
        ("misnamed", "calls itself 'example'"),
        ("missing", "failed to import"),
    ],
)
def test_broken_plugins_are_config_errors_naming_the_plugin(
    plugin_site, make_settings, cache, name, message
):
    with pytest.raises(ConfigError, match=message) as caught:
        chain_of(make_settings(search_providers=[name]), cache)
    assert repr(name) in caught.value.message


def test_plugins_are_listed_without_being_imported(plugin_site, cache, make_settings):
    names = known_providers()
    assert names[:5] == ["brave", "tavily", "serpapi", "searxng", "duckduckgo"]
    assert {"example", "misnamed", "missing", "notaprovider"} <= set(names)
    assert "sleuth_example_search" not in sys.modules
    with pytest.raises(ConfigError) as caught:
        chain_of(make_settings(search_providers=["nope"]), cache)
    assert "example" in caught.value.hint
