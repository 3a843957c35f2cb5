"""Taints x tolerations: a node may carry any number of taints and a pod any number of
tolerations. ``first_untolerated`` indexes many tolerations instead of trying each on each
taint; its answer is held equal to the plain FindMatchingUntoleratedTaint (``tolerates``
on every pair, as ``k8s.io/api/core/v1/toleration.go`` ToleratesTaint) by a property test."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.matching import FILTERED_EFFECTS, first_untolerated, tolerates
from gate.model import Taint
from tests.deadline import deadline


def plain_first_untolerated(
    taints: Iterable[Taint],
    tolerations: Sequence[Mapping[str, Any]],
    effects: frozenset[str] = FILTERED_EFFECTS,
) -> Taint | None:
    """The definition: every toleration tried on every taint, in node order."""
    for taint in taints:
        if taint.effect in effects and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


texts = st.sampled_from(["", "a", "b", "dedicated", "true", "1"])
effects = st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule", "", "Other"])
taints = st.builds(Taint, key=texts, value=texts, effect=effects)
odd = st.sampled_from([None, 0, 1, True, False, [], {}, ["a"], {"a": 1}, 1.0])
fields = st.one_of(texts, odd)
tolerations = st.dictionaries(
    st.sampled_from(["key", "operator", "value", "effect", "tolerationSeconds"]),
    st.one_of(
        fields,
        effects,
        st.sampled_from(["Exists", "Equal", "Lt", "Gt", "exists", ""]),
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    node=st.lists(taints, max_size=12),
    pod=st.lists(tolerations, max_size=20),
    as_tuple=st.booleans(),
    only_no_schedule=st.booleans(),
)
def test_the_indexed_match_is_the_plain_match(
    node: list[Taint],
    pod: list[dict[str, Any]],
    as_tuple: bool,
    only_no_schedule: bool,
) -> None:
    chosen = frozenset({"NoSchedule"}) if only_no_schedule else FILTERED_EFFECTS
    given_tolerations = tuple(pod) if as_tuple else pod
    expected = plain_first_untolerated(node, pod, chosen)
    assert first_untolerated(node, given_tolerations, chosen) is expected


def test_a_million_taints_against_a_thousand_tolerations_is_linear() -> None:
    """Issue #15: 10^6 taints against a pod with 1,001 tolerations took 207 s."""
    keys = [f"team-{k}" for k in range(1000)]
    equal = [
        {"key": key, "operator": "Equal", "value": "yes", "effect": "NoSchedule"} for key in keys
    ]
    pod = (*equal, {"key": "spot", "operator": "Exists"})
    tolerated = [Taint(key, "yes", "NoSchedule") for key in keys]
    node = tolerated * 1000  # 10^6 taints (a thousand distinct ones, in node order)
    node.append(Taint("gpu", "true", "NoExecute"))
    with deadline(30):
        assert first_untolerated(node, pod) == Taint("gpu", "true", "NoExecute")
        node[-1] = Taint("spot", "anything", "NoExecute")
        assert first_untolerated(node, list(pod)) is None
