"""A shard report's outcome groups and taint bitsets are put back as the sets of nodes that
share an outcome, equal to each node's outcome put back one by one: the groups' reasons,
the plugin that gives them, and the taint named on the node (the last one named, where a
hostile report names two)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.ci.merge import _Group, _outcomes, _Untolerated, _Workload
from gate.model import NodeOutcome, Taint
from gate.scheduler.filters import plugin_of

REASONS = (
    (),
    ("Insufficient cpu",),
    ("Insufficient cpu", "Too many pods"),
    ("node(s) had untolerated taint {dedicated: gpu}",),
    ("node(s) didn't match Pod's node affinity/selector",),
    ("a reason no plugin here gives",),
)


def _one_by_one(
    workload: _Workload, untolerated: list[_Untolerated], index: dict[str, int]
) -> tuple[NodeOutcome, ...]:
    """Each node's outcome put back on its own, in node order."""
    taint_of: dict[int, Taint] = {}
    for entry in untolerated:
        bits = int(entry.nodes, 16)
        for position in range(bits.bit_length()):
            if bits >> position & 1:
                taint_of[position] = Taint(entry.key, entry.value, entry.effect)
    placed: list[NodeOutcome | None] = [None] * len(index)
    for group in workload.outcomes:
        reasons = tuple(group.reasons)
        for name in group.nodes:
            at = index[name]
            placed[at] = NodeOutcome(name, reasons, taint_of.get(at), plugin_of(reasons))
    return tuple(o for o in placed if o is not None)


@st.composite
def shard_workloads(draw: st.DrawFn) -> tuple[_Workload, list[_Untolerated], dict[str, int]]:
    kinds = draw(st.lists(st.integers(0, len(REASONS) - 1), min_size=1, max_size=40))
    names = [f"n{i}" for i in range(len(kinds))]
    groups = [
        _Group(reasons=list(REASONS[kind]), count=kinds.count(kind), nodes=members)
        for kind in sorted(set(kinds))
        for members in [[n for n, k in zip(names, kinds, strict=True) if k == kind]]
    ]
    taints = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["dedicated", "CriticalAddonsOnly"]),
                st.sampled_from(["NoSchedule", "NoExecute"]),
                st.integers(0, (1 << len(names)) - 1),
            ),
            max_size=3,
        )
    )
    untolerated = [_Untolerated(k, "v", effect, f"{bits:x}") for k, effect, bits in taints]
    workload = _Workload(
        kind="Deployment",
        namespace="web",
        name="api",
        file="deploy.yaml",
        line=1,
        replicas=None,
        verdict="PARTIAL",
        message=None,
        outcomes=groups,
        requests={},
        warnings=[],
    )
    return workload, untolerated, {name: i for i, name in enumerate(names)}


@settings(max_examples=200, deadline=None)
@given(shard_workloads())
def test_outcomes_put_back_as_sets_equal_those_put_back_node_by_node(
    case: tuple[_Workload, list[_Untolerated], dict[str, int]],
) -> None:
    workload, untolerated, index = case
    expected = _one_by_one(workload, untolerated, index)
    put_back = _outcomes(workload, untolerated, index)
    assert put_back == expected and tuple(put_back) == expected


def test_a_workload_without_groups_has_no_outcomes() -> None:
    workload = _Workload("Pod", "web", "x", "f.yaml", 1, None, "SKIPPED", None, [], {}, [])
    assert _outcomes(workload, [], {"n0": 0}) == ()
