"""The hostile inputs' time and memory, measured: each case is one ``fitgate`` process
over inputs written here, its wall time and peak memory held to a bound.

    python benchmarks/hostile.py            # the table; exit 1 if a case passes its bound

``tests/test_hostile_gate.py`` asserts what each case answers (the exit code and the one
line); this measures what the answer costs, which no unit test times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"
BIG = (ROOT / "fixtures" / "manifests" / "02-web-big.yaml").read_text(encoding="utf-8")

SECONDS = 10.0
MEGABYTES = 400

# The child runs the command and writes its own peak memory (ru_maxrss, KiB on Linux) where
# the parent asks: the command's streams stay the command's.
_CHILD = """\
import json, os, resource, sys
from gate.cli import main
code = main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open(os.environ["FITGATE_BENCH_OUT"], "w") as out:
    json.dump({"code": code, "peak_kib": peak}, out)
"""


@dataclass(frozen=True)
class Case:
    name: str
    write: Callable[[Path], list[str]]
    """Writes the inputs into a folder; returns the arguments after ``fitgate``."""
    code: int


def _config(text: str) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        (folder / ".fitgate.yaml").write_text(text, encoding="utf-8")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        return ["check", "web.yaml", "--snapshot", str(SNAPSHOT)]

    return write


def _template(text: str) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        (folder / "t.j2").write_text(text, encoding="utf-8")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        flags = ["--comment", "c.md", "--comment-template", "t.j2"]
        return ["check", "web.yaml", "--snapshot", str(SNAPSHOT), *flags]

    return write


def _alias_bomb(levels: int = 12) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, levels)]
    return "\n".join(lines) + f"\nexclude: *a{levels - 1}\n"


def _long_context(folder: Path) -> list[str]:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    snapshot["source"]["context"] = "_" * 20_000
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", "snapshot.json", "--comment", "c.md"]


def _large_list(folder: Path) -> list[str]:
    """A 15 MiB YAML List: 2,300 ConfigMaps and 20 Deployments that do not fit."""
    data = "".join(f"      k{i}: {'x' * 60}\n" for i in range(100))
    items = []
    for n in range(2_300):
        items.append(f"  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {{name: cm{n}}}\n")
        items.append(f"    data:\n{data}")
        if n % 115 == 0:
            body = BIG.replace("web-big", f"web-big-{n}").split("\n", 1)[1]
            items.append("  - " + body.replace("\n", "\n    ").rstrip() + "\n")
    (folder / "list.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + "".join(items))
    return ["check", "list.yaml", "--snapshot", str(SNAPSHOT), "-q"]


CASES = (
    Case("configuration: an alias bomb", _config(_alias_bomb()), 2),
    Case("configuration: 2,000 levels deep", _config("exclude: " + "[" * 2000 + "]" * 2000), 2),
    Case("template: 10**300000000", _template("{{ 10**300000000 }}"), 2),
    Case('template: "a" * 3000000000', _template('{{ "a" * 3000000000 }}'), 2),
    Case('template: "%2000000000d" % 1', _template('{{ "%2000000000d" % 1 }}'), 2),
    Case(
        "template: a macro calling itself",
        _template("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"),
        2,
    ),
    Case("comment: a 20,000-character context", _long_context, 1),
    Case("a 15 MiB List, 20 failing workloads", _large_list, 1),
)


def measure(case: Case) -> tuple[float, float, int]:
    """Seconds, peak megabytes and the exit code of one case in a fresh process."""
    with tempfile.TemporaryDirectory() as folder:
        argv = case.write(Path(folder))
        out = Path(folder) / "measured.json"
        env = {**os.environ, "FITGATE_BENCH_OUT": str(out), "PYTHONPATH": str(ROOT)}
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", _CHILD, *argv],
            cwd=folder,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        seconds = time.perf_counter() - started
        found = json.loads(out.read_text(encoding="utf-8"))
    return seconds, found["peak_kib"] / 1024, int(found["code"])


def main() -> int:
    print(f"| case | exit | seconds (<= {SECONDS:g}) | peak MB (<= {MEGABYTES}) |")
    print("| --- | --- | --- | --- |")
    failed = False
    for case in CASES:
        seconds, megabytes, code = measure(case)
        over = seconds > SECONDS or megabytes > MEGABYTES or code != case.code
        failed |= over
        mark = " **over**" if over else ""
        print(f"| {case.name} | {code} | {seconds:.2f} | {megabytes:.0f}{mark} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
