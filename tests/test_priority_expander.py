"""``--expander priority``: the group cluster-autoscaler's priority expander picks, from the
``cluster-autoscaler-priority-expander`` ConfigMap the snapshot recorded (upstream
cluster-autoscaler-1.34.5 expander/priority/priority.go; the chain expander/factory/chain.go).

On the AKS cluster with user, spot and GPU pools (fixtures/snapshots/aks-pools.json) a Job
both the user and the spot group could take (fixtures/pools/01-job-user-or-spot.yaml):
least-waste alone prefers neither."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.model.autoscaling import Priorities
from gate.scheduler.autoscaling.clusterautoscaler.priority import chosen
from gate.snapshot.priorities import evaluated, priorities_of
from tests.conftest import ROOT

SNAPSHOT = ROOT / "fixtures/snapshots/aks-pools.json"
JOB = str(ROOT / "fixtures/pools/01-job-user-or-spot.yaml")
USER, SPOT = "aks-user-12345678-vmss", "aks-spot-12345678-vmss"
BOTH = [(SPOT, 1, 3), (USER, 2, 4)]


def _deployment(expander: str) -> dict[str, Any]:
    command = ["./cluster-autoscaler", "--cloud-provider=azure", f"--expander={expander}"]
    container = {"name": "cluster-autoscaler", "image": "cluster-autoscaler:v1.34.5"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "cluster-autoscaler", "namespace": "kube-system"},
        "spec": {"template": {"spec": {"containers": [container | {"command": command}]}}},
    }


def _config(data: dict[str, str]) -> dict[str, Any]:
    meta = {"name": "cluster-autoscaler-priority-expander", "namespace": "kube-system"}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def _check(
    tmp_path: Path, expander: str, data: dict[str, str] | bool
) -> tuple[str, dict[str, Any]]:
    """The Job's text and JSON reports; ``data`` False: no ConfigMap recorded."""
    document = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    document["deployments"] = [_deployment(expander)]
    if not isinstance(data, bool):
        document["configMaps"].append(_config(data))
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    out, text = io.StringIO(), io.StringIO()
    argv = ["check", JOB, "--snapshot", str(path)]
    main([*argv, "--json", "-"], Streams(io.BytesIO(), out, io.StringIO(), env={}))
    main(argv, Streams(io.BytesIO(), text, io.StringIO(), env={}))
    [workload] = json.loads(out.getvalue())["workloads"]
    return text.getvalue(), workload


def _options(workload: dict[str, Any]) -> list[tuple[str, int, int]]:
    autoscale = workload["autoscale"]
    found = autoscale.get("options") or []
    if found:
        return [(o["group"], o["from"], o["to"]) for o in found]
    return [(s["group"], s["from"], s["to"]) for s in autoscale["scaleUp"]]


RUNS = [
    (
        "the highest priority whose regexp matches the group id picks it (priority.go 129-150)",
        "priority",
        {"priorities": "10:\n  - .*spot.*\n50:\n  - aks-user-.*\n"},
        [(USER, 2, 4)],
        None,
    ),
    (
        "a regexp matches anywhere in the id, not only whole (FindStringIndex, line 170)",
        "priority",
        {"priorities": "5:\n  - user\n1:\n  - spot\n"},
        [(USER, 2, 4)],
        None,
    ),
    (
        "a tie at the highest priority goes to the next expander, random: both named "
        "(chain.go BestOption)",
        "priority,least-waste",
        {"priorities": "10:\n  - aks-(user|spot)-.*\n"},
        BOTH,
        None,
    ),
    (
        "priorities below -1 are never kept: every option stays (lines 129, 139, 157-159)",
        "priority",
        {"priorities": "-5:\n  - .*spot.*\n"},
        BOTH,
        None,
    ),
    (
        "a ConfigMap without the priorities key is ignored, said (lines 67-72)",
        "priority",
        {"other": "x"},
        BOTH,
        "cluster-autoscaler ignores the ConfigMap kube-system/cluster-autoscaler-priority-"
        "expander: it has no priorities key",
    ),
    (
        "a priority that is not an integer is ignored, said (yaml.Unmarshal, line 97)",
        "priority",
        {"priorities": "high:\n  - .*spot.*\n"},
        BOTH,
        "the priority 'high' is not an integer",
    ),
    (
        "no ConfigMap recorded: every option is named, said",
        "priority",
        False,
        BOTH,
        "is not in the snapshot",
    ),
    (
        "a regexp fitgate does not evaluate (a lookahead RE2 refuses): every option is named",
        "priority",
        {"priorities": "10:\n  - aks-(?!spot).*\n"},
        BOTH,
        "a regular expression fitgate does not evaluate",
    ),
]


