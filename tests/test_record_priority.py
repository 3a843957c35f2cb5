"""``fitgate snapshot`` records the PriorityClasses when the credentials may list them (asked
with a SelfSubjectAccessReview, never needed), keeping what the Priority admission reads
(gate/live/objects.py), through the real kubernetes client against tests/apiserver.py."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gate.snapshot.load import load_snapshot
from tests.apiserver import PRIORITY_CLASSES, PRIORITY_READER, READ_ONLY, ApiState
from tests.live import aks_document, live_cluster, run, serve_snapshot

NOW = datetime(2026, 8, 16, 10, 0, tzinfo=timezone.utc)
CLASSES: list[dict[str, Any]] = [
    {
        "metadata": {"name": "batch", "uid": "1", "annotations": {"team": "data"}},
        "value": 0,
        "description": "batch work",
        "preemptionPolicy": "Never",
    },
    {
        "metadata": {"name": "system-cluster-critical", "uid": "2"},
        "value": 2_000_000_000,
        "globalDefault": False,
        "preemptionPolicy": "PreemptLowerPriority",
    },
    {"metadata": {"name": "default", "uid": "3"}, "value": 100, "globalDefault": True},
]


def _record(tmp_path: Path, permissions: frozenset[tuple[str, str, str, str]]) -> tuple[str, Path]:
    state = serve_snapshot(ApiState(), aks_document())
    state.permissions = permissions
    state.serve(PRIORITY_CLASSES, CLASSES)
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    return err, path


def test_the_classes_are_recorded_with_what_the_admission_reads(tmp_path: Path) -> None:
    _, path = _record(tmp_path, PRIORITY_READER)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["priorityClasses"] == [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "batch"},
            "value": 0,
            "preemptionPolicy": "Never",
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "system-cluster-critical"},
            "value": 2_000_000_000,
            "preemptionPolicy": "PreemptLowerPriority",
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "default"},
            "value": 100,
            "globalDefault": True,
        },
    ]
    admission = load_snapshot(str(path)).admission
    assert admission.has_priority_classes
    assert sorted(admission.priority_classes) == ["batch", "default", "system-cluster-critical"]


def test_credentials_that_may_not_list_them_record_without_them(tmp_path: Path) -> None:
    err, path = _record(tmp_path, READ_ONLY)
    assert "may not list priorityclasses.scheduling.k8s.io: priorityclasses not recorded" in err
    assert "priorityClasses" not in json.loads(path.read_text(encoding="utf-8"))
    assert not load_snapshot(str(path)).admission.has_priority_classes
