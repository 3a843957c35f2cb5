"""A JSON object too large to hold, read as its members: small values whole, arrays in
batches of elements, with no more than a window of the file in memory.

A 5,000-node cluster's ``kubectl get nodes,pods -A -o json`` is ~2.5 GB: read whole, the
bytes alone exceed what a CI runner should spend. The top-level object is walked here;
each array member is cut into batches of whole elements that a decoder takes in one call.

Cutting is guessed, then proven. The exact bytes between the array's first two elements
(``},\n        {\n            "apiVersion"`` in kubectl's output) are searched for from the
end of a window: in practice they occur only between elements. The decoder proves the guess:
a batch cut inside an element does not decode, and an earlier guess is tried. A batch that
decodes up to a ``]`` and has bytes after it has found the array's end (JSON's grammar
allows no other reading). Values that are not arrays, and an array's elements when no guess
holds, are found by an exact scan that skips strings; it costs Python time per bracket, so
it is kept to a few elements.
"""

from __future__ import annotations

import io
import mmap
import os
import re
import stat
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import msgspec


def _compiled_part() -> Callable[[bytes | memoryview], bytes] | None:
    try:
        from gate.snapshot._indentation import unindented as found
    except ImportError:  # installed without a C compiler: texts are decoded as written
        return None
    return found


unindented = _compiled_part()
"""The compiled part that drops a text's indentation (``_indentation.c``), if installed."""

# A window the size of a core's L2 cache, each batch decoded from one: with 8 MiB windows,
# reading a 2.4 GB List took a third more CPU time when they were copied, and more than
# that when they were mapped.
WINDOW = 1 << 20
_MAX_GUESSES = 4
MAX_VALUE = 8 << 20
"""The longest single value read (an object of an array, a member of the envelope): the API
server holds no object larger than etcd's 1.5 MiB request, and a value that spans many
windows was scanned again from its start at each: a 30 MB label took 3.6 GB and 18 s."""


class TooLong(Exception):
    """A value longer than :data:`MAX_VALUE`; the message names the member."""


_SPACE = re.compile(rb"[ \t\n\r]*")
_KEY = re.compile(rb'"((?:[^"\\]|\\.)*)"[ \t\n\r]*:[ \t\n\r]*', re.DOTALL)
# A whole string, a bracket, or a quote whose string runs past the bytes at hand.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|"', re.DOTALL)
"""A whole string (the loop unrolled: a run of plain bytes at a time, where one
alternation a byte took the regex engine a frame per byte), a bracket, or a string's
opening quote without its end."""
_SCALAR_END = re.compile(rb"[,\]} \t\n\r]")
_FIRST_KEY = re.compile(rb'\{[ \t\n\r]*"(?:[^"\\]|\\.)*"', re.DOTALL)
_TRAILING = re.compile(r"trailing characters \(byte (\d+)\)")
_OPEN, _CLOSE = ord("["), ord("]")


class StreamError(ValueError):
    """The bytes are not a JSON object (or not one this reader can walk)."""


