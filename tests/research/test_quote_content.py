"""Research quotes the page's own content, not what it says about other pages.

A guide carries a "related" block of cards (a title that links to another guide over a
paragraph describing it) and a row of tags, each a link to another page, inside its
article. Both are in the extracted text; neither is the guide's finding.
"""

from __future__ import annotations

from loopback import Web, serve
from sleuth.cache.memory import MemoryCache
from webs import opened_fetcher, research

QUESTION = "How do I descale an electric kettle with vinegar or citric acid?"
OWN = (
    "Fill the electric kettle halfway with equal parts white vinegar and water, boil it, "
    "and leave it to stand for an hour so the acid dissolves the scale on the plate.",
    "Citric acid descales an electric kettle faster: two tablespoons in a full kettle of "
    "water, boiled twice, clear the heating plate in about fifteen minutes.",
    "Rinse the kettle three times with fresh water after descaling with vinegar or citric "
    "acid, or the first cups of tea will taste of it.",
)
CARD = (
    "Vinegar, citric acid and lemon juice tested on twelve scaled electric kettles, with the "
    "minutes each descaling method took to clear the heating plate of limescale."
)
TAGS = (
    *("electric-kettle", "kettle-descaling", "descale-kettle", "vinegar-descaling"),
    *("citric-acid", "citric-acid-descaler", "hard-water", "kettle-limescale"),
    *("vinegar-cleaning", "kettle-care", "electric-kettle-maintenance"),
)
TAG_LINE = " ".join(TAGS)
GUIDE = f"""<!doctype html><html lang="en"><head><title>Descaling a kettle</title></head>
<body><main><article>
<h1>Descaling an electric kettle with vinegar or citric acid</h1>
{"".join(f"<p>{paragraph}</p>" for paragraph in OWN)}
<p class="tags">{" ".join(f'<a href="/tag/{tag}">{tag}</a>' for tag in TAGS)}</p>
<h2>Related guides</h2>
<div class="card"><h3><a href="/tested">Kettle descalers tested on twelve kettles</a></h3>
<p>{CARD}</p></div>
</article></main></body></html>"""


async def test_cards_and_tags_about_other_pages_are_not_quoted() -> None:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        url = site.add("/guide", GUIDE)
        web.result(url, "Descaling a kettle")
        cache = MemoryCache(64)
        digest = await research(QUESTION, settings=web.settings(), cache=cache)
        async with opened_fetcher(web.settings(), cache=cache) as fetcher:
            page = await fetcher.fetch(url)
    assert TAG_LINE in page.text  # extraction keeps both ...
    assert CARD in page.text
    quotes = [bullet.quote for bullet in digest.bullets]
    assert any(paragraph in quotes for paragraph in OWN)  # ... the guide is quoted ...
    for quote in quotes:  # ... and neither the tags nor the card about another guide
        assert "kettle-descaling" not in quote, quote
        assert "twelve scaled" not in quote, quote
