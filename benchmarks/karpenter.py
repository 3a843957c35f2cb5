"""The benchmark's case with Karpenter's objects recorded beside it.

``python -m benchmarks.karpenter [--size large] [--cache DIR] [--repeat N]`` derives from the
generated case a copy of its ``cluster-snapshot.json`` that carries ``karpenter.sh/v1``
NodePools (ten Ready ones with weights, requirements on arch, capacity type, instance family,
size and cpu, taints and limits, and one whose NodeClass is not Ready), a NodeClaim per node
of the pools Karpenter manages (the generator's user pools, whose nodes get the
``karpenter.sh/nodepool`` label) and a few in flight, an ``EC2NodeClass`` and the DaemonSets
the nodes run; and an instance-type catalog in the JSON of Karpenter's KWOK provider as large
as AWS's: 735 types of 82 families, each offered on demand and (but metal) as spot in 3-6
of six zones. It then times ``fitgate check --instance-types`` on that copy against the case's floor
(as :mod:`benchmarks.autoscaled` does).

The generated cluster has room to spare (its pods land on random nodes, and most of its
large, memory and GPU nodes are less than half requested), so fewer than a tenth of the
workloads leave copies beyond today's nodes. The copy's nodes are fuller, as a Karpenter
cluster that consolidates keeps them: each node's allocatable cpu and memory are cut to what
its pods request plus :data:`SLACK` of the node (never raised), so hundreds of workloads
leave copies to the NodePools. The case itself is left as it is; the copy is written once
beside it.
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks import cluster
from benchmarks.catalog import DAEMONSETS, REGION
from benchmarks.derived import run_derived
from benchmarks.generate import MANIFESTS_DIR, SNAPSHOT_FILE
from benchmarks.sizes import Size
from gate.k8s.resources import pod_request_amounts

CATALOG_FILE = "instance-types.json"
_STAMP = ".complete"
NODEPOOL = "karpenter.sh/nodepool"
CAPACITY_TYPE = "karpenter.sh/capacity-type"
FAMILY = "karpenter.kwok.sh/instance-family"
SIZE = "karpenter.kwok.sh/instance-size"
INSTANCE_CPU = "karpenter.kwok.sh/instance-cpu"
ARCH = "kubernetes.io/arch"
ZONE = "topology.kubernetes.io/zone"
ZONES = tuple(f"{REGION}-{n}" for n in range(1, 7))
"""The cluster's three zones and three more: AWS's largest regions have six."""
SLACK = 0.03
"""What a fuller node keeps free beyond its pods' requests, as a share of its allocatable."""

# (families, GiB per vCPU, largest size in vCPUs, on-demand $ per vCPU-hour, GPUs per 8 vCPUs)
_FAMILY_GROUPS: tuple[tuple[str, float, int, float, float], ...] = (
    ("m5 m5a m5d m5dn m5n m5zn", 4, 96, 0.048, 0),
    ("m6a m6i m6id m6idn m6in m7a m7i m7i-flex", 4, 128, 0.05, 0),
    ("m6g m6gd m7g m7gd m8g", 4, 64, 0.04, 0),
    ("c5 c5a c5d c5n", 2, 96, 0.043, 0),
    ("c6a c6i c6id c6in c7a c7i c7i-flex", 2, 128, 0.043, 0),
    ("c6g c6gd c6gn c7g c7gd c7gn c8g", 2, 64, 0.036, 0),
    ("r5 r5a r5b r5d r5dn r5n", 8, 96, 0.063, 0),
    ("r6a r6i r6id r6idn r6in r7a r7i r7iz", 8, 128, 0.066, 0),
    ("r6g r6gd r7g r7gd r8g", 8, 64, 0.053, 0),
    ("x2gd x2idn x2iedn x8g", 16, 64, 0.083, 0),
    ("t3 t3a t4g", 4, 8, 0.042, 0),
    ("i3 i3en i4g i4i im4gn d3 z1d", 8, 96, 0.078, 0),
    ("g4dn g5 g6 g6e", 4, 192, 0.12, 1),
    ("p3 p4d p5", 16, 192, 0.41, 1),
    ("a1", 2, 16, 0.051, 0),
    ("hpc6a hpc7g inf2 trn1", 3, 96, 0.05, 0),
)
_SIZES: tuple[tuple[str, int], ...] = (("medium", 1), ("large", 2), ("xlarge", 4))
_SIZES += tuple((f"{n}xlarge", 4 * n) for n in (2, 4, 8, 12, 16, 24, 32, 48))


