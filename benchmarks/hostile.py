"""The hostile inputs' time and memory, measured: each case is one ``fitgate`` process
over inputs written here, its wall time and peak memory held to a bound.

    python benchmarks/hostile.py            # the table; exit 1 if a case passes its bound
    python benchmarks/hostile.py baseline   # only the cases whose name says "baseline"

``tests/test_hostile_gate.py`` asserts what each case answers (the exit code and the one
line); this measures what the answer costs, which no unit test times.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json"
ZONAL_DISKS = ROOT / "fixtures" / "snapshots" / "aks-zonal-disks.json"
BIG = (ROOT / "fixtures" / "manifests" / "02-web-big.yaml").read_text(encoding="utf-8")

SECONDS = 10.0
MEGABYTES = 400

# The child runs the command and writes its own peak memory (KiB) where the parent asks: the
# command's streams stay the command's. Linux's VmHWM is the process's own since its exec;
# ru_maxrss carries the parent's peak at the fork into the child, so a case that wrote large
# inputs would be charged for writing them.
_CHILD = """\
import json, os, resource, sys
from gate.cli import main
code = main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    with open("/proc/self/status", encoding="ascii") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
with open(os.environ["FITGATE_BENCH_OUT"], "w") as out:
    json.dump({"code": code, "peak_kib": peak}, out)