@pytest.mark.parametrize(
    ("expander", "data", "options", "said"), [r[1:] for r in RUNS], ids=[r[0] for r in RUNS]
)
def test_the_priority_expander_picks_as_upstream(
    tmp_path: Path,
    expander: str,
    data: dict[str, str] | bool,
    options: list[tuple[str, int, int]],
    said: str | None,
) -> None:
    text, workload = _check(tmp_path, expander, data)
    assert workload["verdict"] == "SCALES"
    assert _options(workload) == options
    if said is None:
        assert "--expander priority" not in text
    else:
        assert said in text


CHOICES = [
    ("the highest matching priority wins", ((10, ("a",)), (5, ("b",))), ["a1", "b1"], ["a1"]),
    ("ties at the top are all kept", ((10, ("a", "b")),), ["a1", "b1", "c1"], ["a1", "b1"]),
    ("a group no regexp matches is left out", ((0, ("a",)),), ["a1", "b1"], ["a1"]),
    ("priority -1 still counts (maxPrio starts at -1)", ((-1, ("b",)),), ["a1", "b1"], ["b1"]),
    ("nothing matched: every group", ((3, ("z",)),), ["a1", "b1"], ["a1", "b1"]),
    (
        "a group in two tiers counts at its highest",
        ((9, ("a",)), (1, ("a", "b"))),
        ["b", "a"],
        ["a"],
    ),
]


@pytest.mark.parametrize(
    ("tiers", "ids", "kept"), [c[1:] for c in CHOICES], ids=[c[0] for c in CHOICES]
)
def test_best_options(
    tiers: tuple[tuple[int, tuple[str, ...]], ...], ids: list[str], kept: list[str]
) -> None:
    assert chosen(Priorities(tiers), ids) == kept


PATTERNS = [
    ("a plain id", "aks-user-12345678-vmss", True),
    ("wildcards and a class", "^aks-[a-z]+-.*$", True),
    ("alternation in a group", "aks-(user|spot)", True),
    ("an escaped dot and digits", r"pool\.\d+", True),
    ("a lookahead RE2 refuses", "a(?!b)", False),
    ("a quantified group (backtracking)", "(a+)+b", False),
    ("a POSIX class Python reads otherwise", "[[:alpha:]]", False),
    ("a counted repetition", "a{2,}", False),
    ("a backreference", r"(a)\1", False),
    ("a class opening with ]", "[]a]", False),
    ("longer than the bound", "a" * 300, False),
]


@pytest.mark.parametrize(("pattern", "ok"), [p[1:] for p in PATTERNS], ids=[p[0] for p in PATTERNS])
def test_only_what_re2_and_python_read_alike_is_evaluated(pattern: str, ok: bool) -> None:
    assert evaluated(pattern) is ok


CONFIGS = [
    ("no data", {}, Priorities(problem="it has no priorities key")),
    (
        "an empty key",
        {"data": {"priorities": ""}},
        Priorities(problem="its priorities key is empty"),
    ),
    ("null YAML: an empty map", {"data": {"priorities": "~"}}, Priorities()),
    (
        "a list, not a map",
        {"data": {"priorities": "- a"}},
        Priorities(problem="its priorities are not a map of priorities"),
    ),
    (
        "a scalar where a list goes",
        {"data": {"priorities": "1: a"}},
        Priorities(problem="priority 1: not a list of regular expressions"),
    ),
    (
        "tiers highest first",
        {"data": {"priorities": "1:\n  - a\n20:\n  - b\n"}},
        Priorities(((20, ("b",)), (1, ("a",)))),
    ),
]


@pytest.mark.parametrize(("obj", "read"), [c[1:] for c in CONFIGS], ids=[c[0] for c in CONFIGS])
def test_the_config_map_is_read_as_the_expander_reads_it(
    obj: dict[str, Any], read: Priorities
) -> None:
    assert priorities_of(obj) == read


def test_a_kubectl_list_joined_with_the_configmap_answers_as_the_recording(
    tmp_path: Path,
) -> None:
    """``kubectl get ... -o json`` of the cluster, and of the ConfigMap asked for by name."""
    document = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    kinds = {"nodes": "Node", "pods": "Pod", "configMaps": "ConfigMap", "daemonSets": "DaemonSet"}
    items = [
        {"apiVersion": "apps/v1" if key == "daemonSets" else "v1", "kind": kind, **obj}
        for key, kind in kinds.items()
        for obj in document[key]
    ]
    items.append(_deployment("priority"))
    cluster, config = tmp_path / "cluster.json", tmp_path / "priorities.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    config.write_text(json.dumps(_config({"priorities": "50:\n  - aks-user-.*\n"})))
    out = io.StringIO()
    argv = ["check", JOB, "--snapshot", str(cluster), "--snapshot", str(config), "--json", "-"]
    main(argv, Streams(io.BytesIO(), out, io.StringIO(), env={}))
    [workload] = json.loads(out.getvalue())["workloads"]
    assert _options(workload) == [(USER, 2, 4)]
