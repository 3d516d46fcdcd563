"""The page's own ``<style>`` rules, applied inline where a browser surely would.

``.note{display:none}`` in a ``<style>`` block hides ``<p class="note">`` as surely as an
inline style does, and a payload hidden so must not pass for visible text. This is not
a CSS engine: only rules that sit outside any at-rule and whose selector is one simple
compound (``p``, ``.note``, ``#id``, ``div.note.small``), or such compounds joined by
descendant and child combinators (``.faq .answer``, ``ul > li.note``) when the rule
hides, are applied, in cascade order (specificity, then source order; ``!important``
as ``css.declarations`` reads it), before the element's inline style. An element that
a rule this module cannot evaluate might show again (a selector with a sibling
combinator or a pseudo-class, a rule inside ``@media``, or a rule with a combinator
that shows, which a script can switch on by changing an ancestor's class, whose last
compound matches it) is left alone: this step only ever adds hiding a browser surely
applies.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from sleuth.extract.css import declarations
from sleuth.extract.dom import strings

_COMMENT_RE = re.compile(r"/\*.*?(?:\*/|$)", re.DOTALL)
_BRACES_RE = re.compile(r"[{};]")
_COMPOUND_RE = re.compile(r"([a-z][a-z0-9-]*|\*)?((?:[.#][_a-z0-9-]+)*)", re.IGNORECASE)
_PART_RE = re.compile(r"[.#][_a-z0-9-]+", re.IGNORECASE)
# Ends a compound in a complex selector: combinators, or a pseudo-class/attribute part.
_COMBINATOR_RE = re.compile(r"[\s>+~]+")
_PSEUDO_RE = re.compile(r"[:\[].*$")
# Splits a complex selector into compounds and the descendant (" ") or child (">")
# combinators between them; a sibling combinator leaves a part no compound reads.
_COMBINATOR_SPLIT_RE = re.compile(r"(\s*>\s*|\s+)")
# The properties through which a style hides or shows an element.
_VISIBILITY_PROPERTIES = frozenset(
    (
        *("display", "visibility", "opacity", "content-visibility", "transform"),
        *("clip", "clip-path", "text-indent"),
    )
)
_VISIBILITY_RE = re.compile(
    r"(?:display|visibility|opacity|transform|clip|clip-path|text-indent)\s*:", re.IGNORECASE
)
# The names of the properties bearing on visibility as they end ("-webkit-transform",
# "content-visibility"), and the escape that may start a disguised one; an at-rule with
# its block (rules nested one deep); an at-rule statement (@import, @charset).
_PROPERTY_NAMES = ("display", "visibility", "opacity", "transform", "clip", "text-indent", "\\")
_ESCAPED_NAME_RE = re.compile(r"\\[^{};:]*:")
_COLON_RE = re.compile(r"(?:-path)?\s*:")
_AT_BLOCK_RE = re.compile(r"@[^{};]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}")
_AT_STATEMENT_RE = re.compile(r"@[^{};]*;")
_AT_RULE_LEFT_RE = re.compile(r"@[a-z-]+[^{};]*\{", re.IGNORECASE)
_MEDIA_APPLIED = frozenset(("", "all", "screen"))
# More CSS than this in one page is a framework's, not an author's: skip the rest.
_MAX_CSS = 1_000_000


_Compound = tuple[str | None, frozenset[str], str | None]  # tag, classes, id


def _compound_matches(compound: _Compound, element: etree._Element) -> bool:
    tag, classes, ident = compound
    if tag is not None and element.tag != tag:
        return False
    if ident is not None and element.get("id") != ident:
        return False
    if not classes:
        return True
    names = element.get("class")
    return names is not None and classes <= set(names.split())


@dataclass(frozen=True)
class _Rule:
    tag: str | None
    classes: frozenset[str]
    ident: str | None
    specificity: tuple[int, int, int]
    order: int
    block: str  # its declarations that bear on visibility
    # The compounds left of the last one, nearest first, each with the combinator that
    # joins it to the one on its right: " " (an ancestor) or ">" (the parent).
    context: tuple[tuple[str, _Compound], ...] = ()

    def matches(self, element: etree._Element) -> bool:
        if not _compound_matches((self.tag, self.classes, self.ident), element):
            return False
        node: etree._Element | None = element
        for combinator, compound in self.context:
            node = node.getparent() if node is not None else None
            if combinator == ">":
                if node is None or not _compound_matches(compound, node):
                    return False
                continue
            while node is not None and not _compound_matches(compound, node):
                node = node.getparent()
            if node is None:
                return False
        return True


@dataclass
class _Sheet:
    rules: list[_Rule]
    # Rules this module cannot evaluate that might show an element again, by the
    # simple compound they end with.
    showing: list[_Rule]


def _compound(text: str, order: int, block: str) -> _Rule | None:
    """A selector that is one simple compound, as a rule; None for anything else."""
    parsed = _parse_compound(text.strip())
    return None if parsed is None else _Rule(*parsed, order, block)


def _complex(text: str, order: int, block: str) -> _Rule | None:
    """A selector of simple compounds joined by descendant or child combinators
    (``.faq .answer``, ``ul > li.note``), as a rule; None for anything else."""
    parsed = _parse_complex(text.strip())
    return None if parsed is None else _Rule(*parsed[:4], order, block, parsed[4])


@lru_cache(maxsize=8192)
def _parse_complex(
    text: str,
) -> (
    tuple[
        str | None,
        frozenset[str],
        str | None,
        tuple[int, int, int],
        tuple[tuple[str, _Compound], ...],
    ]
    | None
):
    """The last compound of a complex selector with its specificity, and the compounds
    and combinators left of it, nearest first."""
    tokens = _COMBINATOR_SPLIT_RE.split(text)
    if len(tokens) < 3 or len(tokens) % 2 == 0:
        return None
    compounds = [_parse_compound(token) for token in tokens[::2]]
    if any(c is None or (c[0] is None and not c[1] and c[2] is None) for c in compounds):
        return None  # a part this reader does not know, or a bare "*"
    combinators = [token.strip() or " " for token in tokens[1::2]]
    parsed = [c for c in compounds if c is not None]
    tag, classes, ident, _ = parsed[-1]
    ids, names, tags = (sum(c[3][i] for c in parsed) for i in range(3))
    context = tuple(
        (combinator, (c[0], c[1], c[2]))
        for combinator, c in zip(reversed(combinators), reversed(parsed[:-1]), strict=True)
    )
    return tag, classes, ident, (ids, names, tags), context


@lru_cache(maxsize=8192)
def _parse_compound(
    text: str,
) -> tuple[str | None, frozenset[str], str | None, tuple[int, int, int]] | None:
    """Tag, classes, id and specificity of a simple compound selector (pages and their
    frameworks repeat the same selectors, hence the cache)."""
    match = _COMPOUND_RE.fullmatch(text)
    if match is None or not text:
        return None
    tag = match.group(1)
    parts = _PART_RE.findall(match.group(2) or "")
    ids = [part[1:] for part in parts if part[0] == "#"]
    classes = frozenset(part[1:] for part in parts if part[0] == ".")
    if len(ids) > 1:
        return None
    specificity = (len(ids), len(classes), 0 if tag in (None, "*") else 1)
    return (
        None if tag in (None, "*") else tag.lower(),
        classes,
        ids[0] if ids else None,
        specificity,
    )


def _visible_blocks(css: str) -> list[tuple[str, str, bool]]:
    """(selector list, declarations, inside an at-rule) for each style rule in ``css``
    that sets a property bearing on visibility: the regular expressions do the reading
    (a page can hold megabytes of CSS), and ``_blocks`` reads what they cannot (at-rules
    nested two deep)."""
    nested: list[str] = []

    def cut(match: re.Match[str]) -> str:
        nested.append(match.group())
        return ""

    top = _AT_BLOCK_RE.sub(cut, _AT_STATEMENT_RE.sub("", css))
    if _AT_RULE_LEFT_RE.search(top):  # nested deeper than this reads
        return _blocks(css)
    found = [(selector, block, False) for selector, block in _rules_setting_visibility(top)]
    for chunk in nested:
        found += [(selector, block, True) for selector, block in _rules_setting_visibility(chunk)]
    return found


def _property_positions(css: str) -> list[int]:
    """Where a property bearing on visibility is declared (or any escaped name), in
    order: ``str.find`` per name, ten times as fast as one regular expression."""
    lower = css.lower()
    positions: list[int] = []
    for name in _PROPERTY_NAMES:
        index = lower.find(name)
        while index >= 0:
            end = index + len(name)
            if name == "\\":
                if _ESCAPED_NAME_RE.match(lower, index):
                    positions.append(index)
            elif lower[end : end + 1] == ":" or _COLON_RE.match(lower, end):
                positions.append(index)
            index = lower.find(name, end)
    return sorted(positions)


def _rules_setting_visibility(css: str) -> list[tuple[str, str]]:
    """(selector list, declarations) of each rule of ``css`` (no at-rules left in it)
    whose block names a property bearing on visibility: found by the names, and the
    rule around each read from the braces around it."""
    found: list[tuple[str, str]] = []
    last_open = -1
    for position in _property_positions(css):
        opening = css.rfind("{", 0, position)
        if opening <= last_open or css.rfind("}", 0, position) > opening:
            continue  # the rule is read already, or the name is in a selector
        closing = css.find("}", position)
        if closing < 0:
            break
        start = max(css.rfind("}", 0, opening), css.rfind("{", 0, opening)) + 1
        found.append((css[start:opening], css[opening + 1 : closing]))
        last_open = opening
    return found


def _blocks(css: str) -> list[tuple[str, str, bool]]:
    """(selector list, declarations, inside an at-rule) for each style rule in ``css``."""
    found: list[tuple[str, str, bool]] = []
    depth = 0
    at_depths: list[int] = []
    start = 0
    selector = ""
    for mark in _BRACES_RE.finditer(css):
        char = mark.group()
        if char == ";":
            if depth == len(at_depths) and css[start : mark.start()].lstrip().startswith("@"):
                start = mark.end()  # a statement at-rule (@import, @charset)
            continue
        if char == "{":
            prelude = css[start : mark.start()].strip()
            if prelude.startswith("@"):
                at_depths.append(depth)
            else:
                selector = prelude
            depth += 1
            start = mark.end()
            continue
        depth = max(depth - 1, 0)
        if at_depths and at_depths[-1] == depth:
            at_depths.pop()
        elif selector:
            found.append((selector, css[start : mark.start()], bool(at_depths)))
            selector = ""
        start = mark.end()
    return found


def read_sheet(root: etree._Element) -> _Sheet | None:
    """The page's ``<style>`` rules, read before the styles are dropped."""
    texts = [
        style.text
        for style in root.iter("style")
        if style.text and (style.get("media") or "").strip().lower() in _MEDIA_APPLIED
    ]
    if not texts:
        return None
    css = _COMMENT_RE.sub("", "\n".join(texts))[:_MAX_CSS]
    rules: list[_Rule] = []
    showing: list[_Rule] = []
    for order, (selectors, raw, nested) in enumerate(_visible_blocks(css)):
        if "\\" in raw:  # escapes: let the full reader normalise the names
            parts = [f"{p}:{v}" for p, v in declarations(raw).items()]
            block = ";".join(p for p in parts if p.partition(":")[0] in _VISIBILITY_PROPERTIES)
        elif _VISIBILITY_RE.search(raw):
            block = ";".join(_visibility_parts(raw))
        else:
            continue  # cheap: most rules set nothing that hides or shows
        if not block:
            continue
        for selector in selectors.split(","):
            rule = None if nested else _compound(selector, order, block)
            if rule is None and not nested:
                rule = _complex(selector, order, block)
            if rule is not None:
                rules.append(rule)
                continue
            tail = _PSEUDO_RE.sub("", _COMBINATOR_RE.split(selector.strip())[-1])
            compound = _compound(tail, order, block) if tail else None
            if compound is not None and (compound.classes or compound.ident or compound.tag):
                showing.append(compound)
    return _Sheet(rules, showing) if rules else None


