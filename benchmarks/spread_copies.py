"""``python -m benchmarks.spread_copies [--nodes N] [--replicas R] [--zone] [--rack]
[--repeat K]``: one Deployment of R replicas spread over hostnames (``maxSkew 1``,
DoNotSchedule) on N nodes, or over zones with ``--zone``, and over racks too with
``--rack``, timed end to end (``fitgate check``, one process, the child's wall time).

Copies that see the same state are placed per class of alike nodes, not per node: this case
holds the placement to 3 s at 1,000 x 1,000 and 10 s at 2,000 x 2,000 on a 2-core machine
(issue 23). The nodes come in the benchmark catalog's pool shapes, three zones, a few pods
already running on some of them. With ``--zone`` or ``--rack`` every node runs a pod of its
own size, so no two nodes are alike. One zone spread past 100 nodes counts the same in any
order and is placed by domain, unscored; zone and rack spread together are scored per group
of nodes sharing their zone and rack, each group's best node kept in a heap, and placed
again with the picks a sampled share could make (``--nodes 5000 --replicas 1000 --zone``
and ``--rack``: a few seconds each).
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
                "topology.example.com/rack": f"rack-{i % 7}",
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
          labelSelector: {{matchLabels: {{app: spread}}}}{more}
      containers:
        - name: app
          image: example/app:1
          resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}
"""


HOSTNAME_KEY = "kubernetes.io/hostname"
ZONE_KEY = "topology.kubernetes.io/zone"
RACK_KEY = "topology.example.com/rack"
RACK_SPREAD = f"""
        - maxSkew: 1
          topologyKey: {RACK_KEY}
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {{matchLabels: {{app: spread}}}}"""


def write_case(
    folder: Path, nodes: int, replicas: int, key: str = HOSTNAME_KEY, rack: bool = False
) -> None:
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
    (folder / "manifests" / "spread.yaml").write_text(
        MANIFEST.format(replicas=replicas, key=key, more=RACK_SPREAD if rack else "")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spread_copies")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--replicas", type=int)
    parser.add_argument("--zone", action="store_true", help="spread over zones")
    parser.add_argument("--rack", action="store_true", help="spread over zones and racks")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)
    replicas = options.replicas or options.nodes
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        zoned = options.zone or options.rack
        key = ZONE_KEY if zoned else HOSTNAME_KEY
        write_case(folder, options.nodes, replicas, key, options.rack)
        argv_ = [sys.executable, "-m", "gate", "check", "manifests", "--snapshot", "snapshot.json"]
        result = measure_median(argv_, folder, options.repeat)
    target = None if zoned else TARGETS.get(options.nodes)
    judged = (
        ""
        if target is None
        else f" (target {target:.0f} s: {'met' if result.seconds <= target else 'MISSED'})"
    )
    spread = "zone and rack" if options.rack else "zone" if zoned else "hostname"
    case = f"{options.nodes} nodes x {replicas} replicas, {spread} spread"
    print(f"{case}: {result.seconds:.2f} s, {result.peak_mb:.0f} MB{judged}")
    print(result.output.strip().splitlines()[1] if result.output.strip() else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
