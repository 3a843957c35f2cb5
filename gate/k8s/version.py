"""Which Kubernetes version's semantics apply: what differs between versions in what the
filters see and say (SPEC section 4, "Dialect")."""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")
_EARLY_1_35_ALPHA = re.compile(r"v?1\.35\.0-alpha\.[0-2](?![0-9])")


@dataclass(frozen=True, slots=True)
class Dialect:
    """What differs between Kubernetes versions in what the filters see and say.

    ``named_taint``: the taint reason names ``{KEY: VALUE}`` (through v1.34.1).
    ``pod_level_resources``: PodLevelResources is on (by default from v1.34); without it
    the API server drops a template's ``spec.resources``.
    """

    named_taint: bool = True
    pod_level_resources: bool = True


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    match = _VERSION.match(text or "")
    if not match:
        return None
    return int(match[1]), int(match[2]), int(match[3] or 0)


def dialect_for(version: str | None) -> Dialect:
    """The taint reason lost its ``{KEY: VALUE}`` in v1.35.0-alpha.3 (#134740) and in
    v1.34.2 (its back-port, #135023); an unknown version keeps the named form (SPEC
    section 4, "Dialect")."""
    parsed = parse_version(version)
    if parsed is None:
        return Dialect()
    minor_patch = parsed[1:]
    early_alpha = _EARLY_1_35_ALPHA.match(version or "") is not None
    named = parsed[0] == 1 and (minor_patch < (34, 2) or early_alpha)
    return Dialect(named_taint=named, pod_level_resources=parsed[0] > 1 or parsed[1] >= 34)
