"""Write the typed Python API's per-operation lines from the registry of operations.

Usage::

    python scripts/bindings.py          # rewrite the derived regions
    python scripts/bindings.py --check  # exit 1, saying which, when one is out of date

A typed method cannot be added to a class from a loop without losing its signature for
type checkers, so the lines that bind each operation (``AsyncSleuth.fetch``, its blocking
twin ``Sleuth.fetch``, the one-shots ``sleuth.fetch`` and ``sleuth.afetch``, and their
exports) are derived from :data:`sleuth.ops.NAMES` and written between ``# derived: KEY``
and ``# end derived: KEY`` in ``src/sleuth/api.py`` and ``src/sleuth/__init__.py``. Adding
an operation is its module and its name in ``NAMES``; the tests run ``--check``.

Which function an operation gets follows from its declared function: a coroutine gets a
blocking method and, unless its name is a module or package of sleuth (``suggest``) or a
Python builtin (``map``), either of which would shadow the one-shot, the one-shots; an
async generator gets a blocking iterator; a crawl run gets the blocking run.
"""

from __future__ import annotations

import argparse
import builtins
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
API = SRC / "sleuth" / "api.py"
INIT = SRC / "sleuth" / "__init__.py"


def _kinds() -> list[tuple[str, str]]:
    """Each operation's name and how it runs: ``call``, ``stream`` or ``run``."""
    sys.path.insert(0, str(SRC))
    from sleuth.ops import NAMES, find

    kinds = []
    for name in NAMES:
        op = find(name)
        assert op is not None
        method = inspect.unwrap(op.method)
        if inspect.iscoroutinefunction(method):
            kinds.append((name, "call"))
        elif inspect.isasyncgenfunction(method):
            kinds.append((name, "stream"))
        elif "CrawlRun" in str(inspect.signature(method).return_annotation):
            kinds.append((name, "run"))
        else:
            raise SystemExit(f"operation {name}: no blocking form for what it returns")
    return kinds


def _shortcut(name: str, kind: str) -> bool:
    package = SRC / "sleuth"
    module = (package / name).is_dir() or (package / f"{name}.py").exists()
    shadows = hasattr(builtins, name) or module
    return kind == "call" and not shadows


def regions() -> dict[Path, dict[str, list[str]]]:
    kinds = sorted(_kinds())  # sorted, as the linter keeps imports and names
    blocking = {"call": "_blocking", "stream": "_blocking_stream", "run": "_blocking_crawl"}
    shortcuts = [name for name, kind in kinds if _shortcut(name, kind)]
    exported = sorted([*shortcuts, *(f"a{name}" for name in shortcuts)], key=str.lower)
    return {
        API: {
            # the blank line: the linter keeps the end comment apart from the next import
            "imports": [*(f"import sleuth.ops.{name}" for name, _ in kinds), ""],
            "methods": [f"    {name} = Bound(sleuth.ops.{name}.{name})" for name, _ in kinds],
            "blocking": [
                f"    {name} = {blocking[kind]}(AsyncSleuth.{name})" for name, kind in kinds
            ],
            "one-shots": [f"{name} = _one_shot(AsyncSleuth.{name})" for name in shortcuts]
            + [f"a{name} = _async_one_shot(AsyncSleuth.{name})" for name in shortcuts],
        },
        INIT: {
            "imports": [f"        {name}," for name in exported],
            "exports": [f'    "{name}": "sleuth.api",' for name in exported],
            "names": [f'    "{name}",' for name in exported],
        },
    }


def _rewrite(text: str, key: str, lines: list[str], path: Path) -> str:
    pattern = re.compile(
        rf"(^[ \t]*# derived: {re.escape(key)}\n)(.*?)(^[ \t]*# end derived: {re.escape(key)}$)",
        re.MULTILINE | re.DOTALL,
    )
    if len(pattern.findall(text)) != 1:
        raise SystemExit(f"{path}: expected one region '# derived: {key}'")
    body = "".join(line + "\n" for line in lines)
    return pattern.sub(lambda found: found.group(1) + body + found.group(3), text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    check = parser.parse_args().check
    stale = []
    for path, keys in regions().items():
        text = path.read_text("utf-8")
        new = text
        for key, lines in keys.items():
            new = _rewrite(new, key, lines, path)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new, "utf-8")
    if check and stale:
        names = ", ".join(map(str, stale))
        print(f"out of date: {names}; run python scripts/bindings.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
