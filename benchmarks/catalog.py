"""What the synthetic cluster is made of: node pools and applications.

Shaped after a managed cluster's API output: a small system pool reserved for add-ons,
general, memory-optimised, arm pools and tainted spot, GPU and batch pools, a handful of
DaemonSets on every node, and applications whose containers carry requests, limits, env,
probes and volumes (some without any request at all), some kept near their data by a
required pod affinity.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from typing import Any

Taint = dict[str, str]


@dataclass(frozen=True, slots=True)
class Pool:
    name: str
    share: float
    vm_size: str
    cpu_millis: int
    memory_kib: int
    taints: tuple[tuple[str, str, str], ...] = ()
    arch: str = "amd64"
    gpus: int = 0
    mode: str = "user"


POOLS: tuple[Pool, ...] = (
    Pool(
        "system",
        0.04,
        "Standard_D4ds_v5",
        3860,
        12_996_400,
        taints=(("CriticalAddonsOnly", "true", "NoSchedule"),),
        mode="system",
    ),
    Pool("general", 0.34, "Standard_D8ds_v5", 7820, 28_045_676),
    Pool("large", 0.20, "Standard_D16ds_v5", 15_740, 58_617_812),
    Pool("memory", 0.12, "Standard_E16ds_v5", 15_740, 121_532_404),
    Pool(
        "spot",
        0.12,
        "Standard_D8as_v5",
        7820,
        28_045_676,
        taints=(("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule"),),
    ),
    Pool(
        "gpu",
        0.06,
        "Standard_NC24ads_A100_v4",
        23_660,
        226_128_860,
        taints=(("nvidia.com/gpu", "present", "NoSchedule"),),
        gpus=1,
    ),
    Pool("arm", 0.06, "Standard_D8pds_v5", 7820, 28_045_676, arch="arm64"),
    Pool(
        "batch",
        0.06,
        "Standard_F16s_v2",
        15_740,
        28_045_676,
        taints=(("workload", "batch", "NoSchedule"),),
    ),
)

ZONES = ("1", "2", "3")
REGION = "westeurope"
NAMESPACES = (
    "payments",
    "checkout",
    "search",
    "catalog",
    "identity",
    "ml-serving",
    "data-pipeline",
    "observability",
    "platform",
    "edge",
    "notifications",
    "reporting",
)
WORDS = (
    "api",
    "worker",
    "gateway",
    "indexer",
    "scheduler",
    "cache",
    "ingest",
    "render",
    "sync",
    "billing",
    "ledger",
    "router",
    "auth",
    "feed",
    "export",
    "audit",
)
TIERS = ("frontend", "backend", "backend", "data", "worker")
# Namespaces beside the applications', as a managed cluster has them.
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
CPU_REQUESTS = ("50m", "100m", "250m", "500m", "750m", "1", "1500m", "2", "4")
MEMORY_REQUESTS = ("64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi")
# Most services are small; a few are large enough not to fit where the cluster is full.
CPU_WEIGHTS = (20, 30, 25, 12, 5, 4, 2, 1, 1)
MEMORY_WEIGHTS = (15, 30, 25, 15, 8, 4, 2, 1)


@dataclass(frozen=True, slots=True)
class App:
    """One application: its pods in the cluster and its workload in the manifests share it."""

    name: str
    namespace: str
    kind: str
    image: str
    cpu: str | None
    memory: str | None
    containers: int
    pool: str | None
    sidecar: bool
    host_port: int | None = None
    tier: str = "backend"
    spread: str | None = None
    """``"hostname-anti-affinity"`` (required, one pod per node) or ``"zone-spread"`` (a
    ``DoNotSchedule`` constraint over zones), as highly available charts ask;
    ``"zone-affinity"`` / ``"hostname-affinity"`` (a required pod affinity to its
    namespace's data tier, in the same zone / on the same node); ``"daemon-spread"`` (a
    DaemonSet whose chart adds its default constraints: zone ``DoNotSchedule``, hostname
    ``ScheduleAnyway``)."""

    def requests(self) -> dict[str, str]:
        wanted = {"cpu": self.cpu, "memory": self.memory}
        return {k: v for k, v in wanted.items() if v is not None}

    @property
    def template_hash(self) -> str:
        """One per application, as one ReplicaSet's pods share it."""
        return f"{zlib.crc32(self.name.encode()):08x}"[:10]

    def labels(self) -> dict[str, str]:
        """The pod template's labels, in the manifests and on the running pods."""
        return {
            "app": self.name,
            "tier": "node-agent" if self.kind == "DaemonSet" else self.tier,
            "component": self.name.split("-")[0],
            "app.kubernetes.io/part-of": self.namespace,
        }

    def selector(self) -> dict[str, Any]:
        return {"matchLabels": {"app": self.name}}

    def affinity(self) -> dict[str, Any]:
        """The required pod (anti-)affinity of the application's ``spread``, if any."""
        if self.spread == "hostname-anti-affinity":
            term = {"labelSelector": self.selector(), "topologyKey": HOSTNAME}
            return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
        if self.spread in ("zone-affinity", "hostname-affinity"):
            near = {"matchLabels": {"tier": "data", "app.kubernetes.io/part-of": self.namespace}}
            key = ZONE if self.spread == "zone-affinity" else HOSTNAME
            term = {"labelSelector": near, "topologyKey": key}
            return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
        return {}

    def spread_constraints(self) -> list[dict[str, Any]]:
        def constraint(key: str, when: str) -> dict[str, Any]:
            return {
                "maxSkew": 1,
                "topologyKey": key,
                "whenUnsatisfiable": when,
                "labelSelector": self.selector(),
            }

        if self.spread == "zone-spread":
            return [constraint(ZONE, "DoNotSchedule")]
        if self.spread == "daemon-spread":
            return [constraint(ZONE, "DoNotSchedule"), constraint(HOSTNAME, "ScheduleAnyway")]
        return []


