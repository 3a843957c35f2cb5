"""A large snapshot file read by two processes, each one part of its items (a recording's
pods), on a machine's two cores. The second starts first, so this one can read the
manifests meanwhile.

Decoding is most of reading a 2.5 GB ``kubectl get -o json`` List, and one process decodes
on one core. So the file is cut between two of its items, near the middle: this process
reads the first part as a whole List (the bytes up to the cut, then ``]}``), a forked one
reads the rest as one (``{"items":[``, then the bytes after the cut) and hands over what it
kept (:meth:`~gate.snapshot.stream.Reading.handed_over`: the nodes, the pods' columns and
the texts their shared parts were decoded from, a few megabytes), and the two readings are
joined as one reader would have read the file. A recording is cut between two of its pods
alike (``{"pods":[`` opens the rest).

The cut is guessed, as :mod:`gate.snapshot.jsonstream` guesses batches: where the bytes
between the List's first two items occur again. Both parts decoding proves it: text before
the cut that a ``]}`` closes was a run of whole items of a top-level array (the last member
the first part read, which must be ``items``), and text after it that a ``{"items":[``
opens is the rest of that array and of the object. Whenever anything is not so (no cut
found, either part declined, the second process failed in any way), the file is read again
whole by one process, which gives the answer and any message: this module only ever makes
a valid file's reading faster.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from gate.model import Snapshot
from gate.snapshot.forked import Forked, Processes, forks
from gate.snapshot.jsonstream import WINDOW, FileRegion, separator, unindented
from gate.snapshot.stream import NotAccepted, Reading, read_part, snapshot_of

SPLIT_FROM = 64 << 20
"""Smaller files are read by one process: forking and handing over cost more than a
second core saves on them."""
_COST_PER_BYTE = {"items": 1 / 56, "pods": 1 / 16}
"""What reading a byte of each array costs, against a byte of YAML read and its workloads
extracted (what this process does meanwhile). Set on the benchmark's large case so that
both processes finish together: the second's part costs more than its items' bytes (it
also reads the objects after them, such as the storage objects, and hands its reading
over), and this one builds the pods of both parts once they are joined."""
_UNINDENTED_ITEMS = 1 / 104
"""A List's byte where its indentation is dropped before it is decoded (``unindented``;
a recording has none to drop). Set so that the second's hand-over is pickled as this one
finishes its own part (traced on the large case, five runs: within a tenth of a second
either way), and only its way through the pipe, 0.05 s, is waited for."""
_CUT_ARRAYS = {"items": "items", "nodes": "pods"}
"""Where a cut is looked for: a List's items, by the bytes between its first two; a
recording's pods, by the bytes between its first two nodes (its writer lays out every
array alike, and the cut is proven anyway)."""
_HEAD = 1 << 20  # the List's first two items start within it: a Node is tens of kilobytes
_SEARCHED = 64 << 20  # where the items' separator is looked for, from the middle on
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Cut:
    """The comma at ``offset`` parts two elements of the top-level array ``key``."""

    key: str
    offset: int


def first_part(handle: BinaryIO, cut: Cut) -> FileRegion:
    """The items before the cut, as a snapshot of their own (with the members before them)."""
    return FileRegion(handle, 0, cut.offset, b"", b"]}")


def rest_part(handle: BinaryIO, cut: Cut) -> FileRegion:
    """The items after the cut, as a snapshot of their own (with the members after them)."""
    opening = b"{" + json.dumps(cut.key).encode() + b":["
    return FileRegion(handle, cut.offset + 1, None, opening, b"")


def first_share(
    key: str, size: int, meanwhile: int, compiled: bool = unindented is not None
) -> float:
    """The share of the file this process reads, so that both finish together: less than
    half by what the ``meanwhile`` bytes of YAML it reads first cost (but a tenth at least).
    ``compiled``: whether a List's indentation is dropped before it is decoded.

    >>> round(first_share("items", 2_440_000_000, 5_300_000, compiled=False), 2)
    0.44
    >>> first_share("pods", 100_000_000, 0), first_share("pods", 100_000_000, 50_000_000)
    (0.5, 0.1)
    """
    per_byte = _UNINDENTED_ITEMS if compiled and key == "items" else _COST_PER_BYTE[key]
    alone = per_byte * size
    return max(0.1, 0.5 - meanwhile / (2 * alone))


def cut_at(handle: BinaryIO, size: int, share: Callable[[str], float]) -> Cut | None:
    """Where the file is cut: the comma between two elements of the array found, at or
    after the ``share`` of the file that array's name gives."""
    handle.seek(0)
    learned = separator(handle.read(_HEAD), _CUT_ARRAYS)
    if learned is None:
        return None
    key, elements = _CUT_ARRAYS[learned[0]], learned[1]
    start = int(size * share(key))
    handle.seek(start)
    tail, position = b"", start  # the file's bytes from ``position`` on, not yet searched
    while position - start < _SEARCHED:
        chunk = handle.read(_CHUNK)
        if not chunk:
            return None
        text = tail + chunk
        found = text.find(elements)
        if found >= 0:
            return Cut(key, position + found + elements.index(b","))
        kept = min(len(elements) - 1, len(text))  # the separator may straddle two chunks
        position += len(text) - kept
        tail = text[len(text) - kept :]
    return None


