"""Telling a page's findings from its chrome, on text extraction kept.

Extraction keeps blocks that are not the page's content often enough: a
related-article teaser, a "read more" line, a call to action, a credit line,
a heading. None of them is a finding, so none is quoted. The rules look at
the shape of a passage, not at any site's words:

* a *heading or teaser* has no sentence end and few words, or most of its
  words capitalised (a title);
* a *label line* is ``Label: value`` where the value is a title or a list
  of short items (tags, credits, categories);
* a *call to action* is a sentence addressed to the reader: a question, an
  exclamation, an offer (the reader with "our", "now", "today" or "free"),
  or an imperative of the small set of verbs that interfaces use (click,
  subscribe, share, read more, learn how, find out why, reach out...). Such
  sentences are trimmed from either end of a passage; what remains is
  quoted only if it is still a statement of some length;
* a *pitch* is what is left of a passage a call to action was trimmed from
  when every sentence of it is the site speaking of itself ("we", "our", "us")
  and one speaks to the reader: "Do not hesitate to reach out. We have
  experts to consult with you on your project.";
* a *link run* is many words without one punctuation mark: link texts run
  together by extraction (tags, teaser titles, menus);
* a *repeated line* (a short line the page carries twice or more) is a menu
  entry or a widget, not a finding;
* a *teaser* is a paragraph under a title that links to another page, and a *link
  line* a line of nothing but the texts of several links to other pages (a row of
  tags, a menu, titles run together): both describe other pages.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from sleuth.digest.segment import Span, sentence_spans

_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
_SENTENCE_END = frozenset(".!?;:\u2026\u3002\uff01\uff1f\u061f\u0964")
_PUNCTUATION = re.compile(r"[.,;:!?\u3001\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u060c\u061f]")
_CLOSERS = frozenset(")]\"'\u201d\u2019\u300d\u300f")
_LABEL = re.compile(r"([^\W\d_][\w'\u2019-]*(?: [^\W\d_][\w'\u2019-]*)?)\s?:\s")
_LEAD = re.compile(r"[^\w]+")
_LINK_WORD = re.compile(r"\w+")
_YOU = re.compile(r"\b(?:you|your|you're|you've|you'd|you'll)\b", re.IGNORECASE)
# "If you liked this guide, share it", "To learn more about our method, read ...": the
# imperative follows the condition or the purpose; "Also check out ...": an adverb
# before the imperative.
_CONDITION = re.compile(
    r"^\W*(?:(?:if|to learn more|for more)\b[^,]{0,80},\s*|(?:also|so|and)\s+)", re.IGNORECASE
)
_OFFER = re.compile(r"\b(?:our|today|now|free)\b", re.IGNORECASE)
# The site speaking of itself: "we", "our", "us".
_WE = re.compile(r"\b(?:we|we're|we've|we'll|our|ours|us)\b", re.IGNORECASE)
# Verbs that open a button, a banner or a teaser line rather than a statement. Words
# that often open a statement too ("like", "order", "book") are left out.
_CALL_VERBS = frozenset(
    (
        *("browse", "buy", "check", "click", "contact", "discover", "download", "explore"),
        *("follow", "join", "jump", "listen", "pin", "please", "read", "register", "share"),
        *("shop", "sign", "signup", "skip", "subscribe", "tap", "view", "visit", "watch"),
    )
)
# Matched after punctuation became spaces, so "don't miss" is "don t miss". "Learn" and
# "find out" open a teaser only with what they promise ("learn to knead" is a step).
_CALL_PHRASES = (
    "learn more",
    "read more",
    "see more",
    "find out more",
    "get started",
    "sign up",
    "don t miss",
    *("learn how", "learn about", "learn why", "learn what", "learn ways", "learn the best"),
    *("find out how", "find out why", "find out what"),
    "do not hesitate",
    "don t hesitate",
    "reach out",
    "get in touch",
    "talk to us",
)
MIN_WORDS = 10
TITLE_SHARE = 0.5
TITLE_SHARE_WITH_END = 0.8
MIN_TITLE_WORDS = 4
MAX_REPEATED_CHARS = 200
MAX_CHROME_SENTENCE = 300
MIN_RUN_WORDS = 15
MIN_FINDING_CHARS = 40
MIN_LIST_ITEMS = 3
MAX_LIST_ITEM_WORDS = 4
MIN_LINE_LINKS = 3
MAX_LINK_LINE = 1000
PROSE_REACH = 1500
PROSE_LINE_CHARS = 100


def _capitalised_share(words: list[str]) -> float:
    """The share of longer words that begin with a capital (short function words do not count)."""
    long_words = [w for w in words if len(w) >= 4]
    if len(long_words) < MIN_TITLE_WORDS:
        return 0.0
    return sum(w[0].isupper() for w in long_words) / len(long_words)


def _spaced(text: str) -> bool:
    """Whether words are separated by spaces (not CJK or Thai, where a word count means nothing)."""
    return text.count(" ") * 15 >= len(text)


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends a sentence, perhaps inside a closing quote or bracket."""
    text = text.rstrip()
    while text and text[-1] in _CLOSERS:
        text = text[:-1]
    return bool(text) and text[-1] in _SENTENCE_END


