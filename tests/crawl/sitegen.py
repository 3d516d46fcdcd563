"""Generated loopback sites for crawl tests and the crawl bench."""

from __future__ import annotations

from loopback import Site

WORDS = [
    "harbour",
    "lamp",
    "keeper",
    "logbook",
    "storm",
    "tide",
    "coast",
    "beacon",
    "signal",
    "ledger",
    "channel",
    "vessel",
    "lantern",
    "reef",
    "current",
    "chart",
    "compass",
    "anchor",
    "pier",
    "gull",
]


def paragraph(seed: int, sentences: int = 4) -> str:
    """Distinct, readable text per seed, so no two pages share a content hash."""
    out = []
    for n in range(sentences):
        picked = [WORDS[(seed * 7 + n * 3 + k * 5) % len(WORDS)] for k in range(12)]
        out.append(f"Entry {seed}-{n} notes the " + " ".join(picked) + f" of page {seed}.")
    return " ".join(out)


def page(title: str, seed: int, links: list[str], *, head: str = "", extra: str = "") -> str:
    anchors = " ".join(f'<a href="{href}">{href}</a>' for href in links)
    body = "".join(f"<p>{paragraph(seed * 10 + k)}</p>" for k in range(3))
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>"
        f"<nav>{anchors}</nav><article><h1>{title}</h1>{body}{extra}</article></body></html>"
    )


def tree_site(site: Site, pages: int, fanout: int = 10) -> list[str]:
    """``pages`` pages in a tree: page n links to its children n*fanout+1 ... (BFS order)."""
    paths = ["/"] + [f"/p/{n}" for n in range(1, pages)]
    for n, path in enumerate(paths):
        children = [paths[c] for c in range(n * fanout + 1, n * fanout + fanout + 1) if c < pages]
        site.add(path, page(f"Page {n}", n, children))
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    return paths
