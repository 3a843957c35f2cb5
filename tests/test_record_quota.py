"""``fitgate snapshot`` records the ResourceQuotas when the credentials may list them (asked
with a SelfSubjectAccessReview, never needed), keeping what the quota admission reads: the
limits, the scopes and ``status.used`` (gate/live/objects.py), through the real kubernetes
client against tests/apiserver.py."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gate.snapshot.load import load_snapshot
from tests.apiserver import QUOTA_READER, READ_ONLY, RESOURCE_QUOTAS, ApiState
from tests.live import aks_document, live_cluster, run, serve_snapshot

NOW = datetime(2026, 8, 16, 10, 0, tzinfo=timezone.utc)
QUOTAS: list[dict[str, Any]] = [
    {
        "metadata": {"name": "compute", "namespace": "web", "uid": "1", "labels": {"t": "a"}},
        "spec": {
            "hard": {"requests.cpu": "10", "pods": "20"},
            "scopeSelector": {
                "matchExpressions": [
                    {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
                ]
            },
        },
        "status": {
            "hard": {"requests.cpu": "10", "pods": "20"},
            "used": {"requests.cpu": "9500m", "pods": "7"},
        },
    },
]


def _record(tmp_path: Path, permissions: frozenset[tuple[str, str, str, str]]) -> tuple[str, Path]:
    state = serve_snapshot(ApiState(), aks_document())
    state.permissions = permissions
    state.serve(RESOURCE_QUOTAS, QUOTAS)
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    return err, path


def test_the_quotas_are_recorded_with_their_limits_scopes_and_usage(tmp_path: Path) -> None:
    _, path = _record(tmp_path, QUOTA_READER)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["resourceQuotas"] == [
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "compute", "namespace": "web"},
            "spec": {
                "hard": {"requests.cpu": "10", "pods": "20"},
                "scopeSelector": {
                    "matchExpressions": [
                        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
                    ]
                },
            },
            "status": {
                "hard": {"requests.cpu": "10", "pods": "20"},
                "used": {"requests.cpu": "9500m", "pods": "7"},
            },
        }
    ]
    admission = load_snapshot(str(path)).admission
    assert admission.has_resource_quotas
    assert [q["metadata"]["name"] for q in admission.resource_quotas] == ["compute"]


def test_credentials_that_may_not_list_them_record_without_them(tmp_path: Path) -> None:
    err, path = _record(tmp_path, READ_ONLY)
    assert "may not list resourcequotas: resourcequotas not recorded" in err
    assert "resourceQuotas" not in json.loads(path.read_text(encoding="utf-8"))
    assert not load_snapshot(str(path)).admission.has_resource_quotas
