"""What the PodTopologySpread, InterPodAffinity and NodeResourcesFit plugins export for a
pod's copies (``copies`` modules, ``copies_held``), and the placements that ask it (the
scored run of ``classes.py``, by-domain placement of ``grouped.py``), are held to the real
filters copy by copy: each copy bound as a pod of the cluster, the PreFilters run again
for the next."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.k8s.resources import PODS
from gate.k8s.version import Dialect
from gate.model import (
    POD_TOPOLOGY_SPREAD,
    ExistingPod,
    HostPort,
    NodeView,
    Snapshot,
    SnapshotInfo,
)
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import free
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState, run_filters
from gate.scheduler.placement.classes import ScoredRun
from gate.scheduler.placement.copies import CopyRules, ScoreRules, capacity
from gate.scheduler.placement.grouped import _allowed
from gate.scheduler.placement.replicas import copy_rules
from gate.scheduler.plugins import ORDER, prepare
from gate.scheduler.plugins.interpodaffinity.copies import (
    cycle_anti_keys,
    one_per_node,
    refuses_another,
    wider_than_a_node,
)
from gate.scheduler.plugins.nodeports import copies_collide, port_conflicts
from gate.scheduler.plugins.noderesources import copies_held, short_of, wanted_of
from gate.scheduler.plugins.podtopologyspread.copies import admits, land, minimum
from gate.scheduler.plugins.podtopologyspread.filtering import SKEW, SpreadState
from tests.builders import node
from tests.test_nodeindex import nodes, specs
from tests.test_placement_filters import _with_copies

DIALECT = Dialect(named_taint=False)
ZONES = ("a", "b", "c")
APP = {"app": "w"}
NAMESPACE_LABELS = {"team": "web"}


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[NodeView], list[ExistingPod]]:
    """Up to six nodes, some without a zone, and pods of the workload's kind or another."""
    views = []
    for number in range(draw(st.integers(1, 6))):
        labels = {HOSTNAME: f"n{number}"}
        zone = draw(st.sampled_from((*ZONES, None)))
        if zone is not None:
            labels["zone"] = zone
        views.append(node(f"n{number}", labels=labels))
    pods = [
        ExistingPod("default", f"p{i}", f"n{draw(st.integers(0, len(views) - 1))}", labels)
        for i, labels in enumerate(draw(st.lists(st.sampled_from([APP, {"app": "x"}]), max_size=4)))
    ]
    return views, pods


@st.composite
def copy_specs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str]]:
    """A pod spec with a DoNotSchedule zone spread, a required anti-affinity term (its
    namespaces by name, by a namespaceSelector or its own), or both; and its labels."""
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]
    }
    if draw(st.booleans()):
        constraint = {
            "maxSkew": draw(st.integers(1, 2)),
            "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": APP},
        }
        if draw(st.booleans()):
            constraint["minDomains"] = draw(st.integers(1, 4))
        spec["topologySpreadConstraints"] = [constraint]
    if draw(st.booleans()):
        term: dict[str, Any] = {
            "labelSelector": {"matchLabels": APP},
            "topologyKey": draw(st.sampled_from(["zone", HOSTNAME])),
        }
        covered = draw(st.sampled_from(["own", "named", "selected", "not selected", "all"]))
        if covered == "named":
            term["namespaces"] = ["default"]
        elif covered == "selected":
            term["namespaceSelector"] = {"matchLabels": NAMESPACE_LABELS}
        elif covered == "not selected":
            term["namespaceSelector"] = {"matchLabels": {"team": "db"}}
        elif covered == "all":
            term["namespaceSelector"] = {}
        required = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        spec["affinity"] = {"podAntiAffinity": required}
    return spec, draw(st.sampled_from([APP, {"app": "x"}]))


def _cycle(
    views: list[NodeView], pods: list[ExistingPod], pod: PodProfile, labelled: bool
) -> CycleState:
    info = SnapshotInfo("test", None, None, None, None, len(views), len(pods))
    namespaces = {"default": NAMESPACE_LABELS} if labelled else None
    snapshot = Snapshot(info=info, nodes=tuple(views), pods=tuple(pods), namespaces=namespaces)
    return prepare(pod, Cluster.of(snapshot))


def _copy(pod: PodProfile, spec: dict[str, Any], on: str, number: int) -> ExistingPod:
    """A copy bound to node ``on``, its anti-affinity terms as the API server stores them."""
    terms = spec.get("affinity", {}).get("podAntiAffinity", {})
    stored = tuple(terms.get("requiredDuringSchedulingIgnoredDuringExecution", ()))
    return ExistingPod("default", f"copy-{number}", on, pod.labels, anti_affinity_terms=stored)


def _domains(view: NodeView, rules: CopyRules, keys: list[str]) -> tuple[str | None, ...]:
    """A node's domains as by-domain placement groups nodes: spread keys, then anti keys."""
    return tuple(view.labels.get(k) for k in [r.topology_key for r in rules.spread] + keys)


def _spread(cycle: CycleState) -> SpreadState | None:
    return next((p.state for p in cycle if isinstance(p.state, SpreadState)), None)


