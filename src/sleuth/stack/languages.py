"""Which language a source file is written in, judged by its extension alone.

Extensions are counted while scanning; these tables turn the counts into languages so that
detectors can check that the sources agree with the manifest, and so that folders of loose
sources can be recognised at all.
"""

from __future__ import annotations

from collections.abc import Mapping

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".scala": "Scala",
    ".sc": "Scala",
    ".groovy": "Groovy",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".mts": "TypeScript",
    ".cts": "TypeScript",
    ".py": "Python",
    ".go": "Go",
    ".cs": "C#",
    ".fs": "F#",
    ".fsx": "F#",
    ".fsi": "F#",
    ".vb": "Visual Basic",
    ".rb": "Ruby",
    ".php": "PHP",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".cxx": "C++",
    ".c++": "C++",
    ".hh": "C++",
    ".hpp": "C++",
    ".hxx": "C++",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".erl": "Erlang",
    ".swift": "Swift",
    ".dart": "Dart",
    ".zig": "Zig",
    # Languages no deterministic detector builds; the source guesser and the LLM still see them.
    ".hs": "Haskell",
    ".ml": "OCaml",
    ".clj": "Clojure",
    ".cljs": "Clojure",
    ".lua": "Lua",
    ".nim": "Nim",
    ".jl": "Julia",
    ".cr": "Crystal",
    ".gleam": "Gleam",
    ".elm": "Elm",
    ".pl": "Perl",
    ".r": "R",
    ".d": "D",
    ".v": "V",
    ".odin": "Odin",
    ".sol": "Solidity",
}


def language_counts(extensions: Mapping[str, int]) -> dict[str, int]:
    """Source files per language, from per-extension counts."""
    counts: dict[str, int] = {}
    for ext, n in extensions.items():
        language = LANGUAGE_BY_EXTENSION.get(ext)
        if language is not None:
            counts[language] = counts.get(language, 0) + n
    return counts


def dominant(counts: Mapping[str, int], among: tuple[str, ...] | None = None) -> str | None:
    """The language with the most files (first listed wins a tie), or None without sources."""
    names = among if among is not None else tuple(counts)
    best: str | None = None
    for name in names:
        if counts.get(name, 0) > (counts.get(best, 0) if best else 0):
            best = name
    return best


def c_family(counts: Mapping[str, int]) -> str | None:
    """C or C++ for a native build; headers (``.h``) count as C, so C++ wins when it has more."""
    c, cpp = counts.get("C", 0), counts.get("C++", 0)
    if c == 0 and cpp == 0:
        return None
    return "C++" if cpp > 0 and cpp * 2 >= c else "C"
