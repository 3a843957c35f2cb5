"""``python -m benchmarks [--size tiny|small|medium|large] [--cache DIR] [--repeat N]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.generate import ensure_case_apart
from benchmarks.runner import run_case, table
from benchmarks.sizes import SIZES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time fitgate end to end beside json.load and CSafeLoader on the same files.",
    )
    parser.add_argument("--size", choices=list(SIZES), default="medium")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(".bench-cache"),
        help="where generated cases are kept between runs (default .bench-cache)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each measurement; the table shows the median (default 3)",
    )
    options = parser.parse_args(argv)
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    size = SIZES[options.size]

    def say(text: str) -> None:
        print(f"bench: {text}", file=sys.stderr, flush=True)

    say(f"case {size.name} ({size.describe()}) in {options.cache}")
    case = ensure_case_apart(size, options.cache)
    sys.stdout.write(table(run_case(size, case, say, options.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
