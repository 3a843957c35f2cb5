"""A run's answer does not depend on how the gate is run: on small generated clusters and
manifests (tests/invariance_cases.py), every report, the exit code and standard output are
those of one process reading one recording, whether the run is judged by two processes (its
workloads cut in two, its snapshot file read in two parts), cut into shards and merged, read
from the snapshot's objects in any order or from a kubectl List of the same cluster, or
from its documents split across files another way; and a new DaemonSet takes its room
first wherever the files list it."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.ci import split
from gate.snapshot import halves
from gate.snapshot.forked import Forked, Processes, can_fork
from gate.snapshot.halves import SecondReader
from tests.builders import api_node, api_pod, container
from tests.invariance_cases import (
    HOSTNAME,
    NAMESPACE,
    Run,
    limit_range,
    priority_class,
    quota,
    runs,
    shuffled,
    write_documents,
)
from tests.test_merge_equals_whole import report_files, run, workload, written

needs_two_cores = pytest.mark.skipif(
    not can_fork(), reason="a second process is forked only on Linux with two cores"
)
GENERATED = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SNAPSHOT = "snapshot.json"
Answer = tuple[tuple[int, str, str], dict[str, str]]
"""The exit code, standard output and standard error, and each report written."""


@contextmanager
def _directory() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def _check(directory: Path, snapshot: dict[str, Any], case: Run, *more: str) -> Answer:
    """``check`` of the case's documents on ``snapshot``, each written where every run of
    one example writes it (reports name the files); every report unless ``more`` names
    one."""
    manifests = write_documents(directory / "manifests.yaml", case.documents)
    path = directory / SNAPSHOT
    path.write_text(json.dumps(snapshot), encoding="utf-8")
    argv = (manifests, "--snapshot", str(path), *case.argv, *more)
    reports = () if "--json" in more else tuple(report_files(directory, "run"))
    code = run("check", *argv, *reports)
    assert code[0] in (0, 1), code[2]
    return code, written(directory, "run") if reports else {}


LAST_POD = b'{"apiVersion": "v1", "kind": "Pod"'


def _before_the_last_pod(path: Path) -> Callable[[str, int, int], float]:
    """Where a small file is cut: just before its last pod, which another element precedes
    (the share that a large file's sizes give would fall among a small one's nodes)."""

    def share(key: str, size: int, meanwhile: int) -> float:
        return (path.read_bytes().rindex(LAST_POD) - 8) / size

    return share


@contextmanager
def _two_processes(directory: Path) -> Iterator[list[str]]:
    """Every run of two workloads or more cut in two, every snapshot file read in two parts;
    what each second process did, named ("split", "halves"), so that a property cannot hold
    by never cutting."""
    started: list[str] = []
    start = Forked.start.__func__  # type: ignore[attr-defined]
    read = SecondReader.snapshot

    def counted(
        cls: type[Forked[object]], work: Callable[[], object], processes: Processes
    ) -> object:
        second = start(cls, work, processes)
        if second is not None:
            started.append("split")
        return second

    def reads(self: SecondReader, source: str, on_read: Callable[[int], None]) -> object:
        snapshot = read(self, source, on_read)
        if snapshot is not None:
            started.append("halves")
        return snapshot

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(split, "SPLIT_FROM", 2)
        patch.setattr(halves, "SPLIT_FROM", 0)
        patch.setattr(halves, "first_share", _before_the_last_pod(directory / SNAPSHOT))
        patch.setattr(Forked, "start", classmethod(counted))
        patch.setattr(SecondReader, "snapshot", reads)
        yield started


@needs_two_cores
@GENERATED
@given(runs())
def test_two_processes_write_what_one_writes(case: Run) -> None:
    with _directory() as directory:
        whole = _check(directory, case.recording(), case, "--processes", "1")
        with _two_processes(directory) as started:
            two = _check(directory, case.recording(), case, "--processes", "2")
        assert started == ["halves", "split"]
        assert two == whole
        with _two_processes(directory) as started:
            listed = _check(directory, case.listed(), case, "--processes", "2")
        assert "halves" in started
        assert _check(directory, case.listed(), case, "--processes", "1") == listed


def _merged(directory: Path, case: Run, count: int) -> Answer:
    """The run cut into ``count`` shards, merged (the shards given in reverse order)."""
    shards = []
    for index in range(1, count + 1):
        shard = directory / f"shard-{index}.json"
        _check(
            directory, case.recording(), case, "--shard", f"{index}/{count}", "--json", str(shard)
        )
        shards.append(str(shard))
    merged = run("merge", *reversed(shards), *report_files(directory, "run"))
    return merged, written(directory, "run")


@GENERATED
@given(runs(), st.integers(2, 4))
def test_shards_merged_write_what_the_whole_run_writes(case: Run, count: int) -> None:
    with _directory() as directory:
        whole = _check(directory, case.recording(), case)
        merged = _merged(directory, case, count)
        assert merged == whole


@GENERATED
@given(runs(), st.integers(0, 2**32 - 1))
def test_the_snapshot_objects_in_any_order_give_every_report_alike(case: Run, seed: int) -> None:
    with _directory() as directory:
        recorded = _check(directory, case.recording(), case)
        assert _check(directory, shuffled(case.recording(), seed), case) == recorded
        listed = _check(directory, case.listed(), case)
        assert _check(directory, shuffled(case.listed(), seed), case) == listed


def _judged(answer: Answer) -> dict[str, Any]:
    """The JSON report but for what it says of the snapshot file (a List records no
    context, capture time or server)."""
    report: dict[str, Any] = json.loads(answer[1]["json"])
    del report["snapshot"]
    return report


@GENERATED
@given(runs())
def test_a_list_and_a_recording_of_one_cluster_judge_alike(case: Run) -> None:
    with _directory() as directory:
        version = ("--scheduler-version", "v1.33.4")
        recorded = _check(directory, case.recording(), case, *version)
        assert _judged(_check(directory, case.listed(), case, *version)) == _judged(recorded)


def _old(name: str, cpu: str) -> dict[str, Any]:
    return api_pod(name, "n0", namespace=NAMESPACE, containers=[container("c", {"cpu": cpu})])


def _of_db(suffix: str, cpu: str) -> dict[str, Any]:
    """A running pod of Deployment ``db``'s ReplicaSet."""
    found = _old(f"db-5d8f7c-{suffix}", cpu)
    found["metadata"]["labels"] = {"app": "db", "pod-template-hash": "5d8f7c"}
    found["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "db-5d8f7c"}]
    return found


JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "api", "namespace": NAMESPACE},
    "spec": {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [container("c", {"cpu": "1"})]}
        }
    },
}
Documents = tuple[dict[str, Any], ...]
ORDERED: dict[str, tuple[dict[str, list[dict[str, Any]]], Documents, str]] = {
    "two LimitRanges of a namespace default a request by their names, in any order": (
        {"nodes": [api_node("n0")], "pods": [],
         "limitRanges": [limit_range("more", "1"), limit_range("defaults", "200m")]},
        (workload("Deployment", "api", cpu=None),),
        '"cpu": "200m"',
    ),
    "of two running pods alike, the one evicted does not depend on their order": (
        {"nodes": [api_node("n0", cpu="2")], "pods": [_old("old-2", "1"), _old("old-1", "1")],
         "priorityClasses": [priority_class("high", 1000)]},
        (workload("Deployment", "api", replicas=1, cpu="1", pod={"priorityClassName": "high"}),),
        '"preemption": {',
    ),
    "the old pod a Deployment's rollout replaces first does not depend on their order": (
        {"nodes": [api_node("n0")], "pods": [_of_db("a", "250m"), _of_db("b", "1500m")],
         "resourceQuotas": [quota("compute", "2500m", "1750m")]},
        (workload("Deployment", "db", replicas=1, cpu="200m"), JOB),
        '"quota": "compute"',
    ),
}  # fmt: skip