@dataclass(frozen=True, slots=True)
class Value:
    """A member that is not an array, as its JSON text."""

    key: str
    text: bytes


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive elements of an array member, decoded. ``elements`` is their text
    between the array's brackets, a view of the window they were decoded from: nearly
    every batch is only decoded, so its text is copied only when asked for."""

    key: str
    items: list[Any]
    elements: memoryview
    first: bool = False

    @property
    def text(self) -> bytes:
        """The elements as a JSON array."""
        return b"[" + bytes(self.elements) + b"]"


Member = Value | Batch
Decoders = Callable[[str], "msgspec.json.Decoder[list[Any]]"]
"""The decoder for an array member's elements, by member name. Its ValidationError (a
well-formed element of the wrong shape) propagates to the caller of :func:`members`."""


@dataclass(frozen=True, slots=True)
class FileRegion:
    """Bytes ``start`` to ``end`` (None: the end the file has now) of an open regular file,
    after ``prefix`` and before ``suffix``: the text a reader reads, the file's bytes mapped
    into memory rather than copied out of it (reading a 2.4 GB List took 8% less CPU so).

    A mapped file that shrinks while it is read stops the process (SIGBUS) where a read
    would end early: a snapshot file is written before it is checked."""

    handle: BinaryIO
    start: int
    end: int | None = None
    prefix: bytes = b""
    suffix: bytes = b""

    @classmethod
    def of(cls, stream: BinaryIO) -> FileRegion | None:
        """The rest of ``stream`` from where it stands, when it is a regular file; None
        for anything else (a pipe, bytes in memory), which is read as a stream."""
        try:
            regular = stat.S_ISREG(os.fstat(stream.fileno()).st_mode) and stream.seekable()
            return cls(stream, stream.tell()) if regular else None
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            return None


Window = bytearray | mmap.mmap
"""The bytes a :class:`_Buffer` holds: read into memory, or mapped (:class:`FileRegion`)."""


class _Buffer:
    """A window of the file, with the byte before ``pos`` always there: a batch is decoded
    in place by writing its brackets over the bytes around it (the consumed byte before
    it, the separator byte after it, which is put back), so the window is never copied
    into a batch's text. A regular file is mapped, window by window, privately (the
    brackets written never reach it); a stream is read, each fill into a new
    ``bytearray`` holding the unread bytes and the next chunk. A window is never changed
    once made but for those brackets: decoded values (``msgspec.Raw``) may still view it,
    and keep it."""

    def __init__(
        self, stream: BinaryIO | FileRegion, window: int, on_read: Callable[[int], None]
    ) -> None:
        self._region = stream if isinstance(stream, FileRegion) else FileRegion.of(stream)
        self._stream = stream.handle if isinstance(stream, FileRegion) else stream
        self._window = window
        self._on_read = on_read
        self.data: Window = bytearray(b" ")
        self.pos = 1
        self.eof = False
        self._base = -1  # where ``data`` starts in the text (``-1``: the space before it)
        self._end = 0  # where the region ends in the file, when mapped
        self._length = 0  # the text's length, when mapped
        if self._region is not None:
            region = self._region
            try:
                size = os.fstat(region.handle.fileno()).st_size
            except OSError:
                self._region = None
            else:
                self._end = max(region.start, size if region.end is None else min(region.end, size))
                inner = self._end - region.start
                self._length = len(region.prefix) + inner + len(region.suffix)

    def fill(self, wanted: int) -> bool:
        """At least ``wanted`` bytes from ``pos`` unless the file ends; False at the end."""
        kept = len(self.data) - self.pos
        if kept >= wanted or self.eof:
            return kept >= wanted
        size = max(wanted, self._window)
        if self._region is not None:
            return self._map(kept, size, wanted)
        fresh = bytearray(1 + kept + size)
        fresh[1 : 1 + kept] = memoryview(self.data)[self.pos :]
        read = 0
        with memoryview(fresh) as view:
            while read < size:
                got = self._stream.readinto(view[1 + kept + read :])  # type: ignore[attr-defined]
                if not got:
                    break
                read += got
        self._on_read(read)
        self.eof = read < size
        if self.eof:
            del fresh[1 + kept + read :]
        self.data = fresh
        self.pos = 1
        return kept + read >= wanted

    def _map(self, kept: int, size: int, wanted: int) -> bool:
        """The window from the byte before ``pos`` through ``size`` bytes past the kept
        ones: the file's bytes mapped where the window lies inside them, else (the
        region's first and last windows, with its prefix or suffix) copied."""
        assert self._region is not None
        region, before = self._region, self._base + self.pos - 1  # the byte before ``pos``
        stop = min(self._length, before + 1 + kept + size)
        mapped_to = self._base + len(self.data)
        inner, first = len(region.prefix), len(region.prefix) - region.start
        mapped = None
        if before >= inner and stop <= first + self._end:
            offset = before - first  # in the file
            aligned = offset - offset % mmap.ALLOCATIONGRANULARITY
            mapped = self._mapped(aligned, stop - first - aligned)
        if mapped is not None:
            self.data, self._base = mapped, aligned + first
        else:
            self.data, self._base = self._copied(before, stop), before
        self._on_read(max(0, stop - mapped_to))
        self.pos = before + 1 - self._base
        self.eof = stop >= self._length
        return len(self.data) - self.pos >= wanted

    def _mapped(self, offset: int, length: int) -> mmap.mmap | None:
        """The file's ``length`` bytes from ``offset``, mapped; None where the file
        system maps none (its windows are then copied)."""
        assert self._region is not None
        try:
            mapped = mmap.mmap(
                self._region.handle.fileno(), length, access=mmap.ACCESS_COPY, offset=offset
            )
        except (OSError, ValueError):
            return None
        if hasattr(mmap, "MADV_SEQUENTIAL"):
            mapped.madvise(mmap.MADV_SEQUENTIAL)
        return mapped

    def _copied(self, start: int, stop: int) -> bytearray:
        """The text's bytes ``start`` to ``stop`` (``-1``: a space before the text)."""
        assert self._region is not None
        region, first = self._region, len(self._region.prefix) - self._region.start
        pieces = [b" "] if start < 0 else []
        start = max(start, 0)
        pieces.append(region.prefix[start:stop])
        low, high = max(start, len(region.prefix)), min(stop, first + self._end)
        if low < high:
            pieces.append(_read_at(region.handle, low - first, high - low))
        tail = first + self._end
        pieces.append(region.suffix[max(0, start - tail) : max(0, stop - tail)])
        return bytearray(b"".join(pieces))

    def skip_space(self) -> None:
        while True:
            end = _SPACE.match(self.data, self.pos)
            self.pos = end.end() if end else self.pos
            if self.pos < len(self.data) or not self.fill(1):
                return

    def peek(self) -> bytes:
        self.skip_space()
        return bytes(self.data[self.pos : self.pos + 1])

    def expect(self, char: bytes) -> None:
        if self.peek() != char:
            raise StreamError(f"expected {char.decode()!r} at byte {self.offset}")
        self.pos += 1

    @property
    def offset(self) -> int:
        return self.pos  # relative to the window; enough to say where things went wrong

    def grow(self) -> bool:
        """Read further without dropping anything; False when nothing was left to read."""
        if self.eof:
            return False
        self.fill(len(self.data) - self.pos + self._window)
        return True


