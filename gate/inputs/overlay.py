"""The overlay's patch that sets a field of a piped kustomize document.

kustomize's origin annotation names the base file an object was read from; when the overlay
that was built (``--origin-root``) patches the field behind a cause, the base holds the old
value and the line to point at is the patch's. The overlay's ``kustomization.yaml`` lists
its patches, applied in kustomize's order (checked against ``kubectl kustomize``):
``patchesStrategicMerge``, then ``patches`` in their order, then ``patchesJson6902``; of
those that set the field, the last one wins. A patch is a file of the overlay (``path:``,
or a file name in ``patchesStrategicMerge``) or inline text (``patch: |``), whose lines are
counted from its block in the kustomization. A patch file is read only when it is a regular
file of the repository (under the working directory), as an origin is.

A patch applies to the object its ``target`` selects (kind, name, namespace, group, version,
``key=value`` label and annotation selectors), or without one to the object of its own kind
and name. A target's name or namespace is matched literally: a pattern with regular
expression characters selects nothing here (an untrusted pattern is never run). A strategic
merge patch's list items are matched by the item's merge key (a container's ``name``,
a port's ``containerPort``); a JSON 6902 ``add`` or ``replace`` sets the field when its path
is the field's or an ancestor's whose ``value`` holds it. A patch whose value is not the
rendered value (something later changed it) is not the one.

Every file is composed once per run (:class:`gate.inputs.composed.RepositoryFiles`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from gate.inputs.composed import RepositoryFiles, child, compose_text, key_and_value, scalar, walk
from gate.inputs.origins import repository_file
from gate.model import FieldPath

KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")
"""The names kustomize looks for in a directory, in its order."""

MERGE_KEYS = ("name", "containerPort", "mountPath", "devicePath", "topologyKey", "ip")
"""The keys a strategic merge matches the pod spec's list items by (the API types'
``patchMergeKey``s)."""

_PATTERN = frozenset("^$*+?()[]{}|\\")
"""Regular expression characters but the dot: a name with dots matches itself literally."""


@dataclass(frozen=True, slots=True)
class Patch:
    """One document of a patch: where it is (its file and the line its text starts on, 0
    first, ``literal`` when its lines are the file's), and the target it is given."""

    file: str
    start: int
    literal: bool
    node: Node
    target: Mapping[str, str] | None

    def line(self, node: Node) -> int:
        """The file line (1 first) of ``node`` of this patch."""
        return self.start + (node.start_mark.line if self.literal else 0) + 1


@dataclass(frozen=True, slots=True)
class Rendered:
    """The rendered object a patch may apply to: its composed document and the name of the
    base document it came from."""

    node: Node
    base_name: str | None

    def scalar(self, *path: str) -> str | None:
        value = walk(self.node, path)
        return value.value if isinstance(value, ScalarNode) else None

    def selected(self, target: Mapping[str, str]) -> bool:
        """Whether a patch's ``target`` selects this object."""
        kind, name, namespace = (self.scalar(*p) for p in _IDENTITY)
        api = self.scalar("apiVersion") or ""
        group, _, version = api.rpartition("/")
        wanted: dict[str, set[str | None]] = {
            "kind": {kind},
            "name": {name, self.base_name},
            "namespace": {namespace},
            "group": {group},
            "version": {version},
        }
        for key, value in target.items():
            if key in wanted and (_PATTERN & set(value) or value not in wanted[key]):
                return False
            if key in ("labelSelector", "annotationSelector") and not self._labelled(key, value):
                return False
        return True

    def _labelled(self, selector: str, value: str) -> bool:
        field = "labels" if selector == "labelSelector" else "annotations"
        for term in value.split(","):
            key, equals, wanted = term.strip().partition("=")
            if not equals or self.scalar("metadata", field, key) != wanted.lstrip("="):
                return False
        return True


_IDENTITY = (("kind",), ("metadata", "name"), ("metadata", "namespace"))


def patch_setting(
    files: RepositoryFiles, root: str, rendered: Rendered, steps: FieldPath, value: str
) -> tuple[str, int] | None:
    """The file and line of the last patch of the overlay at ``root`` that sets the field at
    ``steps`` of ``rendered`` (to ``value``, its scalar text, or "" for none), or None."""
    found = None
    for patch in patches(files, root):
        node = _sets(patch, rendered, steps)
        if node is None:
            continue
        if value and isinstance(node[1], ScalarNode) and node[1].value != value:
            continue
        found = (patch.file, patch.line(node[0]))
    return found


def patches(files: RepositoryFiles, root: str) -> Iterator[Patch]:
    """The overlay's patches in the order kustomize applies them."""
    kustomization = next(
        (os.path.join(root, n) for n in KUSTOMIZATIONS if os.path.isfile(os.path.join(root, n))),
        None,
    )
    documents = files.documents(kustomization) if kustomization else None
    if not documents or kustomization is None:
        return
    shown = _shown(kustomization)
    for field in ("patchesStrategicMerge", "patches", "patchesJson6902"):
        entries = walk(documents[0], (field,))
        for entry in entries.value if isinstance(entries, SequenceNode) else ():
            yield from _entry(files, root, shown, entry)


def _entry(files: RepositoryFiles, root: str, shown: str, entry: Node) -> Iterator[Patch]:
    """The documents of one entry: a file name or inline text (``patchesStrategicMerge``),
    or a mapping with ``path`` or ``patch`` and perhaps ``target``."""
    target: Mapping[str, str] | None = None
    if isinstance(entry, MappingNode):
        target = _scalars(walk(entry, ("target",)))
        path, text = walk(entry, ("path",)), walk(entry, ("patch",))
    else:
        path, text = (entry, None) if "\n" not in str(entry.value) else (None, entry)
    if isinstance(path, ScalarNode):
        file = repository_file(str(path.value), root)  # a regular file of the repository
        for node in (files.documents(file) if file else None) or ():
            yield Patch(str(file), 0, True, node, target)
    elif isinstance(text, ScalarNode):
        literal = text.style == "|"
        start = text.start_mark.line + (1 if literal else 0)
        for node in compose_text(str(text.value)) or ():
            yield Patch(shown, start, literal, node, target)


def _scalars(node: Node | None) -> Mapping[str, str] | None:
    if not isinstance(node, MappingNode):
        return None
    return {
        str(k.value): str(v.value)
        for k, v in node.value
        if isinstance(k, ScalarNode) and isinstance(v, ScalarNode)
    }


def _shown(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def _sets(patch: Patch, rendered: Rendered, steps: FieldPath) -> tuple[Node, Node] | None:
    """The node naming the field in ``patch`` and its value, when the patch applies to
    ``rendered`` and sets the field."""
    if isinstance(patch.node, SequenceNode):  # JSON 6902 operations
        if patch.target is None or not rendered.selected(patch.target):
            return None
        return _operation(patch.node, rendered, steps)
    if patch.target is not None:
        selected = rendered.selected(patch.target)
    else:
        kind, name = scalar(patch.node, "kind"), scalar(patch.node, "metadata", "name")
        selected = kind is not None and name is not None
        selected = selected and rendered.selected({"kind": str(kind), "name": str(name)})
    return _merged(patch.node, rendered.node, steps) if selected else None


def _operation(
    node: SequenceNode, rendered: Rendered, steps: FieldPath
) -> tuple[Node, Node] | None:
    """The last ``add`` or ``replace`` of ``node`` whose path is the field's or holds it."""
    found = None
    for operation in node.value:
        op, pointer = scalar(operation, "op"), scalar(operation, "path")
        value = key_and_value(operation, "value")
        if op not in ("add", "replace") or pointer is None or value is None:
            continue
        prefix = _pointer(pointer, rendered.node, steps)
        if prefix is None:
            continue
        if prefix == len(steps):
            found = value
            continue
        inner = _walk_named(value[1], steps[prefix:])
        found = inner if inner is not None else found
    return found


def _pointer(pointer: str, rendered: Node, steps: FieldPath) -> int | None:
    """How many of ``steps`` the JSON pointer names (``-``: a list's last item, as an
    ``add`` appends it), or None when it names something else."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if len(parts) > len(steps) or not parts:
        return None
    node: Node | None = rendered
    for part, step in zip(parts, steps, strict=False):
        if isinstance(step, int) and isinstance(node, SequenceNode):
            index = len(node.value) - 1 if part == "-" else (int(part) if part.isdigit() else -1)
            if index != step:
                return None
        elif part != step:
            return None
        node = child(node, step)
    return len(parts)


def _merged(patch: Node, rendered: Node, steps: FieldPath) -> tuple[Node, Node] | None:
    """The field in a strategic merge patch: list items matched by their merge key."""
    named: Node | None = patch
    here: Node | None = patch
    there: Node | None = rendered
    for step in steps:
        if isinstance(step, int):
            item = child(there, step)
            here = _by_merge_key(here, item, step)
            named, there = here, item
        else:
            pair = key_and_value(here, step)
            if pair is None:
                return None
            named, here = pair
            there = child(there, step)
        if here is None or named is None:
            return None
    return (named, here) if named is not None and here is not None else None


def _by_merge_key(patch: Node | None, item: Node | None, index: int) -> Node | None:
    if not isinstance(patch, SequenceNode):
        return None
    for key in MERGE_KEYS:
        wanted = scalar(item, key) if item is not None else None
        if wanted is not None:
            return next((p for p in patch.value if scalar(p, key) == wanted), None)
    return patch.value[index] if 0 <= index < len(patch.value) else None


def _walk_named(node: Node, steps: FieldPath) -> tuple[Node, Node] | None:
    named, here = node, node
    for step in steps:
        if isinstance(step, int):
            found = child(here, step)
            if found is None:
                return None
            named = here = found
        else:
            pair = key_and_value(here, step)
            if pair is None:
                return None
            named, here = pair
    return named, here