@lru_cache(maxsize=8192)
def _visibility_parts(block: str) -> tuple[str, ...]:
    """The declarations of ``block`` that bear on visibility, ``!important`` kept (an
    important rule beats the inline style)."""
    return tuple(
        part
        for part in block.split(";")
        if part.partition(":")[0].strip().lower() in _VISIBILITY_PROPERTIES
    )


def _index(rules: list[_Rule]) -> dict[str, list[_Rule]]:
    keyed: dict[str, list[_Rule]] = defaultdict(list)
    for rule in rules:
        if rule.ident is not None:
            keyed["#" + rule.ident].append(rule)
        elif rule.classes:
            keyed["." + min(rule.classes)].append(rule)
        else:
            keyed[rule.tag or "*"].append(rule)
    return keyed


def _candidates(
    element: etree._Element, keyed: dict[str, list[_Rule]], *, last_only: bool = False
) -> list[_Rule]:
    """The rules of ``keyed`` that match ``element`` (``last_only``: whose last compound
    does, whatever stands left of it)."""
    keys = [str(element.tag), "*"]
    keys += ["." + name for name in (element.get("class") or "").split()]
    ident = element.get("id")
    if ident:
        keys.append("#" + ident)
    if last_only:
        return [
            rule
            for key in keys
            for rule in keyed.get(key, ())
            if _compound_matches((rule.tag, rule.classes, rule.ident), element)
        ]
    return [rule for key in keys for rule in keyed.get(key, ()) if rule.matches(element)]


