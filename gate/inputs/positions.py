"""The line of the field behind a failing workload's cause, found when it is asked for.

Reading keeps no position per field (:class:`~gate.model.Source` keeps where a document's
text is); for the few workloads that fail, their document is composed again, from its own
text only, and the path of the field is walked over the composed nodes, whose marks carry
lines. JSON is read the same way (JSON is YAML as far as these documents go); a document
that does not compose again, or a field that is not there as a path of plain keys and
indices (a template reached through an Argo Rollout's ``workloadRef``, say), gives None or
the pod spec's own line, and reports fall back to the document's first line.

Which field a cause points at is its plugin's to say (each filter plugin's ``fields``,
``gate/scheduler/plugins/``, handed in by the run): the request of the container that asks
most, ``tolerations``, ``nodeSelector``, the node-affinity or pod (anti-)affinity term or
hard spread constraint at fault, the container port holding the host port, the template's
labels for an existing pod's anti-affinity. The first of those the document has is
pointed at; with none, the pod spec itself.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import yaml
from msgspec import UNSET
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from gate.errors import QuantityError
from gate.inputs.composed import RepositoryFiles
from gate.inputs.overlay import Rendered, patch_setting
from gate.k8s.quantity import parse_quantity
from gate.model import Cause, FieldLocation, FieldPath, Source, Term, Workload

Step = str | int
FieldsOf = Callable[[Mapping[str, Any], Cause], Sequence[FieldPath]]
"""The fields of a pod spec a cause points at, best first (the scheduler's plugins say)."""

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_LOADER = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader


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


def locate(
    workload: Workload,
    cause: Cause,
    fields: FieldsOf,
    files: RepositoryFiles | None = None,
    overlay: str | None = None,
) -> FieldLocation | None:
    """The field of ``workload``'s manifest behind ``cause`` (the first of ``fields`` the
    manifest has: what the cause's plugin says it points at), or the pod spec's own field
    when none is there; None when the document cannot be composed again or its pod spec is
    not at a plain path. For a piped document whose origin is a file of the repository,
    the same field's line there too, or the line of the patch of the kustomize overlay at
    ``overlay`` (``--origin-root``) that sets it (:mod:`gate.inputs.overlay`). ``files``
    keeps the repository files a run reads composed, each read once."""
    template = parse_path(workload.template)
    root = compose(workload.source)
    if template is None or root is None or workload.source is None:
        return None
    candidates = _candidates(workload, cause, template, fields)
    found = _field(root, template, workload, candidates)
    if found is None:
        return None
    path, key, text, steps = found
    partial = cause.term is Term.REQUEST and _less(text, cause.requested)
    line = workload.source.line + key.start_mark.line
    if workload.location.origin_file is None:
        return FieldLocation(path, line, text, partial)
    origin_file, origin_line = _in_repository(
        workload,
        root,
        (template, candidates, steps, text),
        files or RepositoryFiles(),
        overlay or os.curdir,
    )
    return FieldLocation(
        path,
        line,
        text,
        partial,
        UNSET if origin_line is None else origin_line,
        UNSET if origin_file is None else origin_file,
    )


def _in_repository(
    workload: Workload,
    root: Node,
    field: tuple[FieldPath, list[FieldPath], FieldPath, str],
    files: RepositoryFiles,
    overlay: str,
) -> tuple[str | None, int | None]:
    """Where reports point for a piped document whose origin is a file of the repository:
    the overlay's patch that sets the field and its line there, else the same field's line
    in the origin's file (None for the file: the origin's; None for the line: not there)."""
    template, candidates, steps, text = field
    base = _origin_document(files, workload)
    rendered = Rendered(root, None if base is None else _name(base))
    patched = patch_setting(files, overlay, rendered, steps, text)
    if patched is not None:
        return patched
    there = None if base is None else _field(base, template, workload, candidates)
    return None, None if there is None else there[1].start_mark.line + 1


def document_field(source: Source | None, path: FieldPath, shown: str) -> FieldLocation | None:
    """The field at ``path`` from the document's root (a workload's ``spec.replicas``),
    shown as ``shown``: the line it is on and its scalar value; None when the document does
    not compose again or has no such field."""
    root = compose(source)
    found = None if root is None else _walk(root, path)
    if found is None or source is None:
        return None
    key, value = found
    text = value.value if isinstance(value, ScalarNode) else ""
    return FieldLocation(shown, source.line + key.start_mark.line, text, partial=False)


def _field(
    root: Node, template: FieldPath, workload: Workload, candidates: list[FieldPath]
) -> tuple[str, Node, str, FieldPath] | None:
    """The field's path, the node whose line names it, its scalar value ("" for none) and
    its steps from the document's root."""
    spec = _walk(root, template)
    if spec is None:
        return None
    for relative in candidates:
        up = relative[:1] == ("..",)
        found = _walk(root, relative[1:]) if up else _walk(spec[1], relative)
        if found is not None:
            key, value = found
            shown = display(relative[1:] if up else relative)
            steps = relative[1:] if up else (*template, *relative)
            return shown, key, value.value if isinstance(value, ScalarNode) else "", steps
    return workload.template, spec[0], "", template


def _origin_document(files: RepositoryFiles, workload: Workload) -> Node | None:
    """The document of the repository file the piped document's origin names: of the same
    kind, whose name the rendered name contains (kustomize adds prefixes and suffixes), when
    there is exactly one."""
    path = workload.location.origin_file
    if path is None:
        return None
    matching = files.matching(path, workload.kind, lambda node: _same_object(node, workload))
    return matching[0] if len(matching) == 1 else None


def _name(node: Node) -> str | None:
    found = _walk(node, ("metadata", "name"))
    return found[1].value if found is not None and isinstance(found[1].value, str) else None


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
    end, column = source.end, source.column
    try:
        if end < 0:  # a JSON List item: where it ends is found now
            end = json.JSONDecoder().raw_decode(source.text, source.start)[1]
            # Flow text needs no indentation: padding it to its column would cost the
            # line's length for every item of a List written on one line (kubectl's
            # compact output), the whole document again for each failing workload.
            column = 0
        text = " " * column + source.text[source.start : end]
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


def _candidates(
    workload: Workload, cause: Cause, template: FieldPath, fields: FieldsOf
) -> list[FieldPath]:
    """The fields to try, best first, as the cause's plugin names them; a path under the
    pod spec's parent (``..``) starts at the document when the pod spec is a ``spec``."""
    found = []
    for path in fields(workload.pod_spec, cause):
        if path[:1] != ("..",):
            found.append(path)
        elif template[-1:] == ("spec",):
            found.append(("..", *template[:-1], *path[1:]))
    return found


def _less(value: str, total: str) -> bool:
    """Whether quantity ``value`` is less than quantity ``total``."""
    try:
        return parse_quantity(value) < parse_quantity(total)
    except QuantityError:
        return False
