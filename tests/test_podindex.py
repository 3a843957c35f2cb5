"""The existing pods' index (gate.scheduler.framework.podindex) and DefaultPreemption's pods by
node: a pod bound to no node of the snapshot is left out, the others keep their order, and
each node's pods and lowest priority are those the pods say."""

from __future__ import annotations

import pickle
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.podaffinity import AffinityTerm, stored_terms
from gate.model import ExistingPod
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.plugins.defaultpreemption import PodsByNode
from tests.builders import existing_pod, node

NODES = (node("n0"), node("n1"))
TERM = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
ZONE_TERM = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
SHARED = [(TERM,), (TERM, ZONE_TERM), (ZONE_TERM, TERM, TERM)]

CASES = [
    (
        "pods on the snapshot's nodes keep their order",
        [existing_pod("n1", name="a"), existing_pod("n0", name="b", anti_affinity=(TERM,))],
        (["a", "b"], (1, 0), (1,)),
    ),
    (
        "a pod bound to no node of the snapshot is left out",
        [
            existing_pod("gone", name="a", anti_affinity=(TERM,)),
            existing_pod("n0", name="b"),
            existing_pod("n1", name="c", anti_affinity=(TERM,)),
        ],
        (["b", "c"], (0, 1), (1,)),
    ),
    ("no pods index none", [], ([], (), ())),
]


@pytest.mark.parametrize(("pods", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_index_holds_the_pods_bound_to_the_snapshots_nodes(
    pods: list[ExistingPod], expected: tuple[list[str], tuple[int, ...], tuple[int, ...]]
) -> None:
    for passed in (pods, tuple(pods), iter(pods)):
        index = PodIndex(passed, NODES)
        found = ([p.name for p in index.pods], index.node_of, index.with_anti_affinity)
        assert found == expected


def test_pods_by_node_hold_each_nodes_pods_and_lowest_priority() -> None:
    pods = [
        replace(existing_pod("n1", name="a"), priority=5),
        replace(existing_pod("n0", name="b"), priority=7),
        replace(existing_pod("n1", name="c"), priority=-2),
        replace(existing_pod("n0", name="d"), priority=9),
    ]
    by_node = PodsByNode(PodIndex(pods, NODES))
    assert (by_node.lowest, by_node.on) == ({1: -2, 0: 7}, {1: [0, 2], 0: [1, 3]})
    assert by_node.lower(0, 8, frozenset()) == [1]
    assert by_node.lower(1, 5, frozenset({2})) == []


def _carried_one_by_one(index: PodIndex) -> list[tuple[AffinityTerm, tuple[int, ...]]]:
    """Every term with the nodes of the pods carrying it, found pod by pod."""
    found: dict[AffinityTerm, list[int]] = {}
    for i, pod in enumerate(index.pods):
        for term in stored_terms(pod.anti_affinity_terms, pod.namespace):
            found.setdefault(term, []).append(index.node_of[i])
    return [(term, tuple(nodes)) for term, nodes in found.items()]


carriers = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.sampled_from(["a", "b"]),
        st.integers(-1, len(SHARED) - 1),
        st.booleans(),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(pods=carriers)
def test_anti_affinity_terms_found_by_shared_tuple_are_those_pod_by_pod(
    pods: list[tuple[int, str, int, bool]],
) -> None:
    built = [
        existing_pod(
            f"n{on}",
            namespace=namespace,
            name=f"p{k}",
            # the readers share one tuple among a workload's pods; a copy is another tuple
            anti_affinity=() if terms < 0 else SHARED[terms] if shared else tuple([*SHARED[terms]]),
        )
        for k, (on, namespace, terms, shared) in enumerate(pods)
    ]
    index = PodIndex(built, NODES)
    assert list(index.anti_affinity_terms()) == _carried_one_by_one(index)


@pytest.mark.parametrize(
    "terms",
    [
        pytest.param((TERM,), id="a term hashes as the dataclass would hash its fields"),
        pytest.param((ZONE_TERM,), id="a zone term hashes so too"),
    ],
)
def test_a_term_hashes_as_its_fields_and_a_changed_copy_as_its_own(
    terms: tuple[dict[str, Any], ...],
) -> None:
    # The index keys terms by their hash, kept once: the sets it walks keep the order the
    # fields' hash gives them, and a copy with other namespaces is hashed anew.
    (term,) = stored_terms(terms, "default")
    listed = replace(term, namespaces=frozenset({"other"}))
    for found in (term, listed):
        fields = (found.namespaces, found.namespace_selector, found.selector, found.topology_key)
        assert hash(found) == hash(fields)
    assert listed != term


def test_a_term_crosses_to_another_process_equal_and_hashed_there() -> None:
    # A forked judge hands its results over pickled; the hash is worked out again there.
    (term,) = stored_terms((ZONE_TERM,), "default")
    copied = pickle.loads(pickle.dumps(term, protocol=pickle.HIGHEST_PROTOCOL))
    assert copied == term
    assert hash(copied) == hash(term)
    assert copied.__reduce__()[1] == (
        term.namespaces,
        term.namespace_selector,
        term.selector,
        term.topology_key,
    )