_CLASS_VALUES = etree.XPath("//@class")
_ID_VALUES = etree.XPath("//@id")


def _names_present(body: etree._Element) -> tuple[set[str], set[str]]:
    """The class names and ids the page uses."""
    classes = {name for value in strings(_CLASS_VALUES, body) for name in value.split()}
    return classes, set(strings(_ID_VALUES, body))


def _may_match(rule: _Rule, classes: set[str], idents: set[str]) -> bool:
    """Whether every compound of ``rule`` names only classes and ids the page uses."""
    compounds = [(rule.tag, rule.classes, rule.ident), *(c for _, c in rule.context)]
    return all(
        names <= classes and (ident is None or ident in idents) for _, names, ident in compounds
    )


def apply_sheet(root: etree._Element, sheet: _Sheet, hides: Callable[[str], bool]) -> None:
    """Write the visibility a browser surely applies into the style of each element it
    hides (``hides`` judges a style, see ``sanitize.style_hides``)."""
    body = root.find("body")
    if body is None:
        return
    # A rule with a combinator hides where its ancestors match now; one that does not
    # hide may show an element once a script changes an ancestor's class ("js"), so it
    # counts as a rule that might show whatever ends in the compound it ends with.
    evaluated: list[_Rule] = []
    undone: list[_Rule] = []
    hiding: dict[str, bool] = {}
    present: tuple[set[str], set[str]] | None = None
    for rule in sheet.rules:
        if not rule.context:
            evaluated.append(rule)
            continue
        if rule.block not in hiding:
            hiding[rule.block] = hides(rule.block)
        if not hiding[rule.block]:
            undone.append(rule)
            continue
        if present is None:
            present = _names_present(body)
        if _may_match(rule, *present):  # most of a framework's rules name absent classes
            evaluated.append(rule)
    keyed, showing = _index(evaluated), _index([*sheet.showing, *undone])
    tags = {key for key in keyed if key[0] not in ".#"}
    names = {key[1:] for key in keyed if key[0] == "."}
    idents = {key[1:] for key in keyed if key[0] == "#"}
    for element in body.iter(etree.Element):
        classes = element.get("class")
        if (
            element.tag not in tags
            and "*" not in tags
            and element.get("id") not in idents
            and (not classes or names.isdisjoint(classes.split()))
        ):
            continue  # no rule can match it: the common case, kept cheap
        matched = _candidates(element, keyed)
        if not matched or _candidates(element, showing, last_only=True):
            continue
        matched.sort(key=lambda rule: (rule.specificity, rule.order))
        inline = element.get("style") or ""
        merged = ";".join([*(rule.block for rule in matched), inline])
        if hides(merged) and not hides(inline):
            element.set("style", merged)