@pytest.mark.parametrize(("recorded", "documents", "says"), ORDERED.values(), ids=ORDERED.keys())
def test_a_recording_in_another_order_gives_every_report_alike(
    recorded: dict[str, list[dict[str, Any]]], documents: Documents, says: str
) -> None:
    case = Run(recorded, documents, ())
    with _directory() as directory:
        given_order = _check(directory, case.recording(), case)
        reversed_order = {k: v[::-1] for k, v in case.recording().items() if isinstance(v, list)}
        assert _check(directory, {**case.recording(), **reversed_order}, case) == given_order
        assert says in given_order[1]["json"]


def _placed(value: Any) -> Any:
    """``value`` without what names where a document was read: its file and lines."""
    if isinstance(value, dict):
        return {k: _placed(v) for k, v in value.items() if k not in ("file", "line", "read")}
    if isinstance(value, list):
        return [_placed(v) for v in value]
    return value


def _files(directory: Path, case: Run, cuts: list[int], *more: str) -> dict[str, Any]:
    """The JSON report of ``check`` given the case's documents in files cut before each
    of ``cuts``, in order."""
    bounds = [0, *sorted(set(cuts)), len(case.documents)]
    paths = []
    for number, (start, end) in enumerate(pairwise(bounds)):
        if end > start:
            paths.append(
                write_documents(directory / f"{number:02}.yaml", case.documents[start:end])
            )
    path = directory / SNAPSHOT
    path.write_text(json.dumps(case.recording()), encoding="utf-8")
    out = directory / "files.json"
    code = run("check", *paths, "--snapshot", str(path), *case.argv, *more, "--json", str(out))
    assert code[0] in (0, 1), code[2]
    placed: dict[str, Any] = _placed(json.loads(out.read_text(encoding="utf-8")))
    return placed


