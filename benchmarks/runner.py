"""Run the floors and fitgate on one case, each in its own process, and tabulate.

Time is wall-clock; peak memory is the child's maximum resident set size as the kernel
reports it (``wait4``), so it includes everything the process touched. The children run
one after another, never two at once.
"""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from time import perf_counter

from benchmarks.generate import LIST_FILE, MANIFESTS_DIR, SNAPSHOT_FILE, case_bytes
from benchmarks.sizes import Size

LIST_RATIO_TARGET = 0.12  # with storage, quota, preemption (earlier budgets: 0.35, then 0.15)
SNAPSHOT_RATIO_TARGET = 0.12
PEAK_TARGET_MB = 300
EVALUATION_SHARE_TARGET = 0.10

# The children run in the case's folder; ``benchmarks`` is not installed, so they find it
# beside ``gate`` through the path of the checkout this package lives in.
_CHILD_ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
_COMPILED: set[Path] = set()


def _compiled(checkout: Path) -> None:
    """Write the bytecode of ``checkout``'s ``gate`` once, as installing a package does
    (pip compiles it, and so does the image's install): a checkout run under
    ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module from source at each
    start, a third of the medium case's run that no installed fitgate pays."""
    if checkout not in _COMPILED:
        compileall.compile_dir(checkout / "gate", quiet=2)
        _COMPILED.add(checkout)


@dataclass(frozen=True, slots=True)
class Measurement:
    seconds: float
    peak_mb: float
    output: str
    cpu_seconds: float = 0.0  # the child's user and system time: the wall less the waiting


def measure(
    argv: Sequence[str], cwd: Path, outputs: Sequence[Path] = (), path: Path | None = None
) -> Measurement:
    """Run ``argv``; its wall time and peak memory. Exit codes 0 and 1 are answers
    (fitgate exits 1 when the gate fails, which the monorepo makes it do). ``outputs``
    are removed first: a CI job starts without them, and truncating the previous run's
    gigabyte of JSON costs the file system a quarter of a second. ``path``: a checkout
    whose ``gate`` the child imports in place of this one's (an earlier version, timed
    beside this one)."""
    for stale in outputs:  # not ``path``: that names the checkout timed
        stale.unlink(missing_ok=True)
    # A previous run's reports are still being written back to disk; flushed first, so
    # their writeback is not billed to this run.
    os.sync()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        env = _CHILD_ENV if path is None else {**_CHILD_ENV, "PYTHONPATH": str(path)}
        _compiled(Path(env["PYTHONPATH"]))
        start = perf_counter()
        child = subprocess.Popen(list(argv), cwd=cwd, stdout=out, stderr=err, env=env)
        # Reaped here rather than by Popen, to read the child's own resource usage.
        _, status, usage = os.wait4(child.pid, 0)
        seconds = perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        output, errors = out.read().decode(), err.read().decode()
    if code not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {code}: {errors.strip()[-2000:]}")
    return Measurement(seconds, usage.ru_maxrss / 1024, output, usage.ru_utime + usage.ru_stime)


