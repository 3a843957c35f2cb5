"""A run's autoscaler (gate/scheduler/autoscaling/session.py): DaemonSets and expendable pods
never trigger a scale-up (cluster-autoscaler-1.34.5 core/podlistprocessor/
filter_out_daemon_sets.go, filter_out_expendable.go), a stale or initializing status is said,
GKE node auto-provisioning is warned, and autoscaled nodes without autoscaler state get a hint."""

from __future__ import annotations

from typing import Any

from gate.k8s.completion import complete_pod_spec
from gate.k8s.version import dialect_for
from gate.model.autoscaling import AutoscalingConfig
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, ScaleUp
from gate.scheduler.autoscaling.session import Autoscaling, autoscaled_hint
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from gate.snapshot.load import build_snapshot
from gate.snapshot.state import admission
from tests.autoscaler_support import AKS_USER, VERSION, aks_node, spec
from tests.autoscaling_objects import (
    autoscaler_deployment,
    configmap_of,
    daemonset,
    status_configmap,
    status_group,
)
from tests.builders import cluster_snapshot, node


def _session(*objects: dict[str, Any], nodes: list[dict[str, Any]] | None = None) -> Autoscaling:
    arrays: dict[str, list[dict[str, Any]]] = {}
    for obj in objects:
        arrays.setdefault({"ConfigMap": "configMaps"}.get(obj["kind"], "deployments"), []).append(
            obj
        )
    document = cluster_snapshot(nodes or [aks_node("user-0")], server_version=VERSION, **arrays)
    snapshot = build_snapshot(document, "s.json")  # captured 2026-08-16T10:00:00Z
    session = Autoscaling.of(
        snapshot, AutoscalingConfig(), Cluster.of(snapshot), dialect_for(VERSION)
    )
    assert session is not None
    return session


def _decide(session: Autoscaling, kind: str, body: dict[str, Any], left: int) -> Decision | None:
    profile = pod_profile(body)
    cycle = prepare(profile, Cluster.of(build_snapshot(cluster_snapshot([]), "s")))
    return session.decide(kind, cycle, profile, left)


STATUS = status_configmap(
    status_group(AKS_USER, target=1, max_size=3), time="2026-08-16 09:59:00 +0000 UTC"
)


def test_a_deployment_s_copies_scale_and_share_the_headroom() -> None:
    session = _session(STATUS)
    assert _decide(session, "Deployment", spec(cpu="3"), 1) == Decision(
        1, (ScaleUp(AKS_USER, 1, 1, 1, 3),), 1
    )
    assert session.used.nodes == {AKS_USER: 1}
    assert (session.notes, session.uncertain) == ((), False)


def test_daemonsets_and_runs_with_nothing_left_never_trigger_a_scale_up() -> None:
    session = _session(STATUS)
    assert _decide(session, "DaemonSet", spec(cpu="3"), 1) is None
    assert _decide(session, "Deployment", spec(cpu="3"), 0) is None


def test_an_expendable_pod_is_left_pending_without_a_scale_up() -> None:
    session = _session(STATUS, autoscaler_deployment("--expendable-pods-priority-cutoff=0"))
    assert _decide(session, "Deployment", spec(priority=-5), 1) == Decision(
        1, unjudged="priority -5 is below --expendable-pods-priority-cutoff 0"
    )


def test_a_status_older_than_three_minutes_at_capture_is_uncertain() -> None:
    stale = status_configmap(
        status_group(AKS_USER, target=1, max_size=3), time="2026-08-16 09:50:00 +0000 UTC"
    )
    session = _session(stale)
    assert session.uncertain
    assert session.notes == (
        "the cluster-autoscaler status was written 10 minutes before the snapshot: "
        "what it says of the groups may have changed",
    )


def test_an_initializing_autoscaler_is_uncertain() -> None:
    text = "time: 2026-08-16 10:00:00 +0000 UTC\nautoscalerStatus: Initializing\n"
    session = _session(configmap_of(text))
    assert session.uncertain
    assert session.notes[-1] == "cluster-autoscaler is still initializing: its status may change"


def test_gke_node_auto_provisioning_is_warned_as_not_judged() -> None:
    nap = aks_node(
        "gke-c-nap-e2-standard-4-1a2b3c4d-x",
        labels={"cloud.google.com/gke-nodepool": "nap-e2-standard-4"},
    )
    session = _session(STATUS, nodes=[aks_node("user-0"), nap])
    assert session.notes[-1] == (
        "GKE node auto-provisioning (nap-e2-standard-4) is not judged: "
        "pools it would create are not modelled"
    )


def test_autoscaled_nodes_without_autoscaler_state_get_a_hint() -> None:
    assert autoscaled_hint(
        (node("a"), node("b", labels={"eks.amazonaws.com/nodegroup": "ng"}))
    ) == (
        "nodes look autoscaled (eks.amazonaws.com/nodegroup); record the autoscaler state "
        "(fitgate snapshot --autoscaling) to judge scale-ups"
    )
    assert autoscaled_hint((node("a"),)) is None


def test_daemonsets_without_a_status_make_no_autoscaler() -> None:
    document = cluster_snapshot([aks_node("user-0")], daemonSets=[daemonset("kube-proxy")])
    snapshot = build_snapshot(document, "s.json")
    cluster = Cluster.of(snapshot)
    assert Autoscaling.of(snapshot, AutoscalingConfig(), cluster, dialect_for(VERSION)) is None


def test_a_pod_whose_class_is_below_the_default_cutoff_triggers_no_scale_up() -> None:
    """The priority is the one the Priority admission gives it from its class."""
    batch = {"metadata": {"name": "batch"}, "value": -100}
    classes = admission([], [], [batch])
    body = {**spec(cpu="3"), "priorityClassName": "batch"}
    completed, _ = complete_pod_spec(body, "default", classes)
    session = _session(STATUS)
    assert _decide(session, "Deployment", completed, 1) == Decision(
        1, unjudged="priority -100 is below --expendable-pods-priority-cutoff -10"
    )
