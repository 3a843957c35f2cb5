"""Dynamic Resource Allocation in Karpenter's simulation, with ``IgnoreDRARequests`` at its
default (true): sigs.k8s.io/karpenter v1.8.3 pkg/utils/pod/scheduling.go
``HasDRARequirements``; provisioning/scheduling/scheduler.go ``add`` (the pod goes on no
node), ``getDaemonOverhead`` and ``getDaemonHostPortUsage`` (such a DaemonSet is left out);
upstream's own cases: scheduling/suite_test.go "Dynamic Resource Allocation (DRA)"."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.k8s.resources import pod_request_amounts
from gate.model import KARPENTER_EVENT
from gate.model.autoscaling import DaemonSet
from gate.model.karpenter import NodePool
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter.provisioner import DRA
from gate.scheduler.framework.pods import dra_requirements
from tests.builders import container
from tests.conftest import ROOT
from tests.karpenter_support import MI, Run, daemon_set, spec

CLAIM = [{"name": "gpu"}]
EKS = "fixtures/snapshots/eks-karpenter.json"
KWOK = "fixtures/catalogs/instance-types.json"
POD_CLAIMS = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]


def _claiming(cpu: str = "1") -> dict[str, Any]:
    """A container consuming the pod's claim ``gpu``."""
    app = container(requests={"cpu": cpu, "memory": "100Mi"})
    return {**app, "resources": {**app["resources"], "claims": CLAIM}}


def _init(**more: Any) -> dict[str, Any]:
    return {**container("init"), "resources": {"claims": CLAIM}, **more}


@pytest.mark.parametrize(
    ("pod", "found"),
    [
        pytest.param(
            {"containers": [_claiming()], "resourceClaims": POD_CLAIMS},
            True,
            id="a container consuming a claim",
        ),
        pytest.param(
            {"containers": [container()], "initContainers": [_init()]},
            True,
            id="an init container consuming one, though it has exited by then",
        ),
        pytest.param(
            {"containers": [container()], "initContainers": [_init(restartPolicy="Always")]},
            True,
            id="a sidecar consuming one",
        ),
        pytest.param(
            {"containers": [container()], "resourceClaims": POD_CLAIMS},
            False,
            id="the pod's own claims no container consumes do not count",
        ),
        pytest.param(
            {"containers": [{**container(), "resources": {"claims": []}}]},
            False,
            id="an empty list of claims does not count",
        ),
        pytest.param({"containers": [container()]}, False, id="a pod with no claim"),
    ],
)
def test_dra_requirements_are_the_containers_claims(pod: dict[str, Any], found: bool) -> None:
    assert dra_requirements(pod) is found


def test_a_pod_consuming_a_claim_goes_on_no_new_node() -> None:
    decision = Run((NodePool("default"),)).decide(
        {"containers": [_claiming()], "resourceClaims": POD_CLAIMS}, 2
    )
    assert (decision.placed, decision.nodes) == (0, 0)
    assert decision.errors == (("", DRA, DRA),)
    assert decision.message == KARPENTER_EVENT + DRA


def test_the_dra_error_comes_before_every_pool_error() -> None:
    """scheduler.go ``add`` asks it before any NodeClaim is tried, and ``trySchedule``
    relaxes nothing after it: a pool that would refuse the pod says nothing."""
    tainted = NodePool("default", taints=(Taint("dedicated", "gpu", "NoSchedule"),))
    decision = Run((tainted,)).decide({"containers": [_claiming()]}, 1)
    assert decision.errors == (("", DRA, DRA),)


def _claiming_daemon_set(*containers: dict[str, Any]) -> DaemonSet:
    pod = {"containers": list(containers), "resourceClaims": POD_CLAIMS}
    return DaemonSet("kube-system", "dra", pod, pod_request_amounts(pod))


def test_a_daemon_set_consuming_a_claim_adds_no_overhead() -> None:
    """suite_test.go "should handle DaemonSet pods with DRA requirements based on
    IgnoreDRARequests flag value": only the pod's own cpu sizes the node."""
    sized = {
        name: Run((NodePool("default"),), daemon_sets=(ds,)).decide(spec(), 1)
        for name, ds in (
            ("dra", _claiming_daemon_set(_claiming("3"))),
            ("plain", daemon_set("plain", 3000, 100 * MI)),
        )
    }
    assert "c-2x" in sized["dra"].scale_up[0].instance_types
    assert "c-2x" not in sized["plain"].scale_up[0].instance_types


def test_a_daemon_set_consuming_a_claim_holds_no_host_port() -> None:
    port = {"containerPort": 8080, "hostPort": 8080}
    claiming = _claiming_daemon_set({**_claiming("100m"), "ports": [port]})
    pod = {"containers": [{**container(requests={"cpu": "1"}), "ports": [port]}]}
    decision = Run((NodePool("default"),), daemon_sets=(claiming,)).decide(pod, 1)
    assert (decision.placed, decision.errors) == (1, ())


SOLVER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: solver, namespace: research}
spec:
  replicas: 1
  selector: {matchLabels: {app: solver}}
  template:
    metadata: {labels: {app: solver}}
    spec:
      resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-template}]
      containers:
        - name: solver
          image: registry.example.com/research/solver:2.0.0
          resources: {requests: {cpu: "100", memory: 64Gi}, claims: [{name: gpu}]}
"""


def test_the_report_says_the_pods_own_refusal_without_a_pool(tmp_path: Path) -> None:
    """The refusal is no NodePool's: the line of the pools' refusals is Karpenter's text
    alone, not ``nodepool "": ...``."""
    manifest = tmp_path / "solver.yaml"
    manifest.write_text(SOLVER, encoding="utf-8")
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={}, now=datetime.now(timezone.utc))
    argv = ["check", str(manifest), "--snapshot", str(ROOT / EKS), "--instance-types"]
    main([*argv, str(ROOT / KWOK)], streams)
    text = out.getvalue()
    assert f"\n              {DRA}\n" in text
    assert 'nodepool ""' not in text
