"""Snapshot file -> node views: every node with the pods already bound to it reduced to totals;
the counted pods as the inter-pod filters read them, and the namespaces' labels.

A file is read by the typed reader (:mod:`gate.snapshot.stream`), the one decoding of a
snapshot's objects. When that reader declines, this module's reference reader checks the
file against the schema and words every error; what it accepts goes to the typed reader
again, with only the objects read and JSON's numbers as a typed field takes them, so that
every snapshot is built, and its pods counted, in one way.

Two formats (docs/reference.md, "Snapshot formats"):
``kubectl get nodes,pods,namespaces -A -o json`` (a ``List``, or a ``NodeList``/``PodList``)
and fitgate's own ``ClusterSnapshot``. Pods count against a node as the scheduler's informer
counts them: ``spec.nodeName`` names a node of the snapshot and ``status.phase`` is neither
Succeeded nor Failed (terminating pods still count).
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, BinaryIO

import msgspec

from gate.deadline import open_regular, read_capped
from gate.errors import QuantityError, SnapshotError
from gate.inputs.manifests import STDIN_NAME, display_path
from gate.inputs.surrogates import may_hold_surrogates, replace_lone_surrogates
from gate.k8s.resources import (
    exact_list,
    pod_request_amounts,
    to_scheduler_units,
    with_status_resources,
)
from gate.model import Snapshot
from gate.snapshot.jsonstream import TooLong
from gate.snapshot.schema import LAYOUTS, layout_of
from gate.snapshot.schema import schema as snapshot_schema
from gate.snapshot.state import (
    READ_SECTIONS,
    TERMINAL_PHASES,
    snapshot_info,
)
from gate.snapshot.stream import NotAccepted, counted_capacity, read_snapshot, whole_numbers

if TYPE_CHECKING:
    import jsonschema

    from gate.snapshot.forked import Processes
    from gate.snapshot.halves import SecondReader

__all__ = ["TERMINAL_PHASES", "build_snapshot", "load_snapshot"]

CANNOT_READ = "a value the schema allows that fitgate cannot read"
"""Never said, if the schema and the typed reader agree (tests/test_snapshot_description.py):
what the reference reader accepts, the typed reader reads."""


@cache
def _validator(definition: str | None) -> jsonschema.protocols.Validator:
    # Imported when first needed: a valid file read by the typed reader never needs it.
    import jsonschema

    schema = snapshot_schema()
    if definition in LAYOUTS:
        schema = {**schema["oneOf"][LAYOUTS.index(definition)], "$defs": schema["$defs"]}
    elif definition is not None:
        schema = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(schema)


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]+")


def _field_path(error: jsonschema.ValidationError) -> str:
    """``spec.taints[0].key``; a key that is not plain (a label name with a newline, say)
    is quoted, so the message stays on one line."""
    path = ""
    for part in error.absolute_path:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            path += f".{part}" if path else part
        else:
            path += f"[{json.dumps(part)}]"
    return path or "(top level)"


def _check(obj: Any, definition: str | None, what: str, source: str) -> None:
    from jsonschema.exceptions import best_match

    error = best_match(_validator(definition).iter_errors(obj))
    if error is not None:
        raise SnapshotError(f"{source}: {what}: {_field_path(error)}: {error.message}")


def _describe(kind: str, index: str, obj: object) -> str:
    metadata = obj.get("metadata") if isinstance(obj, Mapping) else None
    metadata = metadata if isinstance(metadata, Mapping) else {}
    name = metadata.get("name")
    name = name if isinstance(name, str) else "?"
    if isinstance(obj, Mapping) and kind == "Pod":
        namespace = metadata.get("namespace") or "default"
        name = f"{namespace}/{name}"
    return f'{index} ({kind} "{name}")'


def flattened(document: object) -> object:
    """A List as the API returns it: the items of a ``NodeList``/``PodList`` carry no
    ``kind`` (the list's names it), and a List may hold such lists (``kubectl get nodes,pods
    -o json`` of some versions); their items are the snapshot's objects, each with its
    kind."""
    if not isinstance(document, Mapping) or layout_of(document) != "list":
        return document
    items = document.get("items")
    if not isinstance(items, list):
        return document
    return {**document, "items": _list_items(items, str(document["kind"])[: -len("List")])}


def _list_items(items: list[Any], item_kind: str) -> list[Any]:
    flat: list[Any] = []
    for item in items:
        if not isinstance(item, Mapping):
            flat.append(item)
            continue
        kind = item.get("kind") or item_kind
        inner = item.get("items")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(inner, list):
            flat.extend(_list_items(inner, kind[: -len("List")]))
        elif kind and not item.get("kind"):
            flat.append({**item, "kind": kind})
        else:
            flat.append(item)
    return flat


def _split(document: Mapping[str, Any], source: str) -> dict[str, list[Any]]:
    """Group the snapshot's objects by kind, whichever format it is in."""
    if document.get("kind") == "ClusterSnapshot":
        return {kind: list(document.get(key) or []) for key, kind in READ_SECTIONS.items()}
    # Every item has its kind by now: flattened gave kind-less items their list's.
    groups: dict[str, list[Any]] = {kind: [] for kind in READ_SECTIONS.values()}
    for item in document.get("items") or []:
        if item["kind"] in groups:
            groups[item["kind"]].append(item)
    return groups