"""


@dataclass(frozen=True)
class Case:
    name: str
    write: Callable[[Path], list[str]]
    """Writes the inputs into a folder; returns the arguments after ``fitgate``."""
    code: int
    megabytes: Callable[[Path], float] = lambda folder: MEGABYTES
    """The bound on peak memory, given the folder the inputs were written into."""
    seconds: float = SECONDS
    """The bound on wall time."""
    stdin: str | None = None
    """A file of the folder given as standard input."""


def _config(text: str) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        (folder / ".fitgate.yaml").write_text(text, encoding="utf-8")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        return ["check", "web.yaml", "--snapshot", str(SNAPSHOT)]

    return write


def _template(text: str) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        (folder / "t.j2").write_text(text, encoding="utf-8")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        flags = ["--comment", "c.md", "--comment-template", "t.j2"]
        return ["check", "web.yaml", "--snapshot", str(SNAPSHOT), *flags]

    return write


def _alias_bomb(levels: int = 12) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, levels)]
    return "\n".join(lines) + f"\nexclude: *a{levels - 1}\n"


def _long_context(folder: Path) -> list[str]:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    snapshot["source"]["context"] = "_" * 20_000
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", "snapshot.json", "--comment", "c.md"]


def _large_list(folder: Path) -> list[str]:
    """A 15 MiB YAML List: 2,300 ConfigMaps and 20 Deployments that do not fit."""
    data = "".join(f"      k{i}: {'x' * 60}\n" for i in range(100))
    items = []
    for n in range(2_300):
        items.append(f"  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {{name: cm{n}}}\n")
        items.append(f"    data:\n{data}")
        if n % 115 == 0:
            body = BIG.replace("web-big", f"web-big-{n}").split("\n", 1)[1]
            items.append("  - " + body.replace("\n", "\n    ").rstrip() + "\n")
    (folder / "list.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + "".join(items))
    return ["check", "list.yaml", "--snapshot", str(SNAPSHOT), "-q"]


def _large_baseline(folder: Path) -> list[str]:
    """A 200 MB baseline: a report of 1,300 workloads on a 5,000-node cluster whose outcome
    groups name every node (``--json-nodes all``), written workload by workload."""
    nodes = [f"aks-user-nodepool-vmss{n:06d}" for n in range(5_000)]
    taint = "node(s) had untolerated taint {CriticalAddonsOnly: true}"
    groups = [
        {"reasons": [taint], "plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable"}
        | {"count": 1_000, "nodes": nodes[:1_000]},
        {"reasons": ["Insufficient cpu"], "plugin": "NodeResourcesFit", "code": "Unschedulable"}
        | {"count": 4_000, "nodes": nodes[1_000:]},
    ]
    written = json.loads((ROOT / "tests" / "golden" / "cli" / "aks.json").read_text("utf-8"))
    workload = written["workloads"][1]  # web-big: NO, as this run finds it
    head = {k: v for k, v in written.items() if k != "workloads"}
    head["snapshot"] |= {"nodes": 5_000}
    with (folder / "base.json").open("w", encoding="utf-8") as out:
        out.write(json.dumps(head)[:-1] + ', "workloads": [')
        for n in range(1_300):
            name = "web-big" if n == 0 else f"web-{n}"
            out.write(
                ("" if n == 0 else ", ") + json.dumps(workload | {"name": name, "outcomes": groups})
            )
        out.write("]}")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", str(SNAPSHOT), "--baseline", "base.json", "-q"]


def _many_workloads_baseline(folder: Path) -> list[str]:
    """A 150 MB baseline of 200,000 small workloads: the report's seven, renamed over and
    over, so that what is kept of each (not the outcome groups) is what costs."""
    written = json.loads((ROOT / "tests" / "golden" / "cli" / "aks.json").read_text("utf-8"))
    workloads = written.pop("workloads")
    with (folder / "base.json").open("w", encoding="utf-8") as out:
        out.write(json.dumps(written)[:-1] + ', "workloads": [')
        for n in range(200_000):
            workload = workloads[n % len(workloads)]
            name = workload["name"] if n < len(workloads) else f"{workload['name']}-{n}"
            out.write(("" if n == 0 else ", ") + json.dumps(workload | {"name": name}))
        out.write("]}")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", str(SNAPSHOT), "--baseline", "base.json", "-q"]


def _older_small_baseline(count: int) -> Callable[[Path], list[str]]:
    """A schemaVersion 2 baseline of ``count`` workloads of one key (72 bytes each: 2,000,000
    are 144 MB, which decoded whole took 1.1 GB): each is smaller in the file than what is
    kept of it, so their count is bounded too."""

    def write(folder: Path) -> list[str]:
        entry = '{"kind": "Deployment", "namespace": "default", "name": "web", "verdict": "NO"}'
        with (folder / "base.json").open("w", encoding="utf-8") as out:
            out.write('{"schemaVersion": 2, "workloads": [')
            out.write(entry)
            left = count - 1
            while left:  # in parts: a child starts at its parent's peak memory
                part = min(left, 10_000)
                out.write((", " + entry) * part)
                left -= part
            out.write("]}")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        argv = ["check", "web.yaml", "--snapshot", str(SNAPSHOT), "--baseline", "base.json"]
        return [*argv, "-q"]

    return write


def _minimal_older_baseline(count: int) -> Callable[[Path], list[str]]:
    """A schemaVersion 2 baseline of ``count`` minimal workloads, each its own name, file and
    line (170 bytes each: 1,180,000 are 200 MB)."""

    def write(folder: Path) -> list[str]:
        with (folder / "base.json").open("w", encoding="utf-8") as out:
            out.write('{"schemaVersion": 2, "workloads": [')
            for start in range(0, count, 10_000):  # in parts: see _older_small_baseline
                out.write(
                    ", ".join(
                        f'{{"kind": "Deployment", "namespace": "team-{n % 97:04d}", '
                        f'"name": "service-{n:08d}", "verdict": "YES", '
                        f'"file": "apps/team-{n % 97:04d}/service-{n:08d}.yaml", "line": 1}}'
                        for n in range(start, min(count, start + 10_000))
                    )
                    + (", " if start + 10_000 < count else "")
                )
            out.write("]}")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        argv = ["check", "web.yaml", "--snapshot", str(SNAPSHOT), "--baseline", "base.json"]
        return [*argv, "-q"]

    return write


def _large_origin(folder: Path) -> list[str]:
    """Piped kustomize output whose failing Deployment's origin annotation names a 15 MiB
    base file of the repository: 1,500 ConfigMaps of 1,000 short keys each, then the
    Deployment."""
    data = "".join(f"  k{i}: v\n" for i in range(1_000))
    with (folder / "base.yaml").open("w", encoding="utf-8") as out:
        for n in range(1_500):
            out.write(
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{n}\ndata:\n{data}---\n"
            )
        out.write(BIG)
    origin = "    config.kubernetes.io/origin: |\n      path: base.yaml\n"
    rendered = BIG.replace("metadata:\n", "metadata:\n  annotations:\n" + origin, 1)
    (folder / "rendered.yaml").write_text(rendered, encoding="utf-8")
    return ["check", "-", "--snapshot", str(SNAPSHOT), "--origin-root", ".", "-q"]


def _nested_report(command: str) -> Callable[[Path], list[str]]:
    """A report file of ``[`` nested 100,000 deep, given to ``merge`` or as ``--baseline``."""

    def write(folder: Path) -> list[str]:
        nested = '{"schemaVersion": 3, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
        (folder / "r.json").write_text(nested, encoding="utf-8")
        (folder / "web.yaml").write_text(BIG, encoding="utf-8")
        if command == "merge":
            return ["merge", "r.json"]
        return ["check", "web.yaml", "--snapshot", str(SNAPSHOT), "--baseline", "r.json"]

    return write


def _digits_status(folder: Path) -> list[str]:
    """A snapshot whose plain-text CA status has a 5,000-digit maxSize."""
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    text = (ROOT / "tests" / "data" / "ca-status-1.29.txt").read_text(encoding="utf-8")
    status = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"namespace": "kube-system", "name": "cluster-autoscaler-status"},
        "data": {"status": text.replace("maxSize=10", "maxSize=" + "9" * 5_000)},
    }
    snapshot["configMaps"] = [status]
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", "snapshot.json"]


def _long_status(folder: Path) -> list[str]:
    """A 6 MB YAML CA status (16 MB once took 2.5 GB and 41 s to parse)."""
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    group = "- name: g\n  health: {status: Healthy, cloudProviderTarget: 1, maxSize: 3}\n"
    text = "autoscalerStatus: Running\nnodeGroups:\n" + group * 80_000
    status = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"namespace": "kube-system", "name": "cluster-autoscaler-status"},
        "data": {"status": text},
    }
    snapshot["configMaps"] = [status]
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", "snapshot.json"]


def _catalog_pipe(folder: Path) -> list[str]:
    """``--instance-types`` naming a named pipe no one writes: refused, never waited on."""
    os.mkfifo(folder / "types.json")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", str(SNAPSHOT), "--instance-types", "types.json"]


KARPENTER = ROOT / "fixtures" / "snapshots" / "eks-karpenter.json"


def _large_catalog(count: int) -> Callable[[Path], list[str]]:
    """A catalog of ``count`` types every one of which a new node may take, and 3 workloads
    that scale the pool: each scale-up lists 100 types and counts the rest (the report
    stays a few KB; listed whole, 1.7 MB a scale-up for 100,000 types). Reading and judging
    the catalog itself is what the time and memory measure: 100,000 types, refused now, took
    16-44 s and 744 MB."""

    def write(folder: Path) -> list[str]:
        return _write_catalog(folder, count)

    return write


def _write_catalog(folder: Path, count: int) -> list[str]:
    offering = {
        "Price": 0.1,
        "Available": True,
        "Requirements": [
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]},
        ],
    }
    types = [
        {
            "name": f"t{n}.xlarge",
            "architecture": "amd64",
            "operatingSystems": ["linux"],
            "resources": {"cpu": "4", "memory": "16Gi", "pods": "58"},
            "offerings": [offering | {"Price": 0.1 + n / 1e7}],
        }
        for n in range(count)
    ]
    (folder / "types.json").write_text(json.dumps(types), encoding="utf-8")
    web = (ROOT / "fixtures" / "karpenter" / "01-web-scales.yaml").read_text(encoding="utf-8")
    documents = [web.replace("name: web\n", f"name: web-{n}\n", 1) for n in range(3)]
    (folder / "web.yaml").write_text("---\n".join(documents), encoding="utf-8")
    argv = ["check", "web.yaml", "--snapshot", str(KARPENTER), "--instance-types", "types.json"]
    return [*argv, "--json", "report.json"]


def _one_line_list(folder: Path) -> list[str]:
    """``kubectl get deployments -A -o json`` written compact: 4,000 Deployments on one
    line, none of which fits, each with the line of its field to find."""
    item = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"namespace": "web", "name": "web"},
        "spec": {
            "replicas": 2,
            "template": {
                "spec": {
                    "containers": [
                        {"name": "c", "image": "c", "resources": {"requests": {"cpu": "2"}}}
                    ]
                }
            },
        },
    }
    items = [item | {"metadata": {"namespace": "web", "name": f"web-{n}"}} for n in range(4_000)]
    listed = {"apiVersion": "v1", "kind": "List", "items": items}
    (folder / "list.json").write_text(json.dumps(listed), encoding="utf-8")
    return ["check", "list.json", "--snapshot", str(SNAPSHOT), "-q"]


def _unlimited_pool(replicas: int, one_per_node: bool) -> Callable[[Path], list[str]]:
    """The Karpenter fixture's NodePools without limits, and a Deployment of ``replicas``
    (one per node with hostname anti-affinity): placement stops at its stated bound."""

    def write(folder: Path) -> list[str]:
        snapshot = json.loads(KARPENTER.read_text(encoding="utf-8"))
        for pool in snapshot["nodePools"]:
            pool["spec"].pop("limits", None)
        (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
        web = (ROOT / "fixtures" / "karpenter" / "01-web-scales.yaml").read_text("utf-8")
        web = web.replace("replicas: 8", f"replicas: {replicas}")
        if one_per_node:
            anti = (
                "      affinity:\n        podAntiAffinity:\n"
                "          requiredDuringSchedulingIgnoredDuringExecution:\n"
                "            - labelSelector: {matchLabels: {app: web}}\n"
                "              topologyKey: kubernetes.io/hostname\n"
            )
            web = web.replace("    spec:\n      containers:", f"    spec:\n{anti}      containers:")
        (folder / "web.yaml").write_text(web, encoding="utf-8")
        catalog = str(ROOT / "fixtures" / "catalogs" / "instance-types.json")
        return ["check", "web.yaml", "--snapshot", "snapshot.json", "--instance-types", catalog]

    return write


def _long_label(folder: Path) -> list[str]:
    """A snapshot whose node carries one 30 MB label (3.6 GB and 18 s before the bound)."""
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    snapshot["nodes"][0]["metadata"]["labels"]["big"] = "x" * 30_000_000
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "web.yaml").write_text(BIG, encoding="utf-8")
    return ["check", "web.yaml", "--snapshot", "snapshot.json"]


def _claimed_copies(kind: str, volumes: str) -> Callable[[Path], list[str]]:
    """2,147,483,647 copies, each with a claim of its own (a StatefulSet's claim template,
    a generic ephemeral volume): a claim object was made for every copy (9 GB in a minute)."""

    def write(folder: Path) -> list[str]:
        text = (
            f"apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: db, namespace: default}}\n"
            "spec:\n  replicas: 2147483647\n"
            + ("  serviceName: db\n" if kind == "StatefulSet" else "")
            + "  selector: {matchLabels: {app: db}}\n  template:\n"
            "    metadata: {labels: {app: db}}\n    spec:\n"
            "      containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n"
            + volumes
        )
        (folder / "db.yaml").write_text(text, encoding="utf-8")
        return ["check", "db.yaml", "--snapshot", str(ZONAL_DISKS)]

    return write


_CLAIM_SPEC = (
    "{storageClassName: managed-csi, accessModes: [ReadWriteOnce],"
    " resources: {requests: {storage: 1Gi}}}"
)
_TEMPLATES = f"  volumeClaimTemplates:\n  - metadata: {{name: data}}\n    spec: {_CLAIM_SPEC}\n"
_EPHEMERAL = (
    "      volumes:\n      - name: scratch\n        ephemeral:\n"
    f"          volumeClaimTemplate:\n            spec: {_CLAIM_SPEC}\n"
)


def _many_zones(folder: Path) -> list[str]:
    """5,000 replicas spread over 500 zones (maxSkew 1) on 2,000 nodes of unlike load: each
    copy once compared every zone's count for every zone (73 s)."""
    nodes, pods = [], []
    for i in range(2_000):
        name = f"node-{i:05d}"
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"z{i % 500}"}
        nodes.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "spec": {},
                "status": {"allocatable": {"cpu": "15740m", "memory": "58617812Ki", "pods": "110"}},
            }
        )
        requests = {"cpu": f"{100 + i}m", "memory": "1Gi"}
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"busy-{i}", "namespace": "platform"},
                "spec": {
                    "nodeName": name,
                    "containers": [{"name": "c", "resources": {"requests": requests}}],
                },
                "status": {"phase": "Running"},
            }
        )
    source = {"context": "zones", "server": "https://zones:6443", "serverVersion": "v1.34.1"}
    snapshot = {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "capturedAt": "2026-08-16T10:00:00Z",
        "source": source,
        "nodes": nodes,
        "pods": pods,
    }
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (folder / "spread.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: spread, namespace: web}\n"
        "spec:\n  replicas: 5000\n  selector: {matchLabels: {app: spread}}\n  template:\n"
        "    metadata: {labels: {app: spread}}\n    spec:\n      topologySpreadConstraints:\n"
        "        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone,"
        " whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread}}}\n"
        "      containers:\n        - name: app\n          image: example/app:1\n"
        "          resources: {requests: {cpu: 100m, memory: 128Mi}}\n",
        encoding="utf-8",
    )
    return ["check", "spread.yaml", "--snapshot", "snapshot.json", "-q"]


