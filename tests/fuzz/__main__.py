"""``scripts/fuzz``: run every fuzz target, print a table, exit 1 on any crash."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fuzz.harness import Outcome, run_target
from fuzz.targets import TARGETS


def _budgets(total: int, names: list[str]) -> dict[str, int]:
    """``total`` split by weight, exactly (the rounding remainder goes to the heaviest)."""
    weights = {name: TARGETS[name].weight for name in names}
    whole = sum(weights.values())
    budgets = {name: max(1, int(total * weight / whole)) for name, weight in weights.items()}
    heaviest = max(names, key=lambda name: weights[name])
    budgets[heaviest] = max(1, budgets[heaviest] + total - sum(budgets.values()))
    return budgets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/fuzz",
        description="Fuzz every parser that takes outside input (hypothesis-generated inputs).",
    )
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs in total (100000)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per input (5)")
    parser.add_argument("--seed", type=int, default=None, help="reproduce a run")
    parser.add_argument("--target", action="append", default=[], help="only these (prefix)")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    parser.add_argument("--report", type=Path, help="also write the results as JSON here")
    parser.add_argument("--jobs", type=int, default=1, help="targets run at once (1)")
    args = parser.parse_args(argv)

    if args.list:
        for name, target in TARGETS.items():
            allowed = ", ".join(kind.__name__ for kind in target.allowed)
            print(f"{name:24} weight {target.weight:<4g} may raise {allowed}  {target.about}")
        return 0
    names = [n for n in TARGETS if not args.target or any(n.startswith(t) for t in args.target)]
    if not names:
        print(f"no target matches {args.target}; see --list", file=sys.stderr)
        return 2
    rng_seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"fuzzing {len(names)} targets, {args.inputs} inputs, seed {rng_seed}", file=sys.stderr)

    began = time.perf_counter()

    def one(item: tuple[str, int]) -> Outcome:
        name, budget = item
        outcome = run_target(name, budget, args.timeout, rng_seed)
        flag = f"  {len(outcome.crashes)} CRASH(ES)" if outcome.crashes else ""
        print(f"  {name}: {outcome.inputs} inputs in {outcome.seconds:.1f}s{flag}", file=sys.stderr)
        return outcome

    # Each target runs in worker processes of its own; threads only wait for them.
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(one, _budgets(args.inputs, names).items()))

    crash_dir = Path(tempfile.gettempdir()) / "sleuth-fuzz-crashes"
    for outcome in outcomes:
        for index, crash in enumerate(outcome.crashes.values()):
            print(f"\n=== {outcome.target}: {crash.signature} (x{crash.count})\n{crash.message}")
            if crash.raw:
                crash_dir.mkdir(exist_ok=True)
                saved = crash_dir / f"{outcome.target}-{rng_seed}-{index}.pickle"
                saved.write_bytes(crash.raw)
                print(f"replay: pickle.loads(open({str(saved)!r}, 'rb').read())")
            print(f"input: {crash.example[:2000]}")
            if crash.trace:
                print(crash.trace)

    print("\n| target | inputs | crashes | inputs/s |\n|---|---:|---:|---:|")
    for outcome in outcomes:
        rate = outcome.inputs / outcome.seconds if outcome.seconds else 0.0
        print(f"| {outcome.target} | {outcome.inputs} | {len(outcome.crashes)} | {rate:.0f} |")
    inputs = sum(o.inputs for o in outcomes)
    crashes = sum(len(o.crashes) for o in outcomes)
    print(f"| **total** | **{inputs}** | **{crashes}** | |")
    print(
        f"\n{inputs} inputs, {crashes} crashes, {time.perf_counter() - began:.0f}s, seed {rng_seed}"
    )
    if args.report:
        args.report.write_text(
            json.dumps(
                [
                    {
                        "target": o.target,
                        "inputs": o.inputs,
                        "seconds": round(o.seconds, 2),
                        "crashes": [
                            {k: v for k, v in vars(c).items() if k != "raw"}
                            for c in o.crashes.values()
                        ],
                    }
                    for o in outcomes
                ],
                indent=1,
            )
        )
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
