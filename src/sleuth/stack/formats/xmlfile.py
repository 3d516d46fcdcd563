"""XML manifests (``pom.xml``, ``*.csproj``) parsed without entities or a DTD.

Manifests never need a document type, and a DTD is how entity expansion attacks arrive, so
a document that declares one is refused outright rather than parsed carefully.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator


class XMLRefused(ValueError):
    """The document is malformed or declares a DTD."""


def parse_xml(text: str) -> ET.Element:
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise XMLRefused("declares a DTD, which manifests never need")
    try:
        return ET.fromstring(text)
    except ET.ParseError as exc:
        raise XMLRefused(str(exc)) from exc


def local(tag: str) -> str:
    """A tag without its ``{namespace}``."""
    return tag.rpartition("}")[2]


def children(element: ET.Element, name: str) -> Iterator[ET.Element]:
    for child in element:
        if isinstance(child.tag, str) and local(child.tag) == name:
            yield child


def child(element: ET.Element | None, *path: str) -> ET.Element | None:
    """The first element down ``path`` of local names, or None."""
    node = element
    for name in path:
        if node is None:
            return None
        node = next(children(node, name), None)
    return node


def text_of(element: ET.Element | None, *path: str) -> str | None:
    node = child(element, *path)
    if node is None or node.text is None:
        return None
    return node.text.strip() or None
