"""Repository files a run points into (a piped document's origin base, a kustomize
overlay's kustomization and patches), composed as YAML nodes whose marks carry lines, each
file once per run; and the plain walk over those nodes."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterator

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_FILE = 16 * 1024 * 1024
"""An origin file longer than this is not read: a kustomize base is a few kilobytes."""

MAX_DOCUMENT = 256 * 1024
"""A document longer than this is not composed, and a kustomization or patch file longer
than this is not read: composed, YAML takes about 70 times its text (a node and two marks
for each scalar), so a 15 MiB origin file composed whole took 1.1 GB."""

MAX_COMPOSED = 1024 * 1024
"""Of one origin file, at most this much text of the documents that may be a workload's
base is composed in a run (each document once): a base file holds a few workloads."""

_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|\Z)", re.MULTILINE)
"""A line that starts or ends a document: at the start of a line, never inside a document
(libyaml ends a block scalar there and refuses one in a quoted scalar)."""

_LOADER = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader


class RepositoryFiles:
    """The composed documents of the repository files a run points into (origin bases, the
    overlay's kustomization and patches), each read and composed once however many failing
    workloads point into it; the last few files are kept."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = keep
        self._files: OrderedDict[str, tuple[Node, ...] | None] = OrderedDict()
        self._origin: tuple[str, str | None, dict[int, tuple[Node, ...] | None]] | None = None
        self._budget: dict[str, int] = {}

    def documents(self, path: str) -> tuple[Node, ...] | None:
        """The file's documents, composed; None when it cannot be read or composed (a
        kustomization or a patch: at most :data:`MAX_DOCUMENT`)."""
        if path in self._files:
            self._files.move_to_end(path)
            return self._files[path]
        text = _read(path, MAX_DOCUMENT)
        found = None if text is None else compose_text(text)
        self._files[path] = found
        if len(self._files) > self._keep:
            self._files.popitem(last=False)
        return found

    def matching(self, path: str, kind: str, same: Callable[[Node], bool]) -> list[Node]:
        """The documents of the origin file at ``path`` that ``same`` takes for the
        workload's base, among those that mention ``kind``: each composed alone, and only
        while the file's :data:`MAX_COMPOSED` lasts, so what is held is the file's text and
        one document (none longer than :data:`MAX_DOCUMENT`), never the file composed. The
        last file asked is kept, with each document composed once."""
        if self._origin is None or self._origin[0] != path:
            self._origin = (path, _read(path, MAX_FILE), {})
        _, text, composed = self._origin
        if text is None:
            return []
        found: list[Node] = []
        for line, start, end in _documents(text):
            if end - start > MAX_DOCUMENT or text.find(kind, start, end) < 0:
                continue
            if start not in composed:
                left = self._budget.get(path, MAX_COMPOSED)
                if end - start > left:
                    return []  # which documents match is not known: none is taken
                self._budget[path] = left - (end - start)
                # Lines count from the file's first: the document is composed where it is.
                composed[start] = compose_text("\n" * line + text[start:end])
            found.extend(n for n in composed[start] or () if same(n))
        return found


def _read(path: str, limit: int) -> str | None:
    """The text of the file at ``path``; None when it cannot be read or is longer than
    ``limit``."""
    try:
        with open(path, "rb") as stream:
            text = stream.read(limit + 1).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    return None if len(text) > limit else text


def _documents(text: str) -> Iterator[tuple[int, int, int]]:
    """Each document's first line (from 0), start and end in ``text``, split where a
    line starts or ends one."""
    start = line = 0
    for marker in _MARKER.finditer(text):
        if marker.start() > start:
            yield line, start, marker.start()
        line += text.count("\n", start, marker.start())
        start = marker.start()
    yield line, start, len(text)


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