def _read_at(handle: BinaryIO, offset: int, length: int) -> bytes:
    """``length`` bytes of the file from ``offset`` (fewer at its end)."""
    if hasattr(os, "pread"):
        return os.pread(handle.fileno(), length, offset)
    handle.seek(offset)  # where there is no pread (Windows): only this reader moves it
    return handle.read(length)


def _value_end(data: bytes | Window, start: int) -> int | None:
    """Where the JSON value at ``start`` ends, or None if it runs past ``data``."""
    first = data[start : start + 1]
    if first == b'"':
        match = _TOKEN.match(data, start)
        return match.end() if match and match.end() > start + 1 else None
    if first not in (b"{", b"["):
        found = _SCALAR_END.search(data, start)
        return found.start() if found else None
    depth = 0
    for token in _TOKEN.finditer(data, start):
        char = token.group()
        if char == b'"':  # a string not ended yet: its brackets are not structure
            return None
        if char in (b"{", b"["):
            depth += 1
        elif char in (b"}", b"]"):
            depth -= 1
            if depth == 0:
                return token.end()
    return None


def _whole_value(buffer: _Buffer) -> bytes:
    buffer.skip_space()
    while True:
        end = _value_end(buffer.data, buffer.pos)
        if end is not None and (end < len(buffer.data) or buffer.eof):
            text = bytes(buffer.data[buffer.pos : end])
            buffer.pos = end
            return text
        _bounded(buffer)
        if not buffer.grow():
            raise StreamError("the file ends inside a value")


