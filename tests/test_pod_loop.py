"""A kubectl List's pods counted by the compiled loop (``_pods.c``) exactly as the Python
loop (``_PodTotals.add``) counts them: on any generated cluster in any order of its items,
on every shape either loop refuses or treats apart, and on objects that are no decoded
structs. The loop is compiled here from this checkout's source, as an install compiles it;
the reader tests of ``test_indentation`` read whole files with it and without it."""

from __future__ import annotations

import json
import shutil
import sysconfig
from dataclasses import fields
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.snapshot import jsonstream, stream
from gate.snapshot.stream import NotAccepted, _PodTotals
from tests.builders import api_node, api_pod, container
from tests.test_snapshot_stream import as_list, clusters

_SHARED = [HealthCheck.function_scoped_fixture]
"""The compiled module is the same for every example."""


def decoded(items: list[dict[str, Any]]) -> list[Any]:
    """The items as the typed reader decodes a List's (one batch)."""
    found: list[Any] = stream._OBJECTS.decode(json.dumps(items).encode())
    return found


def state(totals: _PodTotals) -> dict[str, Any]:
    """Everything the loops leave in ``totals``: the counted pods' columns, the templates and
    the parts (their keys and what each was built as)."""
    found = {f.name: getattr(totals, f.name) for f in fields(totals) if f.name != "shared"}
    found["parts of"] = (totals.shared.keys, totals.shared.parts, totals.shared.numbers)
    return found


def counted_by(loop: Any, items: list[Any]) -> tuple[dict[str, Any], list[int]] | type:
    """What a loop leaves of ``items``, and where it stopped each time (an item that is not
    a pod is stepped over, as the reader steps over it); the exception's type instead when
    it refuses them. ``loop`` None: the Python loop."""
    totals = _PodTotals()
    stops = []
    index = 0
    try:
        while True:
            if loop is None:
                index = totals.add_all(items, index)
            else:
                index = loop.counted(stream._POD_RULES, totals, items, index)
            stops.append(index)
            if index >= len(items):
                break
            index += 1
    except (NotAccepted, TypeError, AttributeError) as exc:
        return type(exc)
    return state(totals), stops


