"""What each provider sends back, trimmed to what sleuth reads (and some it must ignore).

Markup keeps the providers' long single-line layout, so line length is not enforced here.
"""
# ruff: noqa: E501

from __future__ import annotations

from typing import Any
from urllib.parse import quote

PYTHON_DOCS = "https://docs.python.org/3/whatsnew/3.13.html"
# A target with its own query string and an encoded '&': the whole thing must survive decoding.
REALPYTHON = "https://realpython.com/python313-new-features/?utm_source=ddg&a=1&b=x%26y"


def ddg_link(target: str) -> str:
    return f"//duckduckgo.com/l/?uddg={quote(target, safe='')}&amp;rut=8f3c1d2e9a7b6c5d4e3f"


DDG_HTML = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>python 3.13 at DuckDuckGo</title></head>
<body class="body--html">
<div id="links" class="results">
  <div class="result results_links results_links_deep result--ad result--ad--small">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=courses.example&amp;ad_provider=bing&amp;u3=x">Learn <b>Python</b> Fast - Enroll Today</a>
      </h2>
      <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=courses.example">Sponsored course.</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="{ddg_link(PYTHON_DOCS)}">What&#x27;s New In <b>Python</b> <b>3.13</b> &mdash; <b>Python</b> 3.13.1 documentation</a>
      </h2>
      <div class="result__extras">
        <div class="result__extras__url">
          <a class="result__url" href="{ddg_link(PYTHON_DOCS)}">docs.python.org/3/whatsnew/3.13.html</a>
        </div>
      </div>
      <a class="result__snippet" href="{ddg_link(PYTHON_DOCS)}">This article explains the new features in <b>Python</b> <b>3.13</b>, compared to 3.12. &amp; more: the new interactive interpreter.</a>
      <div class="clear"></div>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="{ddg_link(REALPYTHON)}">Python 3.13: Cool New Features for You to Try</a>
      </h2>
      <a class="result__snippet" href="{ddg_link(REALPYTHON)}">In this tutorial, you&#x27;ll learn about the new features in <b>Python</b> 3.13.</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="{ddg_link(PYTHON_DOCS + "#summary-release-highlights")}">Summary &ndash; Release Highlights</a>
      </h2>
      <a class="result__snippet" href="#">The same page, another anchor.</a>
    </div>
  </div>
  <div class="nav-link">
    <form action="/html/" method="post"><input type="submit" class="btn btn--alt" value="Next"></form>
  </div>
</div>
</body></html>
"""

DDG_NO_RESULTS = """<!DOCTYPE html><html><body><div id="links" class="results">
<div class="no-results">No results.</div></div></body></html>"""

DDG_CHANGED_LAYOUT = """<!DOCTYPE html><html><body><main><section>
<article data-testid="result">Something DuckDuckGo might ship one day</article>
</section></main></body></html>"""

DDG_ANOMALY = """<!DOCTYPE html><html><body>
<div class="anomaly-modal__mask"><div class="anomaly-modal__modal">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js" method="POST"></form>
</div></div></body></html>"""

DDG_LITE = f"""<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
<html><head><title>DuckDuckGo</title></head><body>
<form action="/lite/" method="post"><input type="text" name="q" value="python 3.13"></form>
<table border="0">
  <tr class="result-sponsored">
    <td valign="top">1.&nbsp;</td>
    <td><a rel="nofollow" href="https://duckduckgo.com/y.js?ad_domain=ads.example" class="result-link">Sponsored <b>Python</b> hosting</a></td>
  </tr>
  <tr class="result-sponsored"><td>&nbsp;&nbsp;&nbsp;</td><td class="result-snippet">Cheap hosting.</td></tr>
  <tr>
    <td valign="top">1.&nbsp;</td>
    <td><a rel="nofollow" href="{ddg_link(PYTHON_DOCS)}" class="result-link">What&#x27;s New In <b>Python</b> 3.13</a></td>
  </tr>
  <tr><td>&nbsp;&nbsp;&nbsp;</td><td class="result-snippet">The new features in <b>Python</b> 3.13,
      compared to 3.12.</td></tr>
  <tr><td>&nbsp;&nbsp;&nbsp;</td><td><span class="link-text">docs.python.org/3/whatsnew/3.13.html</span></td></tr>
  <tr><td>&nbsp;</td><td>&nbsp;</td></tr>
  <tr>
    <td valign="top">2.&nbsp;</td>
    <td><a rel="nofollow" href="{ddg_link("https://peps.python.org/pep-0719/")}" class="result-link">PEP 719 &ndash; <b>Python</b> 3.13 Release Schedule</a></td>
  </tr>
  <tr><td>&nbsp;&nbsp;&nbsp;</td><td class="result-snippet">This document describes the development and release schedule.</td></tr>
