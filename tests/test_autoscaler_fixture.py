"""The recorded AKS cluster with a user pool at 3 of max 10
(fixtures/snapshots/aks-autoscaled.json: aks-six-nodes plus the cluster-autoscaler-status
ConfigMap of CA ≥ 1.30 and two system-node-critical DaemonSets), decided as
cluster-autoscaler-1.34.5 decides (core/scaleup/orchestrator/orchestrator.go,
estimator/binpacking_estimator.go, simulator/node_info_utils.go)."""

from __future__ import annotations

from gate.k8s.version import dialect_for
from gate.model.autoscaling import AutoscalingConfig
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, ScaleUp
from gate.scheduler.autoscaling.session import Autoscaling
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from gate.snapshot.load import load_snapshot
from tests.autoscaler_support import spec
from tests.conftest import ROOT

FIXTURE = ROOT / "fixtures" / "snapshots" / "aks-autoscaled.json"
USER, SYSTEM = "aks-user-12345678-vmss", "aks-system-12345678-vmss"


def _session() -> tuple[Autoscaling, Cluster]:
    snapshot = load_snapshot(str(FIXTURE))
    cluster = Cluster.of(snapshot)
    dialect = dialect_for(snapshot.info.server_version)
    session = Autoscaling.of(snapshot, AutoscalingConfig(), cluster, dialect)
    assert session is not None
    return session, cluster


def test_the_pools_are_matched_and_the_user_template_keeps_its_daemonsets() -> None:
    session, _ = _session()
    assert session.groups is not None
    system, user = session.groups.groups
    assert (system.id, system.members) == (SYSTEM, ("aks-system-0", "aks-system-1", "aks-system-2"))
    assert (user.id, user.members) == (USER, ("aks-user-0", "aks-user-1", "aks-user-2"))
    assert user.template is not None
    node = user.template.node
    assert (node.allocatable["cpu"], node.requested["cpu"], node.pod_count) == (2000, 500, 2)
    assert (session.notes, session.groups.ungrouped) == ((), ())


def test_copies_that_fit_no_node_scale_the_user_pool_then_meet_its_maximum() -> None:
    session, cluster = _session()
    body = spec(cpu="1", memory="1Gi")
    profile = pod_profile(body)
    cycle = prepare(profile, cluster)
    first = session.decide("Deployment", cycle, profile, 5)
    assert first == Decision(5, (ScaleUp(USER, 5, 5, 3, 10),), 5)
    assert str(first.scale_up[0]) == "{aks-user-12345678-vmss 3->8 (max: 10)}"
    second = session.decide("Deployment", cycle, profile, 4)
    assert second == Decision(
        4, (ScaleUp(USER, 2, 2, 8, 10),), 2, {"max node group size reached": 2}
    )
    assert second.message == "pod didn't trigger scale-up: 2 max node group size reached"
