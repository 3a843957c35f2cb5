"""The line of the field behind a failing workload's cause, found when it is asked for.

Reading keeps no position per field (:class:`~gate.model.Source` keeps where a document's
text is); for the few workloads that fail, their document is composed again, from its own
text only, and the path of the field is walked over the composed nodes, whose marks carry
lines. JSON is read the same way (JSON is YAML as far as these documents go); a document
that does not compose again, or a field that is not there as a path of plain keys and
indices (a template reached through an Argo Rollout's ``workloadRef``, say), gives None or
the pod spec's own line, and reports fall back to the document's first line.

Which field a cause points at:

========================  ==================================================================
cause                     field (relative to the pod spec)
========================  ==================================================================
Insufficient <r>          ``containers[i].resources.requests.<r>`` of the container (init
                          containers included) with the largest request of it, or
                          ``limits.<r>`` when its request defaults from the limit; the pod's
                          own ``resources`` when it sets <r>
Too many pods             the pod spec
taints, cordon            ``tolerations``, or the pod spec when it has none
nodeName                  ``nodeName``
nodeSelector              ``nodeSelector``
node affinity             the ``nodeSelectorTerms`` entry when one term is at fault, else
                          ``nodeSelectorTerms``
host port                 ``containers[i].ports[j].hostPort`` (``containerPort`` when
                          ``hostNetwork`` makes it the host port)
spread                    ``topologySpreadConstraints[i]``, the hard constraint at fault
pod (anti-)affinity       the required term at fault, else the list of terms
existing anti-affinity    the template's ``metadata.labels`` (what the other pods' terms
                          match)
========================  ==================================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from gate.errors import QuantityError
from gate.k8s.podaffinity import POD_AFFINITY, POD_ANTI_AFFINITY, REQUIRED
from gate.k8s.quantity import parse_quantity
from gate.k8s.spread import DO_NOT_SCHEDULE
from gate.model import Cause, FieldLocation, Source, Term, Workload

Step = str | int
FieldPath = tuple[Step, ...]

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_LOADER = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
_CONTAINER_LISTS = ("containers", "initContainers")
_NODE_TERMS: FieldPath = (
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
)


def parse_path(dotted: str) -> FieldPath | None:
    """``spec.replicatedJobs[0].template.spec`` -> its steps; None for anything that is not
    plain field names and indices (``spec.workloadRef -> Deployment web/api ...``).

    >>> parse_path("spec.tasks[1].template.spec")
    ('spec', 'tasks', 1, 'template', 'spec')
    """
    steps: list[Step] = []
    position = 0
    for match in _STEP.finditer(dotted):
        gap = dotted[position : match.start()]
        if gap not in ("", "."):
            return None
        name, index = match.groups()
        steps.append(int(index) if index is not None else name)
        position = match.end()
    if position != len(dotted) or not steps or any(" " in str(s) for s in steps):
        return None
    return tuple(steps)


def display(path: FieldPath) -> str:
    """The steps as a field path: ``containers[0].resources.requests.cpu``."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def locate(workload: Workload, cause: Cause) -> FieldLocation | None:
    """The field of ``workload``'s manifest behind ``cause`` (module doc), or the pod
    spec's own field when that one is not in the manifest; None when the document cannot
    be composed again or its pod spec is not at a plain path. For a piped document whose
    origin is a file of the repository, the same field's line there too."""
    template = parse_path(workload.template)
    root = compose(workload.source)
    if template is None or root is None or workload.source is None:
        return None
    found = _field(root, template, workload, cause)
    if found is None:
        return None
    path, key, text = found
    partial = cause.term is Term.REQUEST and _less(text, cause.requested)
    origin_line = _origin_line(workload, cause, template)
    return FieldLocation(
        path, workload.source.line + key.start_mark.line, text, partial, origin_line
    )