def _arm(family: str) -> bool:
    """Graviton families carry a ``g`` after their generation (``c7g``, ``im4gn``), and
    ``a1``."""
    head = family.split("-")[0]
    digits = [i for i, c in enumerate(head) if c.isdigit()]
    return head == "a1" or (bool(digits) and "g" in head[digits[0] + 1 :])


def _max_pods(cpus: int) -> int:
    """AWS's ENI limit, roughly: 29 pods at 2 vCPUs, 58 at 4, 234 from 16, at most 737."""
    return min(737, {1: 17, 2: 29, 4: 58, 8: 58}.get(cpus, 234 if cpus < 96 else 737))


def _kube_reserved_cpu(cpus: int) -> int:
    """The EKS AMI's kubeReserved cpu, in millicores: 6% of the first core, 1% of the next,
    0.5% of the next two, 0.25% of the rest."""
    millis = 60 + (10 if cpus > 1 else 0) + (5 * min(2, max(0, cpus - 2)))
    return millis + int(2.5 * max(0, cpus - 4))


def instance_types() -> list[dict[str, Any]]:
    """The catalog, in KWOK's JSON: every family in every size it comes in, and ``metal``."""
    types = []
    families = [
        (family, gib, largest, price, gpus)
        for names, gib, largest, price, gpus in _FAMILY_GROUPS
        for family in names.split(" ")
    ]
    for family, gib, largest, price, gpus in families:
        sizes = [(s, c) for s, c in _SIZES if c <= largest]
        if family.startswith(("t3", "t4")):
            sizes = [(s, max(c, 2)) for s, c in sizes]
        elif not family.startswith("c7i-flex"):
            sizes = [(s, c) for s, c in sizes if c > 1]
        if largest >= 64:
            sizes.append(("metal", largest))
        seed = zlib.crc32(family.encode())
        for size, cpus in sizes:
            name = f"{family}.{size}"
            pods = _max_pods(cpus)
            resources = {
                "cpu": str(cpus),
                "memory": f"{int(cpus * gib)}Gi",
                "ephemeral-storage": "20Gi",
                "pods": str(pods),
            }
            if gpus:
                resources["nvidia.com/gpu"] = str(max(1, int(cpus * gpus / 8)) if cpus >= 8 else 1)
            overhead = {"cpu": f"{_kube_reserved_cpu(cpus)}m", "memory": f"{11 * pods + 355}Mi"}
            zones = ZONES[: 3 + (seed + cpus) % 4]
            offerings = []
            for index, zone in enumerate(zones):
                on_demand = round(price * cpus, 4)
                spot = round(on_demand * (0.28 + 0.03 * ((seed + index) % 5)), 4)
                for kind, cost in (("on-demand", on_demand), ("spot", spot)):
                    if kind == "spot" and size == "metal":
                        continue
                    offerings.append(
                        {
                            "Price": cost,
                            "Available": True,
                            "Requirements": [
                                {"key": CAPACITY_TYPE, "operator": "In", "values": [kind]},
                                {"key": ZONE, "operator": "In", "values": [zone]},
                            ],
                        }
                    )
            types.append(
                {
                    "name": name,
                    "architecture": "arm64" if _arm(family) else "amd64",
                    "operatingSystems": ["linux"],
                    "resources": resources,
                    "overhead": overhead,
                    "offerings": offerings,
                }
            )
    return types