def _check_namespaces(items: Sequence[Any], source: str) -> None:
    for index, namespace in enumerate(items):
        what = _describe("Namespace", f"namespaces[{index}]", namespace)
        _check(namespace, "namespace", what, source)


def _check_amounts(resources: object, where: str, source: str) -> None:
    try:
        to_scheduler_units(exact_list(resources))
    except QuantityError as exc:
        raise SnapshotError(f"{source}: {where}: {exc}") from None


def _check_pods(pods: Sequence[Any], node_names: set[str], source: str) -> None:
    """Every pod's fields, and the requests of those that count against a node (a pod
    that counts nowhere is not summed, so its quantities are never read)."""
    for index, pod in enumerate(pods):
        what = _describe("Pod", f"pods[{index}]", pod)
        _check(pod, "pod", what, source)
        spec = pod.get("spec") or {}
        node = spec.get("nodeName")
        phase = (pod.get("status") or {}).get("phase")
        if not node or node not in node_names or phase in TERMINAL_PHASES:
            continue
        try:
            pod_request_amounts(with_status_resources(spec, pod.get("status")))
        except QuantityError as exc:
            raise SnapshotError(f"{source}: {what}: {exc}") from None


def _check_nodes(raw_nodes: Sequence[Any], source: str) -> set[str]:
    """Every node's fields and allocatable amounts; the nodes' names, each given once."""
    seen: dict[str, str] = {}
    for index, node in enumerate(raw_nodes):
        what = _describe("Node", f"nodes[{index}]", node)
        _check(node, "node", what, source)
        name = node["metadata"]["name"]
        if name in seen:
            raise SnapshotError(f"{source}: {what}: duplicate node name (also {seen[name]})")
        seen[name] = what
        status = node.get("status") or {}
        allocatable = status.get("allocatable")
        if allocatable is None:
            allocatable = status.get("capacity")
        _check_amounts(allocatable, f"{what}: status.allocatable", source)
        try:
            counted_capacity(status.get("capacity"))
        except QuantityError as exc:
            raise SnapshotError(f"{source}: {what}: status.capacity: {exc}") from None
    return set(seen)


_READ_AS_DESCRIBED = {"Node": "node", "Pod": "pod", "Namespace": "namespace"}


