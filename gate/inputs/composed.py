"""Repository files a run points into (a piped document's origin base, a kustomize
overlay's kustomization and patches), composed as YAML nodes whose marks carry lines, each
file once per run; and the plain walk over those nodes."""

from __future__ import annotations

from collections import OrderedDict

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_FILE = 16 * 1024 * 1024
"""A repository file longer than this is not read: a kustomize base is a few kilobytes."""

_LOADER = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader


class RepositoryFiles:
    """The composed documents of the repository files a run points into (origin bases, the
    overlay's kustomization and patches), each read and composed once however many failing
    workloads point into it; the last few files are kept."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = keep
        self._files: OrderedDict[str, tuple[Node, ...] | None] = OrderedDict()

    def documents(self, path: str) -> tuple[Node, ...] | None:
        """The file's documents, composed; None when it cannot be read or composed."""
        if path in self._files:
            self._files.move_to_end(path)
            return self._files[path]
        try:
            with open(path, "rb") as stream:
                text = stream.read(MAX_FILE + 1).decode("utf-8-sig")
            found = None if len(text) > MAX_FILE else compose_text(text)
        except (OSError, UnicodeDecodeError):
            found = None
        self._files[path] = found
        if len(self._files) > self._keep:
            self._files.popitem(last=False)
        return found


def compose_text(text: str) -> tuple[Node, ...] | None:
    """The documents of ``text`` (empty ones left out), or None when it does not compose."""
    try:
        return tuple(n for n in yaml.compose_all(text, Loader=_LOADER) if n is not None)
    except (yaml.YAMLError, RecursionError):
        return None


def key_and_value(node: Node | None, key: str) -> tuple[Node, Node] | None:
    """The key node (whose line names the field) and the value of ``key`` in a mapping."""
    if not isinstance(node, MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k, v
    return None


def child(node: Node | None, step: str | int) -> Node | None:
    """A mapping's value by key, or a sequence's item by index; None when there is none."""
    if isinstance(step, int):
        ok = isinstance(node, SequenceNode) and 0 <= step < len(node.value)
        return node.value[step] if ok and node is not None else None
    pair = key_and_value(node, step)
    return None if pair is None else pair[1]


def walk(node: Node | None, path: tuple[str | int, ...]) -> Node | None:
    """The node at ``path`` under ``node`` (plain keys and indices), or None."""
    for step in path:
        node = child(node, step)
    return node


def scalar(node: Node | None, *path: str) -> str | None:
    """The scalar text at ``path``, or None when there is no scalar there."""
    found = walk(node, path)
    return str(found.value) if isinstance(found, ScalarNode) else None