@GENERATED
@given(runs(), st.lists(st.integers(1, 9), max_size=4))
def test_documents_split_across_files_alike_are_judged_alike(case: Run, cuts: list[int]) -> None:
    with _directory() as directory:
        one_file = _files(directory, case, [])
        assert _files(directory, case, [c for c in cuts if c < len(case.documents)]) == one_file


@GENERATED
@given(runs())
def test_a_new_daemonset_takes_its_room_first_wherever_the_files_list_it(case: Run) -> None:
    daemonsets = [d for d in case.documents if d["kind"] == "DaemonSet"]
    others = [d for d in case.documents if d["kind"] != "DaemonSet"]
    with _directory() as directory:
        first = _files(directory, replace(case, documents=(*daemonsets, *others)), [])
        last = _files(directory, replace(case, documents=(*others, *daemonsets)), [])
    assert sorted(first["workloads"], key=_named) == sorted(last["workloads"], key=_named)
    assert first["summary"] == last["summary"]


def _named(workload: dict[str, Any]) -> tuple[str, str, str]:
    return workload["kind"], workload["namespace"], workload["name"]


ANTI_OWN = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "api"}}, "topologyKey": HOSTNAME}
        ]
    }
}


def test_a_copy_its_own_anti_affinity_keeps_off_every_node_is_judged_without_a_crash() -> None:
    """default_preemption.go SelectVictimsOnNode: n0, its lower-priority pod gone, still
    holds a copy the pod's own anti-affinity refuses (upstream's NodeInfo holds the copies
    already placed), so the filter's reason stands; n1 has no lower-priority pod."""
    old = _old("old-0", "100m")
    recorded = {
        "nodes": [api_node("n0", labels={HOSTNAME: "n0"}), api_node("n1", labels={HOSTNAME: "n1"})],
        "pods": [old],
        "priorityClasses": [priority_class("high", 1000)],
    }
    spec = {"priorityClassName": "high", "affinity": ANTI_OWN}
    case = Run(recorded, (workload("Deployment", "api", replicas=3, cpu="100m", pod=spec),), ())
    with _directory() as directory:
        code, _ = _check(directory, case.recording(), case)
    assert "2 of 3 replicas fit" in code[1]
    assert (
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 node(s) didn't match pod anti-affinity rules." in code[1]
    )


def test_copies_placed_by_preemption_keep_their_own_anti_affinity() -> None:
    """Each copy needs a lower-priority pod evicted; the scheduler's cache holds the copies
    it placed, so the third finds both nodes refused by its own anti-affinity however many
    victims it could take (default_preemption.go SelectVictimsOnNode runs the filters with
    them). It used to take a second victim on a node holding a copy: all three placed."""

    def low(name: str, node: str) -> dict[str, Any]:
        return api_pod(name, node, namespace=NAMESPACE, containers=[container("c", {"cpu": "1"})])

    nodes = [api_node(n, cpu="3", labels={HOSTNAME: n}) for n in ("n0", "n1")]
    recorded = {
        "nodes": nodes,
        "pods": [low("a0", "n0"), low("b0", "n0"), low("a1", "n1"), low("b1", "n1")],
        "priorityClasses": [priority_class("high", 1000)],
    }
    spec = {"priorityClassName": "high", "affinity": ANTI_OWN}
    case = Run(recorded, (workload("Deployment", "api", replicas=3, cpu="1500m", pod=spec),), ())
    with _directory() as directory:
        code, _ = _check(directory, case.recording(), case)
    assert "2 of 3 replicas fit" in code[1]
    assert (
        "preemption: 0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
        in code[1]
    )
    assert "2 of them by evicting 2 pods of lower priority" in code[1]
