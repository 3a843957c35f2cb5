"""``fitgate snapshot`` records the PodDisruptionBudgets when the credentials may list them
(asked with a SelfSubjectAccessReview, never needed), keeping what preemption weighs, and
the pods' priority and start time; a kubectl List carries the budgets too."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gate.model import DisruptionBudget
from gate.snapshot.load import build_snapshot, load_snapshot
from tests.apiserver import DISRUPTION_BUDGETS, READ_ONLY, ApiState
from tests.live import aks_document, live_cluster, run, serve_snapshot

NOW = datetime(2026, 8, 16, 10, 0, tzinfo=timezone.utc)
BUDGET: dict[str, Any] = {
    "metadata": {"name": "crunch", "namespace": "batch", "uid": "1", "annotations": {"a": "b"}},
    "spec": {"selector": {"matchLabels": {"app": "crunch"}}, "minAvailable": 2},
    "status": {"disruptionsAllowed": 1, "disruptedPods": {"crunch-1": NOW.isoformat()}},
}
RECORDED = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "crunch", "namespace": "batch"},
    "spec": {"selector": {"matchLabels": {"app": "crunch"}}},
    "status": {"disruptionsAllowed": 1, "disruptedPods": {"crunch-1": NOW.isoformat()}},
}
READ = DisruptionBudget(
    namespace="batch",
    name="crunch",
    selector={"matchLabels": {"app": "crunch"}},
    allowed=1,
    disrupted=frozenset({"crunch-1"}),
)
BUDGET_READER = READ_ONLY | {("list", "policy", "poddisruptionbudgets", "")}


def _record(tmp_path: Path, permissions: frozenset[tuple[str, str, str, str]]) -> tuple[str, Path]:
    state = serve_snapshot(ApiState(), aks_document())
    state.permissions = permissions
    state.serve(DISRUPTION_BUDGETS, [BUDGET])
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    return err, path


def test_the_budgets_are_recorded_with_what_preemption_reads(tmp_path: Path) -> None:
    _, path = _record(tmp_path, BUDGET_READER)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["podDisruptionBudgets"] == [RECORDED]
    assert load_snapshot(str(path)).disruption_budgets == (READ,)


def test_credentials_that_may_not_list_them_record_without_them(tmp_path: Path) -> None:
    err, path = _record(tmp_path, READ_ONLY)
    assert "may not list poddisruptionbudgets.policy: poddisruptionbudgets not recorded" in err
    assert "podDisruptionBudgets" not in json.loads(path.read_text(encoding="utf-8"))
    assert load_snapshot(str(path)).disruption_budgets == ()


def _pod(name: str, spec: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "batch", "resourceVersion": "1"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c"}], **spec},
        "status": {"phase": "Running", **status},
    }


def test_a_list_carries_budgets_and_each_pods_priority_and_start_time() -> None:
    node = {
        "kind": "Node",
        "metadata": {"name": "n1", "resourceVersion": "1"},
        "status": {"allocatable": {"cpu": "1", "pods": "10"}},
    }
    started = "2026-08-16T09:00:00Z"
    items = [
        node,
        _pod("ranked", {"priority": 10}, {"startTime": started}),
        _pod("plain", {}, {}),
        {**BUDGET, "kind": "PodDisruptionBudget", "apiVersion": "policy/v1"},
    ]
    snapshot = build_snapshot({"kind": "List", "apiVersion": "v1", "items": items}, "list.json")
    assert [(p.name, p.priority, p.started) for p in snapshot.pods] == [
        ("ranked", 10, started),
        ("plain", 0, None),
    ]
    assert snapshot.disruption_budgets == (READ,)