def members(
    stream: BinaryIO | FileRegion,
    decoders: Decoders,
    window: int = WINDOW,
    on_read: Callable[[int], None] = lambda n: None,
) -> Iterator[Member]:
    """The members of the JSON object ``stream`` holds, in file order."""
    buffer = _Buffer(stream, window, on_read)
    buffer.expect(b"{")
    if buffer.peek() == b"}":
        buffer.pos += 1
        _trailing(buffer)
        return
    while True:
        buffer.fill(4096)
        buffer.skip_space()
        key = _KEY.match(buffer.data, buffer.pos)
        if key is None:
            raise StreamError("expected a member name")
        name = key.group(1).decode("utf-8", "surrogateescape")
        buffer.pos = key.end()
        try:
            if buffer.peek() == b"[":
                yield from _array(buffer, name, decoders(name))
            else:
                yield Value(name, _whole_value(buffer))
        except TooLong as exc:
            raise TooLong(f"{name[:60]}: {exc}") from None
        if buffer.peek() == b"}":
            buffer.pos += 1
            _trailing(buffer)
            return
        buffer.expect(b",")


def separator(head: bytes, names: Collection[str]) -> tuple[str, bytes] | None:
    """The first top-level array of ``names`` that ``head``, a file's first bytes, holds
    the first two elements of, and the bytes between them (see :func:`members`). Where
    they occur again the array goes on (a guess, as ever: a reader that relies on it
    proves it by decoding).

    >>> separator(b'{"a": 1, "items": [{"k": 1}, {"k": 2}]}', ["items"])
    ('items', b'}, {"k"')
    """
    buffer = _Buffer(io.BytesIO(head), len(head) or 1, lambda n: None)
    try:
        buffer.expect(b"{")
        while buffer.fill(1):
            buffer.skip_space()
            found = _KEY.match(buffer.data, buffer.pos)
            if found is None:
                return None
            buffer.pos = found.end()
            name = found.group(1).decode("utf-8", "surrogateescape")
            if name in names and buffer.peek() == b"[":
                buffer.pos += 1
                buffer.skip_space()
                elements = _separator(buffer)
                return None if elements is None else (name, elements)
            _whole_value(buffer)
            buffer.expect(b",")
    except StreamError:
        return None
    return None


def _trailing(buffer: _Buffer) -> None:
    if buffer.peek():
        raise StreamError("data after the top-level object")


def _array(buffer: _Buffer, key: str, decoder: msgspec.json.Decoder[list[Any]]) -> Iterator[Batch]:
    buffer.expect(b"[")
    if buffer.peek() == b"]":
        buffer.pos += 1
        yield Batch(key, [], memoryview(b""), first=True)  # an empty array is still a member
        return
    separator = _separator(buffer)
    first = True
    while True:
        buffer.fill(buffer._window)
        buffer.skip_space()
        found = _guessed_batch(buffer, separator, decoder) if separator else None
        if found is None:
            end, closed = _exact_element(buffer)
            text = b"[" + buffer.data[buffer.pos : end] + b"]"
            found = end, closed, _decode(decoder, text), memoryview(text)[1:-1]
        end, closed, items, elements = found
        yield Batch(key, items, elements, first)
        first = False
        buffer.pos = end
        if closed:
            buffer.expect(b"]")
            return
        buffer.expect(b",")


def _separator(buffer: _Buffer) -> bytes | None:
    """The bytes from the first element's closing ``}`` through the second's first key."""
    while True:
        end = _value_end(buffer.data, buffer.pos)
        if end is not None:
            following = _SPACE.match(buffer.data, end)
            after = following.end() if following else end
            if buffer.data[after : after + 1] != b",":
                return None
            opening = _SPACE.match(buffer.data, after + 1)
            start = opening.end() if opening else after + 1
            key = _FIRST_KEY.match(buffer.data, start)
            return bytes(buffer.data[end - 1 : key.end()]) if key else None
        _bounded(buffer)
        if not buffer.grow():
            return None


