"""Write one benchmark case to disk, streaming: no more than one object is held at a time
(but the storage objects, written last).

``cluster-list.json`` is the ``kubectl get nodes,pods,namespaces,pv,pvc,storageclass,csinode
-A -o json`` List (kubectl's four-space indentation); ``cluster-snapshot.json`` is the same
cluster as ``fitgate snapshot`` records it (only the fields the checks read, one object per
line);
``manifests/`` is the monorepo. The same size always gives the same bytes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, TypeVar

import msgspec
import yaml

from benchmarks import cluster, monorepo, storage
from benchmarks.catalog import make_apps
from benchmarks.sizes import Size
from gate.live.objects import Namespace, Node, Pod, Recorded
from gate.live.recorder import recorded
from gate.live.storage import CSINode, PersistentVolume, PersistentVolumeClaim, StorageClass, Stored

GENERATOR_VERSION = "4"
LIST_FILE = "cluster-list.json"
SNAPSHOT_FILE = "cluster-snapshot.json"
MANIFESTS_DIR = "manifests"
_STAMP = ".complete"
Result = TypeVar("Result")
_INDENT = b"        "  # kubectl's List: items at two levels of four spaces


def _pretty_item(obj: Any) -> bytes:
    text = msgspec.json.format(msgspec.json.encode(obj), indent=4)
    return _INDENT + text.replace(b"\n", b"\n" + _INDENT)


def encoded(item: type[Stored], obj: Any) -> bytes:
    """A storage object as ``fitgate snapshot`` writes it."""
    return json.dumps(recorded(item, obj)).encode()


def _recorded(item: type[Recorded], obj: Any) -> bytes:
    """One object per line, as ``fitgate snapshot`` writes it."""
    return b"    " + json.dumps(recorded(item, obj)).encode()


def _write_array(
    out: IO[bytes], items: Iterable[Any], render: Callable[[Any], bytes], separator: bytes
) -> None:
    first = True
    for item in items:
        if not first:
            out.write(separator)
        out.write(render(item))
        first = False


def write_cluster(size: Size, directory: Path, seed: int = 1) -> None:
    """Both snapshot files, in one pass over the generated objects."""
    rng = random.Random(seed)
    pools = cluster.node_pools(size.nodes)
    apps = make_apps(random.Random(seed + 1), max(8, size.workloads))
    node_names = [cluster.node_name(pool, i) for i, pool in enumerate(pools)]
    nodes_tmp = directory / "nodes.tmp"
    namespaces_tmp = directory / "namespaces.tmp"
    with (
        open(namespaces_tmp, "wb") as namespaces_out,
        open(directory / LIST_FILE, "wb") as listing,
        open(directory / (SNAPSHOT_FILE + ".pods"), "wb") as pods_out,
        open(nodes_tmp, "wb") as nodes_out,
    ):
        listing.write(b'{\n    "apiVersion": "v1",\n    "items": [\n')
        separator = b",\n"
        nodes = (cluster.node(rng, pool, i) for i, pool in enumerate(pools))

        def list_and_compact_node(node: dict[str, Any]) -> bytes:
            nodes_out.write(_recorded(Node, node) + separator)
            return _pretty_item(node)

        _write_array(listing, nodes, list_and_compact_node, separator)
        volumes: list[dict[str, Any]] = []
        pods = cluster.pods(rng, apps, node_names, size.pods, volumes)

        def list_and_compact_pod(pod: dict[str, Any]) -> bytes:
            pods_out.write(_recorded(Pod, pod) + separator)
            return _pretty_item(pod)

        listing.write(separator if size.nodes and size.pods else b"")
        _write_array(listing, pods, list_and_compact_pod, separator)

        def list_and_compact_namespace(namespace: dict[str, Any]) -> bytes:
            namespaces_out.write(_recorded(Namespace, namespace) + separator)
            return _pretty_item(namespace)

        listing.write(separator if size.nodes or size.pods else b"")
        _write_array(listing, cluster.namespaces(), list_and_compact_namespace, separator)
        objects = _storage_objects(node_names, volumes)
        for item in (o for kind in objects.values() for o in kind):
            listing.write(separator + _pretty_item(item))
        listing.write(b'\n    ],\n    "kind": "List",\n    "metadata": {\n')
        listing.write(b'        "resourceVersion": ""\n    }\n}\n')
    _assemble_snapshot(directory, nodes_tmp, namespaces_tmp, objects)


def _storage_objects(
    node_names: list[str], volumes: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """The storage objects by the recording's array: the claims and volumes of the
    StatefulSets' pods, the default StorageClass, a CSINode per node."""
    return {
        "persistentVolumes": [v for v in volumes if v["kind"] == "PersistentVolume"],
        "persistentVolumeClaims": [v for v in volumes if v["kind"] == "PersistentVolumeClaim"],
        "storageClasses": [storage.storage_class()],
        "csiNodes": [storage.csi_node(name) for name in node_names],
    }


