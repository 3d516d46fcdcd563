"""Java ``.properties`` files: the flat ``key=value`` form Spring and Quarkus read."""

from __future__ import annotations


def parse_properties(text: str) -> dict[str, str]:
    """Keys and values; ``=``, ``:`` or blanks separate them, ``#`` and ``!`` start comments."""
    out: dict[str, str] = {}
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending = line[:-1]
            continue
        if not line or line[0] in "#!":
            continue
        cut = len(line)
        for sep in ("=", ":", " ", "\t"):
            pos = line.find(sep)
            if 0 <= pos < cut:
                cut = pos
        key = line[:cut].strip()
        value = line[cut:].lstrip()
        if value[:1] in ("=", ":"):  # "key = value": blanks, then one separator
            value = value[1:]
        value = value.strip()
        if key:
            out[key] = value
    return out
