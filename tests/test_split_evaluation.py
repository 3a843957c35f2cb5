"""``check --processes 2`` (and ``auto``, the default, when a core is idle) judges a run's
workloads in two parts at once and writes what one process writes: every report, the exit
code and standard output, on every row where shards are held to the whole run (the room new
workloads take, DaemonSets before Deployments, quotas, autoscaler headroom, preemption...).
A second process that fails leaves its part to the first, with the same answers and nothing
on standard error."""

from __future__ import annotations

import doctest
import errno
import math
import os
from pathlib import Path

import pytest

from gate.ci import split
from gate.ci.split import cut_position
from gate.inputs.workloads import extract_all
from gate.k8s.version import dialect_for
from gate.model import NODE_VOLUME_LIMITS, Document, Location, Report, Workload
from gate.run import RunOptions, _Judge, check
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.plugins.nodevolumelimits import Counts
from gate.snapshot import forked
from gate.snapshot.forked import Forked, Processes, can_fork
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot
from tests.forking import assert_one_second_process_changes_nothing, needs_two_cores
from tests.test_merge_equals_whole import CASES, Case, inputs, report_files, run, written


@pytest.fixture(autouse=True)
def split_any_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run of two workloads or more is cut (a real run: from a hundred)."""
    monkeypatch.setattr(split, "SPLIT_FROM", 2)


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(split).failed == 0


def test_a_forked_process_does_the_work_and_hands_its_value_over() -> None:
    if not can_fork():
        assert Forked.start(os.getpid, 2) is None
        return
    second = Forked.start(os.getpid, 2)
    assert second is not None
    value = second.value()
    assert isinstance(value, int) and value != os.getpid()


@needs_two_cores
def test_a_forked_process_that_fails_hands_over_nothing() -> None:
    def fails() -> int:
        raise ValueError("no")

    second = Forked.start(fails, 2)
    assert second is not None
    assert second.value() is None


@needs_two_cores
@pytest.mark.parametrize("in_memory", [True, False], ids=["through memory", "through the pipe"])
def test_a_large_value_is_handed_over_whole(
    monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    """A value crosses in a file in memory where the system makes one, else the pipe."""
    if not in_memory:
        monkeypatch.setattr(forked, "_memory_file", lambda: None)
    value = {"texts": [os.urandom(1000) for _ in range(5000)], "pid": 0}
    second = Forked.start(lambda: {**value, "pid": os.getpid()}, 2)
    assert second is not None
    got = second.value()
    assert got is not None and got["texts"] == value["texts"] and got["pid"] != os.getpid()


@needs_two_cores
def test_a_value_the_memory_cannot_hold_crosses_the_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)  # the pipe's own writes are bound apart from it
    second = Forked.start(lambda: (os.getpid(), ["x" * 1000] * 100), 2)
    assert second is not None
    got = second.value()
    assert got is not None and got[0] != os.getpid() and got[1] == ["x" * 1000] * 100


@needs_two_cores
def test_a_value_that_cannot_cross_is_none() -> None:
    second = Forked.start(lambda: lambda: None, 2)  # a lambda does not pickle
    assert second is not None
    assert second.value() is None


@pytest.mark.parametrize(
    ("reported", "cut"),
    [
        pytest.param([0, 1], 1, id="two workloads: the second is the other process's"),
        pytest.param([3, 5, 8, 9, 12], 9, id="five: this process judges the first three"),
        pytest.param([7], None, id="one workload is judged whole"),
    ],
)
def test_the_run_is_cut_before_a_reported_workload(reported: list[int], cut: int | None) -> None:
    assert cut_position(reported) == cut


def test_a_run_below_the_threshold_is_judged_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "SPLIT_FROM", 100)
    assert cut_position(list(range(99))) is None
    assert cut_position(list(range(100))) == 56


def _several(case: Case) -> bool:
    return len(case.documents) > 1


@needs_two_cores
@pytest.mark.parametrize(
    "case",
    [c for c in CASES.values() if _several(c)],
    ids=[k for k, c in CASES.items() if _several(c)],
)
def test_two_processes_write_what_one_writes(
    tmp_path: Path, case: Case, forks: list[object]
) -> None:
    assert_one_second_process_changes_nothing(tmp_path, case, forks)


@needs_two_cores
def test_a_second_process_that_fails_leaves_its_part_to_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[object]
) -> None:
    parent = os.getpid()
    judge = _Judge.__call__

    def fails_when_forked(self: _Judge, *args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("the second process fails")
        return judge(self, *args, **kwargs)  # type: ignore[arg-type]

    case = CASES[
        "together: a new DaemonSet takes its room first, before a Deployment listed earlier"
    ]
    argv = inputs(tmp_path, case)
    whole = run("check", *argv, "--processes", "1", *report_files(tmp_path, "whole"))
    monkeypatch.setattr(_Judge, "__call__", fails_when_forked)
    two = run("check", *argv, "--processes", "2", *report_files(tmp_path, "two"))
    assert len(forks) == 1 and forks[0] is not None
    assert two == whole
    assert "Traceback" not in two[2]
    assert written(tmp_path, "two") == written(tmp_path, "whole")


def _machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, load: str, cores: int) -> None:
    """A machine whose ``/proc/loadavg`` reads ``load``, with ``cores`` cores."""
    (tmp_path / "loadavg").write_text(load)
    monkeypatch.setattr(forked, "LOAD_FILE", str(tmp_path / "loadavg"))
    monkeypatch.setattr(os, "cpu_count", lambda: cores)


@pytest.mark.parametrize(
    ("load", "cores", "idle"),
    [
        pytest.param("0.00 0.01 0.05 1/312 4242\n", 2, True, id="only this process runs"),
        pytest.param("1.90 1.20 0.70 2/312 4242\n", 2, False, id="another task holds the core"),
        pytest.param("3.10 2.00 1.00 3/512 4242\n", 4, True, id="three of four cores busy"),
        pytest.param("2.00 2.00 2.00 1/312 4242\n", 2, True, id="a job that ended is not held"),
        pytest.param("garbled", 2, True, id="an unreadable count does not stop it"),
    ],
)  # fmt: skip
def test_a_core_is_idle_when_fewer_tasks_run_than_there_are_cores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, load: str, cores: int, idle: bool
) -> None:
    _machine(monkeypatch, tmp_path, load, cores)
    assert forked.idle_core() is idle


def test_a_task_that_runs_for_an_instant_holds_no_core(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The kernel counts two running tasks once, then only this process: a core is idle.
    _machine(monkeypatch, tmp_path, "1.00 1.00 1.00 2/312 4242\n", 2)
    reads: list[float] = []

    def wait(seconds: float) -> None:
        reads.append(seconds)
        (tmp_path / "loadavg").write_text("1.00 1.00 1.00 1/312 4242\n")

    monkeypatch.setattr("gate.snapshot.forked.time.sleep", wait)
    assert forked.idle_core() is True
    assert reads == [0.001]


def test_every_read_counting_every_core_busy_finds_none_idle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _machine(monkeypatch, tmp_path, "1.90 1.20 0.70 2/312 4242\n", 2)
    reads: list[float] = []
    monkeypatch.setattr("gate.snapshot.forked.time.sleep", reads.append)
    assert forked.idle_core() is False
    assert len(reads) == forked.LOAD_READS - 1


GIB = 1 << 30


@pytest.mark.parametrize(
    ("processes", "idle", "room", "expected"),
    [
        pytest.param(1, True, 8 * GIB, False, id="one process never forks"),
        pytest.param(2, False, GIB // 4, True, id="two asked for fork though nothing is spare"),
        pytest.param("auto", True, 8 * GIB, True, id="auto forks when a core and memory are spare"),
        pytest.param("auto", False, 8 * GIB, False, id="auto does not fork beside a busy core"),
        pytest.param("auto", True, GIB // 2, False, id="auto does not fork in tight memory"),
    ],
)  # fmt: skip
def test_a_run_forks_as_its_processes_allow(
    monkeypatch: pytest.MonkeyPatch, processes: Processes, idle: bool, room: int, expected: bool
) -> None:
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(forked, "idle_core", lambda: idle)
    monkeypatch.setattr(forked, "memory_room", lambda: room)
    assert forked.forks(processes) is expected


MEMINFO = "MemTotal:       24684848 kB\nMemFree:        15965584 kB\nMemAvailable:    2097152 kB\n"


@pytest.mark.parametrize(
    ("v2", "v1", "meminfo", "room"),
    [
        pytest.param(("max", "104857600"), None, MEMINFO, 2 * GIB, id="no limit: the machine's"),
        pytest.param((str(GIB), str(3 * GIB // 4)), None, MEMINFO, GIB // 4, id="a pod limit"),
        pytest.param(None, (str(2**63 - 4096), "5000"), MEMINFO, 2 * GIB, id="cgroup v1 unlimited"),
        pytest.param(None, (str(GIB // 2), str(GIB // 4)), MEMINFO, GIB // 4, id="cgroup v1 limit"),
        pytest.param(None, None, None, math.inf, id="nothing readable: no bound"),
    ],
)  # fmt: skip
def test_the_memory_room_is_the_least_of_the_limit_left_and_the_machine(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    v2: tuple[str, str] | None,
    v1: tuple[str, str] | None,
    meminfo: str | None,
    room: float,
) -> None:
    pairs = []
    for name, values in (("v2", v2), ("v1", v1)):
        limit, usage = tmp_path / f"{name}.limit", tmp_path / f"{name}.usage"
        if values is not None:
            limit.write_text(values[0] + "\n")
            usage.write_text(values[1] + "\n")
        pairs.append((str(limit), str(usage)))
    info = tmp_path / "meminfo"
    if meminfo is not None:
        info.write_text(meminfo)
    monkeypatch.setattr(forked, "MEMORY_FILES", tuple(pairs))
    monkeypatch.setattr(forked, "MEMINFO_FILE", str(info))
    assert forked.memory_room() == room


@needs_two_cores
@pytest.mark.parametrize("idle", [True, False], ids=["a core idle", "no core idle"])
def test_a_check_forks_by_default_only_when_a_core_is_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[object], idle: bool
) -> None:
    monkeypatch.setattr(forked, "idle_core", lambda: idle)
    monkeypatch.setattr(forked, "memory_room", lambda: math.inf)
    case = CASES[
        "together: a new DaemonSet takes its room first, before a Deployment listed earlier"
    ]
    argv = inputs(tmp_path, case)
    whole = run("check", *argv, "--processes", "1", *report_files(tmp_path, "whole"))
    assert not forks
    default = run("check", *argv, *report_files(tmp_path, "default"))
    assert [second is not None for second in forks] == [idle]
    assert default == whole
    assert written(tmp_path, "default") == written(tmp_path, "whole")


ZONE = "topology.kubernetes.io/zone"
WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def _stored_run(processes: Processes) -> tuple[Evaluator, list[Workload], Report]:
    """A Deployment, then a StatefulSet whose first copy's claim is recorded, on nodes whose
    CSINodes limit the attachable volumes: the run cut between the two."""
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}
    template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container]}}
    claim = {"metadata": {"name": "data"}, "spec": {"storageClassName": "wait"}}
    web = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "db"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "db"}}, "template": template},
    }
    db = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "db"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "db"}},
            "template": template,
            "volumeClaimTemplates": [claim],
        },
    }
    nodes = [api_node(f"n-{z}", labels={ZONE: z}) for z in ("z1", "z2")]
    driver = {"name": "disk.csi.azure.com", "allocatable": {"count": 1}}
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    bound = {
        "metadata": {"name": "data-db-0", "namespace": "db", "annotations": notes},
        "spec": {"volumeName": "pv-z1", "storageClassName": "wait"},
    }
    recorded = cluster_snapshot(
        nodes,
        persistentVolumes=[{"metadata": {"name": "pv-z1", "labels": {ZONE: "z1"}}, "spec": {}}],
        persistentVolumeClaims=[bound],
        storageClasses=[WAIT],
        csiNodes=[{"metadata": {"name": n["metadata"]["name"]}, "spec": {"drivers": [driver]}}
                  for n in nodes],
    )  # fmt: skip
    snapshot = build_snapshot(recorded, "s.json")
    documents = [Document(Location("run.yaml", 1), web), Document(Location("run.yaml", 20), db)]
    workloads = [w for w in extract_all(iter(documents)) if isinstance(w, Workload)]
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for(None))
    return evaluator, workloads, check(documents, snapshot, RunOptions(processes=processes))


def test_what_the_volume_filters_count_of_the_cluster_is_worked_out_before_a_fork() -> None:
    """The counts a second process would work out again (0.3 s on the large case) are
    worked out before it starts, once, when the workloads it judges mount volumes."""
    evaluator, (web, db), _ = _stored_run(1)
    use = evaluator.cluster.others.volume_use
    evaluator.warm([web])
    assert NODE_VOLUME_LIMITS not in use.memo  # no volume mounted: nothing worked out
    evaluator.warm([web, db])
    assert isinstance(use.memo.get(NODE_VOLUME_LIMITS), Counts)


@needs_two_cores
def test_a_run_with_volumes_cut_in_two_answers_as_one_process(forks: list[object]) -> None:
    *_, whole = _stored_run(1)
    *_, two = _stored_run(2)
    assert [second is not None for second in forks] == [True]
    assert two.results == whole.results