class SecondReader:
    """A forked process reading the items after the cut while this one does other work;
    :meth:`snapshot` reads the items before it and joins the two. Closed (the process
    stopped if still running) by :meth:`close`, whatever happened."""

    def __init__(self, path: str, cut: Cut, size: int, window: int) -> None:
        self._path, self._cut, self._size, self._window = path, cut, size, window
        self._rest = Forked(lambda: _read_rest(path, cut, window))

    @classmethod
    def start(
        cls,
        path: str,
        *,
        split_from: int | None = None,
        share: float | None = None,
        meanwhile: int = 0,
        window: int = WINDOW,
        processes: Processes = 2,
    ) -> SecondReader | None:
        """The second reader of the snapshot file at ``path``; None when it is not read so
        (not a regular file, too small, not a List or recording whose items a cut could be
        found between, or no fork here for a run that may use ``processes``): the caller
        reads it whole. OSError when the file
        cannot be read. ``meanwhile`` is how many bytes of YAML this process reads before
        its part (:func:`first_share`), unless ``share`` says what part it reads."""
        # Looked at before it is opened: a pipe (``--snapshot <(kubectl ...)``) is read
        # once, by one reader; opening it here would take its writer's first bytes away.
        found = os.stat(path)
        size = found.st_size
        if not stat.S_ISREG(found.st_mode):
            return None
        if size < (SPLIT_FROM if split_from is None else split_from) or not forks(processes):
            return None
        with open(path, "rb") as handle:
            cut = cut_at(
                handle,
                size,
                lambda key: first_share(key, size, meanwhile) if share is None else share,
            )
        return None if cut is None else cls(path, cut, size, window)

    def snapshot(self, source: str, on_read: Callable[[int], None]) -> Snapshot | None:
        """The whole file's snapshot; None when a part did not read as one (no verdict on
        the file: only a whole reading is), and the caller reads it whole."""
        try:
            with open(self._path, "rb") as handle:
                first = read_part(first_part(handle, self._cut), on_read, self._window)
            first.build_pods()  # while the second process may still be reading
            later = self._rest.value()
            if later is None:
                return None
            on_read(self._size - self._cut.offset)
            return snapshot_of(first.joined(later, self._cut.key), source)
        except (NotAccepted, OSError):
            return None
        finally:
            self.close()

    def close(self) -> None:
        self._rest.close()


def _read_rest(path: str, cut: Cut, window: int) -> Reading:
    """The second process: the items after the cut and the rest of the object, read as a
    snapshot of their own, to hand over (raising when they did not read as one)."""
    with open(path, "rb") as handle:
        return read_part(rest_part(handle, cut), lambda n: None, window).handed_over()
