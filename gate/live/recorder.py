"""The ClusterSnapshot file of one live read (docs/reference.md, "Snapshot formats").

The objects are the structs of :mod:`gate.live.objects`, each encoded once as it is read:
the live run reads those very bytes with the file reader, and ``fitgate snapshot -o`` writes
them, so a replay gives the live run's verdicts. The file is JSON with one object per line
(reviewable diffs for a committed fixture), spaced as Python's ``json.dumps`` spaces it and
ASCII only, as fitgate has always written it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from typing import IO, Any

import msgspec

from gate.errors import UsageError
from gate.live.autoscaled import Autoscaled
from gate.live.objects import Recorded
from gate.live.pages import PageDecoder
from gate.live.storage import Stored
from gate.snapshot.disruption import DISRUPTION_SECTIONS
from gate.snapshot.state import AUTOSCALING_SECTIONS, PRIORITY_SECTIONS, QUOTA_SECTIONS
from gate.snapshot.state import SECTIONS as snapshot_sections
from gate.snapshot.storage import STORAGE_SECTIONS

SECTIONS = tuple(snapshot_sections)  # the file's arrays of objects, in the readers' order
OPTIONAL_SECTIONS = (
    *PRIORITY_SECTIONS,
    *QUOTA_SECTIONS,
    *AUTOSCALING_SECTIONS,
    *STORAGE_SECTIONS,
    *DISRUPTION_SECTIONS,
)
"""Written after :data:`SECTIONS`, and only when read: the PriorityClasses, the
ResourceQuotas, each kind of storage object and the PodDisruptionBudgets when the
credentials may list them (and the cluster serves them), the autoscaler's objects with
``fitgate snapshot --autoscaling``."""
_ENCODER = msgspec.json.Encoder()


def encoded(obj: Recorded | Autoscaled | Stored) -> bytes:
    """One object of the file, compact (the file's spacing is added as it is written)."""
    return _ENCODER.encode(obj)


@cache
def _pages(
    item: type[Recorded | Autoscaled | Stored],
) -> PageDecoder[Recorded | Autoscaled | Stored]:
    return PageDecoder(item)


def recorded(item: type[Recorded | Autoscaled | Stored], obj: Mapping[str, Any]) -> dict[str, Any]:
    """What a recording keeps of the API object ``obj``, as a decoded document: exactly
    what a live read of it writes (for fixtures, tests and the benchmark's generator)."""
    kept = _pages(item).decode(msgspec.json.encode({"items": [obj]}))[0][0]
    document: dict[str, Any] = msgspec.json.decode(encoded(kept))
    return document


def timestamp(moment: datetime) -> str:
    """``2026-08-16T10:00:00Z``: UTC, whole seconds."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class Recording:
    """A read cluster: the envelope (``capturedAt``, ``source``) and, for each of
    :data:`SECTIONS` (and of :data:`OPTIONAL_SECTIONS` when read), its objects, each
    encoded."""

    captured_at: str
    context: str
    server: str
    server_version: str | None
    sections: Mapping[str, Sequence[bytes]]

    def head(self) -> dict[str, Any]:
        return {
            "apiVersion": "fitgate/v1",
            "kind": "ClusterSnapshot",
            "capturedAt": self.captured_at,
            "source": {
                "context": self.context,
                "server": self.server,
                "serverVersion": self.server_version,
            },
        }

    def document(self) -> bytes:
        """The whole document, compact: what the file reader reads of a live run."""
        arrays = {key: list(map(msgspec.Raw, self.sections[key])) for key in self.keys()}
        return _ENCODER.encode({**self.head(), **arrays})

    def keys(self) -> tuple[str, ...]:
        """The arrays of the file, in its order."""
        return (*SECTIONS, *(key for key in OPTIONAL_SECTIONS if key in self.sections))


def file_line(obj: bytes) -> str:
    """An object as ``json.dumps`` writes it: msgspec spaces it alike, and Python's
    encoder escapes what is not printable ASCII (rare: names and labels are ASCII)."""
    text = msgspec.json.format(obj, indent=0)
    if not text.isascii() or b"\x7f" in text:
        return json.dumps(json.loads(obj))
    return text.decode("ascii")


def render_snapshot(recording: Recording) -> Iterator[str]:
    """The file, a line at a time."""
    yield "{\n"
    for key, value in recording.head().items():
        yield f"  {json.dumps(key)}: {json.dumps(value)},\n"
    keys = recording.keys()
    for number, key in enumerate(keys, start=1):
        objects = recording.sections[key]
        yield f"  {json.dumps(key)}: [" + ("\n" if objects else "")
        for index, obj in enumerate(objects, start=1):
            yield "    " + file_line(obj) + (",\n" if index < len(objects) else "\n")
        yield ("  ]" if objects else "]") + (",\n" if number < len(keys) else "\n")
    yield "}\n"


@contextmanager
def atomic_output(path: str) -> Iterator[IO[str]]:
    """A temporary file beside ``path``, moved over it only when the block succeeds: a reader
    never sees half a snapshot. Opened first, so an unwritable place fails before any read."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory
        )
    except OSError as exc:
        raise UsageError(f"{path}: cannot write the snapshot: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as output:
            yield output
            output.flush()
            os.fsync(output.fileno())
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a file meant to be shared
        os.replace(temporary, path)
    except OSError as exc:
        with suppress(OSError):
            os.unlink(temporary)
        raise UsageError(f"{path}: cannot write the snapshot: {exc.strerror}") from None
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def write_snapshot(recording: Recording, output: IO[str]) -> None:
    for chunk in render_snapshot(recording):
        output.write(chunk)
