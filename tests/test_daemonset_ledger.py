"""New DaemonSets on the run's shared ledger: each takes its room on every node it still fits,
before the run's other new workloads, and one short of room beside earlier ones is PARTIAL
naming them. While the ledger holds DaemonSets' pods only, the nodes they take alike are
asked as sets (``Ledger.layers``); the answers are those of asking node by node."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.version import dialect_for
from gate.model import Location, Verdict, Workload, WorkloadResult
from gate.reports.wording import headline
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.placement import copyrules
from gate.scheduler.placement.copies import Ledger
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container


def _daemonset(name: str, cpu: int, pool: str | None = None) -> Workload:
    spec: dict[str, Any] = {"containers": [container(requests={"cpu": f"{cpu}m"})]}
    if pool is not None:
        spec["nodeSelector"] = {"pool": pool}
    return Workload(
        kind="DaemonSet",
        namespace="ops",
        name=name,
        location=Location(f"{name}.yaml", 1),
        replicas=None,
        pod_spec=spec,
    )


def _deployment(name: str, cpu: int, replicas: int) -> Workload:
    return Workload(
        kind="Deployment",
        namespace="app",
        name=name,
        location=Location(f"{name}.yaml", 1),
        replicas=replicas,
        pod_spec={"containers": [container(requests={"cpu": f"{cpu}m"})]},
    )


def _evaluator(free: list[int], pools: list[str], slots: list[int]) -> Evaluator:
    """Nodes of 4 cpu with ``free[i]`` millicpu left by a running pod, in ``pools[i]``, with
    ``slots[i]`` pod slots."""
    nodes = [
        api_node(f"n{i}", cpu="4", pods=str(slots[i]), labels={"pool": pools[i]})
        for i in range(len(free))
    ]
    pods = [
        api_pod(f"busy-{i}", f"n{i}", containers=[container(requests={"cpu": f"{4000 - f}m"})])
        for i, f in enumerate(free)
        if f < 4000
    ]
    snapshot = build_snapshot(cluster_snapshot(nodes, pods), "snapshot.json")
    return Evaluator.for_snapshot(snapshot, dialect_for(snapshot.info.server_version))


@contextmanager
def node_by_node() -> Iterator[None]:
    """Every ledger as if a workload other than a DaemonSet had taken room on it: its
    DaemonSets' room asked node by node."""
    original = copyrules.Ledger.take_daemon

    def taken(self: Ledger, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.daemons_only = False

    copyrules.Ledger.take_daemon = taken  # type: ignore[method-assign]
    try:
        yield
    finally:
        copyrules.Ledger.take_daemon = original  # type: ignore[method-assign]


def _run(evaluator: Evaluator, workloads: list[Workload]) -> list[WorkloadResult]:
    ledger = Ledger()
    return [evaluator.evaluate(w, ledger) for w in workloads]


CASES = [
    (
        "a DaemonSet short of cpu beside an earlier one on one node names it",
        [3000, 3000, 1500],
        [_daemonset("agent", 1000), _daemonset("exporter", 1000)],
        ("exporter", Verdict.PARTIAL, "beside ops/agent, no room on 1 of 3 targeted nodes"),
    ),
    (
        "a DaemonSet with room beside earlier ones everywhere fits",
        [3000, 3000, 3000],
        [_daemonset("agent", 1000), _daemonset("exporter", 1000)],
        ("exporter", Verdict.YES, "fits 3 of 3 nodes"),
    ),
    (
        "a Deployment judged after a DaemonSet lacks the room its pods take",
        [1000, 1000, 1000],
        [_daemonset("agent", 500), _deployment("web", 800, 3)],
        ("web", Verdict.PARTIAL, "fits alone; beside ops/agent, 0 of 3 replicas fit"),
    ),
    (
        "a DaemonSet short on every node it fits alone is PARTIAL, never NO",
        [1500, 1500],
        [_daemonset("agent", 1000), _daemonset("exporter", 1000)],
        ("exporter", Verdict.PARTIAL, "beside ops/agent, no room on 2 of 2 targeted nodes"),
    ),
]


@pytest.mark.parametrize(
    ("free", "workloads", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_new_daemonset_takes_its_room_on_the_runs_ledger(
    free: list[int], workloads: list[Workload], expected: tuple[str, Verdict, str]
) -> None:
    evaluator = _evaluator(free, ["web"] * len(free), [110] * len(free))
    results = {r.name: r for r in _run(evaluator, workloads)}
    name, verdict, said = expected
    assert results[name].verdict is verdict
    assert headline(results[name]).startswith(said)


def test_a_new_daemonsets_pod_is_recorded_on_every_node_it_fits() -> None:
    evaluator = _evaluator([3000, 3000], ["web", "web"], [110, 110])
    ledger = Ledger()
    result = evaluator.evaluate(_daemonset("agent", 1000), ledger)
    assert result.placement is not None and result.placement.together == 2
    assert ledger.daemons == {"ops/agent": 0b11}


daemonsets = st.lists(
    st.tuples(st.integers(0, 2000), st.integers(0, 3), st.sampled_from([None, "a", "b"])).map(
        lambda t: _daemonset(f"d{t[0]}-{t[1]}", t[0], pool=t[2])
    ),
    min_size=1,
    max_size=5,
    unique_by=lambda w: w.name,
)


@settings(max_examples=60, deadline=None)
@given(
    free=st.lists(st.integers(0, 4000), min_size=1, max_size=8),
    pools=st.lists(st.sampled_from(["a", "b"]), min_size=8, max_size=8),
    slots=st.lists(st.integers(1, 4), min_size=8, max_size=8),
    workloads=daemonsets,
    web=st.integers(100, 3000),
)
def test_daemonsets_asked_as_sets_answer_as_node_by_node(
    free: list[int],
    pools: list[str],
    slots: list[int],
    workloads: list[Workload],
    web: int,
) -> None:
    evaluator = _evaluator(free, pools[: len(free)], slots[: len(free)])
    run = [*workloads, _deployment("web", web, 2 * len(free))]
    as_sets = _run(evaluator, run)
    with node_by_node():
        assert _run(evaluator, run) == as_sets


def _with_port(workload: Workload, port: int | None) -> Workload:
    if port is None:
        return workload
    [first] = workload.pod_spec["containers"]
    ported = {**first, "ports": [{"containerPort": port, "hostPort": port}]}
    return replace(workload, pod_spec={**workload.pod_spec, "containers": [ported]})


ported_daemonsets = st.lists(
    st.tuples(
        st.integers(0, 2000),
        st.integers(0, 3),
        st.sampled_from([None, "a", "b"]),
        st.sampled_from([None, 9100, 9200]),
    ).map(lambda t: _with_port(_daemonset(f"d{t[0]}-{t[1]}", t[0], pool=t[2]), t[3])),
    min_size=1,
    max_size=5,
    unique_by=lambda w: w.name,
)


@settings(max_examples=60, deadline=None)
@given(
    free=st.lists(st.integers(0, 4000), min_size=1, max_size=8),
    pools=st.lists(st.sampled_from(["a", "b"]), min_size=8, max_size=8),
    workloads=ported_daemonsets,
)
def test_daemonsets_holding_host_ports_asked_as_sets_answer_as_node_by_node(
    free: list[int], pools: list[str], workloads: list[Workload]
) -> None:
    evaluator = _evaluator(free, pools[: len(free)], [3] * len(free))
    as_sets = _run(evaluator, workloads)
    with node_by_node():
        assert _run(evaluator, workloads) == as_sets
