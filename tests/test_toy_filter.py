"""A filter added the documented way (one plugin record, registered in ``FILTERS``)
reaches every path that runs the scheduler's filters: one pod's evaluation, the placement
of its copies, the cluster-autoscaler simulation (which runs the scheduler's filters on a
group's template node) and the Karpenter simulation (which takes the copies the filters
leave on today's nodes; its NodePools are judged by Karpenter's own rules, which know no
scheduler plugin)."""

from __future__ import annotations

import io
import json
from collections.abc import Hashable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.k8s.version import Dialect, dialect_for
from gate.model import Code, Family, Location, NodeView, Term, Verdict, Workload
from gate.scheduler import plugins
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import Plugin, Rejection, the_pod
from gate.scheduler.plugins.nodeaffinity import SELECTOR_RULE
from gate.snapshot.load import build_snapshot
from tests.autoscaler_support import AKS_USER, Run, aks_node, spec
from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node, cluster_snapshot
from tests.conftest import ROOT
from tests.engine_support import pod_spec
from tests.karpenter_objects import node_pool, requirement

TOY = "Toy"
REASON = "node(s) were marked toy/refuse"
REFUSED = Rejection(TOY, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON,))
MARK = "toy/refuse"
NOW = datetime(2026, 8, 16, 10, 5, tzinfo=timezone.utc)


def _toy(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    return REFUSED if MARK in node.labels else None


def _key(pod: PodProfile, cluster: Cluster) -> Hashable:
    return None


PLUGIN: Plugin[PodProfile] = Plugin(
    TOY,
    Family.SELECTOR,
    Term.NODE_SELECTOR,
    SELECTOR_RULE,
    key=_key,
    prepare=the_pod,
    check=_toy,
    reasons=(REASON,),
)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy put last in ``FILTERS``, and the tables derived from it with it."""
    monkeypatch.setattr(plugins, "FILTERS", (*plugins.FILTERS, PLUGIN))
    monkeypatch.setitem(plugins.BY_NAME, TOY, PLUGIN)
    monkeypatch.setitem(plugins.ORDER, TOY, len(plugins.ORDER))
    yield


def _evaluate(nodes: list[dict[str, Any]], replicas: int) -> Any:
    """A Deployment whose copies take one node each (a host port)."""
    snap = build_snapshot(cluster_snapshot(nodes), "snapshot.json")
    evaluator = Evaluator.for_snapshot(snap, dialect_for(snap.info.server_version))
    ported = pod_spec(cpu="100m")
    ported["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    workload = Workload(
        kind="Deployment",
        namespace="default",
        name="w",
        location=Location("w.yaml", 1),
        replicas=replicas,
        pod_spec=ported,
    )
    return evaluator.evaluate(workload)


def test_the_toy_filter_refuses_the_one_pod_on_every_marked_node() -> None:
    result = _evaluate([api_node("a", labels={MARK: ""}), api_node("b", labels={MARK: ""})], 1)
    assert result.verdict is Verdict.NO
    assert result.message is not None and f"2 {REASON}" in result.message


def test_the_toy_filter_refuses_copies_on_a_marked_node() -> None:
    result = _evaluate([api_node("a", labels={MARK: ""}), api_node("b"), api_node("c")], 3)
    assert result.placement is not None
    assert (result.placement.wanted, result.placement.alone) == (3, 2)


def test_the_toy_filter_refuses_a_fresh_node_of_a_marked_group() -> None:
    user = aks_node("user-0", labels={MARK: ""})
    run = Run([user], [status_configmap(status_group(AKS_USER, target=1, max_size=5))])
    decision = run.decide(spec(), 2)
    assert decision.scale_up == ()
    assert REASON in decision.reasons


def test_the_copies_the_toy_filter_refuses_go_to_karpenter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    marked = [api_node(f"n{i}", labels={MARK: "", "kubernetes.io/arch": "amd64"}) for i in range(2)]
    burst = node_pool("burst", requirement("kubernetes.io/arch", "In", "amd64"))
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(cluster_snapshot(marked, [], nodePools=[burst])), "utf-8")
    manifest = tmp_path / "web.yaml"
    template = {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec(cpu="100m")}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    manifest.write_text(json.dumps(deployment), "utf-8")
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={}, now=NOW)
    argv = ["check", str(manifest), "--snapshot", str(snapshot), "--json", "-"]
    main([*argv, "--instance-types", "fixtures/catalogs/instance-types.json"], streams)
    (web,) = json.loads(out.getvalue())["workloads"]
    assert web["autoscale"]["fitsNow"] == 0
    (launch,) = web["autoscale"]["scaleUp"]
    assert (launch["kind"], launch["group"], launch["copies"]) == ("NodePool", "burst", 2)
