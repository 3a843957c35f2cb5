"""The registry of filter plugins (gate.scheduler.plugins): one module per plugin, the
default profile's order, and every table the scheduler and the reports need derived from
the plugins themselves."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest

from gate import model
from gate.model import ExistingPod, Family, NodeView, Snapshot, SnapshotInfo
from gate.model.storage import STORAGE_KINDS, StorageObjects
from gate.scheduler import plugins
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import FILTERS, ROOM, RULES, scheduling_key
from tests.builders import cluster, container, existing_pod, node, pod_term, spread
from tests.conftest import ROOT

# apis/config/v1/default_plugins.go: the default profile's filters that fitgate models.
DEFAULT_ORDER = [
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
]


def test_the_plugins_run_in_the_default_profiles_order() -> None:
    assert [plugin.name for plugin in FILTERS] == DEFAULT_ORDER


SCORE_ONLY = {"balancedallocation", "imagelocality"}
"""Plugins of the default profile that only score: a module each, no filter to register."""
POST_FILTER_ONLY = {"defaultpreemption"}
"""Plugins of the default profile that run only once no node fits: no filter either."""


def test_every_plugin_module_is_in_the_registry_and_only_those() -> None:
    found = []
    for info in pkgutil.iter_modules(plugins.__path__):
        module = importlib.import_module(f"{plugins.__name__}.{info.name}")
        if info.name in SCORE_ONLY | POST_FILTER_ONLY:
            assert not hasattr(module, "PLUGIN") and module.NAME
            continue
        found.append(module.PLUGIN)
    assert sorted(p.name for p in found) == sorted(p.name for p in FILTERS)
    assert all(any(p is q for q in FILTERS) for p in found)


def test_the_room_plugins_the_reports_read_are_the_plugins_that_reject_for_room() -> None:
    assert (
        model.ROOM_PLUGINS
        == ROOM
        == {
            "NodePorts",
            "NodeResourcesFit",
            "NodeVolumeLimits",
            "PodTopologySpread",
            "InterPodAffinity",
        }
    )


def test_no_two_plugins_share_a_reason() -> None:
    reasons = [reason for plugin in FILTERS for reason in plugin.reasons]
    assert len(reasons) == len(set(reasons))


READ_BACK = [
    ("node(s) were unschedulable", "NodeUnschedulable"),
    ("node(s) didn't match the requested node name", "NodeName"),
    ("node(s) had untolerated taint(s)", "TaintToleration"),
    ("node(s) had untolerated taint {gpu: yes}", "TaintToleration"),
    ("node(s) didn't match Pod's node affinity/selector", "NodeAffinity"),
    ("node(s) didn't satisfy plugin(s) [NodeAffinity]", "NodeAffinity"),
    ("node(s) didn't have free ports for the requested pod ports", "NodePorts"),
    ("Too many pods", "NodeResourcesFit"),
    ("Insufficient nvidia.com/gpu", "NodeResourcesFit"),
    ("node(s) didn't match pod topology spread constraints", "PodTopologySpread"),
    ("node(s) didn't satisfy existing pods anti-affinity rules", "InterPodAffinity"),
    ('persistentvolumeclaim "data-db-0" not found', "VolumeRestrictions"),
    ("node(s) had no available disk", "VolumeRestrictions"),
    ("node(s) exceed max volume count", "NodeVolumeLimits"),
    ("node(s) didn't match PersistentVolume's node affinity", "VolumeBinding"),
    ("node(s) didn't find available persistent volumes to bind", "VolumeBinding"),
    ("pod has unbound immediate PersistentVolumeClaims", "VolumeBinding"),
    ("node(s) had no available volume zone", "VolumeZone"),
    ('persistentvolume "pv-1" not found', "VolumeZone"),
    ("a reason of no plugin", ""),
]


@pytest.mark.parametrize(("reason", "plugin"), READ_BACK, ids=[r for r, _ in READ_BACK])
def test_a_reason_is_stated_by_one_plugin_only(reason: str, plugin: str) -> None:
    def states(template: str) -> bool:
        head, brace, _ = template.partition("{")
        return reason.startswith(head) if brace else reason == template

    stating = [p.name for p in FILTERS if any(states(r) for r in p.reasons)]
    assert stating == ([plugin] if plugin else [])


def test_each_family_of_a_plugin_has_one_rule_in_the_families_order() -> None:
    assert [rule.family for rule in RULES] == [
        f for f in Family if f in {p.family for p in FILTERS}
    ]
    assert all(p.rule.family is p.family for p in FILTERS)


def test_the_report_schema_knows_every_family_and_term_a_plugin_gives() -> None:
    schema = json.loads((ROOT / "gate" / "schemas" / "report.schema.json").read_text("utf-8"))
    text = json.dumps(schema)
    assert all(f'"{plugin.family.value}"' in text for plugin in FILTERS)
    assert all(f'"{plugin.term.value}"' in text for plugin in FILTERS)


BASE: dict[str, Any] = {"containers": [container(requests={"cpu": "100m"})]}
# Each row changes one thing of BASE: a plugin reads it (its key differs) or none does.
KEYS: list[tuple[str, dict[str, Any], bool]] = [
    (
        "another container name reads the same",
        {"containers": [container("other", {"cpu": "100m"})]},
        True,
    ),
    ("another cpu request differs", {"containers": [container(requests={"cpu": "200m"})]}, False),
    ("a toleration differs", {"tolerations": [{"key": "gpu", "operator": "Exists"}]}, False),
    ("a nodeSelector differs", {"nodeSelector": {"zone": "a"}}, False),
    (
        "required node affinity differs",
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}
                        ]
                    }
                }
            }
        },
        False,
    ),
    (
        "a host port differs",
        {
            "containers": [
                container(requests={"cpu": "100m"})
                | {"ports": [{"containerPort": 80, "hostPort": 80}]}
            ]
        },
        False,
    ),
    (
        "a hard spread constraint differs",
        {"topologySpreadConstraints": [spread(1, "zone", {})]},
        False,
    ),
    (
        "pod anti-affinity differs",
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [pod_term("app", "Exists")]
                }
            }
        },
        False,
    ),
]


@pytest.mark.parametrize(
    ("change", "same"), [(c, s) for _, c, s in KEYS], ids=[i for i, _, _ in KEYS]
)
def test_the_scheduling_key_follows_what_the_plugins_read(
    change: dict[str, Any], same: bool
) -> None:
    where = cluster(node("n1", labels={"zone": "a"}))
    assert (
        scheduling_key(pod_profile(BASE), where)
        == scheduling_key(pod_profile(BASE | change), where)
    ) is same


def _with_storage(*nodes: NodeView) -> Cluster:
    info = SnapshotInfo("test", None, None, None, None, len(nodes), 0)
    storage = StorageObjects(recorded=frozenset(STORAGE_KINDS))
    return Cluster.of(Snapshot(info=info, nodes=nodes, storage=storage))


CLAIMED = {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}
CLAIM_KEYS = [
    pytest.param(
        CLAIMED,
        {"volumes": [*CLAIMED["volumes"], {"name": "tmp", "emptyDir": {}}]},
        True,
        id="a volume that is no claim beside the same claim reads the same",
    ),
    pytest.param(
        CLAIMED,
        {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "logs"}}]},
        False,
        id="another claim differs",
    ),
    pytest.param(
        CLAIMED,
        {"volumes": [{"name": "other", "persistentVolumeClaim": {"claimName": "data"}}]},
        True,
        id="another volume name for the same claim reads the same",
    ),
    pytest.param(
        CLAIMED,
        {"volumes": [{"name": "d", "emptyDir": {}}]},
        False,
        id="a claim differs from no claim",
    ),
]


@pytest.mark.parametrize(("one", "other", "same"), CLAIM_KEYS)
def test_the_scheduling_key_follows_the_claims_when_storage_was_recorded(
    one: dict[str, Any], other: dict[str, Any], same: bool
) -> None:
    where = _with_storage(node("n1"))
    first = scheduling_key(pod_profile(BASE | one), where)
    assert (first == scheduling_key(pod_profile(BASE | other), where)) is same


def test_claims_are_not_read_when_storage_was_not_recorded() -> None:
    where = cluster(node("n1"))
    assert scheduling_key(pod_profile(BASE | CLAIMED), where) == scheduling_key(
        pod_profile(BASE), where
    )


def test_labels_count_only_where_an_existing_pod_has_anti_affinity() -> None:
    """InterPodAffinity reads a pod's labels only when some pod's terms could match them."""
    quiet = cluster(node("n1"))
    app, web = pod_profile(BASE, labels={"app": "a"}), pod_profile(BASE, labels={"app": "b"})
    assert scheduling_key(app, quiet) == scheduling_key(web, quiet)
    anti = existing_pod("n1", anti_affinity=(pod_term("app", "In", ["a"]),))
    guarded = _cluster_with(anti)
    assert scheduling_key(app, guarded) != scheduling_key(web, guarded)


def _cluster_with(*pods: ExistingPod) -> Cluster:
    view = node("n1")
    info = SnapshotInfo("test", None, None, None, None, 1, len(pods))
    return Cluster.of(Snapshot(info=info, nodes=(view,), pods=tuple(pods)))
