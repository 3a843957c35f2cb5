"""What the benchmarks of a derived case share (:mod:`benchmarks.autoscaled`,
:mod:`benchmarks.karpenter`): their command line, the case's floor measured beside the run,
one timed ``fitgate check`` in the derived copy, and the table that compares them."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.generate import LIST_FILE, MANIFESTS_DIR, apart, ensure_case_apart
from benchmarks.runner import LIST_RATIO_TARGET, PEAK_TARGET_MB, _check_argv, measure_median
from benchmarks.sizes import SIZES, Size


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Timed:
    """A derived case's run: the JSON report it wrote and its table."""

    report: dict[str, Any]
    table: str


def run_derived(
    prog: str,
    description: str,
    argv: list[str] | None,
    derive: Callable[[Size, Path], Path],
    snapshot: str,
    flags: tuple[str, ...],
    measured: str,
) -> tuple[Size, Timed]:
    """Parse ``--size``, ``--cache`` and ``--repeat``; derive the copy of the generated
    case; time the floors on the case and ``fitgate check`` of ``snapshot`` with
    ``flags`` in the copy."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--size", choices=list(SIZES), default="large")
    parser.add_argument("--cache", type=Path, default=Path(".bench-cache"))
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args(argv)
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    size = SIZES[options.size]
    case = ensure_case_apart(size, options.cache).resolve()
    say("deriving the copy of the case (once)")
    derived = apart(derive, size, case)
    python, repeat = sys.executable, options.repeat
    say("floor: json.load of the kubectl List")
    json_floor = measure_median(
        [python, "-m", "benchmarks.floors", "json", LIST_FILE], case, repeat
    )
    say("floor: CSafeLoader over the manifests")
    yaml_floor = measure_median(
        [python, "-m", "benchmarks.floors", "yaml", MANIFESTS_DIR], case, repeat
    )
    say(f"fitgate check, {measured}")
    out = derived / "out"
    out.mkdir(exist_ok=True)
    tag = prog.rpartition(".")[2]
    run = measure_median(_check_argv(snapshot, out, tag, *flags), derived, repeat)
    floor = json_floor.seconds + yaml_floor.seconds
    ratio = run.seconds / floor if floor else float("nan")
    report = json.loads((out / f"{tag}.json").read_text(encoding="utf-8"))
    verdicts = Counter(workload["verdict"] for workload in report["workloads"])
    passed = ratio <= LIST_RATIO_TARGET and run.peak_mb <= PEAK_TARGET_MB
    table = (
        "| measurement | seconds | peak MB | ratio to floor | target |\n"
        "| --- | ---: | ---: | ---: | --- |\n"
        f"| floor: json.load(kubectl List) | {json_floor.seconds:.2f} | "
        f"{json_floor.peak_mb:,.0f} | | |\n"
        f"| floor: CSafeLoader(manifests) | {yaml_floor.seconds:.2f} | "
        f"{yaml_floor.peak_mb:,.0f} | | |\n"
        f"| floor total | {floor:.2f} | | 1.00 | |\n"
        f"| fitgate check, {measured} | {run.seconds:.2f} | "
        f"{run.peak_mb:,.0f} | {ratio:.3f} | ≤ {LIST_RATIO_TARGET:.2f}x, "
        f"≤ {PEAK_TARGET_MB:,} MB: {'met' if passed else 'MISSED'} |\n\n"
        f"verdicts: {', '.join(f'{v} {n}' for v, n in sorted(verdicts.items()))}\n"
    )
    return size, Timed(report, table)
