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

Where the two meet is not fixed in advance. How long this process spends on the manifests,
and how fast each core runs while both read, vary from run to run (on the large case the
two parts' ends were up to 0.2 s apart, and the one that ended first waited). So the
stretch around the expected meeting point (:data:`MIDDLE`) is cut again, into pieces that
each process takes one at a time once its own part is read: this one from the front, the
second from the back (:class:`Claims`). A piece is read as a snapshot whose only member is
the array (``{"items":[``, the piece, ``]}``): that it reads so proves it a run of whole
elements, as the two parts are proven.
"""

from __future__ import annotations

import json
import mmap
import os
import select
import stat
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from typing import BinaryIO

from gate.model import Snapshot
from gate.snapshot.forked import Forked, Processes, forks
from gate.snapshot.jsonstream import WINDOW, FileRegion, separator, unindented
from gate.snapshot.stream import NotAccepted, Reading, read_more, read_part, snapshot_of

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
a recording has none to drop). Set so that the two processes meet, on the large case, in
the middle of the pieces either may take (:data:`MIDDLE`)."""
_CUT_ARRAYS = {"items": "items", "nodes": "pods"}
"""Where a cut is looked for: a List's items, by the bytes between its first two; a
recording's pods, by the bytes between its first two nodes (its writer lays out every
array alike, and the cut is proven anyway). Only a List's items are cut into pieces too:
they are nearly the whole file, where a recording's other arrays follow its pods, and a
piece past their end would leave the file to one reader (a recording is read in a tenth
of a List's time, so a fixed cut costs little there)."""
MIDDLE = 0.16
"""The share of the file, centred on :func:`first_share`'s, cut into pieces either process
takes: on the large case the parts' ends moved by up to a twentieth of the file's reading
from one run to the next."""
PIECES = 32
"""How many pieces the middle is cut into: a two-hundredth of the file each, 0.03 s of
reading on the large case (the most the two processes' ends can then be apart)."""
RESERVE = 6
"""The pieces the second process leaves to this one: joining and handing its readings over
takes it longer than this one takes to build its own pods meanwhile (traced on the large
case, 0.15-0.2 s against 0.06 s; six pieces are about 0.12 s of this one's reading)."""
_HEAD = 1 << 20  # the List's first two items start within it: a Node is tens of kilobytes
_SEARCHED = 64 << 20  # where the items' separator is looked for, from each cut's share on
_CHUNK = 64 << 10


@dataclass(frozen=True, slots=True)
class Cut:
    """The comma at ``offset`` parts two elements of the top-level array ``key``."""

    key: str
    offset: int


@dataclass(frozen=True, slots=True)
class Cuts:
    """The commas at ``offsets`` (ascending) part elements of the top-level array ``key``:
    this process reads the file up to the first, the second from the last on, and the
    :attr:`pieces` between two consecutive ones are taken by either."""

    key: str
    offsets: tuple[int, ...]

    @property
    def pieces(self) -> int:
        return len(self.offsets) - 1

    @property
    def first(self) -> Cut:
        return Cut(self.key, self.offsets[0])

    @property
    def last(self) -> Cut:
        return Cut(self.key, self.offsets[-1])


def first_part(handle: BinaryIO, cut: Cut) -> FileRegion:
    """The items before the cut, as a snapshot of their own (with the members before them)."""
    return FileRegion(handle, 0, cut.offset, b"", b"]}")


def rest_part(handle: BinaryIO, cut: Cut) -> FileRegion:
    """The items after the cut, as a snapshot of their own (with the members after them)."""
    return FileRegion(handle, cut.offset + 1, None, _opening(cut.key), b"")


def piece(handle: BinaryIO, cuts: Cuts, index: int) -> FileRegion:
    """The items between the cuts ``index`` and ``index + 1``, as a snapshot whose only
    member is their array."""
    start, end = cuts.offsets[index], cuts.offsets[index + 1]
    return FileRegion(handle, start + 1, end, _opening(cuts.key), b"]}")


def _opening(key: str) -> bytes:
    return b"{" + json.dumps(key).encode() + b":["


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
    cuts = cuts_at(handle, size, share, 0.0, 0)
    return None if cuts is None else cuts.first


def cuts_at(
    handle: BinaryIO,
    size: int,
    share: Callable[[str], float],
    middle: float = MIDDLE,
    pieces: int = PIECES,
) -> Cuts | None:
    """Where the file is cut: the commas between two elements of the array found, at or
    after ``pieces + 1`` shares of the file evenly apart across ``middle``, centred on the
    ``share`` that array's name gives (fewer where an element spans two of them, or the
    array ends before the last)."""
    handle.seek(0)
    learned = separator(handle.read(_HEAD), _CUT_ARRAYS)
    if learned is None:
        return None
    key, elements = _CUT_ARRAYS[learned[0]], learned[1]
    centre = share(key)
    if key != "items":  # see _CUT_ARRAYS
        middle, pieces = 0.0, 0
    low, high = max(0.0, centre - middle / 2), min(1.0, centre + middle / 2)
    offsets: list[int] = []
    for index in range(pieces + 1):
        start = int(size * (low + (high - low) * index / max(pieces, 1)))
        if offsets and start <= offsets[-1]:  # an element spans this share and the last
            continue
        found = _comma_from(handle, start, elements)
        if found is None:  # the array ends before it (or its elements are laid out apart)
            break
        offsets.append(found)
    return Cuts(key, tuple(offsets)) if offsets else None


def _comma_from(handle: BinaryIO, start: int, elements: bytes) -> int | None:
    """The comma of the first ``elements`` separator at or after ``start``, if any is
    within :data:`_SEARCHED` of it."""
    handle.seek(start)
    tail, position = b"", start  # the file's bytes from ``position`` on, not yet searched
    while position - start < _SEARCHED:
        chunk = handle.read(_CHUNK)
        if not chunk:
            return None
        text = tail + chunk
        found = text.find(elements)
        if found >= 0:
            return position + found + elements.index(b",")
        kept = min(len(elements) - 1, len(text))  # the separator may straddle two chunks
        position += len(text) - kept
        tail = text[len(text) - kept :]
    return None


_STATE = struct.Struct("=ii")
_WAIT = 0.2  # seconds: how long a process waits for the token before it asks if the other lives


class Claims:
    """Which of the middle pieces are still to be read, shared by this process and the one
    forked next: this one takes them from the front, so that its own are consecutive, the
    other from the back. A piece is taken under a token, a byte in a pipe that only the
    process taking holds; neither waits on the other once it has stopped."""

    def __init__(self, pieces: int) -> None:
        self._state = mmap.mmap(-1, _STATE.size)  # shared: an anonymous map survives a fork
        _STATE.pack_into(self._state, 0, 0, pieces)
        self._taken, self._given = os.pipe()
        os.set_blocking(self._taken, False)  # two may wait for one byte: neither hangs
        os.write(self._given, b".")

    def front(self, other_lives: Callable[[], bool]) -> int | None:
        """The first piece not yet taken, now this process's; None when there is none."""
        return self._take(0, other_lives, from_front=True)

    def back(self, reserve: int, other_lives: Callable[[], bool]) -> int | None:
        """The last piece not yet taken while more than ``reserve`` are; None then."""
        return self._take(reserve, other_lives, from_front=False)

    def _take(self, reserve: int, other_lives: Callable[[], bool], from_front: bool) -> int | None:
        while True:
            try:
                if os.read(self._taken, 1):
                    break
                return None  # no process holds the token any more
            except BlockingIOError:  # the other took it first
                pass
            waiting = select.poll()  # a second reader runs only where there is fork and poll
            waiting.register(self._taken, select.POLLIN)
            if not waiting.poll(_WAIT * 1000) and not other_lives():
                return None  # it died holding the token: its reading fails anyway
        try:
            first: int
            last: int
            first, last = _STATE.unpack_from(self._state)
            if last - first <= reserve:
                return None
            if from_front:
                _STATE.pack_into(self._state, 0, first + 1, last)
                return first
            _STATE.pack_into(self._state, 0, first, last - 1)
            return last - 1
        finally:
            os.write(self._given, b".")

    def close(self) -> None:
        if not self._state.closed:
            for end in (self._taken, self._given):
                os.close(end)
            self._state.close()


class SecondReader:
    """A forked process reading the items after the cuts while this one does other work;
    :meth:`snapshot` reads the items before them, and the two share the pieces between
    them (:class:`Claims`), then it joins the readings. Closed (the process stopped if still
    running) by :meth:`close`, whatever happened."""

    def __init__(self, path: str, cuts: Cuts, size: int, window: int) -> None:
        self._path, self._cuts, self._size, self._window = path, cuts, size, window
        self._claims = claims = Claims(cuts.pieces)
        first = os.getpid()
        try:
            self._rest = Forked(lambda: _read_rest(path, cuts, window, claims, first))
        except BaseException:
            claims.close()
            raise

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
        middle: float = MIDDLE,
        pieces: int = PIECES,
    ) -> SecondReader | None:
        """The second reader of the snapshot file at ``path``; None when it is not read so
        (not a regular file, too small, not a List or recording whose items a cut could be
        found between, or no fork here for a run that may use ``processes``): the caller
        reads it whole. OSError when the file cannot be read. ``meanwhile`` is how many
        bytes of YAML this process reads before its part (:func:`first_share`), unless
        ``share`` says where the two are expected to meet; ``middle`` and ``pieces`` how
        the stretch around it is cut (:func:`cuts_at`)."""
        # Looked at before it is opened: a pipe (``--snapshot <(kubectl ...)``) is read
        # once, by one reader; opening it here would take its writer's first bytes away.
        found = os.stat(path)
        size = found.st_size
        if not stat.S_ISREG(found.st_mode):
            return None
        if size < (SPLIT_FROM if split_from is None else split_from) or not forks(processes):
            return None
        with open(path, "rb") as handle:
            cuts = cuts_at(
                handle,
                size,
                lambda key: first_share(key, size, meanwhile) if share is None else share,
                middle,
                pieces,
            )
        return None if cuts is None else cls(path, cuts, size, window)

    def snapshot(self, source: str, on_read: Callable[[int], None]) -> Snapshot | None:
        """The whole file's snapshot; None when a part did not read as one (no verdict on
        the file: only a whole reading is), and the caller reads it whole."""
        cuts, key = self._cuts, self._cuts.key
        try:
            with open(self._path, "rb") as handle:
                first = read_part(first_part(handle, cuts.first), on_read, self._window)
                end = cuts.offsets[0]
                while (index := self._claims.front(self._rest.running)) is not None:
                    read_more(first, piece(handle, cuts, index), key, on_read, self._window)
                    end = cuts.offsets[index + 1]
            first.build_pods()  # while the second process may still be reading
            later = self._rest.value()
            if later is None:
                return None
            on_read(self._size - end)
            return snapshot_of(
                reduce(lambda whole, part: whole.joined(part, key), later, first), source
            )
        except (NotAccepted, OSError):
            return None
        finally:
            self.close()

    def close(self) -> None:
        self._rest.close()
        self._claims.close()


def _read_rest(path: str, cuts: Cuts, window: int, claims: Claims, first: int) -> list[Reading]:
    """The second process: the items after the last cut and the rest of the object, then
    the pieces it takes, each read as a snapshot of its own (raising when any did not read
    as one), to hand over in file order. ``first``: the first process's id."""
    key = cuts.key
    with open(path, "rb") as handle:
        rest = read_part(rest_part(handle, cuts.last), lambda n: None, window)
        # Decoded while the first process still reads: its hand-over, which the first
        # waits for, would decode them otherwise.
        rest.decode_mounts()
        taken = []  # from the back: the last piece first
        while (index := claims.back(RESERVE, lambda: os.getppid() == first)) is not None:
            taken.append(read_more(rest.sharing(key), piece(handle, cuts, index), key))
    # The pieces joined here, where they are small: each holds the texts of its own
    # templates and parts, and twelve pieces handed over apart took 7 MB more to send.
    pieces = (
        [reduce(lambda whole, later: whole.joined(later, key), reversed(taken))] if taken else []
    )
    return [reading.handed_over() for reading in (*pieces, rest)]
