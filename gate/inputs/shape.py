"""The JSON types of the pod-template fields fitgate reads, checked as the API server's
decoder checks them.

A template whose ``tolerations`` is a boolean, or whose toleration ``value`` is a number,
never becomes a pod: the API server refuses the object (``cannot unmarshal number into Go
struct field Toleration...value of type string``). Such a workload is an ERROR naming the
field, rather than a guess at what was meant. Only fields the checks and warnings read are
checked here; quantities are checked by :mod:`gate.inputs.workloads`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Of:
    """A list (``items``), a mapping with known fields (``fields``), a mapping of any keys
    to one shape (``values``), a scalar of ``types``, or (none of them) anything."""

    name: str
    types: tuple[type, ...] = ()
    items: Of | None = None
    fields: Mapping[str, Of] | None = None
    values: Of | None = None


STRING = Of("a string", (str,))
INTEGER = Of("an integer", (int,))
BOOLEAN = Of("a boolean", (bool,))
ANY_MAPPING = Of("a mapping", fields={})
ANYTHING = Of("anything")
ANY_LIST = Of("a list", items=ANYTHING)


def listing(item: Of) -> Of:
    return Of("a list", items=item)


def mapping(**fields: Of) -> Of:
    return Of("a mapping", fields=fields)


_RESOURCES = mapping(requests=ANY_MAPPING, limits=ANY_MAPPING)
_PORT = mapping(hostPort=INTEGER, containerPort=INTEGER, protocol=STRING, hostIP=STRING)
_CONTAINER = mapping(name=STRING, resources=_RESOURCES, ports=listing(_PORT), restartPolicy=STRING)
_TOLERATION = mapping(
    key=STRING, operator=STRING, value=STRING, effect=STRING, tolerationSeconds=INTEGER
)
_REQUIREMENT = mapping(key=STRING, operator=STRING, values=listing(STRING))
_TERM = mapping(matchExpressions=listing(_REQUIREMENT), matchFields=listing(_REQUIREMENT))
_REQUIRED = mapping(nodeSelectorTerms=listing(_TERM))
_PREFERRED = mapping(weight=INTEGER, preference=_TERM)
_LABEL_SELECTOR = mapping(
    matchLabels=Of("a mapping", values=STRING),
    matchExpressions=listing(_REQUIREMENT),
)
_POD_TERM = mapping(
    labelSelector=_LABEL_SELECTOR,
    namespaces=listing(STRING),
    topologyKey=STRING,
    namespaceSelector=_LABEL_SELECTOR,
    matchLabelKeys=listing(STRING),
    mismatchLabelKeys=listing(STRING),
)
_POD_AFFINITY = mapping(
    requiredDuringSchedulingIgnoredDuringExecution=listing(_POD_TERM),
    preferredDuringSchedulingIgnoredDuringExecution=listing(
        mapping(weight=INTEGER, podAffinityTerm=_POD_TERM)
    ),
)
_SPREAD = mapping(
    maxSkew=INTEGER,
    topologyKey=STRING,
    whenUnsatisfiable=STRING,
    labelSelector=_LABEL_SELECTOR,
    minDomains=INTEGER,
    nodeAffinityPolicy=STRING,
    nodeTaintsPolicy=STRING,
    matchLabelKeys=listing(STRING),
)
POD_SPEC = mapping(
    containers=listing(_CONTAINER),
    initContainers=listing(_CONTAINER),
    tolerations=listing(_TOLERATION),
    nodeSelector=Of("a mapping", values=STRING),
    affinity=mapping(
        nodeAffinity=mapping(
            requiredDuringSchedulingIgnoredDuringExecution=_REQUIRED,
            preferredDuringSchedulingIgnoredDuringExecution=listing(_PREFERRED),
        ),
        podAffinity=_POD_AFFINITY,
        podAntiAffinity=_POD_AFFINITY,
    ),
    hostNetwork=BOOLEAN,
    nodeName=STRING,
    runtimeClassName=STRING,
    schedulerName=STRING,
    overhead=ANY_MAPPING,
    resources=_RESOURCES,
    volumes=listing(ANY_MAPPING),
    topologySpreadConstraints=listing(_SPREAD),
    resourceClaims=ANY_LIST,
    schedulingGates=ANY_LIST,
)


_TEXTS = Of("a mapping", values=STRING)
METADATA = mapping(
    name=STRING, generateName=STRING, namespace=STRING, labels=_TEXTS, annotations=_TEXTS
)
"""ObjectMeta's fields fitgate reads or shows: the name a report gives a workload must be
the text the cluster would hold, not the text of whatever a YAML tag made of it."""


def shape_problem(value: Any, shape: Of, where: str) -> str | None:
    """The first field of ``value`` (at ``where``) whose type ``shape`` does not allow. A
    null is an absent field, as the API server reads it."""
    if value is None:
        return None
    if shape.items is not None:
        if not isinstance(value, list):
            return _wrong(where, shape, value)
        for index, item in enumerate(value):
            problem = shape_problem(item, shape.items, f"{where}[{index}]")
            if problem:
                return problem
        return None
    if shape.fields is not None or shape.values is not None:
        if not isinstance(value, Mapping):
            return _wrong(where, shape, value)
        for key, item in value.items():
            inner = shape.values if shape.values is not None else (shape.fields or {}).get(key)
            problem = shape_problem(item, inner, f"{where}.{key}") if inner else None
            if problem:
                return problem
        return None
    if not shape.types:  # ANYTHING
        return None
    if not isinstance(value, shape.types) or (type(value) is bool and bool not in shape.types):
        return _wrong(where, shape, value)
    return None


def _wrong(where: str, shape: Of, value: object) -> str:
    return f"{where}: expected {shape.name}, not {_kind(value)} (the API server refuses it)"


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return f"a {type(value).__name__}"
