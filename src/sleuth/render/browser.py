"""Finding and starting the system Chromium, locked down so it cannot reach the network itself.

The browser never resolves a name or opens a connection on its own: every
request is answered by :mod:`sleuth.render.intercept` through the guarded
client, and ``--host-resolver-rules`` turns anything that slips past the
interception into a name-resolution failure (IP literals included).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import TYPE_CHECKING

from sleuth.config import RenderSettings
from sleuth.errors import RenderUnavailable

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

DEBIAN_PACKAGE = "chromium"
DEFAULT_PATH = "/usr/bin/chromium"
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome")

INSTALL_BROWSER_HINT = (
    f"install Chromium (`apt-get install {DEBIAN_PACKAGE}` on Debian/Ubuntu) "
    "or point SLEUTH_CHROMIUM_PATH at a Chromium or Chrome binary"
)
INSTALL_EXTRA_HINT = "install the extra with `pip install 'sleuth[render]'`"
# A browser that has not started by then is not going to.
LAUNCH_TIMEOUT_MS = 30_000

LAUNCH_FLAGS = (
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    # No DNS and no direct sockets: only intercepted requests can succeed.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    # WebRTC would send UDP outside the interception; allow it only through a proxy (none).
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_chromium(rendering: RenderSettings) -> str:
    """The Chromium binary to drive: the configured one, else the usual system locations."""
    if rendering.chromium_path:
        if _is_executable(rendering.chromium_path):
            return rendering.chromium_path
        raise RenderUnavailable(
            f"SLEUTH_CHROMIUM_PATH is {rendering.chromium_path!r}, which is not an executable file",
            hint=INSTALL_BROWSER_HINT,
        )
    if _is_executable(DEFAULT_PATH):
        return DEFAULT_PATH
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise RenderUnavailable(
        f"no Chromium found at {DEFAULT_PATH} or as {', '.join(PATH_NAMES)} on PATH",
        hint=INSTALL_BROWSER_HINT,
    )


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


async def launch_browser(rendering: RenderSettings) -> tuple[Playwright, Browser]:
    """Start Playwright and a headless Chromium with a fresh throwaway profile.

    Playwright is imported here, not at module load, so that sleuth works
    without the ``render`` extra until a render is actually asked for.
    """
    try:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright
    except ImportError:
        raise RenderUnavailable(
            "the playwright package is not installed", hint=INSTALL_EXTRA_HINT
        ) from None
    executable = find_chromium(rendering)
    playwright = await async_playwright().start()
    try:
        browser = await playwright.chromium.launch(
            executable_path=executable,
            headless=True,
            # Chromium's sandbox cannot run as root; everywhere else keep it on.
            chromium_sandbox=not _running_as_root(),
            args=list(LAUNCH_FLAGS),
            timeout=LAUNCH_TIMEOUT_MS,
        )
    except BaseException as exc:
        await asyncio.shield(playwright.stop())
        if not isinstance(exc, PlaywrightError):
            raise
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RenderUnavailable(
            f"Chromium at {executable} could not be started: {first_line}",
            hint=INSTALL_BROWSER_HINT,
        ) from None
    return playwright, browser
