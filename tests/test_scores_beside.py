"""The scores of a workload placed beside the run's earlier new workloads count their
copies as the snapshot's pods: those are bound by the time its pods are scheduled, and the
PreScores read every bound pod (podtopologyspread/scoring.go PreScore's
countPodsMatchSelector, interpodaffinity/scoring.go processExistingPod)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import ExistingPod, Snapshot, SnapshotInfo
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.placement.copies import CopyRules
from gate.scheduler.placement.copyrules import EarlierCopies, Ledger
from gate.scheduler.placement.prescore import score_rules
from gate.scheduler.placement.replicas import CopyCount, count_copies
from gate.scheduler.plugins.interpodaffinity.scoring import carried_terms
from tests.builders import container, existing_pod, node

HOSTNAME = "kubernetes.io/hostname"
SHOP = {"tier": "shop"}

# n0 is large, n1 small: LeastAllocated alone puts a 1 cpu copy on n0 even beside the
# earlier workload's two copies there; a score that counts those copies against n0 by 200
# (weight 2, normalised 0 against 100) moves it to n1.
NODES = (
    node("n0", cpu=64000, labels={HOSTNAME: "n0"}),
    node("n1", cpu=4000, labels={HOSTNAME: "n1"}),
)


def _spread(labels: dict[str, str]) -> dict[str, Any]:
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": HOSTNAME,
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": labels},
            }
        ]
    }


def _avoiding(labels: dict[str, str]) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": HOSTNAME}
    preferred = [{"weight": 100, "podAffinityTerm": term}]
    return {
        "affinity": {
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}
        }
    }


def _placed_beside(spec: dict[str, Any], earlier_namespace: str) -> dict[str, int]:
    """Where one copy of a 1 cpu pod of namespace shop with ``spec`` lands beside two
    copies of shop/cache (labels tier=shop) on n0, by node name."""
    info = SnapshotInfo("test", None, None, None, None, len(NODES), 0)
    cluster = Cluster.of(Snapshot(info=info, nodes=NODES, pods=()))
    labels = {"app": "web", **SHOP}
    full = {"containers": [container(requests={"cpu": "1"})], **spec}
    profile = pod_profile(full, "shop", labels)
    scores = score_rules("Deployment", profile, cluster.index, cluster.others.pods)
    ledger = Ledger()
    cache = CopyRules({"cpu": 100}, namespace=earlier_namespace)
    ledger.take("n0", cache, 2, f"{earlier_namespace}/cache", None, SHOP)
    rules = CopyRules({"cpu": 1000}, namespace="shop")
    count_copies(
        CopyCount(
            "shop/web",
            "Deployment",
            1,
            NODES,
            0b11,
            rules,
            ledger=ledger,
            scores=scores,
            labels=labels,
        )
    )
    return {name: held["shop/web"] for name, held in ledger.takers.items() if "shop/web" in held}


BESIDE: list[tuple[str, dict[str, Any], str, dict[str, int]]] = [
    ("no preference: the large node", {}, "shop", {"n0": 1}),
    (
        "a ScheduleAnyway spread counts the earlier copies its selector matches",
        _spread(SHOP),
        "shop",
        {"n1": 1},
    ),
    (
        "a ScheduleAnyway spread counts no copy of another namespace",
        _spread(SHOP),
        "ops",
        {"n0": 1},
    ),
    (
        "a ScheduleAnyway spread counts no copy its selector does not match",
        _spread({"tier": "other"}),
        "shop",
        {"n0": 1},
    ),
    (
        "a preferred anti-affinity weighs the earlier copies it matches",
        _avoiding(SHOP),
        "shop",
        {"n1": 1},
    ),
    (
        "a preferred anti-affinity of the pod's namespace passes another's copies over",
        _avoiding(SHOP),
        "ops",
        {"n0": 1},
    ),
]


@pytest.mark.parametrize(
    ("spec", "earlier_namespace", "expected"),
    [c[1:] for c in BESIDE],
    ids=[c[0] for c in BESIDE],
)
def test_the_run_s_earlier_copies_count_in_the_scores(
    spec: dict[str, Any], earlier_namespace: str, expected: dict[str, int]
) -> None:
    assert _placed_beside(spec, earlier_namespace) == expected


def test_earlier_copies_are_found_by_workload_and_node() -> None:
    ledger = Ledger()
    ledger.take("n1", CopyRules({"cpu": 100}, namespace="a"), 3, "a/x", None, {"k": "v"})
    ledger.take("n1", CopyRules({"cpu": 100}, namespace="b"), 1, "b/y", None, {"k": "w"})
    earlier = EarlierCopies(NODES, ledger)
    assert earlier.workloads == {"a": [("a/x", {"k": "v"})], "b": [("b/y", {"k": "w"})]}
    assert earlier.copies_of({"a/x"}) == [(1, 3)]
    assert earlier.copies_of({"a/x", "b/y"}) == [(1, 4)]
    assert earlier.copies_of(set()) == []


WEB = {"app": "web"}
TERM = {"labelSelector": {"matchLabels": WEB}, "topologyKey": HOSTNAME}


def _carrying(
    affinity: tuple[dict[str, Any], ...] = (),
    preferred: tuple[tuple[int, dict[str, Any]], ...] = (),
    preferred_anti: tuple[tuple[int, dict[str, Any]], ...] = (),
) -> dict[str, Any]:
    """A pod spec with these pod (anti-)affinity terms as written."""
    pod_affinity: dict[str, Any] = {}
    if affinity:
        pod_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = list(affinity)
    if preferred:
        pod_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "podAffinityTerm": t} for w, t in preferred
        ]
    spec: dict[str, Any] = {"affinity": {"podAffinity": pod_affinity}}
    if preferred_anti:
        spec["affinity"]["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": w, "podAffinityTerm": t} for w, t in preferred_anti
            ]
        }
    return spec


def _web_beside(cache: dict[str, Any], namespace: str, on: str, running: bool) -> dict[str, int]:
    """Where one copy of a 1 cpu pod shop/web (no terms of its own) lands beside two pods
    of ``namespace``/cache carrying the terms of ``cache`` on node ``on``: running in the
    snapshot, or copies an earlier workload of the run placed; by node name."""
    cache_spec = {"containers": [container(requests={"cpu": "100m"})], **cache}
    cache_profile = pod_profile(cache_spec, namespace, SHOP)
    pods: tuple[ExistingPod, ...] = ()
    if running:
        written = cache["affinity"]
        required = written.get("podAffinity", {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution", []
        )

        def weighted(kind: str) -> tuple[tuple[int, dict[str, Any]], ...]:
            items = written.get(kind, {}).get("preferredDuringSchedulingIgnoredDuringExecution", [])
            return tuple((i["weight"], i["podAffinityTerm"]) for i in items)

        pods = tuple(
            existing_pod(
                on,
                SHOP,
                namespace=namespace,
                name=f"cache-{i}",
                affinity=tuple(required),
                preferred=weighted("podAffinity"),
                preferred_anti=weighted("podAntiAffinity"),
            )
            for i in range(2)
        )
    info = SnapshotInfo("test", None, None, None, None, len(NODES), len(pods))
    cluster = Cluster.of(Snapshot(info=info, nodes=NODES, pods=pods))
    profile = pod_profile(
        {"containers": [container(requests={"cpu": "1"})]}, "shop", {**WEB, **SHOP}
    )
    scores = score_rules("Deployment", profile, cluster.index, cluster.others.pods)
    ledger = Ledger()
    if not running:
        rules = CopyRules({"cpu": 100}, namespace=namespace)
        terms = carried_terms(cache_profile)
        ledger.take(on, rules, 2, f"{namespace}/cache", None, SHOP, terms)
    else:  # an unrelated earlier workload: the ledger reads earlier copies
        ledger.take("n1", CopyRules({}, namespace="ops"), 1, "ops/x", None, {"app": "x"})
    count_copies(
        CopyCount(
            "shop/web",
            "Deployment",
            1,
            NODES,
            0b11,
            CopyRules({"cpu": 1000}, namespace="shop"),
            ledger=ledger,
            scores=scores,
            labels={**WEB, **SHOP},
        )
    )
    return {name: held["shop/web"] for name, held in ledger.takers.items() if "shop/web" in held}


CARRIED: list[tuple[str, dict[str, Any], str, str, dict[str, int]]] = [
    (
        "an earlier copy's preferred anti-affinity the pod matches pushes it off the node",
        _carrying(preferred_anti=((100, TERM),)),
        "shop",
        "n0",
        {"n1": 1},
    ),
    (
        "an earlier copy's preferred affinity the pod matches draws it to the node",
        _carrying(preferred=((100, TERM),)),
        "shop",
        "n1",
        {"n1": 1},
    ),
    (
        "an earlier copy's required affinity the pod matches draws it by hardPodAffinityWeight",
        _carrying(affinity=(TERM,)),
        "shop",
        "n1",
        {"n1": 1},
    ),
    (
        "an earlier copy's preferred affinity and anti-affinity cancel out",
        _carrying(preferred=((100, TERM),), preferred_anti=((100, TERM),)),
        "shop",
        "n1",
        {"n0": 1},
    ),
    (
        "an earlier copy's term of its own namespace does not match the pod's",
        _carrying(preferred=((100, TERM),)),
        "ops",
        "n1",
        {"n0": 1},
    ),
    (
        "an earlier copy's term the pod's labels do not match adds nothing",
        _carrying(preferred=((100, {**TERM, "labelSelector": {"matchLabels": {"app": "db"}}}),)),
        "shop",
        "n1",
        {"n0": 1},
    ),
]


@pytest.mark.parametrize(
    ("cache", "namespace", "on", "expected"),
    [c[1:] for c in CARRIED],
    ids=[c[0] for c in CARRIED],
)
@pytest.mark.parametrize("running", [False, True], ids=["new in the run", "already running"])
def test_earlier_copies_terms_score_the_pod_as_running_pods_terms_do(
    cache: dict[str, Any], namespace: str, on: str, expected: dict[str, int], running: bool
) -> None:
    assert _web_beside(cache, namespace, on, running) == expected


def test_earlier_copies_keep_their_terms_by_workload() -> None:
    ledger = Ledger()
    carried = carried_terms(pod_profile(_carrying(preferred=((7, TERM),)), "a", {}))
    ledger.take("n1", CopyRules({"cpu": 100}, namespace="a"), 1, "a/x", None, {}, carried)
    ledger.take("n1", CopyRules({"cpu": 100}, namespace="a"), 1, "a/y", None, {})
    assert EarlierCopies(NODES, ledger).terms == {"a/x": carried}
    assert [weight for weight, _ in carried] == [7]
