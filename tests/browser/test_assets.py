"""What the extension and the web page promise by construction: the shared module is one
file, the manifest asks only for what is used, and nothing is loaded or run from elsewhere."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browser.conftest import EXTENSION, STATIC, extension_id

MANIFEST = json.loads((EXTENSION / "manifest.json").read_text())


def test_the_shared_ui_module_is_the_same_file_in_both_places() -> None:
    # The extension may load no remote code, so it carries its own copy of ui.js.
    assert (EXTENSION / "ui.js").read_bytes() == (STATIC / "ui.js").read_bytes()


def test_the_manifest_asks_only_for_what_the_popup_uses() -> None:
    assert MANIFEST["manifest_version"] == 3
    assert sorted(MANIFEST["permissions"]) == ["activeTab", "scripting", "storage"]
    # The server is reached under CORS (SLEUTH_CORS_ORIGINS names the extension), so no
    # host permission is needed at all, for any site.
    assert "host_permissions" not in MANIFEST
    assert "optional_host_permissions" not in MANIFEST
    assert "web_accessible_resources" not in MANIFEST  # no page can open popup.html?tab=
    assert "content_scripts" not in MANIFEST
    assert MANIFEST["action"]["default_popup"] == "popup.html"
    assert MANIFEST["browser_specific_settings"]["gecko"]["id"]
    # Chromium uses the service worker, Firefox the background script: the same file.
    background = MANIFEST["background"]
    assert background["service_worker"] == "background.js"
    assert background["scripts"] == ["background.js"]


def test_the_content_security_policy_is_strict() -> None:
    policy = MANIFEST["content_security_policy"]["extension_pages"]
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in policy.split(";") if part.strip()
    )
    assert directives["default-src"] == ["'none'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert "'unsafe-eval'" not in policy
    assert "'unsafe-inline'" not in policy


def test_the_manifest_key_pins_the_extension_id() -> None:
    assert re.fullmatch(r"[a-p]{32}", extension_id())


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []
        self.inline_scripts = 0
        self.inline_handlers: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in ("src", "href"):
            if name in values and not (tag == "a" and values[name].startswith("#")):
                self.found.append((tag, values[name]))
        self.inline_handlers += [name for name in values if name.startswith("on")]
        self._in_script = tag == "script" and "src" not in values

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline_scripts += 1

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False


PAGES = [
    *(EXTENSION / name for name in ("popup.html", "options.html")),
    STATIC / "index.html",
]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pages_load_only_their_own_files(page: Path) -> None:
    parser = _References()
    parser.feed(page.read_text())
    assert parser.inline_scripts == 0
    assert parser.inline_handlers == []
    for tag, ref in parser.found:
        assert "://" not in ref, (tag, ref)
        assert not ref.startswith("//"), (tag, ref)
        if page.parent == STATIC:
            if ref.startswith("/static/"):
                assert (STATIC / ref.removeprefix("/static/")).is_file(), ref
            else:
                assert ref in ("/docs", "/openapi.json"), ref  # the server's own routes
        else:
            assert (page.parent / ref).is_file(), ref


SCRIPTS = sorted([*EXTENSION.glob("*.js"), *STATIC.glob("*.js")])
STYLES = sorted([*EXTENSION.glob("*.css"), *STATIC.glob("*.css")])


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scripts_run_no_strings_and_parse_no_html(script: Path) -> None:
    code = script.read_text()
    for banned in (
        "eval(",
        "new Function",
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        'setTimeout("',
        'import("http',
    ):
        assert banned not in code, f"{script.name} uses {banned}"
    for target in re.findall(r'from\s+"([^"]+)"', code):
        if script.parent == STATIC:
            assert target.startswith("/static/"), target
            assert (STATIC / target.removeprefix("/static/")).is_file(), target
        else:
            assert target.startswith("./"), target
            assert (EXTENSION / target.removeprefix("./")).is_file(), target


@pytest.mark.parametrize("style", STYLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_styles_fetch_nothing(style: Path) -> None:
    text = style.read_text()
    assert "@import" not in text
    assert "url(" not in text
