"""Several snapshot files of one cluster -> one ``kubectl get -o json`` List.

``kubectl get`` lists what one command names: the nodes, pods and DaemonSets of every
namespace in one List, the ``kube-system/cluster-autoscaler-status`` ConfigMap, asked for by
name, in another. ``check --snapshot A --snapshot B`` reads them as one cluster: their
objects are joined into one List, which is then read as any other. An object in two files
must be the same in both; two that differ are two clusters, or two moments of one, and
are refused. A ``ClusterSnapshot`` (``fitgate snapshot``) is a whole cluster already: it is
given alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gate.errors import SnapshotError
from gate.inputs.manifests import display_path
from gate.inputs.surrogates import may_hold_surrogates, replace_lone_surrogates
from gate.model import Snapshot
from gate.snapshot.load import flattened, not_json, snapshot_of_document, trusted

OWN_FORMAT = "fitgate/v1"

_Key = tuple[str, str, str, str]
"""An object's identity across files: kind, API group, namespace, name."""


def _key(item: Mapping[str, Any]) -> _Key | None:
    metadata = item.get("metadata")
    if not isinstance(metadata, Mapping):
        return None
    group = str(item.get("apiVersion") or "").rpartition("/")[0]
    namespace = metadata.get("namespace") or ""
    return str(item.get("kind")), group, str(namespace), str(metadata.get("name"))


def _named(key: _Key) -> str:
    kind, _, namespace, name = key
    return f'{kind} "{namespace}/{name}"' if namespace else f'{kind} "{name}"'


def _objects(path: str) -> tuple[str, list[Any]]:
    """The file's name as reports show it, and its objects (a List's items, or the one
    object ``kubectl get KIND NAME -o json`` writes)."""
    shown = display_path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SnapshotError(f"{shown}: cannot read snapshot: {exc.strerror}") from None
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise not_json(shown, data, exc) from None
    if may_hold_surrogates(data):
        document = replace_lone_surrogates(document)
    if not isinstance(document, Mapping) or not isinstance(document.get("kind"), str):
        raise SnapshotError(f"{shown}: not a Kubernetes object or List (it has no kind)")
    if document.get("apiVersion") == OWN_FORMAT:
        raise SnapshotError(
            f"{shown}: a {document['kind']} recorded by fitgate snapshot holds the whole "
            "cluster: give it as the only --snapshot"
        )
    listed = flattened(document)
    assert isinstance(listed, Mapping)
    items = listed.get("items")
    if str(document["kind"]).endswith("List") and isinstance(items, list):
        return shown, items
    return shown, [document]


def joined_list(paths: Sequence[str]) -> bytes:
    """The files' objects as one List, in the order the files name them (an object in
    several files once); a SnapshotError when two files disagree on one."""
    seen: dict[_Key, tuple[str, Any]] = {}
    items: list[Any] = []
    for path in paths:
        shown, objects = _objects(path)
        for item in objects:
            key = _key(item) if isinstance(item, Mapping) else None
            if key is None:
                items.append(item)  # the reader names what is wrong with it
                continue
            if key in seen:
                first, earlier = seen[key]
                if earlier != item:
                    raise SnapshotError(
                        f"{_named(key)} differs between {first} and {shown}: join snapshots "
                        "of one cluster taken together"
                    )
                continue
            seen[key] = (shown, item)
            items.append(item)
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode("utf-8")


def load_snapshots(paths: Sequence[str]) -> Snapshot:
    """Several kubectl files of one cluster, read as one snapshot named by all their names."""
    shown = " + ".join(display_path(p) for p in paths)
    return trusted(snapshot_of_document(joined_list(paths), shown), shown)
