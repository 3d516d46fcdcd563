"""How often sleuth's judged page type agrees with WCXB's reviewed page type.

Usage::

    .venv/bin/python bench/page_types.py ../shared/data/wcxb-dev

Every page of the split is extracted as ``sleuth extract`` would (``metadata.page_type``)
and compared with the reviewed type in ``_internal.page_type.primary``. Prints the
agreement per true type and a confusion table (rows: true type, columns: judged type).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from sleuth.extract import extract

TYPES = ("article", "documentation", "service", "forum", "collection", "listing", "product")


def judged_types(root: Path) -> list[tuple[str, str]]:
    """(true type, judged type) for every page with a reviewed type."""
    pairs = []
    for truth_path in sorted((root / "dev" / "ground-truth").glob("*.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        wanted = ((truth.get("_internal") or {}).get("page_type") or {}).get("primary")
        page = root / "dev" / "html" / f"{truth_path.stem}.html.gz"
        if not wanted or not page.is_file():
            continue
        url = truth.get("url") or (truth.get("ground_truth") or {}).get("url")
        result = extract(gzip.decompress(page.read_bytes()), url=url)
        pairs.append((wanted, str(result.metadata.get("page_type", "none"))))
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="the WCXB dev folder (holds dev/)")
    args = parser.parse_args()
    pairs = judged_types(args.data)
    if not pairs:
        print(f"no reviewed pages under {args.data}", file=sys.stderr)
        return 2
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for wanted, judged in pairs:
        confusion[wanted][judged] += 1
    agree = sum(confusion[t][t] for t in confusion)
    print(
        f"{'true type':<14} {'pages':>5} {'agree':>6}   " + " ".join(f"{t[:6]:>6}" for t in TYPES)
    )
    for wanted in TYPES:
        row = confusion.get(wanted, Counter())
        total = sum(row.values())
        if not total:
            continue
        cells = " ".join(f"{row[t]:>6}" for t in TYPES)
        print(f"{wanted:<14} {total:>5} {row[wanted] / total:>6.1%}   {cells}")
    print(f"\noverall: {agree}/{len(pairs)} = {agree / len(pairs):.1%} of pages judged as reviewed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