@pytest.fixture
def python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python loop, whatever this install compiled."""
    monkeypatch.setattr(stream, "counted", None)


def alike(pods_part: ModuleType, items: list[Any]) -> tuple[dict[str, Any], list[int]] | type:
    by_python = counted_by(None, items)
    assert counted_by(pods_part, items) == by_python
    return by_python


@settings(max_examples=150, suppress_health_check=_SHARED)
@given(clusters(), st.randoms(use_true_random=False))
def test_any_cluster_s_pods_count_alike(
    python: None, pods_part: ModuleType, snapshot: dict[str, Any], order: Any
) -> None:
    items = as_list(snapshot)["items"]
    order.shuffle(items)  # pods between nodes, namespaces and limit ranges
    found = alike(pods_part, decoded(items))
    if not isinstance(found, type):
        _, stops = found
        not_pods = [i for i, item in enumerate(items) if item["kind"] != "Pod"]
        assert stops == [*not_pods, len(items)]


def _pod(**change: Any) -> dict[str, Any]:
    pod = api_pod(
        "web-0",
        "node-a",
        namespace="web",
        containers=[container("c", {"cpu": "100m"}, ports=[{"containerPort": 80}])],
    )
    pod["metadata"]["labels"] = {"app": "web"}
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-1"}]
    pod["status"]["startTime"] = "2026-08-16T09:00:00Z"
    for path, value in change.items():
        *parents, last = path.split("__")
        at = pod
        for key in parents:
            at = at.setdefault(key, {})
        if value is _DROP:
            at.pop(last, None)
        else:
            at[last] = value
    return pod


_DROP = object()
_STATUSES = [{"name": "c", "resources": {"requests": {"cpu": "200m"}}}]
_CLAIM = {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_TERMS = [{"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]

SHAPES = {
    "plain": _pod(),
    "no-metadata": _pod(metadata=_DROP),
    "no-name": _pod(metadata__name=_DROP),
    "empty-name": _pod(metadata__name=""),
    "no-namespace": _pod(metadata__namespace=_DROP),
    "no-labels-or-owners": _pod(metadata__labels=_DROP, metadata__ownerReferences=_DROP),
    "null-labels": _pod(metadata__labels=None),
    "no-spec": _pod(spec=_DROP),
    "no-status": _pod(status=_DROP),
    "no-node": _pod(spec__nodeName=_DROP),
    "empty-node": _pod(spec__nodeName=""),
    "succeeded": _pod(status__phase="Succeeded"),
    "failed": _pod(status__phase="Failed"),
    "pending": _pod(status__phase="Pending"),
    "no-phase": _pod(status__phase=_DROP),
    "deleting": _pod(metadata__deletionTimestamp="2026-08-16T10:00:00Z"),
    "deletion-null": _pod(metadata__deletionTimestamp=None),
    "start-null": _pod(status__startTime=None),
    "no-start": _pod(status__startTime=_DROP),
    "no-containers": _pod(spec__containers=_DROP),
    "empty-containers": _pod(spec__containers=[]),
    "null-containers": _pod(spec__containers=None),
    "sidecar": _pod(spec__initContainers=[container("i", {"cpu": "1"}, restartPolicy="Always")]),
    "pod-resources": _pod(spec__resources={"requests": {"cpu": "1"}}),
    "overhead": _pod(spec__overhead={"cpu": "250m"}),
    "unreadable-request": _pod(spec__containers=[container("c", {"cpu": "1 core"})]),
    "unreadable-not-counted": _pod(
        spec__containers=[container("c", {"cpu": "1 core"})], status__phase="Succeeded"
    ),
    "resizing": _pod(status__containerStatuses=_STATUSES),
    "resizing-init": _pod(status__initContainerStatuses=_STATUSES),
    "resize-infeasible": _pod(
        status__containerStatuses=_STATUSES,
        status__conditions=[{"type": "PodResizePending", "reason": "Infeasible"}],
    ),
    "statuses-without-resources": _pod(status__containerStatuses=[{"name": "c"}]),
    "pod-affinity": _pod(spec__affinity={"podAffinity": {REQUIRED: _TERMS}}),
    "empty-affinity": _pod(spec__affinity={}),
    "null-affinity": _pod(spec__affinity=None),
    "priority": _pod(spec__priority=1000),
    "null-priority": _pod(spec__priority=None),
    "claim": _pod(spec__volumes=[_CLAIM]),
    "ephemeral": _pod(spec__volumes=[{"name": "e", "ephemeral": {"volumeClaimTemplate": {}}}]),
    "azure-disk": _pod(spec__volumes=[{"name": "d", "azureDisk": {"diskName": "d"}}]),
    "config-only": _pod(spec__volumes=[{"name": "c", "configMap": {"name": "cfg"}}]),
    "source-as-a-value": _pod(spec__volumes=[{"name": "azureDisk", "configMap": {}}]),
    "null-volumes": _pod(spec__volumes=None),
    "volumes-an-object": _pod(spec__volumes={"name": "x"}),
    "volumes-a-string": _pod(spec__volumes="[]"),
    "claim-not-counted": _pod(spec__volumes=[_CLAIM], spec__nodeName=_DROP),
}


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_each_shape_counts_alike(python: None, pods_part: ModuleType, shape: str) -> None:
    """Each pod alone, then twice beside another (its texts met before, as nearly every
    pod's are), then after a node."""
    pod = SHAPES[shape]
    for items in ([pod], [pod, SHAPES["plain"], pod], [api_node("node-a"), pod]):
        alike(pods_part, decoded(items))


def _left(found: tuple[dict[str, Any], list[int]] | type) -> dict[str, Any]:
    assert not isinstance(found, type), found
    return found[0]


def test_the_shapes_say_what_each_is_for(python: None, pods_part: ModuleType) -> None:
    """The shapes above reach each way out of the loop: refused, not counted, counted."""
    outcomes = {shape: counted_by(pods_part, decoded([pod])) for shape, pod in SHAPES.items()}
    refused = {s for s, found in outcomes.items() if found is NotAccepted}
    assert refused == {
        "no-metadata",
        "no-name",
        "empty-name",
        "volumes-an-object",
        "volumes-a-string",
    }
    left = {s: _left(found) for s, found in outcomes.items() if s not in refused}
    counted = {s for s, found in left.items() if found["names"]}
    assert {"plain", "resizing", "claim", "deleting"} <= counted
    assert not counted & {"no-node", "empty-node", "succeeded", "failed", "unreadable-request"}
    assert left["unreadable-request"]["unreadable"] == {"node-a"}
    # The texts are kept to be decoded: a source's name written as a value is kept too, and
    # only decoding the text finds that it mounts nothing.
    mounting = {s for s in counted if left[s]["mounting"]}
    assert mounting == {"claim", "ephemeral", "azure-disk", "source-as-a-value"}


def test_objects_that_are_no_decoded_structs_count_alike(
    python: None, pods_part: ModuleType
) -> None:
    """Fields the loop cannot read where a struct keeps them are asked for by name."""
    meta = SimpleNamespace(
        name="p",
        namespace="ns",
        labels=msgspec.UNSET,
        ownerReferences=msgspec.UNSET,
        deletionTimestamp=None,
    )
    spec = SimpleNamespace(
        containers=None,
        initContainers=None,
        resources=msgspec.UNSET,
        overhead=msgspec.UNSET,
        affinity=None,
        priority=None,
        volumes=b'[{"persistentVolumeClaim": {}}]',
        nodeName="node-a",
    )
    status = SimpleNamespace(
        phase="Running",
        containerStatuses=None,
        initContainerStatuses=None,
        startTime="t",
    )
    pod = SimpleNamespace(kind="Pod", metadata=meta, spec=spec, status=status)
    assert _left(alike(pods_part, [pod, pod]))["names"] == ["p", "p"]
    assert alike(pods_part, [SimpleNamespace(kind="Pod", metadata=meta)]) is AttributeError


def test_the_loop_refuses_rules_it_cannot_read(pods_part: ModuleType) -> None:
    items = decoded([SHAPES["plain"]])
    with pytest.raises(TypeError, match="counted\\(rules, totals, items, start, /\\)"):
        pods_part.counted(stream._POD_RULES[:-1], _PodTotals(), items, 0)
    unquoted = (*stream._POD_RULES[:7], (b"azureDisk",), stream._POD_RULES[8])
    with pytest.raises(TypeError, match="quoted bytes"):
        pods_part.counted(unquoted, _PodTotals(), items, 0)
    held = ["templates", "totals", "on_node", "unreadable", "names", "nodes", "terminating"]
    held += ["started", "parts", "mounting"]
    lists = SimpleNamespace(**{name: [] for name in held})
    with pytest.raises(TypeError, match="not a _PodTotals"):
        pods_part.counted(stream._POD_RULES, lists, items, 0)


def test_an_install_with_a_compiler_runs_both_compiled_parts() -> None:
    """The parts are optional to the install: one that fails to build installs without it,
    silently. Where this machine can build them, the installed package must hold both, so
    that the end-to-end tests read Lists with them (``pip install -e .`` builds them)."""
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    if shutil.which("cc") is None or not headers.exists():
        pytest.skip("no C compiler or no Python headers here: the parts are not built")
    assert jsonstream.unindented is not None, "reinstall: _indentation.c is not built"
    assert stream.counted is not None, "reinstall: _pods.c is not built"