def _bounded(buffer: _Buffer) -> None:
    """Past :data:`MAX_VALUE` unread in one value, :class:`TooLong`."""
    if len(buffer.data) - buffer.pos > MAX_VALUE:
        raise TooLong(
            f"a value longer than {MAX_VALUE >> 20} MiB: no object the API server holds is "
            "larger than 1.5 MiB"
        )


def _decode(decoder: msgspec.json.Decoder[list[Any]], text: bytes) -> list[Any]:
    try:
        return decoded(decoder, text)
    except msgspec.DecodeError as exc:
        raise StreamError(f"not JSON: {exc}") from None


def decoded(decoder: msgspec.json.Decoder[list[Any]], text: bytes | memoryview) -> list[Any]:
    """``decoder``'s values of ``text``, decoded without its indentation where the compiled
    part is installed: msgspec passes over a space at a time, and most of a kubectl List's
    bytes are indentation (a 2.4 GB List's pods decode in two thirds of the time without
    it). Its values are the text's own, and it decodes exactly when the text does (see
    ``_indentation.c``); a text that does not decode is decoded again as written, so an
    error, and the byte it names, is always the text's own."""
    if unindented is not None:
        try:
            return decoder.decode(unindented(text))
        except msgspec.DecodeError:
            pass
    return decoder.decode(text)


def _guessed_batch(
    buffer: _Buffer, separator: bytes, decoder: msgspec.json.Decoder[list[Any]]
) -> tuple[int, bool, list[Any], memoryview] | None:
    """The largest batch that a guessed cut gives and the decoder proves, if any: its end,
    whether the array closes there, the elements and their text. The batch is decoded
    where it lies, between brackets written over the consumed byte before it and the
    separator byte after it (put back at once)."""
    data, start = buffer.data, buffer.pos
    data[start - 1] = _OPEN
    limit = len(data)
    for _ in range(_MAX_GUESSES):
        cut = data.rfind(separator, start, limit)
        if cut < 0:
            return None
        after = data[cut + 1]
        data[cut + 1] = _CLOSE
        try:
            items = decoded(decoder, memoryview(data)[start - 1 : cut + 2])
            return cut + 1, False, items, memoryview(data)[start : cut + 1]
        except msgspec.DecodeError as exc:
            trailing = _TRAILING.search(str(exc))
            if trailing is not None:  # the array closed before the guess: decode up to it
                closed = _closed_batch(decoder, data, start, int(trailing.group(1)))
                if closed is not None:
                    return closed
        finally:
            data[cut + 1] = after
        limit = cut
    return None


def _closed_batch(
    decoder: msgspec.json.Decoder[list[Any]], data: Window, start: int, length: int
) -> tuple[int, bool, list[Any], memoryview] | None:
    """The batch from ``start`` up to the array's own ``]``: the last one at or before the
    byte the decoder reported, counted from the ``[`` written at ``start - 1``."""
    close = data.rfind(b"]", start - 1, start + length)
    if close < start:
        return None
    try:
        items = decoded(decoder, memoryview(data)[start - 1 : close + 1])
    except msgspec.DecodeError:
        return None
    return close, True, items, memoryview(data)[start:close]


def _exact_element(buffer: _Buffer) -> tuple[int, bool]:
    """One element found by the exact scan: its end, and whether the array closes after it."""
    while True:
        end = _value_end(buffer.data, buffer.pos)
        if end == buffer.pos:  # "[1,]": JSON has no empty element
            raise StreamError(f"expected a value at byte {buffer.offset}")
        if end is not None:
            rest = _SPACE.match(buffer.data, end)
            after = rest.end() if rest else end
            if after < len(buffer.data):
                return end, buffer.data[after : after + 1] == b"]"
        _bounded(buffer)
        if not buffer.grow():
            raise StreamError("the file ends inside an array")