@settings(max_examples=250, deadline=None)
@given(clusters(), copy_specs(), st.booleans(), st.lists(st.integers(0, 5), max_size=4))
def test_placement_lets_each_copy_onto_the_nodes_the_filters_pass_with_the_copies_bound(
    cluster: tuple[list[NodeView], list[ExistingPod]],
    case: tuple[dict[str, Any], dict[str, str]],
    labelled: bool,
    picks: list[int],
) -> None:
    views, pods = cluster
    spec, labels = case
    pod = pod_profile(spec, "default", labels)
    cycle = _cycle(views, pods, pod, labelled)
    rules = copy_rules(pod, cycle, NAMESPACE_LABELS if labelled else None)
    assert rules.one_per_domain == cycle_anti_keys(cycle, pod)
    # the engine's candidates: the nodes every filter passes, and those the spread refused
    # for skew alone that every later filter passes
    later = cycle[ORDER[POD_TOPOLOGY_SPREAD] + 1 :]
    candidates = 0
    for p, view in enumerate(views):
        first = run_filters(cycle, view, DIALECT)
        if first is None or (first == SKEW and run_filters(later, view, DIALECT) is None):
            candidates |= 1 << p
    run = ScoredRun(views, rules, ScoreRules(), candidates, None)
    counts = [dict(rule.counts) for rule in rules.spread]
    keys = wider_than_a_node(rules.one_per_domain)  # by domain's (grouped.py)
    taken: list[set[str | None]] = [set() for _ in keys]
    held: dict[int, int] = {}
    bound = list(pods)
    for number, pick in enumerate(picks):
        cycle = _cycle(views, bound, pod, labelled)
        state = _spread(cycle)
        assert counts == ([dict(c) for c in state.counts] if state else [])
        minimums = run.minimums()
        allowed = [p for p in range(len(views)) if candidates >> p & 1 and run.allowed(p, minimums)]
        passing = [
            p
            for p in range(len(views))
            if candidates >> p & 1 and run_filters(cycle, views[p], DIALECT) is None
        ]
        assert allowed == passing
        by_domain = [
            p
            for p in range(len(views))
            if candidates >> p & 1
            and capacity(views[p], rules) > held.get(p, 0)
            and _allowed(_domains(views[p], rules, keys), rules, counts, keys, taken)
        ]
        assert by_domain == passing
        if state is not None:
            for view in views:
                value = view.labels.get("zone")
                admitted = value is not None and admits(
                    counts[0].get(value, 0),
                    state.self_match[0],
                    minimum(counts[0], state.constraints[0].min_domains),
                    state.constraints[0].max_skew,
                )
                assert admitted == (state.filter(view.labels) is None)
        if not allowed:
            break
        p = allowed[pick % len(allowed)]
        run.take(p)
        held[p] = held.get(p, 0) + 1
        for k, key in enumerate(keys):
            taken[k].add(views[p].labels.get(key))
        for k, rule in enumerate(rules.spread):
            land(counts[k], views[p].labels.get(rule.topology_key), rule.self_match)
        bound.append(_copy(pod, spec, views[p].name, number))


@settings(max_examples=60, deadline=None)
@given(nodes(), specs())
def test_copies_held_is_the_copies_noderesourcesfit_passes_one_after_another(
    found: list[NodeView], spec: dict[str, Any]
) -> None:
    pod = pod_profile(spec)
    wanted = wanted_of(pod.requests)
    for view in found:
        if short_of(wanted, view):
            continue
        held = copies_held(pod.requests, free(view, PODS), partial(free, view))
        # fitting only shrinks as copies land: the last copy held and the one after decide
        asked = sorted({max(held - 1, 0), held})
        fits = [not short_of(wanted, _with_copies(view, pod, k)) for k in asked]
        assert fits == [k < held for k in asked]


@pytest.mark.parametrize(
    ("taken", "domain", "refused"),
    [
        pytest.param({"a"}, "a", True, id="a domain already holding a copy refuses the next"),
        pytest.param({"a"}, "b", False, id="a domain holding no copy takes one"),
        pytest.param({None}, None, False, id="a node without the key is in no domain"),
    ],
)
def test_own_anti_affinity_refuses_a_domain_once_a_copy_took_it(
    taken: set[str | None], domain: str | None, refused: bool
) -> None:
    assert refuses_another(taken, domain) is refused


@pytest.mark.parametrize(
    ("keys", "one", "wider"),
    [
        pytest.param((HOSTNAME,), True, [], id="a hostname term leaves a node one copy"),
        pytest.param(("zone",), False, ["zone"], id="a zone term reaches past the node"),
        pytest.param((HOSTNAME, "zone"), True, ["zone"], id="both terms: one a node, one a zone"),
        pytest.param((), False, [], id="no term: neither"),
    ],
)
def test_own_anti_affinity_keys_split_by_the_node_and_wider(
    keys: tuple[str, ...], one: bool, wider: list[str]
) -> None:
    assert (one_per_node(keys), wider_than_a_node(keys)) == (one, wider)


HOST_PORTS = st.builds(
    HostPort,
    ip=st.sampled_from(["0.0.0.0", "10.0.0.1", "10.0.0.2"]),
    protocol=st.sampled_from(["TCP", "UDP"]),
    port=st.integers(1, 3),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(HOST_PORTS, max_size=3))
def test_copies_collide_exactly_when_the_next_copys_ports_conflict_with_the_firsts(
    wanted: list[HostPort],
) -> None:
    held = frozenset(wanted)
    assert copies_collide(wanted) == any(port_conflicts(port, held) for port in wanted)