def _req(key: str, operator: str, *values: str, least: int | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        found["values"] = list(values)
    if least is not None:
        found["minValues"] = least
    return found


def _taint(key: str, value: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": "NoSchedule"}


MANAGED = {"general": "general", "large": "large", "memory": "memory", "spot": "spot"}
MANAGED |= {"gpu": "gpu", "arm": "arm"}
"""The generator's pools whose nodes Karpenter launched, and their NodePools."""
_AMD = _req(ARCH, "In", "amd64")
_ON_DEMAND = _req(CAPACITY_TYPE, "In", "on-demand")
_NOT_TINY = _req(SIZE, "NotIn", "medium", "metal")


def _pool_specs() -> list[tuple[str, int | None, dict[str, Any]]]:
    """(name, weight, template and limits) of each NodePool."""
    families = ["m6i", "m7i", "m6a", "m7a", "c6i", "c7i", "c6a", "c7a", "m5", "c5"]
    return [
        (
            "system",
            80,
            {
                "labels": {"kubernetes.azure.com/mode": "system"},
                "taints": [_taint("CriticalAddonsOnly", "true")],
                "requirements": [_AMD, _ON_DEMAND, _req(FAMILY, "In", "m6i", "m7i")],
                "limits": {"cpu": "2000", "memory": "8000Gi"},
            },
        ),
        (
            "gpu",
            70,
            {
                "labels": {"accelerator": "nvidia"},
                "taints": [_taint("nvidia.com/gpu", "present")],
                "requirements": [_req(FAMILY, "In", "g5", "g6", "g6e", "p4d"), _ON_DEMAND],
                "limits": {"cpu": "9000", "nvidia.com/gpu": "420"},
            },
        ),
        (
            "spot",
            60,
            {
                "labels": {"kubernetes.azure.com/scalesetpriority": "spot"},
                "taints": [_taint("kubernetes.azure.com/scalesetpriority", "spot")],
                "requirements": [
                    _AMD,
                    _req(CAPACITY_TYPE, "In", "spot"),
                    _req(FAMILY, "In", *families, "r6i", "r7i", least=4),
                    _NOT_TINY,
                ],
                "limits": {"cpu": "20000"},
            },
        ),
        (
            "arm",
            25,
            {
                "requirements": [
                    _req(ARCH, "In", "arm64"),
                    _req(FAMILY, "In", "c7g", "m7g", "r7g", "c6g", "m6g", "r6g", least=3),
                    _NOT_TINY,
                ],
                "limits": {"cpu": "10000", "memory": "40000Gi"},
            },
        ),
        (
            "memory",
            20,
            {
                "labels": {"agentpool": "memory"},
                "requirements": [
                    _AMD,
                    _ON_DEMAND,
                    _req(FAMILY, "In", "r6i", "r7i", "r6a", "r7a", "x2idn", "x2iedn"),
                    _req(INSTANCE_CPU, "Gt", "7"),
                ],
                "limits": {"cpu": "30000"},
            },
        ),
        (
            "large",
            20,
            {
                "labels": {"agentpool": "large"},
                "requirements": [
                    _AMD,
                    _req(FAMILY, "In", "m6i", "m7i", "m6a", "m7a", "m5"),
                    _req(INSTANCE_CPU, "Gt", "15"),
                    _req(INSTANCE_CPU, "Lt", "65"),
                ],
                "limits": {"cpu": "40000", "memory": "160000Gi"},
            },
        ),
        (
            "general",
            50,
            {
                "requirements": [
                    _AMD,
                    _req(CAPACITY_TYPE, "In", "on-demand", "spot"),
                    _req(FAMILY, "In", *families),
                    _NOT_TINY,
                ],
                "limits": {"cpu": "40000", "memory": "160000Gi"},
            },
        ),
        (
            "compute",
            15,
            {
                "requirements": [
                    _AMD,
                    _ON_DEMAND,
                    _req("karpenter.kwok.sh/instance-family", "Exists"),
                    _req(FAMILY, "NotIn", "t3", "t3a", "p3", "p4d", "p5", "g5", "g6", "g6e"),
                    _req(INSTANCE_CPU, "Gt", "3"),
                ],
                "limits": {"cpu": "10000"},
            },
        ),
        (
            "burstable",
            10,
            {
                "requirements": [_req(FAMILY, "In", "t3", "t3a", "t4g"), _ON_DEMAND],
                "limits": {"cpu": "256"},
            },
        ),
        (
            "default",
            None,
            {
                "requirements": [_req(ARCH, "In", "amd64", "arm64"), _ON_DEMAND],
                "limits": {"cpu": "1000", "memory": "4000Gi"},
            },
        ),
    ]


_CLASS_REF = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
_READY = ("Ready", "ValidationSucceeded", "NodeClassReady")


def node_pools() -> list[dict[str, Any]]:
    """The ten Ready NodePools, and ``legacy``, whose NodeClass is not Ready."""
    pools = []
    specs = _pool_specs()
    specs.append(("legacy", 90, {"requirements": [_AMD], "not_ready": "NodeClassReady"}))
    for name, weight, spec in specs:
        template: dict[str, Any] = {
            "nodeClassRef": _CLASS_REF,
            "requirements": spec["requirements"],
            "expireAfter": "720h",
        }
        if "taints" in spec:
            template["taints"] = spec["taints"]
        conditions = [
            {
                "type": kind,
                "status": "False" if kind == spec.get("not_ready") else "True",
                "lastTransitionTime": cluster.STAMP,
                "reason": kind,
                "message": "",
            }
            for kind in _READY
        ]
        body: dict[str, Any] = {
            "template": {"metadata": {"labels": spec.get("labels", {})}, "spec": template},
            "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized"},
        }
        if weight is not None:
            body["weight"] = weight
        if "limits" in spec:
            body["limits"] = spec["limits"]
        pools.append(
            {
                "apiVersion": "karpenter.sh/v1",
                "kind": "NodePool",
                "metadata": {"name": name, "creationTimestamp": cluster.STAMP},
                "spec": body,
                "status": {"conditions": conditions},
            }
        )
    return pools


def node_class() -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "default"},
        "spec": {
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "role": "KarpenterNodeRole-platform",
            "kubelet": {
                "maxPods": 110,
                "systemReserved": {"cpu": "100m", "memory": "100Mi"},
                "kubeReserved": {"cpu": "200m", "memory": "1Gi"},
                "evictionHard": {"memory.available": "5%", "nodefs.available": "10%"},
            },
        },
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }


def node_claim(node: dict[str, Any], pool: str, serial: int) -> dict[str, Any]:
    labels = node["metadata"]["labels"]
    spec: dict[str, Any] = {"nodeClassRef": _CLASS_REF, "requirements": []}
    if node["spec"].get("taints"):
        spec["taints"] = [t for t in node["spec"]["taints"] if "timeAdded" not in t]
    status = node["status"]
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {
            "name": f"{pool}-{serial:05x}",
            "labels": {
                NODEPOOL: pool,
                CAPACITY_TYPE: labels[CAPACITY_TYPE],
                ZONE: labels[ZONE],
                "node.kubernetes.io/instance-type": labels["node.kubernetes.io/instance-type"],
            },
        },
        "spec": spec,
        "status": {
            "nodeName": node["metadata"]["name"],
            "providerID": node["spec"].get("providerID", ""),
            "capacity": status["capacity"],
            "allocatable": status["allocatable"],
        },
    }


def in_flight(count: int) -> Iterator[dict[str, Any]]:
    """Claims launched and not yet joined: they count against the general pool's limits."""
    for serial in range(count):
        yield {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodeClaim",
            "metadata": {
                "name": f"general-pending-{serial:03d}",
                "labels": {NODEPOOL: "general", CAPACITY_TYPE: "on-demand"},
            },
            "spec": {"nodeClassRef": _CLASS_REF, "requirements": [_AMD]},
            "status": {"capacity": {"cpu": "16", "memory": "64Gi", "pods": "110"}},
        }