_STORED: dict[str, type[Stored]] = {
    "persistentVolumes": PersistentVolume,
    "persistentVolumeClaims": PersistentVolumeClaim,
    "storageClasses": StorageClass,
    "csiNodes": CSINode,
}


def _assemble_snapshot(
    directory: Path,
    nodes_tmp: Path,
    namespaces_tmp: Path,
    objects: dict[str, list[dict[str, Any]]],
) -> None:
    """The recorder's layout: envelope members one per line, then the object sections."""
    pods_tmp = directory / (SNAPSHOT_FILE + ".pods")
    header = {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "capturedAt": cluster.STAMP,
        "source": {
            "context": "bench",
            "server": "https://bench.invalid",
            "serverVersion": "v1.33.4",
        },
    }
    with open(directory / SNAPSHOT_FILE, "wb") as out:
        out.write(b"{\n")
        for key, value in header.items():
            out.write(f"  {json.dumps(key)}: {json.dumps(value)},\n".encode())
        for key, part in (("nodes", nodes_tmp), ("pods", pods_tmp), ("namespaces", namespaces_tmp)):
            data = part.read_bytes().removesuffix(b",\n")
            out.write(f'  "{key}": [\n'.encode() + data + b"\n  ],\n")
            part.unlink()
        out.write(b'  "limitRanges": [],\n  "runtimeClasses": []')
        for key, items in objects.items():
            lines = b",\n".join(b"    " + encoded(_STORED[key], item) for item in items)
            out.write(f',\n  "{key}": [\n'.encode() + lines + b"\n  ]")
        out.write(b"\n}\n")


def _yaml(doc: Any) -> str:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, width=120)


def write_manifests(size: Size, directory: Path, seed: int = 1) -> None:
    """``size.workloads`` workloads over ``size.files`` files, grouped by namespace."""
    rng = random.Random(seed + 2)
    apps = make_apps(random.Random(seed + 1), max(8, size.workloads))
    root = directory / MANIFESTS_DIR
    files: list[list[str]] = [[] for _ in range(size.files)]
    paths = []
    for index in range(size.files):
        namespace = apps[index % len(apps)].namespace
        paths.append(root / namespace / f"chart-{index:03d}.yaml")
    for index, (app, doc) in enumerate(monorepo.workloads(rng, apps, size.workloads)):
        target = files[index % size.files]
        if index == 3:
            doc["metadata"]["annotations"] = {"fitgate.dev/skip": "owned by another team"}
        source = f"# Source: {app.name}/templates/{doc['kind'].lower()}.yaml\n"
        helm = index % 3 == 0
        target.append((source if helm else "") + _yaml(doc))
        for extra in monorepo.companions(app) if index % 2 == 0 else []:
            target.append((source if helm else "") + _yaml(extra))
    files[-1].append("apiVersion: v1\nkind: Deployment\nmetadata:\n  name: broken\nspec: [\n")
    for path, documents in zip(paths, files, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n" + "---\n".join(documents), encoding="utf-8")


def ensure_case(size: Size, cache: Path) -> Path:
    """The case's directory, generated once per generator version and size."""
    directory = cache / f"{size.name}-v{GENERATOR_VERSION}"
    if (directory / _STAMP).exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    write_cluster(size, directory)
    write_manifests(size, directory)
    (directory / _STAMP).write_text(size.describe() + "\n")
    return directory


def apart(work: Callable[..., Result], *args: Any) -> Result:
    """``work(*args)`` in a process of its own. On Linux a child's peak memory
    (``ru_maxrss``) counts what its parent held when it started the child: a runner that had
    generated the large case itself (about 400 MB) reported that as the peak of every
    measurement after it. ``work`` and its value cross processes pickled."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(work, args)


def ensure_case_apart(size: Size, cache: Path) -> Path:
    """:func:`ensure_case`, any generating done :func:`apart`."""
    return apart(ensure_case, size, cache)


def case_bytes(directory: Path) -> dict[str, int]:
    """Sizes of the generated inputs, for the table's header."""
    manifests = [p for p in (directory / MANIFESTS_DIR).rglob("*.yaml")]
    return {
        "list": os.path.getsize(directory / LIST_FILE),
        "snapshot": os.path.getsize(directory / SNAPSHOT_FILE),
        "manifests": sum(os.path.getsize(p) for p in manifests),
        "files": len(manifests),
    }
