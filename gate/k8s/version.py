"""Which Kubernetes version's semantics apply: what differs between versions in what the
filters see and say (docs/reference.md, "What is checked": the taint reason's wording).

A version comes from a snapshot (``source.serverVersion``, which a server or a hand-written
file may fill with anything) or from ``--scheduler-version``. Parsing is total and bounded:
each of major, minor and patch has at most :data:`MAX_COMPONENT_DIGITS` digits, so a text
of any length costs constant time and never reaches Python's limit on converting long
digit strings; anything else is an unknown version (``None``), never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_COMPONENT_DIGITS = 9
"""Digits in one of major, minor, patch (Kubernetes has used at most two)."""

_NUMBER = rf"([0-9]{{1,{MAX_COMPONENT_DIGITS}}})(?![0-9])"
_VERSION = re.compile(rf"v?{_NUMBER}\.{_NUMBER}(?:\.{_NUMBER}|(?!\.[0-9]))")
_EARLY_1_35_ALPHA = re.compile(r"v?1\.35\.0-alpha\.[0-2](?![0-9])")
_SHOWN = 40


@dataclass(frozen=True, slots=True)
class Dialect:
    """What differs between Kubernetes versions in what the filters see and say.

    ``named_taint``: the taint reason names ``{KEY: VALUE}`` (through v1.34.1).
    ``pod_level_resources``: PodLevelResources is on (by default from v1.34); without it
    the API server drops a template's ``spec.resources``. ``server_minor``: below.
    """

    named_taint: bool = True
    pod_level_resources: bool = True
    server_minor: int | None = None
    """The API server's minor version (``34`` of v1.34.1; None: not known): the newest
    Pod Security policy version it knows, what ``latest`` evaluates."""


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` of ``v1.34.1``, ``1.34`` or ``v1.36.3-gke.100`` (what
    follows the numbers is ignored); None for anything else, including a component of more
    than :data:`MAX_COMPONENT_DIGITS` digits (``v1.999...``) or a value that is not text.

    >>> parse_version("v1.34.1-gke.100")
    (1, 34, 1)
    >>> parse_version("v1." + "9" * 5000) is None
    True
    """
    if not isinstance(text, str):
        return None
    match = _VERSION.match(text)
    if not match:
        return None
    return int(match[1]), int(match[2]), int(match[3] or 0)


def version_problem(text: str | None) -> str | None:
    """Why a given version cannot be used, in one line (the text shown shortened and
    escaped); None for an absent or a parseable one. A caller warns that the version is
    unknown, or refuses it where the user typed it."""
    if text is None or parse_version(text) is not None:
        return None
    shown = repr(text[:_SHOWN] + "..." if len(text) > _SHOWN else text)
    return f"version {shown} is not a Kubernetes version such as v1.34.1"


def dialect_for(version: str | None) -> Dialect:
    """The taint reason lost its ``{KEY: VALUE}`` in v1.35.0-alpha.3 (#134740) and in
    v1.34.2 (its back-port, #135023); an unknown version keeps the named form."""
    parsed = parse_version(version)
    if parsed is None or version is None:
        return Dialect()
    minor_patch = parsed[1:]
    early_alpha = _EARLY_1_35_ALPHA.match(version) is not None
    named = parsed[0] == 1 and (minor_patch < (34, 2) or early_alpha)
    return Dialect(
        named_taint=named,
        pod_level_resources=parsed[0] > 1 or parsed[1] >= 34,
        server_minor=parsed[1] if parsed[0] == 1 else None,
    )
