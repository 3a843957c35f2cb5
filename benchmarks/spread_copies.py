"""``python -m benchmarks.spread_copies [--nodes N] [--replicas R] [--zone] [--repeat K]``:
one Deployment of R replicas spread over hostnames (``maxSkew 1``, DoNotSchedule) on N
nodes, or over zones with ``--zone``, timed end to end (``fitgate check``, one process, the
child's wall time).

Copies that see the same state are placed per class of alike nodes, not per node: this case
holds the placement to 3 s at 1,000 x 1,000 and 10 s at 2,000 x 2,000 on a 2-core machine
(issue 23). The nodes come in the benchmark catalog's pool shapes, three zones, a few pods
already running on some of them. With ``--zone`` every node runs a pod of its own size, so
no two nodes of a zone are alike: copies coupled by zones alone are scored per group of
nodes sharing their zone, each group's best node kept in a heap
(``--nodes 5000 --replicas 1000 --zone``: a few seconds).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.runner import measure_median

SHAPES = (("7820m", "28045676Ki"), ("15740m", "58617812Ki"), ("15740m", "121532404Ki"))
TARGETS = {1000: 3.0, 2000: 10.0}


def _node(i: int) -> dict[str, Any]:
    cpu, memory = SHAPES[i % len(SHAPES)]
    name = f"node-{i:05d}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": f"westeurope-{i % 3 + 1}",
            },
        },
        "spec": {},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def _pod(i: int, node: str, cpu: str = "500m") -> dict[str, Any]:
    requests = {"cpu": cpu, "memory": "1Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"busy-{i}", "namespace": "platform", "labels": {"app": "busy"}},
        "spec": {
            "nodeName": node,
            "containers": [{"name": "c", "resources": {"requests": requests}}],
        },
        "status": {"phase": "Running"},
    }


MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: spread, namespace: web}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: spread}}}}
  template:
    metadata: {{labels: {{app: spread}}}}
    spec:
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: {key}
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {{matchLabels: {{app: spread}}}}
      containers:
        - name: app
          image: example/app:1
          resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}
"""


HOSTNAME_KEY = "kubernetes.io/hostname"
ZONE_KEY = "topology.kubernetes.io/zone"


def write_case(folder: Path, nodes: int, replicas: int, key: str = HOSTNAME_KEY) -> None:
    names = [f"node-{i:05d}" for i in range(nodes)]
    snapshot = {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "capturedAt": "2026-08-16T10:00:00Z",
        "source": {"context": "bench", "server": "https://bench:6443", "serverVersion": "v1.34.1"},
        "nodes": [_node(i) for i in range(nodes)],
        "pods": [_pod(i, names[i * 7 % nodes]) for i in range(nodes // 10)]
        if key == HOSTNAME_KEY
        else [_pod(i, names[i], f"{100 + i}m") for i in range(nodes)],
    }
    (folder / "snapshot.json").write_text(json.dumps(snapshot))
    (folder / "manifests").mkdir()
    (folder / "manifests" / "spread.yaml").write_text(MANIFEST.format(replicas=replicas, key=key))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spread_copies")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--replicas", type=int)
    parser.add_argument("--zone", action="store_true", help="spread over zones")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)
    replicas = options.replicas or options.nodes
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write_case(folder, options.nodes, replicas, ZONE_KEY if options.zone else HOSTNAME_KEY)
        argv_ = [sys.executable, "-m", "gate", "check", "manifests", "--snapshot", "snapshot.json"]
        result = measure_median(argv_, folder, options.repeat)
    target = None if options.zone else TARGETS.get(options.nodes)
    judged = (
        ""
        if target is None
        else f" (target {target:.0f} s: {'met' if result.seconds <= target else 'MISSED'})"
    )
    spread = "zone" if options.zone else "hostname"
    case = f"{options.nodes} nodes x {replicas} replicas, {spread} spread"
    print(f"{case}: {result.seconds:.2f} s, {result.peak_mb:.0f} MB{judged}")
    print(result.output.strip().splitlines()[1] if result.output.strip() else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
