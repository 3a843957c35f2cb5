"""A StatefulSet's copies after the first, each with its own claims
(``<template>-<statefulset>-<i>``): an existing claim is used as it is, a missing one is
created from the template, claims at or beyond ``replicas`` are ignored, and under
``OrderedReady`` the count stops at the first copy that fits no node (``Parallel`` tries
every one). A PARTIAL names that copy and its claim."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.framework.pods import Pod
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot

ZONE = "topology.kubernetes.io/zone"
WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
NOW = {"metadata": {"name": "now"}, "provisioner": "disk.csi.azure.com"}


def _volume(name: str, zone: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    return {
        "metadata": {"name": name, "labels": {ZONE: zone}},
        "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
    }


def _bound(name: str, volume: str) -> dict[str, Any]:
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    meta = {"name": name, "namespace": "db", "annotations": notes}
    return {"metadata": meta, "spec": {"volumeName": volume, "storageClassName": "wait"}}


def _statefulset(replicas: int, template_class: str = "wait", **spec: Any) -> dict[str, Any]:
    container = {"name": "pg", "image": "p", "resources": {"requests": {"cpu": "100m"}}}
    template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [container]}}
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": template_class},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "db"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "db"}},
            "template": template,
            "volumeClaimTemplates": [claim],
            **spec,
        },
    }


def _run(statefulset: dict[str, Any], *claims: dict[str, Any]) -> Any:
    nodes = [api_node(f"n-{z}", labels={ZONE: z}) for z in ("z1", "z2")]
    storage: dict[str, Any] = {
        "persistentVolumes": [_volume(f"pv-{z}", z) for z in ("z1", "z2", "z9")],
        "persistentVolumeClaims": list(claims),
        "storageClasses": [WAIT, NOW],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    report = check([Document(Location("db.yaml", 1), statefulset)], snapshot, RunOptions())
    (result,) = report.results
    return result


PINNED = "didn't match PersistentVolume's node affinity"
CASES = [
    pytest.param(
        _statefulset(3),
        [_bound("data-db-0", "pv-z1")],
        Verdict.YES,
        3,
        None,
        id="missing claims are created from the template and provisioned where copies land",
    ),
    pytest.param(
        _statefulset(3),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-1", "pv-z9")],
        Verdict.PARTIAL,
        1,
        "db-1 (claims data-db-1): 0/2 nodes are available: 2 node(s) " + PINNED + ".",
        id="under OrderedReady the count stops at the first copy whose volume no node reaches",
    ),
    pytest.param(
        _statefulset(3, podManagementPolicy="Parallel"),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-1", "pv-z9")],
        Verdict.PARTIAL,
        2,
        "db-1 (claims data-db-1): 0/2 nodes are available: 2 node(s) " + PINNED + ".",
        id="under Parallel every copy is tried and the first that fits nowhere is named",
    ),
    pytest.param(
        _statefulset(2),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-2", "pv-z9")],
        Verdict.YES,
        2,
        None,
        id="a claim at or beyond replicas is ignored",
    ),
    pytest.param(
        _statefulset(2, template_class="now"),
        [_bound("data-db-0", "pv-z1")],
        Verdict.PARTIAL,
        1,
        "db-1 (claims data-db-1): 0/2 nodes are available: "
        "pod has unbound immediate PersistentVolumeClaims.",
        id="a claim created of an Immediate class is unbound when its copy is scheduled",
    ),
    pytest.param(
        _statefulset(2, template_class="now"),
        [_bound("data-db-0", "pv-z1"), _bound("data-db-1", "pv-z1")],
        Verdict.YES,
        2,
        None,
        id="an existing claim is used as it is, even of another class than the template's",
    ),
]


@pytest.mark.parametrize(("statefulset", "claims", "verdict", "fit", "message"), CASES)
def test_each_copy_mounts_its_own_claims(
    statefulset: dict[str, Any],
    claims: list[dict[str, Any]],
    verdict: Verdict,
    fit: int,
    message: str | None,
) -> None:
    result = _run(statefulset, *claims)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.message) == (verdict, fit, message)


def _full(evaluator: Evaluator, pod: Pod, candidates: Sequence[int]) -> object:
    """Every copy's whole answer, as before the first copy's nodes were asked first."""
    return evaluator._answer(pod)


@settings(max_examples=40, deadline=None)
@given(
    zones=st.lists(st.sampled_from(["z1", "z2", "z9", None]), min_size=1, max_size=5),
    replicas=st.integers(1, 5),
    parallel=st.booleans(),
    template_class=st.sampled_from(["wait", "now"]),
)
def test_a_later_copy_looked_for_first_where_the_first_fits_is_counted_as_its_whole_answer(
    zones: list[str | None], replicas: int, parallel: bool, template_class: str
) -> None:
    """Each copy's claim bound to a volume in a zone (None: no claim yet, one is made)."""
    policy = {"podManagementPolicy": "Parallel"} if parallel else {}
    statefulset = _statefulset(replicas, template_class, **policy)
    claims = [_bound(f"data-db-{i}", f"pv-{z}") for i, z in enumerate(zones) if z is not None]
    hinted = _run(statefulset, *claims)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Evaluator, "_hinted", _full)
        assert _run(statefulset, *claims) == hinted