def _twice_the_baseline(folder: Path) -> float:
    return 2 * (folder / "base.json").stat().st_size / 1024 / 1024


OWN = 40
"""Megabytes of a check of one small manifest with nothing large beside it (33 MB)."""


def _beyond_the_run(name: str, times: float) -> Callable[[Path], float]:
    """The run's own memory and ``times`` the size of the file ``name``."""
    return lambda folder: OWN + times * (folder / name).stat().st_size / 1024 / 1024


CASES = (
    Case("configuration: an alias bomb", _config(_alias_bomb()), 2),
    Case("configuration: 2,000 levels deep", _config("exclude: " + "[" * 2000 + "]" * 2000), 2),
    Case("template: 10**300000000", _template("{{ 10**300000000 }}"), 2),
    Case('template: "a" * 3000000000', _template('{{ "a" * 3000000000 }}'), 2),
    Case('template: "%2000000000d" % 1', _template('{{ "%2000000000d" % 1 }}'), 2),
    Case(
        "template: a macro calling itself",
        _template("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"),
        2,
    ),
    Case("comment: a 20,000-character context", _long_context, 1),
    Case("a 15 MiB List, 20 failing workloads", _large_list, 1),
    Case("a 200 MB baseline (bound: twice its size)", _large_baseline, 0, _twice_the_baseline),
    Case(
        "a 150 MB baseline of 200,000 workloads (bound: twice its size)",
        _many_workloads_baseline,
        0,
        _twice_the_baseline,
    ),
    Case(
        "baseline: 2,000,000 schemaVersion 2 workloads of one key (refused)",
        _older_small_baseline(2_000_000),
        2,
    ),
    Case(
        "baseline: 250,000 schemaVersion 2 workloads of one key (the most it may hold)",
        _older_small_baseline(250_000),
        1,
    ),
    Case(
        "baseline: 1,180,000 minimal schemaVersion 2 workloads, 200 MB (bound: twice its size)",
        _minimal_older_baseline(1_180_000),
        2,
        _twice_the_baseline,
    ),
    Case(
        "baseline: 250,000 minimal schemaVersion 2 workloads, 39 MB, the most it may hold "
        "(bound: the run's own and 3.5 times its size)",
        _minimal_older_baseline(250_000),
        1,
        _beyond_the_run("base.json", 3.5),
    ),
    Case(
        "origin: a 15 MiB kustomize origin file (bound: the run's own and twice its size)",
        _large_origin,
        1,
        _beyond_the_run("base.yaml", 2),
        stdin="rendered.yaml",
    ),
    Case("merge: a report nested 100,000 deep", _nested_report("merge"), 2),
    Case("baseline: a report nested 100,000 deep", _nested_report("check"), 2),
    Case("snapshot: a text CA status with a 5,000-digit maxSize", _digits_status, 2),
    Case("snapshot: one 30 MB label", _long_label, 2),
    Case("snapshot: a 6 MB YAML CA status", _long_status, 2),
    Case("catalog: a named pipe no one writes", _catalog_pipe, 2),
    Case("a one-line JSON List of 4,000 failing Deployments", _one_line_list, 1),
    Case(
        "Karpenter: 2,147,483,647 replicas, a NodePool without limits",
        _unlimited_pool(2_147_483_647, one_per_node=False),
        1,
    ),
    Case(
        "Karpenter: 100,000 replicas one per node, a NodePool without limits",
        _unlimited_pool(100_000, one_per_node=True),
        1,
    ),
    Case("placement: 5,000 replicas spread over 500 zones on 2,000 nodes", _many_zones, 0),
    Case(
        "claims: a StatefulSet of 2,147,483,647 replicas with a claim template",
        _claimed_copies("StatefulSet", _TEMPLATES),
        1,
    ),
    Case(
        "claims: a Deployment of 2,147,483,647 replicas with an ephemeral volume",
        _claimed_copies("Deployment", _EPHEMERAL),
        1,
    ),
    Case("catalog: 100,000 instance types (refused)", _large_catalog(100_000), 2),
    Case(
        "catalog: 5,000 instance types (the most it may hold), 3 scale-ups",
        _large_catalog(5_000),
        1,
    ),
)