def _field(
    root: Node, template: FieldPath, workload: Workload, cause: Cause
) -> tuple[str, Node, str] | None:
    """The field's path, the node whose line names it, and its scalar value ("" for none)."""
    spec = _walk(root, template)
    if spec is None:
        return None
    for relative in _candidates(workload, cause, template):
        found = _walk(spec[1], relative) if relative[:1] != ("..",) else _walk(root, relative[1:])
        if found is not None:
            key, value = found
            shown = display(relative[1:] if relative[:1] == ("..",) else relative)
            return shown, key, value.value if isinstance(value, ScalarNode) else ""
    return workload.template, spec[0], ""


MAX_ORIGIN_FILE = 16 * 1024 * 1024
"""An origin file longer than this is not read: a kustomize base is a few kilobytes."""


def _origin_line(workload: Workload, cause: Cause, template: FieldPath) -> int | None:
    """The field's line in the repository file the piped document's origin names: in the
    document of the same kind whose name the rendered name contains (kustomize adds
    prefixes and suffixes), when there is exactly one."""
    path = workload.location.origin_file
    if path is None:
        return None
    try:
        with open(path, "rb") as stream:
            text = stream.read(MAX_ORIGIN_FILE + 1).decode("utf-8-sig")
        if len(text) > MAX_ORIGIN_FILE:
            return None
        roots = [node for node in yaml.compose_all(text, Loader=_LOADER) if node is not None]
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None
    matching = [node for node in roots if _same_object(node, workload)]
    if len(matching) != 1:
        return None
    found = _field(matching[0], template, workload, cause)
    return None if found is None else found[1].start_mark.line + 1


def _same_object(node: Node, workload: Workload) -> bool:
    kind = _walk(node, ("kind",))
    name = _walk(node, ("metadata", "name"))
    if kind is None or name is None:
        return False
    kind_value, name_value = kind[1].value, name[1].value
    return (
        kind_value == workload.kind
        and isinstance(name_value, str)
        and bool(name_value)
        and name_value in workload.name
    )


def compose(source: Source | None) -> Node | None:
    """The composed node of ``source``'s value (lines counted from its first), or None."""
    if source is None:
        return None
    end = source.end
    try:
        if end < 0:  # a JSON List item: where it ends is found now
            end = json.JSONDecoder().raw_decode(source.text, source.start)[1]
        text = " " * source.column + source.text[source.start : end]
        return yaml.compose(text, Loader=_LOADER)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def _walk(node: Node, path: FieldPath) -> tuple[Node, Node] | None:
    """The node at ``path`` under ``node``, with the node whose line names it (a mapping
    key, a sequence entry); None when some step is missing."""
    named = value = node
    for step in path:
        found = _step(value, step)
        if found is None:
            return None
        named, value = found
    return named, value


def _step(node: Node, step: Step) -> tuple[Node, Node] | None:
    if isinstance(step, int):
        if isinstance(node, SequenceNode) and 0 <= step < len(node.value):
            item: Node = node.value[step]
            return item, item
        return None
    if not isinstance(node, MappingNode):
        return None
    merged: list[Node] = []
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == step:
            return key, value
        if isinstance(key, ScalarNode) and key.tag == "tag:yaml.org,2002:merge":
            merged += value.value if isinstance(value, SequenceNode) else [value]
    for source in merged:
        found = _step(source, step)
        if found is not None:
            return found
    if step == "containers":  # an Argo Workflows template: its container or script
        main = _step(node, "container") or _step(node, "script")
        if main is not None:
            key, value = main
            return key, SequenceNode("tag:yaml.org,2002:seq", [value])
    return None


# --------------------------------------------------------------------------- which field