def title_like(text: str, words: list[str] | None = None) -> bool:
    """A heading, a teaser title or a menu entry rather than a statement."""
    text = text.strip()
    if not text:
        return True
    words = _WORD.findall(text) if words is None else words
    ended = ends_sentence(text)
    share = _capitalised_share(words)
    if share >= TITLE_SHARE_WITH_END:
        return True
    if ended:
        return False
    if not _spaced(text):
        return len(text) < MIN_FINDING_CHARS
    return len(words) < MIN_WORDS or share >= TITLE_SHARE


def link_run(text: str, words: list[str] | None = None) -> bool:
    """Many words and not one punctuation mark: link texts run together (tags, teasers, menus)."""
    count = len(_WORD.findall(text) if words is None else words)
    return count >= MIN_RUN_WORDS and not _PUNCTUATION.search(text)


def label_line(text: str) -> bool:
    """``Tags: a, b, c`` or ``Credit: Some Name``: metadata, not a finding."""
    match = _LABEL.match(text)
    if match is None:
        return False
    value = text[match.end() :].strip()
    items = [item.strip() for item in re.split(r"[,/|\u00b7\u2022]", value) if item.strip()]
    if len(items) >= MIN_LIST_ITEMS and all(
        len(_WORD.findall(item)) <= MAX_LIST_ITEM_WORDS for item in items
    ):
        return True
    return title_like(value)


def call_to_action(sentence: str) -> bool:
    """A sentence that asks the reader to do something, or asks the reader something."""
    sentence = sentence.strip()
    if not sentence:
        return False
    if sentence.endswith("!") or sentence.endswith("?"):
        return True
    lead = _LEAD.sub(" ", _CONDITION.sub("", sentence)[:40].lower()).strip()
    first = lead.split(" ", 1)[0] if lead else ""
    if first in _CALL_VERBS or lead.startswith(_CALL_PHRASES):
        return True
    if not ends_sentence(sentence) and _YOU.search(sentence):
        return True  # a banner or a button speaking to the reader
    # An offer: the site speaking of itself to the reader, or pressing for now.
    return bool(_YOU.search(sentence)) and bool(_OFFER.search(sentence))


def _not_a_statement(sentence: str) -> bool:
    return call_to_action(sentence) or label_line(sentence) or title_like(sentence)


def prose_share(text: str, start: int, end: int, reach: int = PROSE_REACH) -> float:
    """How much of the text around a passage is prose: long lines that end a sentence.

    Main content is paragraphs; teaser lists, menus, footers and sidebars are
    short lines. A passage surrounded by prose is more likely the page's own.
    """
    low = text.rfind("\n", 0, max(0, start - reach)) + 1
    high = text.find("\n", min(len(text), end + reach))
    high = len(text) if high < 0 else high
    total = prose = 0
    for raw in text[low:high].split("\n"):
        line = raw.strip()
        total += len(line)
        if len(line) >= PROSE_LINE_CHARS and ends_sentence(line):
            prose += len(line)
    return prose / total if total else 0.0


def _first_sentence(text: str, start: int, end: int) -> Span | None:
    """The first sentence of ``text[start:end]``, or None when it is too long to be chrome."""
    limit = min(end, start + MAX_CHROME_SENTENCE)
    spans = sentence_spans(text, start, limit)
    if not spans or (spans[0][1] == limit and limit < end):
        return None
    return spans[0]


def _last_sentence(text: str, start: int, end: int) -> Span | None:
    """The last sentence of ``text[start:end]``, or None when it is too long to be chrome."""
    low = max(start, end - MAX_CHROME_SENTENCE)
    spans = sentence_spans(text, low, end)
    if not spans or (spans[-1][0] == low and low > start):
        return None
    return spans[-1]