def measure(case: Case) -> tuple[float, float, float, int]:
    """Seconds, peak megabytes, the case's bound on them and the exit code of one case in a
    fresh process."""
    with tempfile.TemporaryDirectory() as folder:
        argv = case.write(Path(folder))
        bound = case.megabytes(Path(folder))
        out = Path(folder) / "measured.json"
        env = {**os.environ, "FITGATE_BENCH_OUT": str(out), "PYTHONPATH": str(ROOT)}
        stdin = (Path(folder) / case.stdin).open("rb") if case.stdin else subprocess.DEVNULL
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", _CHILD, *argv],
            cwd=folder,
            env=env,
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        seconds = time.perf_counter() - started
        if not isinstance(stdin, int):
            stdin.close()
        found = json.loads(out.read_text(encoding="utf-8"))
    return seconds, found["peak_kib"] / 1024, bound, int(found["code"])


def main(argv: list[str]) -> int:
    """Every case, or those whose name contains one of the names ``argv`` gives."""
    parser = argparse.ArgumentParser(
        prog="python benchmarks/hostile.py",
        description="The hostile inputs' time and memory, each case held to its bound.",
    )
    parser.add_argument("names", nargs="*", help="only the cases whose name contains one")
    names = parser.parse_args(argv).names
    print("| case | exit | seconds | bound s | peak MB | bound MB |")
    print("| --- | --- | --- | --- | --- | --- |")
    failed = False
    for case in CASES:
        if names and not any(name in case.name for name in names):
            continue
        seconds, megabytes, bound, code = measure(case)
        over = seconds > case.seconds or megabytes > bound or code != case.code
        failed |= over
        mark = " **over**" if over else ""
        print(
            f"| {case.name} | {code} | {seconds:.2f} | {case.seconds:g} | {megabytes:.0f} "
            f"| {bound:.0f}{mark} |"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
