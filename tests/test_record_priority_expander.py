"""``fitgate snapshot --autoscaling`` records the priority expander's ConfigMap
(``kube-system/cluster-autoscaler-priority-expander``, upstream cluster-autoscaler-1.34.5
expander/priority/priority.go lines 37-39) read-only, list only, behind an access review for
that name; only its ``priorities`` are kept, and a check of the recording reads them back."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.model.autoscaling import Priorities
from gate.snapshot.load import load_snapshot
from tests.apiserver import CONFIG_MAPS
from tests.conftest import ROOT
from tests.live import live_cluster, run
from tests.test_record_autoscaling import SECRET, _state

NOW = datetime(2026, 8, 16, 10, 1, 0, tzinfo=timezone.utc)
PRIORITIES = "10:\n  - .*spot.*\n50:\n  - aks-user-.*\n"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _priority_configmap() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "namespace": "kube-system",
            "name": "cluster-autoscaler-priority-expander",
            "annotations": {"note": SECRET},
        },
        "data": {"priorities": PRIORITIES, "other": SECRET},
    }


CASES = [
    (
        "granted: its priorities recorded and read back, nothing else of it",
        set(),
        Priorities(((50, ("aks-user-.*",)), (10, (".*spot.*",)))),
        None,
    ),
    (
        "not granted by name: not asked for, said, and the status still recorded",
        {"cluster-autoscaler-priority-expander"},
        None,
        "the credentials may not list configmaps cluster-autoscaler-priority-expander in "
        "kube-system: the priority expander's ConfigMap not recorded",
    ),
]


@pytest.mark.parametrize(
    ("refused", "read", "said"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_priority_expander_s_configmap_is_recorded(
    tmp_path: Path, refused: set[str], read: Priorities | None, said: str | None
) -> None:
    state = _state()
    served = [json.loads(item.raw) for item in state.collections[CONFIG_MAPS]]
    state.serve(CONFIG_MAPS, [*served, _priority_configmap()])
    state.refused_names = refused
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    assert SECRET not in path.read_text(encoding="utf-8")
    autoscaling = load_snapshot(str(path)).autoscaling
    assert autoscaling is not None and autoscaling.status is not None
    assert autoscaling.priorities == read
    if said is not None:
        assert said in err
