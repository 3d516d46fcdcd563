"""The style sheets a local HTML file links, read from its own folder or below it.

``extract`` of a saved page never touches the network, yet the page's linked sheets may
hide text, so they are read from disk as a browser opening the file would, with one
limit a browser lacks: never outside the file's own folder (a page must not make sleuth
read ``../../secrets.css`` or ``/etc``). A sheet sleuth does not read is listed with why.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from sleuth.extract.styles import Styles, decode_sheet


def local_styles(path: Path, max_bytes: int) -> Styles:
    """Sheets for the HTML file at ``path``: ``file:`` URLs inside its folder only."""
    folder = path.resolve().parent
    styles = Styles(path.resolve().as_uri(), lambda url: None)

    def load(url: str) -> str | None:
        parts = urlsplit(url)
        reason = None
        if parts.scheme != "file":
            reason = "blocked"  # extract reads no network
        else:
            target = Path(unquote(parts.path)).resolve()
            if not target.is_relative_to(folder):
                reason = "blocked"
            elif not target.is_file():
                reason = "http_error"  # as a 404: a missing sheet hides nothing
            elif target.stat().st_size > max_bytes:
                reason = "too_large"
            else:
                return decode_sheet(target.read_bytes(), None)
        if not any(item["url"] == url for item in styles.unread):
            styles.unread.append({"url": url, "reason": reason})
        return None

    styles.load = load
    return styles
