"""Which walked files are left out of a run: the ``exclude`` globs (``.fitgate.yaml`` and
``--exclude``) and the run's own snapshot file, which is never read as a manifest.

Only what a directory walk finds is left out: a file named on the command line is read
even when a pattern matches it (ruff's rule without ``--force-exclude``), so a
configuration cannot hide the file a reviewer asked about."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from gate.model import SNAPSHOT_FILE


def _normal(path: str) -> str:
    path = path.replace(os.sep, "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def glob_matches(pattern: str, path: str) -> bool:
    """Whether ``path`` (as reports show it, e.g. ``deploy/charts/x/tests/a.yaml``) is
    left out by ``pattern``.

    ``*`` matches across ``/`` (as in ``.gitignore``'s ``**``), so ``charts/*/tests/*``
    and ``**/tests/*`` both leave out every ``tests`` folder's files under ``charts``; a
    leading ``**/`` also matches at the top; a pattern naming a folder leaves out
    everything under it.

    >>> [glob_matches(p, "charts/db/tests/t.yaml") for p in ("charts/*/tests/*", "charts")]
    [True, True]
    >>> [glob_matches(p, "tests/t.yaml") for p in ("**/tests/*", "*.json", "test")]
    [True, False, False]
    """
    pattern, path = _normal(pattern).rstrip("/"), _normal(path)
    candidates = [pattern]
    if pattern.startswith("**/"):
        candidates.append(pattern[3:])
    return any(
        fnmatchcase(path, candidate) or fnmatchcase(path, f"{candidate}/*")
        for candidate in candidates
    )


@dataclass(frozen=True, slots=True)
class Exclusion:
    """What leaves a walked file out of the run: called with its path, the pattern (or
    :data:`SNAPSHOT_FILE`) that does, None for a file the run reads."""

    globs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    @classmethod
    def of(cls, globs: Sequence[str] = (), snapshot: str | None = None) -> Exclusion:
        files = (snapshot,) if snapshot and snapshot != "-" else ()
        return cls(tuple(globs), files)

    def __call__(self, path: str) -> str | None:
        """The first pattern that leaves ``path`` out (``the snapshot file`` for the run's
        own snapshot), or None when the run reads it."""
        for pattern in self.globs:
            if glob_matches(pattern, path):
                return pattern
        if any(_same_file(path, other) for other in self.files):
            return SNAPSHOT_FILE
        return None


def _same_file(path: str, other: str) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False