def daemon_sets() -> list[dict[str, Any]]:
    """The DaemonSets every node runs (tolerating every taint), and the GPU device plugin."""
    found = []
    for app in DAEMONSETS:
        requests = app.requests()
        template = {
            "metadata": {"labels": {"app": app.name}},
            "spec": {
                "priorityClassName": "system-node-critical",
                "tolerations": [{"operator": "Exists"}],
                "containers": [
                    {"name": app.name, "image": app.image, "resources": {"requests": requests}}
                ],
            },
        }
        found.append(_daemon_set(app.name, app.namespace, template))
    plugin = {
        "metadata": {"labels": {"app": "nvidia-device-plugin"}},
        "spec": {
            "nodeSelector": {"accelerator": "nvidia"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            "containers": [
                {
                    "name": "nvidia-device-plugin",
                    "image": "nvcr.example.com/k8s-device-plugin:v0.17.0",
                    "resources": {"requests": {"cpu": "50m", "memory": "100Mi"}},
                }
            ],
        },
    }
    found.append(_daemon_set("nvidia-device-plugin", "kube-system", plugin))
    return found


def _daemon_set(name: str, namespace: str, template: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": template},
    }


def _requested(snapshot: Path) -> dict[str, dict[str, int]]:
    """What the running pods of each node request, in scheduler units."""
    totals: dict[str, dict[str, int]] = {}
    section = ""
    with open(snapshot, encoding="utf-8") as lines:
        for line in lines:
            if line.startswith('  "'):
                section = line.split('"', 2)[1]
            elif section == "pods" and line.startswith("    {"):
                pod = json.loads(line.rstrip().rstrip(","))
                node = pod["spec"].get("nodeName")
                if not node or pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                    continue
                total = totals.setdefault(node, {})
                for resource, amount in pod_request_amounts(pod["spec"]).items():
                    total[resource] = total.get(resource, 0) + amount
    return totals


def _fuller(node: dict[str, Any], requested: dict[str, int]) -> None:
    allocatable = node["status"]["allocatable"]
    cpu = int(allocatable["cpu"].removesuffix("m"))
    memory = int(allocatable["memory"].removesuffix("Ki"))
    cpu = min(cpu, requested.get("cpu", 0) + int(cpu * SLACK))
    memory = min(memory, requested.get("memory", 0) // 1024 + int(memory * SLACK))
    allocatable["cpu"], allocatable["memory"] = f"{cpu}m", f"{memory}Ki"


def derive(size: Size, case: Path) -> Path:
    """The Karpenter copy of ``case``: its snapshot with fuller nodes, those of the managed
    pools labelled with their NodePool, and the Karpenter objects and DaemonSets; the
    catalog; the case's manifests linked, not copied."""
    directory = case.parent / f"{case.name}-karpenter"
    if (directory / _STAMP).exists():
        return directory
    directory.mkdir(exist_ok=True)
    requested = _requested(case / SNAPSHOT_FILE)
    claims: list[dict[str, Any]] = []
    section = ""
    target = directory / SNAPSHOT_FILE
    with open(case / SNAPSHOT_FILE, encoding="utf-8") as source, open(target, "w") as out:
        for line in source:
            if line.startswith('  "'):
                section = line.split('"', 2)[1]
            elif section == "nodes" and line.startswith("    {"):
                text = line.rstrip()
                comma = "," if text.endswith(",") else ""
                node = json.loads(text.removesuffix(","))
                labels = node["metadata"]["labels"]
                _fuller(node, requested.get(node["metadata"]["name"], {}))
                pool = MANAGED.get(labels["agentpool"])
                if pool is not None:
                    spot = labels.get("kubernetes.azure.com/scalesetpriority") == "spot"
                    labels[NODEPOOL] = pool
                    labels[CAPACITY_TYPE] = "spot" if spot else "on-demand"
                    claims.append(node_claim(node, pool, len(claims)))
                line = f"    {json.dumps(node, separators=(', ', ': '))}{comma}\n"
            if line == "}\n":
                break
            out.write(line)
        if not out.tell() or line != "}\n":
            raise RuntimeError(f"{case / SNAPSHOT_FILE} does not end as the recorder ends it")
    # The recorder's layout ends with the last section and the closing brace: the new
    # sections go in before it.
    with open(target, "rb+") as out:
        out.seek(-1, 2)
        if out.read() != b"\n":
            raise RuntimeError(f"{target} was cut short")
        out.seek(-1, 2)
        sections = {
            "daemonSets": daemon_sets(),
            "nodePools": node_pools(),
            "nodeClaims": [*claims, *in_flight(12)],
            "ec2NodeClasses": [node_class()],
        }
        for name, items in sections.items():
            body = ",\n".join(f"    {json.dumps(item)}" for item in items)
            out.write(f',\n  "{name}": [\n{body}\n  ]'.encode())
        out.write(b"\n}\n")
    catalog = instance_types()
    random.Random(11).shuffle(catalog)  # a provider's file is in no particular order
    with open(directory / CATALOG_FILE, "w", encoding="utf-8") as out:
        out.write("[\n")
        out.write(",\n".join(f"  {json.dumps(t)}" for t in catalog))
        out.write("\n]\n")
    link = directory / MANIFESTS_DIR
    if not link.is_symlink():
        link.symlink_to(Path("..") / case.name / MANIFESTS_DIR)
    (directory / _STAMP).write_text(size.describe() + "\n")
    return directory


def main(argv: list[str] | None = None) -> int:
    size, timed = run_derived(
        "python -m benchmarks.karpenter",
        "Time fitgate check on the case with Karpenter NodePools and a catalog.",
        argv,
        derive,
        SNAPSHOT_FILE,
        ("--instance-types", CATALOG_FILE),
        "ClusterSnapshot + NodePools + catalog",
    )
    reached = [w["autoscale"] for w in timed.report["workloads"] if w.get("autoscale")]
    launches = [s for a in reached for s in a["scaleUp"] if s["kind"] == "NodePool"]
    refused = sum(1 for a in reached if a["blocked"]["copies"])
    pools = sum(1 for _ in node_pools())
    sys.stdout.write(
        f"fitgate bench, size {size.name} with {pools} NodePools and "
        f"{len(instance_types())} instance types\n\n{timed.table}"
        f"reaching Karpenter: {len(reached)} workloads, {len(launches)} NodePool scale-ups "
        f"({sum(s['nodes'] for s in launches):,} nodes), {refused} with copies refused\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
