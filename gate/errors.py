"""Errors that stop a run. "Does not fit" is a verdict, never an exception."""

from __future__ import annotations

NOTHING_JUDGED_EXIT = 5
"""The exit code of a run that judged no workload (as pytest's for "nothing collected"):
neither a pass nor a failure of the workloads, and never 0 unless ``--allow-empty``."""


class GateError(Exception):
    """The gate could not run. Carries its exit code, 2 (README, "Exit codes")."""

    exit_code = 2


class UsageError(GateError):
    """Bad arguments: a missing path, conflicting flags, an unknown verdict name."""


class SnapshotError(GateError):
    """The snapshot could not be read or is invalid; the message names the object and field."""


class ClusterError(GateError):
    """The live cluster could not be read, or the credentials are unsafe to use."""


class QuantityError(ValueError):
    """A string that is not a Kubernetes resource quantity."""


NESTED_TOO_DEEP = "JSON nested too deeply to read"
"""What a JSON input says when its nesting exceeds what a decoder follows (a report of
``[[[...]]]`` 100,000 deep)."""
