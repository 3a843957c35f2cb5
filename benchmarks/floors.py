"""The floors fitgate is measured against, each run alone in a child process.

``python -m benchmarks.floors json FILE``: the standard library's ``json.load`` of the
snapshot, garbage collector on, as a script that knows nothing better would read it.
``python -m benchmarks.floors yaml DIR``: libyaml's ``CSafeLoader`` over every manifest,
documents built and dropped one by one.
"""

from __future__ import annotations

import json
import os
import sys

import yaml


def json_floor(path: str) -> int:
    with open(path, "rb") as handle:
        document = json.load(handle)
    return len(document.get("items") or document.get("pods") or [])


def yaml_floor(root: str) -> int:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    count = 0
    for directory, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if name.endswith((".yaml", ".yml")):
                with open(os.path.join(directory, name), "rb") as handle:
                    try:
                        count += sum(1 for _ in yaml.load_all(handle, Loader=loader))
                    except yaml.YAMLError:
                        count += 1  # the monorepo's one broken document ends its file
    return count


def main(argv: list[str]) -> int:
    what, path = argv
    count = json_floor(path) if what == "json" else yaml_floor(path)
    print(count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