</table></body></html>
"""


def brave_payload(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "search",
        "query": {
            "original": "python 3.13",
            "show_strict_warning": False,
            "is_navigational": False,
        },
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
        "web": {"type": "search", "results": results, "family_friendly": True},
    }


BRAVE_RESULTS = [
    {
        "title": "What’s New In <strong>Python</strong> 3.13",
        "url": PYTHON_DOCS,
        "is_source_local": False,
        "is_source_both": False,
        "description": "This article explains the new features in <strong>Python</strong> 3.13 &amp; more.",
        "page_age": "2024-10-07T00:00:00",
        "age": "October 7, 2024",
        "language": "en",
        "family_friendly": True,
        "type": "search_result",
        "meta_url": {"scheme": "https", "netloc": "docs.python.org", "hostname": "docs.python.org"},
        "profile": {"name": "Python documentation", "url": "https://docs.python.org"},
    },
    {
        "title": "Python 3.13 release",
        "url": "https://www.python.org/downloads/release/python-3130/",
        "description": "<strong>Python</strong> 3.13.0 is the newest major release.",
        "age": "2 weeks ago",
        "type": "search_result",
    },
    {"type": "search_result", "title": "No link here", "description": "broken entry"},
]

TAVILY_PAYLOAD = {
    "query": "python 3.13",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "What's New In Python 3.13 — Python 3.13.1 documentation",
            "url": PYTHON_DOCS,
            "content": "This article explains the new features in Python 3.13, compared to 3.12.",
            "score": 0.91,
            "raw_content": None,
        },
        {
            "title": "Python 3.13 gets a JIT",
            "url": "https://tonybaloney.github.io/posts/python-gets-a-jit.html",
            "content": "In late December 2023 (Christmas Day to be precise), CPython core developer...",
            "score": 0.77,
            "raw_content": None,
            "published_date": "Mon, 08 Jan 2024 00:00:00 GMT",
        },
    ],
    "response_time": 1.09,
    "request_id": "123e4567-e89b-12d3-a456-426614174111",
}

SERPAPI_PAYLOAD = {
    "search_metadata": {
        "id": "67a1b2c3d4e5f6a7b8c9d0e1",
        "status": "Success",
        "json_endpoint": "https://serpapi.com/searches/abc/67a1b2c3d4e5f6a7b8c9d0e1.json",
        "total_time_taken": 1.42,
    },
    "search_parameters": {"engine": "google", "q": "python 3.13", "google_domain": "google.com"},
    "search_information": {"total_results": 49300000, "query_displayed": "python 3.13"},
    "organic_results": [
        {
            "position": 1,
            "title": "What's New In Python 3.13",
            "link": PYTHON_DOCS,
            "redirect_link": "https://www.google.com/url?sa=t&url=https%3A%2F%2Fdocs.python.org",
            "displayed_link": "https://docs.python.org › whatsnew",
            "snippet": "This article explains the new features in Python 3.13, compared to 3.12.",
            "snippet_highlighted_words": ["Python 3.13"],
            "date": "Oct 7, 2024",
            "source": "Python documentation",
        },
        {
            "position": 2,
            "title": "Python Release Python 3.13.0",
            "link": "https://www.python.org/downloads/release/python-3130/",
            "displayed_link": "https://www.python.org › downloads › release",
            "snippet": "Python 3.13.0 is the newest major release of the Python programming language.",
        },
    ],
}

SEARXNG_PAYLOAD = {
    "query": "python 3.13",
    "number_of_results": 0,
    "results": [
        {
            "url": PYTHON_DOCS,
            "title": "What’s New In Python 3.13",
            "content": "This article explains the new features in Python 3.13, compared to 3.12.",
            "publishedDate": None,
            "engine": "duckduckgo",
            "parsed_url": ["https", "docs.python.org", "/3/whatsnew/3.13.html", "", "", ""],
            "template": "default.html",
            "engines": ["duckduckgo", "brave"],
            "positions": [1, 2],
            "score": 4.0,
            "category": "general",
        },
        {
            "url": "https://www.python.org/downloads/release/python-3130/?utm_campaign=x",
            "title": "Python Release Python 3.13.0 | Python.org",
            "content": "The official home of the Python Programming Language",
            "publishedDate": "2024-10-07T00:00:00",
            "engine": "brave",
            "engines": ["brave"],
            "score": 1.0,
            "category": "general",
        },
        {
            "url": "https://www.python.org/downloads/release/python-3130",
            "title": "Python Release Python 3.13.0 | Python.org",
            "content": "duplicate of the one above, found by another engine",
            "engine": "google",
            "engines": ["google"],
            "score": 0.5,
            "category": "general",
        },
    ],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": ["python 3.13 release date"],
    "unresponsive_engines": [["wikidata", "timeout"]],
}
