"""Small tree helpers shared by the extractors, typed where lxml's stubs are loose."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from lxml import etree

# The whitespace XPath's normalize-space() strips (Python's strip() takes more).
XML_SPACE = " \t\n\r"


def elements(path: etree.XPath, node: etree._Element, **variables: Any) -> list[etree._Element]:
    """Results of an XPath that selects elements (``variables`` may be lists of elements:
    node-sets the path filters in one call)."""
    return cast("list[etree._Element]", path(node, **variables))


def strings(path: etree.XPath, node: etree._Element) -> list[str]:
    """Results of an XPath that selects attribute values or text nodes."""
    return [str(value) for value in cast("list[str]", path(node))]


def number(path: etree.XPath, node: etree._Element) -> float:
    """Result of a numeric XPath expression (``count()``, ``string-length()``)."""
    return float(cast(float, path(node)))


def string(path: etree.XPath, node: etree._Element) -> str:
    """Result of a string XPath expression (``string()``, ``normalize-space()``)."""
    return str(cast(str, path(node)))


def itertext(element: etree._Element) -> Iterator[str]:
    """The element's text nodes; always str for trees parsed from text."""
    return cast("Iterator[str]", element.itertext())


def text_of(element: etree._Element) -> str:
    """The element's text with whitespace runs collapsed, as a reader sees it."""
    return " ".join("".join(itertext(element)).split())


def remove(element: etree._Element, *, keep_space: bool = False) -> None:
    """Detach an element but keep its tail text where it was (a blank tail too with
    ``keep_space``: it may be what separates two words)."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail and (keep_space or element.tail.strip()):
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)