def _candidates(workload: Workload, cause: Cause, template: FieldPath) -> list[FieldPath]:
    """The fields to try, best first (module doc); ``..`` paths start at the document."""
    spec = workload.pod_spec
    term = cause.term
    if term is Term.REQUEST:
        return _request_fields(spec, cause.resource)
    if term is Term.TOLERATIONS:
        return [("tolerations",)]
    if term is Term.NODE_NAME:
        return [("nodeName",)]
    if term is Term.NODE_SELECTOR:
        return [("nodeSelector",)]
    if term is Term.NODE_AFFINITY:
        return [*_indexed(_NODE_TERMS, cause.index), ("affinity", "nodeAffinity")]
    if term is Term.HOST_PORT:
        return _port_fields(spec, cause.port.port if cause.port else None)
    if term is Term.SPREAD:
        return _indexed(("topologySpreadConstraints",), _hard_constraint(spec, cause.index))
    if term is Term.POD_AFFINITY:
        return _indexed(("affinity", POD_AFFINITY, REQUIRED), cause.index)
    if term is Term.POD_ANTI_AFFINITY:
        return _indexed(("affinity", POD_ANTI_AFFINITY, REQUIRED), cause.index)
    if term is Term.EXISTING_ANTI_AFFINITY and template[-1:] == ("spec",):
        return [("..", *template[:-1], "metadata", "labels")]
    return []


def _indexed(path: FieldPath, index: int | None) -> list[FieldPath]:
    return ([(*path, index)] if index is not None else []) + [path]


def _hard_constraint(spec: Mapping[str, Any], index: int | None) -> int | None:
    """The position in ``topologySpreadConstraints`` of the ``index``-th hard one."""
    if index is None:
        return None
    raw = spec.get("topologySpreadConstraints")
    hard = [
        i
        for i, item in enumerate(raw if isinstance(raw, list) else [])
        if isinstance(item, Mapping) and item.get("whenUnsatisfiable") == DO_NOT_SCHEDULE
    ]
    return hard[index] if index < len(hard) else None


def _containers(spec: Mapping[str, Any]) -> list[tuple[str, int, Mapping[str, Any]]]:
    found = []
    for key in _CONTAINER_LISTS:
        items = spec.get(key)
        for i, container in enumerate(items if isinstance(items, list) else []):
            if isinstance(container, Mapping):
                found.append((key, i, container))
    return found


def _amount(resources: object, name: str) -> Fraction | None:
    value = resources.get(name) if isinstance(resources, Mapping) else None
    if value is None:
        return None
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


def _less(value: str, total: str) -> bool:
    """Whether quantity ``value`` is less than quantity ``total``."""
    try:
        return parse_quantity(value) < parse_quantity(total)
    except QuantityError:
        return False


def _request_fields(spec: Mapping[str, Any], resource: str) -> list[FieldPath]:
    """The pod-level request when set, then the container with the largest request of
    ``resource`` (its limit when the request defaults from it), first one on a tie."""
    fields: list[FieldPath] = []
    pod = spec.get("resources")
    for kind in ("requests", "limits"):
        if _amount(pod.get(kind) if isinstance(pod, Mapping) else None, resource) is not None:
            fields.append(("resources", kind, resource))
            break
    best: tuple[Fraction, FieldPath] | None = None
    for key, i, container in _containers(spec):
        resources = container.get("resources")
        resources = resources if isinstance(resources, Mapping) else {}
        for kind in ("requests", "limits"):
            amount = _amount(resources.get(kind), resource)
            if amount is not None:
                if best is None or amount > best[0]:
                    best = (amount, (key, i, "resources", kind, resource))
                break
    return fields + ([best[1]] if best else [])


def _port_fields(spec: Mapping[str, Any], port: int | None) -> list[FieldPath]:
    """The container port whose host port is ``port``."""
    if port is None:
        return []
    host_network = spec.get("hostNetwork") is True
    for key, i, container in _containers(spec):
        ports = container.get("ports")
        for j, item in enumerate(ports if isinstance(ports, Sequence) else []):
            if not isinstance(item, Mapping):
                continue
            if item.get("hostPort") == port:
                return [(key, i, "ports", j, "hostPort")]
            if host_network and item.get("containerPort") == port:
                return [(key, i, "ports", j, "containerPort")]
    return []