def _as_described(item: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    """A checked object naming its kind, with only the members (and those of its spec and
    status) that the schema describes for that kind: the typed reader reads a Node's and a
    Pod's fields with one struct, and must not find a field the schema never checked (a pod's
    ``spec.taints``, say)."""
    definition = _READ_AS_DESCRIBED.get(kind)
    if definition is None:  # LimitRange, RuntimeClass, the autoscaler's objects: read whole
        return {**item, "kind": kind}
    described = snapshot_schema()["$defs"][definition]["properties"]
    kept: dict[str, Any] = {"kind": kind, "metadata": item["metadata"]}
    for part in ("spec", "status"):
        value, members = item.get(part), described.get(part, {}).get("properties", {})
        if isinstance(value, Mapping):
            kept[part] = {key: member for key, member in value.items() if key in members}
    for key in described.keys() - {"kind", "metadata", "spec", "status"}:
        if key in item:  # fitgate's own members (a node's scaleSet)
            kept[key] = item[key]
    return kept


def _recording(document: Mapping[str, Any], groups: Mapping[str, list[Any]]) -> bytes:
    """The checked document with only the objects read, as the schema describes them:
    what the typed reader reads of any file, so that a snapshot is built from objects in
    one way."""
    if document.get("kind") != "ClusterSnapshot":
        # In file order: every item has its kind by now (see flattened).
        items = [
            _as_described(item, item["kind"])
            for item in document.get("items") or []
            if item["kind"] in groups
        ]
        return msgspec.json.encode(whole_numbers({"kind": "List", "items": items}))
    # The envelope's described members only: an unknown array (``items``, say) would be
    # read as a List's.
    described = snapshot_schema()["oneOf"][LAYOUTS.index("clusterSnapshot")]["properties"]
    envelope = {k: v for k, v in document.items() if k in described and k not in READ_SECTIONS}
    sections = {
        key: [_as_described(item, kind) for item in groups[kind] if isinstance(item, Mapping)]
        for key, kind in READ_SECTIONS.items()
        if key in document
    }
    return msgspec.json.encode(whole_numbers({**envelope, **sections}))


def _one_object(document: object, source: str) -> None:
    """One Kubernetes object (``kubectl get configmap NAME -o json`` writes one, not a List)
    is part of a cluster, not a snapshot: it is joined to one with a second ``--snapshot``."""
    if not isinstance(document, Mapping) or layout_of(document) is not None:
        return
    kind, version = document.get("kind"), document.get("apiVersion")
    if isinstance(kind, str) and isinstance(version, str) and version != "fitgate/v1":
        named = "".join(c if c.isprintable() else "\ufffd" for c in " ".join(kind.split()))
        shown = named if len(named) <= 60 else named[:60] + "..."
        raise SnapshotError(
            f"{source}: one {shown} is no snapshot: give the cluster's nodes and pods "
            f"({JSON_FORMS}) as the first --snapshot and this file as another"
        )


def build_snapshot(document: object, source: str) -> Snapshot:
    """Validate a decoded snapshot document and reduce it to node views.

    This is the reference reader: every message about an invalid snapshot comes from here.
    It checks; the typed reader (:mod:`gate.snapshot.stream`) builds, from the checked
    objects, as it builds from any file, so that the counting rules are applied in one
    place.
    """
    document = flattened(document)
    _one_object(document, source)
    _check(document, layout_of(document), "snapshot", source)
    assert isinstance(document, Mapping)
    groups = _split(document, source)
    _check_pods(groups["Pod"], _check_nodes(groups["Node"], source), source)
    _check_namespaces(groups["Namespace"], source)
    try:
        built = read_snapshot(io.BytesIO(_recording(document, groups)), source, lambda n: None)
    except NotAccepted:
        raise SnapshotError(f"{source}: snapshot: {CANNOT_READ}") from None
    counted = built.info
    return replace(built, info=snapshot_info(document, source, counted.nodes, counted.pods))


def snapshot_of_document(document: Mapping[str, Any] | bytes, source: str) -> Snapshot:
    """Node views of a document held in memory (a live read's, decoded or as JSON), by the
    same typed reader a replay of its file uses: validating 150,000 pods one by one with
    jsonschema takes longer than reading them from the cluster. The reference reader speaks
    when the typed one does not accept the document."""
    data = document if isinstance(document, bytes) else msgspec.json.encode(document)
    try:
        return read_snapshot(io.BytesIO(data), source, lambda n: None)
    except NotAccepted:
        return build_snapshot(json.loads(data) if isinstance(document, bytes) else document, source)


def load_snapshot(
    path: str, on_read: Callable[[int], None] | None = None, processes: Processes = 1
) -> Snapshot:
    """Read and validate a snapshot file; every problem is a SnapshotError (exit 2).
    ``on_read`` is told how many bytes have been read, for progress reporting."""
    with reading_snapshot(path, processes=processes) as reading:
        return reading.snapshot(on_read)


@contextmanager
def reading_snapshot(
    path: str, meanwhile: int = 0, processes: Processes = 1, stdin: BinaryIO | None = None
) -> Iterator[SnapshotReading]:
    """A snapshot file's reading, started (``path`` ``-``: ``stdin``). With two
    ``processes`` a large file's second reader reads now (see :mod:`gate.snapshot.halves`),
    while the caller reads ``meanwhile`` bytes of YAML before it asks for the snapshot.
    Stopped on leaving, whatever happened."""
    reading = SnapshotReading(path, meanwhile, processes, stdin)
    try:
        yield reading
    finally:
        reading.close()


class SnapshotReading:
    """The file is read once by the typed streaming reader, which keeps only the fields the
    checks read (a large file by two processes at once, when ``processes`` allows it and
    :func:`gate.snapshot.forked.forks` finds a core to use). When it finds anything
    it does not accept, the file is read again by the reference reader, so that the verdict
    on the file, and any message, is that reader's: a pipe or standard input (``path``
    ``-``, read from ``stdin``), which cannot be read twice, is kept as it is read for that
    (:class:`_Keeping`). The file is named in messages and reports as :func:`display_path`
    shows it (a file name's bytes that are not UTF-8 as U+FFFD): a report must hold it, and
    a merge must read that report back."""

    def __init__(
        self,
        path: str,
        meanwhile: int = 0,
        processes: Processes = 1,
        stdin: BinaryIO | None = None,
    ) -> None:
        self._path = path
        self._stdin = stdin
        self._second: SecondReader | None = None
        if processes != 1 and path != STDIN:
            # Imported only here: a run in one process never pays for it.
            from gate.snapshot.halves import SecondReader

            with suppress(OSError):  # said when the snapshot is asked for
                self._second = SecondReader.start(path, meanwhile=meanwhile, processes=processes)

    def snapshot(self, on_read: Callable[[int], None] | None = None) -> Snapshot:
        """The snapshot; every problem is a SnapshotError (exit 2)."""
        shown = STDIN_NAME if self._path == STDIN else display_path(self._path)
        on_read = _capped(on_read or (lambda n: None))
        try:
            if self._second is not None:
                halves = self._second.snapshot(shown, on_read)
                if halves is not None:
                    return trusted(halves, shown)
            with self._opened() as handle:
                if _regular(handle):
                    start = handle.tell()
                    try:
                        return trusted(read_snapshot(handle, shown, on_read), shown)
                    except NotAccepted:
                        handle.seek(start)
                        data = read_capped(handle.read, MAX_SNAPSHOT_BYTES, _too_long)
                else:
                    keeping = _Keeping(handle, KEPT_FROM_PIPE)
                    try:
                        read = read_snapshot(io.BufferedReader(keeping), shown, on_read)
                        return trusted(read, shown)
                    except NotAccepted:
                        if keeping.kept is None:
                            raise SnapshotError(f"{shown}: {NOT_KEPT}") from None
                        rest = _chained(io.BytesIO(b"".join(keeping.kept)).read, handle.read)
                        data = read_capped(rest, MAX_SNAPSHOT_BYTES, _too_long)
        except OSError as exc:
            raise SnapshotError(f"{shown}: cannot read snapshot: {exc.strerror}") from None
        except TooLong as exc:  # refused, not handed to the reader of the whole file
            raise SnapshotError(f"{shown}: {exc}") from None
        try:
            document = json.loads(data, parse_constant=_no_constant)
            if may_hold_surrogates(data):
                document = replace_lone_surrogates(document)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UTF-8, the digit limit
            raise not_json(shown, data, exc) from None
        return trusted(build_snapshot(document, shown), shown)

    def _opened(self) -> AbstractContextManager[BinaryIO]:
        """The file, opened; standard input as it is, left open."""
        if self._path != STDIN:
            return open_regular(self._path, pipes=True)
        if self._stdin is None:
            raise OSError(errno.EBADF, "no standard input to read", STDIN)
        return nullcontext(self._stdin)

    def close(self) -> None:
        if self._second is not None:
            self._second.close()


STDIN = "-"
"""The snapshot ``--snapshot -`` names: standard input."""

KEPT_FROM_PIPE = 32 << 20
"""How much of a pipe's (or standard input's) bytes are kept, in memory, for the reference
reader to read again when the typed reader does not accept them; past it nothing is kept.
A 5,000-node cluster's List is about 2.5 GB: kept in a temporary file it took 40% more CPU
time, and kept in memory it would take a peak of gigabytes."""

NOT_KEPT = (
    f"not a snapshot fitgate can read as it streams, and a pipe of more than "
    f"{KEPT_FROM_PIPE >> 20} MiB is read once: write it to a file to be told what is wrong"
)


def _regular(handle: BinaryIO) -> bool:
    """Whether ``handle`` is a regular file, which can be read again."""
    try:
        return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):  # a stream with no descriptor
        return False


