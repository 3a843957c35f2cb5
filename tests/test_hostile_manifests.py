"""A manifest from a pull request can hold anything. Rich, valid workloads are damaged at
random places (wrong types, odd scalars, huge numbers, text no UTF-8 holds) and run through
the whole command with every report: the answer is a verdict or an ERROR, never a
traceback, and every report is still written and valid."""

from __future__ import annotations

import copy
import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from tests.conftest import ROOT
from tests.report_schema import validate_report

AKS = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")

CONTAINER = {
    "name": "app",
    "image": "example/app:1",
    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "1Gi"}},
    "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP", "hostIP": "10.0.0.1"}],
}
REQUIREMENT = {"key": "agentpool", "operator": "In", "values": ["user"]}
POD_SPEC: dict[str, Any] = {
    "containers": [CONTAINER],
    "initContainers": [{**CONTAINER, "name": "sidecar", "restartPolicy": "Always"}],
    "tolerations": [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"},
    ],
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [REQUIREMENT]},
                    {"matchFields": [{**REQUIREMENT, "key": "metadata.name"}]},
                ]
            }
        }
    },
    "overhead": {"cpu": "10m"},
    "resources": {"requests": {"cpu": "1"}},
    "runtimeClassName": "kata",
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone"}],
}  # fmt: skip


def workload(kind: str) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": "x"}}, "spec": copy.deepcopy(POD_SPEC)}
    spec: dict[str, Any] = {"replicas": 2, "template": template}
    if kind == "Pod":
        spec = template["spec"]
    elif kind == "CronJob":
        spec = {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": template}}}
    api = {"Pod": "v1", "CronJob": "batch/v1", "Job": "batch/v1"}.get(kind, "apps/v1")
    metadata = {"name": "w", "namespace": "ns"}
    return {"apiVersion": api, "kind": kind, "metadata": metadata, "spec": spec}


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value`` a damage can go (the document itself excluded)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def damage(document: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "0", "-1", "1e400", "0x10", "1Ki", "NaN", "In", "Exists", "Always",
                     "NoSchedule", "metadata.name", "\udc80", "\u202e", "<b>|`@x", "::error::"]),
    st.text(max_size=8),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
KINDS = ["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kind=st.sampled_from(KINDS),
    damages=st.lists(st.tuples(st.integers(min_value=0), values), min_size=1, max_size=3),
    as_json=st.booleans(),
)
def test_damaged_workloads_get_an_answer_and_every_report(
    tmp_path: Path, kind: str, damages: list[tuple[int, Any]], as_json: bool
) -> None:
    document = workload(kind)
    for choice, value in damages:
        places = paths(document)
        if places:
            damage(document, places[choice % len(places)], value)
    manifest = tmp_path / ("w.json" if as_json else "w.yaml")
    if as_json:
        manifest.write_text(json.dumps(document))
    else:
        text = yaml.safe_dump(document, allow_unicode=False)
        manifest.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(), stdout=out, stderr=err, env={},
                      now=datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc))  # fmt: skip
    names = {"--json": "r.json", "--junit": "r.xml", "--comment": "c.md", "--summary": "s.md"}
    reports = {flag: tmp_path / name for flag, name in names.items()}
    argv = ["check", str(manifest), "--snapshot", AKS]
    for flag, path in reports.items():
        argv += [flag, str(path)]
    code = main(argv, streams)
    # 5: the damage made it a workload skipped by annotation, or no workload at all.
    assert code in (0, 1, 5), err.getvalue()
    report = json.loads(reports["--json"].read_text(encoding="utf-8"))
    validate_report(report)
    for path in reports.values():
        path.read_text(encoding="utf-8")  # written, and UTF-8
    assert out.getvalue().endswith(".\n")
