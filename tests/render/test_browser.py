"""Finding Chromium and reporting what is missing, before any browser starts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sleuth.config import Settings
from sleuth.errors import BlockedError, RenderUnavailable
from sleuth.render import find_chromium

from .conftest import renderer_for


def test_bogus_chromium_path_names_the_package(tmp_path: Path) -> None:
    bogus = tmp_path / "no-such-chromium"
    with pytest.raises(RenderUnavailable) as caught:
        find_chromium(Settings(chromium_path=str(bogus)).browser)
    assert str(bogus) in caught.value.message
    assert "apt-get install chromium" in caught.value.hint
    assert caught.value.code == "render_unavailable"


def test_non_executable_chromium_path_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "chromium"
    plain.write_text("not a program")
    with pytest.raises(RenderUnavailable):
        find_chromium(Settings(chromium_path=str(plain)).browser)


def test_configured_chromium_path_wins(tmp_path: Path) -> None:
    program = tmp_path / "my-chrome"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert find_chromium(Settings(chromium_path=str(program)).browser) == str(program)


def test_nothing_on_path_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sleuth.render.browser.DEFAULT_PATH", "/nonexistent/chromium")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RenderUnavailable) as caught:
        find_chromium(Settings().browser)
    assert "apt-get install chromium" in str(caught.value)


async def test_missing_playwright_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules makes the import fail exactly as if the package were absent.
    monkeypatch.setitem(sys.modules, "playwright.async_api", None)
    async with renderer_for(Settings()) as renderer:
        with pytest.raises(RenderUnavailable) as caught:
            await renderer.render("http://127.0.0.1:9/")
    assert "pip install 'sleuth[render]'" in str(caught.value)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "chrome://settings", "javascript:alert(1)", "ftp://x/y"]
)
async def test_only_http_urls_are_rendered(url: str) -> None:
    async with renderer_for(Settings()) as renderer:
        with pytest.raises(BlockedError):
            await renderer.render(url)