class _Keeping(io.RawIOBase):
    """``stream`` (a pipe) read as it is, its first ``limit`` bytes also kept, so that the
    reference reader can read them again; :attr:`kept` is None once more have been read."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        super().__init__()
        self._stream, self._room = stream, limit
        self.kept: list[bytes] | None = []

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size: int = self._stream.readinto(buffer)  # type: ignore[attr-defined]
        if self.kept is not None:
            self._room -= size
            if self._room < 0:
                self.kept = None
            else:
                self.kept.append(bytes(memoryview(buffer)[:size]))
        return size


def _chained(*reads: Callable[[int], bytes]) -> Callable[[int], bytes]:
    """One ``read`` giving what each of ``reads`` gives, in turn, until the last is done."""
    remaining = list(reads)

    def read(size: int) -> bytes:
        while remaining:
            chunk = remaining[0](size)
            if chunk:
                return chunk
            remaining.pop(0)
        return b""

    return read


MAX_SNAPSHOT_BYTES = 16 << 30
"""A snapshot longer than this is refused as it is read: a 5,000-node cluster's List is
about 2.5 GB, and a pipe (``--snapshot <(...)``) that never ends would grow without bound."""


def _too_long() -> TooLong:
    return TooLong(f"longer than {MAX_SNAPSHOT_BYTES >> 20:,} MiB: not a snapshot of a cluster")


def _capped(on_read: Callable[[int], None]) -> Callable[[int], None]:
    """``on_read``, raising :class:`TooLong` once more than :data:`MAX_SNAPSHOT_BYTES`
    have been read."""
    total = 0

    def counted(read: int) -> None:
        nonlocal total
        total += read
        if total > MAX_SNAPSHOT_BYTES:
            raise _too_long()
        on_read(read)

    return counted


JSON_FORMS = "`kubectl get nodes,pods -A -o json`, or `fitgate snapshot -o FILE`"
"""The commands that write a snapshot, as an error that refuses another file names them."""


def _no_constant(name: str) -> object:
    """``NaN``, ``Infinity`` and ``-Infinity``, which Python's decoder takes and JSON (and
    the API server, and the typed reader) does not: refused as not JSON."""
    raise ValueError(f"{name} is not JSON (JSON has no NaN or infinite number)")


def not_json(shown: str, data: bytes, exc: Exception) -> SnapshotError:
    """The error for a snapshot file that is not JSON: a YAML file (``kubectl get -o yaml``,
    or a manifest given by mistake) is told what a snapshot is; a JSON file that breaks
    off is told where."""
    start = data.lstrip()[:1]
    if not start:
        return SnapshotError(
            f"{shown}: the snapshot file is empty: snapshots are JSON ({JSON_FORMS})"
        )
    if start in (b"{", b"["):
        return SnapshotError(f"{shown}: not a JSON snapshot: {exc}")
    return SnapshotError(f"{shown}: not JSON: snapshots are JSON ({JSON_FORMS})")


def trusted(snapshot: Snapshot, path: str) -> Snapshot:
    """What both readers let through but no API server writes: a capture time that is no
    RFC 3339 time (its age could not be told), a negative allocatable amount (the API
    server's validation refuses one; every pod would be Insufficient there)."""
    captured = snapshot.info.captured_at
    if captured is not None and snapshot.info.taken is None:
        shown = str(captured)[:40]
        raise SnapshotError(f"{path}: capturedAt: {shown!r} is not an RFC 3339 time")
    for node in snapshot.nodes:
        for resource, amount in node.allocatable.items():
            if amount < 0:
                raise SnapshotError(
                    f"{path}: node {node.name!r}: status.allocatable.{resource} is negative"
                )
    return snapshot
