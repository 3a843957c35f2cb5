"""``python -m gate.bench [--size tiny|small|medium|large] [--cache DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gate.bench.generate import ensure_case
from gate.bench.runner import run_case, table
from gate.bench.sizes import SIZES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gate.bench",
        description="Time fitgate end to end beside json.load and CSafeLoader on the same files.",
    )
    parser.add_argument("--size", choices=list(SIZES), default="medium")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(".bench-cache"),
        help="where generated cases are kept between runs (default .bench-cache)",
    )
    options = parser.parse_args(argv)
    size = SIZES[options.size]

    def say(text: str) -> None:
        print(f"bench: {text}", file=sys.stderr, flush=True)

    say(f"case {size.name} ({size.describe()}) in {options.cache}")
    case = ensure_case(size, options.cache)
    sys.stdout.write(table(run_case(size, case, say)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