def measure_median(
    argv: Sequence[str],
    cwd: Path,
    repeat: int,
    outputs: Sequence[Path] = (),
    path: Path | None = None,
) -> Measurement:
    """``repeat`` runs of ``argv``: the median time and the largest peak. One run on a
    shared machine can be held up by disk writeback or a neighbour; the median is not."""
    runs = sorted(
        (measure(argv, cwd, outputs, path) for _ in range(repeat)), key=lambda m: m.seconds
    )
    middle = runs[len(runs) // 2]
    return Measurement(
        middle.seconds, max(m.peak_mb for m in runs), middle.output, middle.cpu_seconds
    )


_REPORTS = {
    "--json": "json",
    "--junit": "xml",
    "--comment": "comment.md",
    "--summary": "summary.md",
}


def _reports(out: Path, tag: str) -> list[Path]:
    return [out / f"{tag}.{suffix}" for suffix in _REPORTS.values()]


def _check_argv(snapshot: str, out: Path, tag: str, *options: str) -> list[str]:
    argv = [sys.executable, "-m", "gate", "check", MANIFESTS_DIR, "--snapshot", snapshot]
    argv += options
    for option, path in zip(_REPORTS, _reports(out, tag), strict=True):
        argv += [option, str(path)]
    return argv


@dataclass(frozen=True, slots=True)
class Results:
    size: Size
    inputs: dict[str, int]
    json_floor: Measurement
    yaml_floor: Measurement
    fitgate_list: Measurement
    fitgate_snapshot: Measurement
    phases: dict[str, float]
    fitgate_list_one_process: Measurement | None = None
    fitgate_snapshot_one_process: Measurement | None = None


def run_case(size: Size, case: Path, say: Callable[[str], None], repeat: int = 1) -> Results:
    """Every measurement of one case, each the median of ``repeat`` runs."""
    case = case.resolve()  # the children run inside it: their paths must not be relative to here
    out = case / "out"
    out.mkdir(exist_ok=True)
    python = sys.executable
    times = f" ({repeat} runs)" if repeat > 1 else ""
    say(f"floor: json.load of the kubectl List{times}")
    json_floor = measure_median(
        [python, "-m", "benchmarks.floors", "json", LIST_FILE], case, repeat
    )
    say(f"floor: CSafeLoader over the manifests{times}")
    yaml_floor = measure_median(
        [python, "-m", "benchmarks.floors", "yaml", MANIFESTS_DIR], case, repeat
    )
    say(f"fitgate check on the kubectl List{times}")
    fitgate_list = measure_median(
        _check_argv(LIST_FILE, out, "list"), case, repeat, _reports(out, "list")
    )
    say(f"fitgate check on the kubectl List, in one process{times}")
    one = ("--processes", "1")
    fitgate_list_one = measure_median(
        _check_argv(LIST_FILE, out, "list-1", *one), case, repeat, _reports(out, "list-1")
    )
    say(f"fitgate check on the recorded ClusterSnapshot{times}")
    fitgate_snapshot = measure_median(
        _check_argv(SNAPSHOT_FILE, out, "snapshot"), case, repeat, _reports(out, "snapshot")
    )
    say(f"fitgate check on the recorded ClusterSnapshot, in one process{times}")
    snapshot_one = measure_median(
        _check_argv(SNAPSHOT_FILE, out, "snapshot-1", *one),
        case,
        repeat,
        _reports(out, "snapshot-1"),
    )
    say(f"phases of a run on the ClusterSnapshot{times}")
    phases_argv = [python, "-m", "benchmarks.phases", SNAPSHOT_FILE, MANIFESTS_DIR]
    runs = [json.loads(measure(phases_argv, case).output) for _ in range(repeat)]
    phases = {key: median(run[key] for run in runs) for key in runs[0]}
    return Results(
        size=size,
        inputs=case_bytes(case),
        json_floor=json_floor,
        yaml_floor=yaml_floor,
        fitgate_list=fitgate_list,
        fitgate_snapshot=fitgate_snapshot,
        phases=phases,
        fitgate_list_one_process=fitgate_list_one,
        fitgate_snapshot_one_process=snapshot_one,
    )


def _mb(count: int) -> str:
    return f"{count / 1e6:,.1f} MB" if count < 1e9 else f"{count / 1e9:,.2f} GB"


TARGETED_SIZE = "large"


def table(results: Results) -> str:
    """The benchmark's answer, as a markdown table; the targets are judged on the large
    case only (on smaller ones interpreter start-up alone is a tenth of the floor)."""
    targeted = results.size.name == TARGETED_SIZE

    def judged(passed: bool) -> str:
        return _ok(passed) if targeted else f"({TARGETED_SIZE} case only)"

    floor = results.json_floor.seconds + results.yaml_floor.seconds
    inputs = results.inputs
    phases = results.phases
    total = results.fitgate_snapshot.seconds
    rows = [
        ("floor: json.load(kubectl List)", results.json_floor, None, ""),
        ("floor: CSafeLoader(manifests)", results.yaml_floor, None, ""),
    ]
    lines = [
        f"fitgate bench, size {results.size.name}: {results.size.describe()}",
        f"inputs: kubectl List {_mb(inputs['list'])}, ClusterSnapshot {_mb(inputs['snapshot'])},"
        f" manifests {_mb(inputs['manifests'])} in {inputs['files']} files",
        "",
        "| measurement | seconds | peak MB | ratio to floor | target |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, m, _, _ in rows:
        lines.append(f"| {name} | {m.seconds:.2f} | {m.peak_mb:,.0f} | | |")
    lines.append(f"| floor total | {floor:.2f} | | 1.00 | |")
    checks = [
        ("fitgate check, kubectl List", results.fitgate_list, LIST_RATIO_TARGET),
        ("fitgate check, ClusterSnapshot", results.fitgate_snapshot, SNAPSHOT_RATIO_TARGET),
    ]
    if results.fitgate_list_one_process is not None:
        one = ("fitgate check, kubectl List, --processes 1", LIST_RATIO_TARGET)
        checks.insert(1, (one[0], results.fitgate_list_one_process, one[1]))
    if results.fitgate_snapshot_one_process is not None:
        name = "fitgate check, ClusterSnapshot, --processes 1"
        checks.append((name, results.fitgate_snapshot_one_process, SNAPSHOT_RATIO_TARGET))
    for name, m, target in checks:
        ratio = m.seconds / floor if floor else float("nan")
        verdict = judged(ratio <= target and m.peak_mb <= PEAK_TARGET_MB)
        lines.append(
            f"| {name} | {m.seconds:.2f} | {m.peak_mb:,.0f} | {ratio:.3f} | "
            f"≤ {target:.2f}x, ≤ {PEAK_TARGET_MB:,} MB: {verdict} |"
        )
    share = phases["evaluate"] / total if total else float("nan")
    lines.append(
        f"| evaluation only (engine, after loading) | {phases['evaluate']:.2f} | | "
        f"{share:.1%} of the ClusterSnapshot run | < {EVALUATION_SHARE_TARGET:.0%}: "
        f"{judged(share < EVALUATION_SHARE_TARGET)} |"
    )
    lines += [
        "",
        f"phases (medians): load snapshot {phases['load']:.2f} s, read manifests "
        f"{phases['read']:.2f} s, evaluate {phases['evaluate']:.2f} s, render reports "
        f"{phases['reports']:.2f} s; {phases['nodes']:,.0f} nodes in "
        f"{phases['taint_classes']:,.0f} taint classes and {phases['port_classes']:,.0f} "
        f"host-port classes, {phases['workloads']:,.0f} workloads",
    ]
    return "\n".join(lines) + "\n"


def _ok(passed: bool) -> str:
    return "met" if passed else "MISSED"