def make_apps(rng: random.Random, count: int) -> list[App]:
    kinds = ("Deployment",) * 10 + ("StatefulSet",) * 2 + ("Job", "CronJob", "ReplicaSet")
    pools = (None,) * 6 + ("memory", "spot", "gpu", "arm")
    apps = []
    for index in range(count):
        namespace = NAMESPACES[index % len(NAMESPACES)]
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{index}"
        unrequested = rng.random() < 0.06
        apps.append(
            App(
                name=name,
                namespace=namespace,
                kind=rng.choice(kinds),
                image=f"registry.example.com/{namespace}/{name}:1.{rng.randrange(40)}.{index % 9}",
                cpu=None if unrequested else rng.choices(CPU_REQUESTS, CPU_WEIGHTS)[0],
                memory=None if unrequested else rng.choices(MEMORY_REQUESTS, MEMORY_WEIGHTS)[0],
                containers=rng.choice((1, 1, 1, 2, 2, 3)),
                pool=rng.choice(pools),
                sidecar=rng.random() < 0.1,
                tier=TIERS[index % len(TIERS)],
                spread=_SPREADS.get(index % 16),
            )
        )
    return apps


# One application in eight is highly available: half by anti-affinity, half by spread;
# one in eight keeps near its namespace's data: half in the same zone, half on the same node.
_SPREADS = {
    3: "hostname-anti-affinity",
    7: "zone-affinity",
    11: "zone-spread",
    15: "hostname-affinity",
}


def namespace_labels(name: str) -> dict[str, str]:
    labels = {"kubernetes.io/metadata.name": name}
    if name not in SYSTEM_NAMESPACES:
        labels.update(team=name, environment="production")
        if len(name) % 2:
            labels["istio-injection"] = "enabled"
    return labels


# Every node runs one pod of each: kube-proxy, the cloud's node manager and CSI drivers,
# a log agent and a metrics exporter, pinned by matchFields as the DaemonSet controller pins.
DAEMONSETS: tuple[App, ...] = (
    App(
        "kube-proxy",
        "kube-system",
        "DaemonSet",
        "mcr.example.com/kube-proxy:v1.33.4",
        "100m",
        None,
        1,
        None,
        False,
    ),
    App(
        "cloud-node-manager",
        "kube-system",
        "DaemonSet",
        "mcr.example.com/cnm:v1.33.2",
        "50m",
        "50Mi",
        1,
        None,
        False,
    ),
    App(
        "csi-disk-node",
        "kube-system",
        "DaemonSet",
        "mcr.example.com/csi-disk:v1.31.5",
        "30m",
        "60Mi",
        3,
        None,
        False,
    ),
    App(
        "csi-file-node",
        "kube-system",
        "DaemonSet",
        "mcr.example.com/csi-file:v1.31.3",
        "30m",
        "60Mi",
        3,
        None,
        False,
    ),
    App(
        "log-agent",
        "observability",
        "DaemonSet",
        "registry.example.com/fluent-bit:3.2.1",
        "100m",
        "200Mi",
        1,
        None,
        False,
        host_port=2020,
    ),
    App(
        "node-exporter",
        "observability",
        "DaemonSet",
        "quay.example.com/node-exporter:v1.8.2",
        "50m",
        "64Mi",
        1,
        None,
        False,
        host_port=9100,
    ),
)


def env_list(rng: random.Random, app: App, count: int) -> list[dict[str, Any]]:
    env: list[dict[str, Any]] = [
        {
            "name": "POD_NAME",
            "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
        },
        {
            "name": "POD_NAMESPACE",
            "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}},
        },
    ]
    for i in range(count):
        key = f"{app.name.upper().replace('-', '_')}_SETTING_{i}"
        env.append({"name": key, "value": f"value-{rng.randrange(10_000)}-{app.namespace}"})
    return env


def probe(port: int, path: str) -> dict[str, Any]:
    return {
        "failureThreshold": 3,
        "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
        "initialDelaySeconds": 10,
        "periodSeconds": 10,
        "successThreshold": 1,
        "timeoutSeconds": 1,
    }
