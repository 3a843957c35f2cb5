"""Objects kept as their JSON texts and decoded when read: a snapshot's volumes, claims and
CSINodes.

A 5,000-node cluster with a claim per StatefulSet pod records tens of thousands of
PersistentVolumes, PersistentVolumeClaims and CSINodes. Decoded, each is a tree of dicts
and strings of a few kilobytes; as compact JSON text, a few hundred bytes. The volume
plugins read a few of them per pod, so :class:`EncodedObjects` keeps the texts and decodes an
object when it is asked for (msgspec: a few microseconds), keeping the last hundred or so
it decoded, since a filter asks the same volume of node after node.

A decoded object is what ``json.loads`` makes of the text, as the readers built it before
they kept texts: msgspec decodes JSON to the same values (integers of any size, floats
correctly rounded, the last of a repeated key), and where it refuses what ``json.loads``
takes (a number beyond a float's range, a surrogate spelled in UTF-8), ``json.loads``
decodes it. A text is kept only when ``json.loads`` would decode it anywhere the plugins
read it (:func:`deferred`); any other is decoded at once, as before, and kept decoded.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, Generic, TypeVar

import msgspec

PlainObject = Mapping[str, Any]
K = TypeVar("K", bound=Hashable)

RECENT = 128
"""How many decoded objects a mapping keeps: more than one pod's claims and volumes, and
the nodes a filter asks a volume of are asked one after the other."""
_SHALLOW = 100
"""The most brackets a kept text may open: decoding it can never reach the recursion limit,
however deep in the run it is read."""
_PLAIN = msgspec.json.Decoder()
_ABSENT: Any = object()


def deferred(text: bytes) -> bytes | PlainObject:
    """``text`` when decoding it may wait until it is read, else the object ``json.loads``
    decodes from it now (raising its ValueError as it would have raised then): a text that
    is not UTF-8 as ``json.loads`` reads it, nests deeply, or may hold an integer longer
    than Python converts (``sys.get_int_max_str_digits``)."""
    if _decodable(text):
        return text
    decoded: PlainObject = json.loads(text)
    return decoded


def _decodable(text: bytes) -> bool:
    if text.count(b"{") + text.count(b"[") > _SHALLOW:
        return False
    if not text.isascii():
        try:
            text.decode("utf-8", "surrogatepass")  # as json.loads decodes bytes
        except UnicodeDecodeError:
            return False
    digits = sys.get_int_max_str_digits()
    return not digits or len(text) <= digits or _long_number(digits).search(text) is None


def _long_number(digits: int) -> re.Pattern[bytes]:
    return re.compile(rb"[0-9]{%d}" % (digits + 1))


def decoded(text: bytes) -> PlainObject:
    """The object a kept text holds, as ``json.loads`` decodes it (module doc)."""
    try:
        value: PlainObject = _PLAIN.decode(text)
    except msgspec.DecodeError:
        value = json.loads(text)
    return value


def compact(text: bytes | memoryview) -> bytes:
    """An object's JSON text without the whitespace between its tokens (a kubectl List
    indents every line); its strings and numbers are left as written."""
    formatted = msgspec.json.format(text, indent=-1)
    # Copied: the text msgspec returns keeps the room it wrote the indented input into
    # (1,065 bytes held for a 737-byte volume).
    return bytes(memoryview(formatted))


class EncodedObjects(Mapping[K, PlainObject], Generic[K]):
    """Objects by key, kept as their texts (or, where :func:`deferred` says, decoded) and
    decoded when read, in the order they were given; ``changed`` replaces or adds objects
    as ``{**objects, **changed}`` would (:func:`with_objects`), without decoding the rest."""

    __slots__ = ("_changed", "_decode", "_entries", "_keep", "_length", "_recent")

    def __init__(
        self,
        entries: Mapping[K, bytes | PlainObject],
        changed: Mapping[K, PlainObject] | None = None,
        recent: dict[K, PlainObject] | None = None,
        decode: Callable[[bytes], PlainObject] = decoded,
        keep: int = RECENT,
    ) -> None:
        """``keep``: how many decoded objects to keep (:data:`RECENT`; none for a reader
        that reads each object once)."""
        self._entries = entries
        self._decode = decode
        self._keep = keep
        self._changed: Mapping[K, PlainObject] = changed or {}
        self._recent: dict[K, PlainObject] = {} if recent is None else recent
        self._length = len(entries) + sum(1 for k in self._changed if k not in entries)

    def __getitem__(self, key: K) -> PlainObject:
        found: PlainObject = self.get(key, _ABSENT)
        if found is _ABSENT:
            raise KeyError(key)
        return found

    def get(self, key: K, default: Any = None) -> Any:
        # Mapping.get asks __getitem__ and catches its KeyError: a missing claim is common.
        # No entry is None: an object, or the text of one.
        found = self._changed.get(key)
        if found is not None:
            return found
        found = self._recent.get(key)
        if found is not None:
            return found
        entry = self._entries.get(key)
        return default if entry is None else self._read(key, entry)

    def _read(self, key: K, entry: bytes | PlainObject) -> PlainObject:
        if not isinstance(entry, bytes):
            return entry
        found = self._decode(entry)
        if self._keep:
            recent = self._recent
            recent[key] = found
            if len(recent) > self._keep:
                del recent[next(iter(recent))]
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._changed or key in self._entries

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[K]:
        yield from self._entries
        yield from (k for k in self._changed if k not in self._entries)

    def __eq__(self, other: object) -> bool:
        # Two views of one snapshot's texts with the same objects laid over them are equal
        # without decoding every object (what Mapping's comparison does).
        if (
            isinstance(other, EncodedObjects)
            and other._entries is self._entries
            and other._decode is self._decode
            and other._changed == self._changed
        ):
            return True
        return super().__eq__(other)

    def with_changed(self, changed: Mapping[K, PlainObject]) -> EncodedObjects[K]:
        """These objects with ``changed``'s replacing or added; the texts and the decoded
        objects are shared."""
        return EncodedObjects(
            self._entries, {**self._changed, **changed}, self._recent, self._decode, self._keep
        )

    def read_by(self, decode: Callable[[bytes], PlainObject]) -> EncodedObjects[K]:
        """These objects with each kept text read by ``decode`` whenever it is asked for,
        none kept (a reader that reads only part of them, each once, decodes only that
        part); the objects laid over them are read whole."""
        return EncodedObjects(self._entries, self._changed, None, decode, 0)

    def holding(self, spelled: tuple[bytes, ...]) -> Iterator[PlainObject]:
        """:func:`holding`, its strings ``spelled`` once (a cluster's 20,000 volumes are
        searched): an object may hold one only where its text spells it, or escapes
        anything (a changed object, or one kept decoded, is always read)."""
        changed = self._changed
        first, more = (spelled[0], spelled[1:]) if spelled else (b"\\", ())  # none: no text
        for key, entry in self._entries.items():
            if (
                isinstance(entry, bytes)
                and first not in entry
                and b"\\" not in entry
                and not (more and any(text in entry for text in more))
                and key not in changed
            ):
                continue
            yield self[key]
        for key, value in changed.items():
            if key not in self._entries:
                yield value


def with_objects(
    objects: Mapping[K, PlainObject], changed: Mapping[K, PlainObject]
) -> Mapping[K, PlainObject]:
    """``{**objects, **changed}``, without decoding ``objects`` when they are kept encoded."""
    if isinstance(objects, EncodedObjects):
        return objects.with_changed(changed)
    return {**objects, **changed}


def holding(objects: Mapping[K, PlainObject], *strings: str) -> Iterator[PlainObject]:
    """``objects``' values in order, but those that certainly hold none of ``strings`` as a
    whole JSON string (:meth:`EncodedObjects.holding`): a search for an object with such a
    value reads only these, and finds what it finds among all of them."""
    if not isinstance(objects, EncodedObjects):
        yield from objects.values()
        return
    yield from objects.holding(_spelled(strings))


def _spelled(strings: tuple[str, ...]) -> tuple[bytes, ...]:
    """``strings`` as whole JSON strings spell them without escapes."""
    return tuple(b'"' + s.encode() + b'"' for s in strings)
