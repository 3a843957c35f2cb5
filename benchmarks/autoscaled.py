"""The benchmark's case with cluster-autoscaler's state recorded beside it.

``python -m benchmarks.autoscaled [--size large] [--cache DIR] [--repeat N]`` derives from
the generated case a copy of its ``cluster-snapshot.json`` that carries the
``kube-system/cluster-autoscaler-status`` ConfigMap in the YAML form of cluster-autoscaler
1.30 and later (``nodeGroups[].health.{cloudProviderTarget, minSize, maxSize}``, as
cluster-autoscaler/clusterstate/api/types.go writes it) with 50 node groups: one per pool
the generator gives the nodes, named as AKS names its scale sets (``aks-<pool>-<digits>-vmss``,
matched by the nodes' ``kubernetes.azure.com/agentpool`` label), and the rest pools at zero
whose templates a generated ``.fitgate.yaml`` gives (``autoscaling.groups[].template``).
It then times ``fitgate check`` on that copy against the case's floor (``json.load`` of the
kubectl List plus ``CSafeLoader`` over the manifests, as :mod:`benchmarks.runner` measures
it). The case itself is left as it is; the copy is written once beside it.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import yaml

from benchmarks import cluster
from benchmarks.catalog import REGION
from benchmarks.derived import run_derived
from benchmarks.generate import MANIFESTS_DIR, SNAPSHOT_FILE
from benchmarks.sizes import Size

GROUPS = 50
CONFIG_FILE = ".fitgate.yaml"
_STAMP = ".complete"
_SCALE_SET = "12345678"


def group_name(pool: str) -> str:
    return f"aks-{pool}-{_SCALE_SET}-vmss"


def _group_status(name: str, target: int, least: int, most: int) -> dict[str, object]:
    counts = {"total": target, "ready": target, "notStarted": 0}
    return {
        "name": name,
        "health": {
            "status": "Healthy",
            "nodeCounts": {"registered": counts, "longUnregistered": 0, "unregistered": 0},
            "cloudProviderTarget": target,
            "minSize": least,
            "maxSize": most,
        },
        "scaleUp": {"status": "NoActivity"},
        "scaleDown": {"status": "NoCandidates"},
    }


def _idle_pools(count: int) -> list[str]:
    return [f"pool{index:02d}" for index in range(count)]


def status_configmap(size: Size) -> dict[str, object]:
    """The status ConfigMap: the generated pools at their node counts, up to 50 more nodes
    each, then pools at zero that may grow to 20 nodes."""
    members = Counter(pool.name for pool in cluster.node_pools(size.nodes))
    groups = [_group_status(group_name(p), n, min(n, 1), n + 50) for p, n in members.items()]
    groups += [_group_status(group_name(p), 0, 0, 20) for p in _idle_pools(GROUPS - len(groups))]
    total = sum(members.values())
    counts = {"total": total, "ready": total, "notStarted": 0}
    time = cluster.STAMP.replace("T", " ").replace("Z", " +0000 UTC")
    status = {
        "time": time,
        "autoscalerStatus": "Running",
        "clusterWide": {
            "health": {
                "status": "Healthy",
                "nodeCounts": {"registered": counts, "longUnregistered": 0, "unregistered": 0},
            },
            "scaleUp": {"status": "NoActivity"},
            "scaleDown": {"status": "NoCandidates"},
        },
        "nodeGroups": groups,
    }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "cluster-autoscaler-status",
            "namespace": "kube-system",
            "annotations": {"cluster-autoscaler.kubernetes.io/last-updated": time},
        },
        "data": {"status": yaml.safe_dump(status, sort_keys=False)},
    }


def config(size: Size) -> dict[str, object]:
    """``.fitgate.yaml``: the templates of the pools at zero (D8ds_v5-sized nodes)."""
    members = {pool.name for pool in cluster.node_pools(size.nodes)}
    groups = []
    for pool in _idle_pools(GROUPS - len(members)):
        labels = {
            "kubernetes.azure.com/agentpool": pool,
            "agentpool": pool,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "node.kubernetes.io/instance-type": "Standard_D8ds_v5",
            "topology.kubernetes.io/zone": f"{REGION}-1",
        }
        allocatable = {"cpu": "7820m", "memory": "28045676Ki", "pods": "110"}
        capacity = {"cpu": "8", "memory": "32045676Ki", "pods": "110"}
        template = {"labels": labels, "allocatable": allocatable, "capacity": capacity}
        groups.append({"id": group_name(pool), "template": template})
    return {"autoscaling": {"groups": groups}}


def derive(size: Size, case: Path) -> Path:
    """The autoscaled copy of ``case``: its snapshot with the status ConfigMap, the
    generated ``.fitgate.yaml``, and the case's manifests linked, not copied."""
    directory = case.parent / f"{case.name}-autoscaled"
    if (directory / _STAMP).exists():
        return directory
    directory.mkdir(exist_ok=True)
    target = directory / SNAPSHOT_FILE
    with open(case / SNAPSHOT_FILE, "rb") as source, open(target, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 24)
    # The recorder's layout ends with the last section and the closing brace: the
    # ConfigMap goes in as one more section before it.
    with open(target, "rb+") as out:
        out.seek(-3, 2)
        if out.read() != b"]\n}\n"[-3:]:
            raise RuntimeError(f"{case / SNAPSHOT_FILE} does not end as the recorder ends it")
        out.seek(-3, 2)
        out.truncate()
        section = json.dumps(status_configmap(size))
        out.write(f',\n  "configMaps": [\n    {section}\n  ]\n}}\n'.encode())
    link = directory / MANIFESTS_DIR
    if not link.is_symlink():
        link.symlink_to(Path("..") / case.name / MANIFESTS_DIR)
    (directory / CONFIG_FILE).write_text(yaml.safe_dump(config(size), sort_keys=False))
    (directory / _STAMP).write_text(size.describe() + "\n")
    return directory


def main(argv: list[str] | None = None) -> int:
    size, timed = run_derived(
        "python -m benchmarks.autoscaled",
        "Time fitgate check on the case with a 50-group autoscaler status.",
        argv,
        derive,
        SNAPSHOT_FILE,
        ("--config", CONFIG_FILE),
        "ClusterSnapshot + autoscaler status",
    )
    sys.stdout.write(
        f"fitgate bench, size {size.name} with {GROUPS} autoscaled node groups\n\n{timed.table}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
