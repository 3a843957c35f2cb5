"""Where a rendered document came from, for reports that must name a file.

``kustomize build`` records each object's source when the kustomization asks for it
(``buildMetadata: [originAnnotations]``), in the annotation ``config.kubernetes.io/origin``,
whose value is a small YAML mapping::

    config.kubernetes.io/origin: |
      path: ../../base/worker.yaml
      repo: https://github.com/example/platform
      ref: v1.2.0

(``path`` is relative to the kustomization that was built; a generated object has
``configuredIn`` and ``configuredBy`` instead). Helm's ``# Source:`` comments are read by
:mod:`gate.inputs.manifests`. A kustomize origin wins over a Helm one: it is the object's own.

The annotation comes from the pull request, so it is read by a line parser of its own, never
by a YAML loader (a few kilobytes of aliases can expand to gigabytes), and only its first
:data:`MAX_ORIGIN` characters.

On standard input, each document also gets its place in the stream (``stdin#3``), and an
origin naming a file of the repository (``--origin-root``: the directory kustomize built,
which its paths are relative to; the working directory by default) becomes the file
annotations and SARIF attach the workload to.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace

from gate.model import Document

ORIGIN_ANNOTATION = "config.kubernetes.io/origin"
MAX_ORIGIN = 4096
"""Characters of the annotation read; kustomize writes a few dozen."""

_FIELD = re.compile(r"^(path|repo|ref|configuredIn)[ \t]*:[ \t]*(.*?)[ \t]*$")


def kustomize_origin(body: Mapping[str, object]) -> str | None:
    """The file named by the origin annotation (``repo//path@ref`` for a remote base), or
    None without one.

    >>> kustomize_origin({"metadata": {"annotations": {ORIGIN_ANNOTATION: "path: a.yaml\\n"}}})
    'a.yaml'
    """
    metadata = body.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    value = annotations.get(ORIGIN_ANNOTATION) if isinstance(annotations, Mapping) else None
    if not isinstance(value, str):
        return None
    fields: dict[str, str] = {}
    for line in value[:MAX_ORIGIN].splitlines():
        found = _FIELD.match(line)
        if found and found.group(1) not in fields:
            fields[found.group(1)] = _scalar(found.group(2))
    path = fields.get("path") or fields.get("configuredIn")
    if not path:
        return None
    repo, ref = fields.get("repo"), fields.get("ref")
    if repo:
        path = f"{repo}//{path}" + (f"@{ref}" if ref else "")
    return path


def _scalar(text: str) -> str:
    """A plain, single- or double-quoted YAML scalar on one line, as kustomize writes it."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            decoded = json.loads(text)
        except ValueError:
            return text[1:-1]
        return decoded if isinstance(decoded, str) else text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text.split(" #", 1)[0].rstrip()


def repository_file(origin: str, root: str | None) -> str | None:
    """``origin`` as a path of the repository (relative to the working directory, under
    it), when it names a regular file there; None for a remote base or anything else."""
    if "//" in origin or os.path.isabs(origin):
        return None
    path = os.path.normpath(os.path.join(root or os.curdir, origin))
    if os.path.isabs(path) or path == os.pardir or path.startswith(os.pardir + os.sep):
        return None
    return path.replace(os.sep, "/") if os.path.isfile(path) else None


def with_origins(
    documents: Iterable[Document], stdin: bool, root: str | None = None
) -> Iterator[Document]:
    """The documents of one file (``stdin``: of standard input), each located by its
    kustomize origin when it has one, and on standard input by its place in the stream."""
    for number, document in enumerate(documents, start=1):
        location = document.location
        origin = kustomize_origin(document.body) if document.body is not None else None
        if origin is not None:
            location = replace(location, origin=origin)
        if stdin:
            named = location.origin if origin is not None else None
            found = repository_file(named, root) if named else None
            location = replace(location, document=number, origin_file=found)
        yield document if location is document.location else replace(document, location=location)