def finding_span(text: str, start: int, end: int) -> Span | None:
    """``text[start:end]`` without chrome at either end, or None when nothing is a finding.

    Only the ends are cut into sentences (a chrome sentence is short), so a
    long paragraph costs two small scans.
    """
    passage = text[start:end]
    words = _WORD.findall(passage)
    if label_line(passage) or title_like(passage, words) or link_run(passage, words):
        return None
    whole = start, end
    while start < end and (first := _first_sentence(text, start, end)) is not None:
        if not _not_a_statement(text[first[0] : first[1]]):
            break
        start = first[1]
    while start < end and (last := _last_sentence(text, start, end)) is not None:
        if not _not_a_statement(text[last[0] : last[1]]):
            break
        end = last[0]
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if (start, end) == whole:
        return whole
    if end - start < MIN_FINDING_CHARS or title_like(text[start:end]):
        return None
    if pitch(text[start:end]):
        return None  # what a call to action framed is the site's pitch
    return start, end


def pitch(text: str) -> bool:
    """The site speaking of itself to the reader in every sentence ("we ... your project")."""
    sentences = [text[s:e] for s, e in sentence_spans(text)]
    return (
        bool(sentences)
        and all(_WE.search(sentence) for sentence in sentences)
        and any(_YOU.search(sentence) for sentence in sentences)
    )


class RepeatedLines:
    """The short lines a page carries more than once (menu entries, widgets, ad slots)."""

    def __init__(self, text: str) -> None:
        counts = Counter(
            line.strip() for line in text.split("\n") if 0 < len(line) <= MAX_REPEATED_CHARS
        )
        self._repeated = {line for line, count in counts.items() if count > 1 and line}

    def __contains__(self, line: str) -> bool:
        return line.strip() in self._repeated


def line_of(text: str, start: int) -> str:
    """The whole line of ``text`` holding offset ``start``."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    return text[line_start : len(text) if line_end < 0 else line_end]


def teaser_spans(text: str, titles: frozenset[str]) -> list[Span]:
    """The paragraphs under a title that links to another page: a card describing that
    page (a related article, a teaser list), not this one.

    ``titles`` are the link texts to other pages, whitespace collapsed and lower-cased.
    """
    if not titles:
        return []
    spans: list[Span] = []
    under_title = False
    position = 0
    for line in text.split("\n"):
        end = position + len(line)
        key = " ".join(line.split()).lower()
        if key in titles:
            under_title = True
        elif key:
            if under_title:
                spans.append((position, end))
            under_title = False
        position = end + 1
    return spans


def link_lines(text: str, link_texts: Iterable[str]) -> list[Span]:
    """The lines of nothing but the texts of ``MIN_LINE_LINKS`` or more links to other
    pages (a row of tags, a menu, titles run together): every word on them names
    another page. A line that ends a sentence is prose, even if it links.

    ``link_texts`` are the texts of the page's links to other pages, whitespace collapsed.
    """
    names = {tuple(words) for name in link_texts if (words := _LINK_WORD.findall(name))}
    if len(names) < MIN_LINE_LINKS:
        return []
    linked = {word for name in names for word in name}
    lengths = sorted({len(name) for name in names})
    spans: list[Span] = []
    position = 0
    for line in text.split("\n"):
        end = position + len(line)
        words = _LINK_WORD.findall(line)
        if (
            len(words) >= MIN_LINE_LINKS
            and len(line) <= MAX_LINK_LINE
            and linked.issuperset(words)  # a cheap first look
            and not ends_sentence(line)
            and _names_in(words, names, lengths) >= MIN_LINE_LINKS
        ):
            spans.append((position, end))
        position = end + 1
    return spans


def _names_in(words: list[str], names: set[tuple[str, ...]], lengths: list[int]) -> int:
    """The most link names ``words`` splits into, one after another with nothing left
    over; 0 when it does not split into names."""
    most = [-1] * (len(words) + 1)  # the most names the first i words split into
    most[0] = 0
    for i in range(len(words)):
        if most[i] < 0:
            continue
        for length in lengths:
            if i + length > len(words):
                break
            if tuple(words[i : i + length]) in names:
                most[i + length] = max(most[i + length], most[i] + 1)
    return max(most[-1], 0)
