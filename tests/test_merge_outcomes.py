"""A shard report's outcome groups and taint bitsets are put back as the sets of nodes that
share an outcome, equal to each node's outcome put back one by one: the groups' reasons,
the plugin and code that gave them, and the taint named on the node (the last one named, where a
hostile report names two)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.ci.merge import _outcomes
from gate.model import Code, NodeOutcome, Taint
from gate.model.contract import OutcomeGroup, Untolerated, Workload

UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
OUTCOMES: tuple[tuple[tuple[str, ...], str, Code | None], ...] = (
    ((), "", None),
    (("Insufficient cpu",), "NodeResourcesFit", Code.UNSCHEDULABLE),
    (("Insufficient cpu",), "NodeResourcesFit", UNRESOLVABLE),
    (("Insufficient cpu", "Too many pods"), "NodeResourcesFit", Code.UNSCHEDULABLE),
    (("node(s) had untolerated taint {dedicated: gpu}",), "TaintToleration", UNRESOLVABLE),
    (("node(s) didn't match Pod's node affinity/selector",), "NodeAffinity", UNRESOLVABLE),
    (("node(s) didn't match pod anti-affinity rules",), "InterPodAffinity", Code.UNSCHEDULABLE),
)


def _one_by_one(
    workload: Workload, untolerated: list[Untolerated], index: dict[str, int]
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
        reasons, plugin = tuple(group.reasons), group.plugin or ""
        for name in group.nodes:
            at = index[name]
            placed[at] = NodeOutcome(name, reasons, taint_of.get(at), plugin, group.code)
    return tuple(o for o in placed if o is not None)


@st.composite
def shard_workloads(draw: st.DrawFn) -> tuple[Workload, list[Untolerated], dict[str, int]]:
    kinds = draw(st.lists(st.integers(0, len(OUTCOMES) - 1), min_size=1, max_size=40))
    names = [f"n{i}" for i in range(len(kinds))]
    groups = [
        OutcomeGroup(
            reasons=list(reasons),
            plugin=plugin or None,
            code=code,
            count=kinds.count(kind),
            nodes=members,
        )
        for kind in sorted(set(kinds))
        for reasons, plugin, code in [OUTCOMES[kind]]
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
    untolerated = [
        Untolerated(key=k, value="v", effect=effect, nodes=f"{bits:x}")
        for k, effect, bits in taints
    ]
    workload = Workload(
        kind="Deployment",
        namespace="web",
        name="api",
        file="deploy.yaml",
        line=1,
        origin=None,
        replicas=None,
        verdict="PARTIAL",
        allowed=False,
        message=None,
        reason=None,
        outcomes=groups,
        requests={},
        warnings=(),
    )
    return workload, untolerated, {name: i for i, name in enumerate(names)}


@settings(max_examples=200, deadline=None)
@given(shard_workloads())
def test_outcomes_put_back_as_sets_equal_those_put_back_node_by_node(
    case: tuple[Workload, list[Untolerated], dict[str, int]],
) -> None:
    workload, untolerated, index = case
    expected = _one_by_one(workload, untolerated, index)
    put_back = _outcomes(workload, untolerated, index)
    assert put_back == expected and tuple(put_back) == expected


def test_a_workload_without_groups_has_no_outcomes() -> None:
    workload = Workload(
        kind="Pod",
        namespace="web",
        name="x",
        file="f.yaml",
        line=1,
        origin=None,
        replicas=None,
        verdict="SKIPPED",
        allowed=False,
        message=None,
        reason="skipped",
        outcomes=[],
        requests={},
        warnings=(),
    )
    assert _outcomes(workload, [], {"n0": 0}) == ()
