"""Files, directories and standard input -> :class:`~gate.model.Document`, each with its
file and first line.

Rendered manifests arrive as ``helm template``, ``kustomize build`` or ``flux build``
output, as trees of hand-written files or as ``kubectl get -o json`` Lists. Every report
points at ``file:line``, so every document keeps the line of its first content line, and
Helm's ``# Source:`` comment, when present, names the template it came from.

A broken document is a result, not a crash: it becomes a ``Document`` with ``error`` set
and every other document is still read. Only a missing PATH stops the run (``UsageError``),
because then the gate would silently check less than the user asked for.

YAML is composed by the loader (libyaml when available) and constructed as PyYAML's safe
constructor does (:mod:`gate.inputs.construct`), after the composed node graph has been measured:
aliases can make a small file expand into billions of nodes, and every later stage walks
the data.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import json
import os
import re
import stat
import sys
from bisect import bisect_right
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from gate.deadline import read_capped
from gate.errors import UsageError
from gate.inputs.construct import CachedCSafeLoader, CachedSafeLoader, construct_document
from gate.inputs.jsonwalk import STREAMED, OnItem, skip_space, walk_object
from gate.inputs.origins import with_origins
from gate.inputs.surrogates import may_hold_surrogates, replace_lone_surrogates
from gate.model import Document, Location, Source

STDIN_NAME = "<stdin>"
"""The display file name of ``-``."""

MAX_EXPANDED_NODES = 1_000_000
"""A document whose aliases expand to more YAML nodes than this is refused."""

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""What a directory walk takes (case-insensitively); a file named explicitly is always read."""

MAX_FILE_BYTES = 256 * 1024 * 1024
"""A file (or standard input) longer than this is one ERROR, not read further: rendered
manifests of a large monorepo are a few MB, and ``/dev/zero`` never ends."""


PRINTABLE = "\t\n -~\x85\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
"""The characters a manifest may hold, as a regular expression's character class: any
other makes its file one error."""
# [^PRINTABLE] written out as its complement: the same code points (a test compares every
# one), compiled at every start-up in a tenth of the time.
_NON_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\ufffe\uffff]")
_DOCUMENT_MARKERS = re.compile(
    r"^(?:(?:---|\.\.\.)(?=[ \t\n]|$)|#[ \t]*Source:[ \t]*(?P<source>[^\n]*?)[ \t]*$)",
    re.MULTILINE,
)


class Composer(Protocol):
    """The part of a PyYAML loader used here: composition only, never construction, so
    that only the safe constructor ever turns nodes into data."""

    def check_node(self) -> bool: ...

    def get_node(self) -> Node | None: ...

    def dispose(self) -> None: ...


LoaderFactory = Callable[[str], Composer]
"""``yaml.CSafeLoader`` or ``yaml.SafeLoader`` or a subclass (all compose line numbers
alike)."""


def default_loader() -> LoaderFactory:
    """libyaml's loader when PyYAML was built with it: the same nodes, many times faster."""
    if yaml.__with_libyaml__:
        return CachedCSafeLoader
    return CachedSafeLoader


# --------------------------------------------------------------------------- paths


def expand_paths(paths: Sequence[str]) -> list[str]:
    """Every file the PATHs name, in a deterministic order, as display paths.

    All paths are checked before anything is read, so a typo stops the run (exit 2)
    instead of quietly gating fewer manifests than intended.
    """
    return [path for path, _ in _expand(paths)]


def _expand(paths: Sequence[str]) -> list[tuple[str, bool]]:
    """:func:`expand_paths`, each path with whether a directory walk found it (then only a
    regular file is read: a named pipe would block, a device never end)."""
    expanded: list[tuple[str, bool]] = []
    for path in paths:
        if path == "-":
            expanded.append((path, False))
        elif os.path.isdir(path):
            expanded.extend((found, True) for found in _walk(path))
        elif os.path.exists(path):
            expanded.append((path, False))
        else:
            raise UsageError(f"{path}: no such file or directory")
    return expanded


def _walk(root: str) -> list[str]:
    """Manifest files under ``root``, sorted by relative path components.

    Hidden directories (``.git``, ``.github``...) and hidden files are skipped. A directory
    symlink that leads to a directory inside ``root`` is walked, each real directory once
    (a link cycle, or a link to a directory walked already, adds nothing); one that leads
    outside ``root`` is returned as an entry of its own, which reading skips saying so
    (:func:`_read_bytes`). A directory that cannot be listed is returned as an entry of
    its own, so that reading it reports the problem instead of silently dropping its
    manifests. The walk keeps its own stack (as deep a tree as paths allow walks like a
    flat one), and sorts like ``os.walk`` would list.
    """
    found: list[tuple[str, ...]] = []
    inside = os.path.realpath(root)
    walked = {_identity(root)}
    links: list[str] = []
    pending = [root]
    while pending or links:
        if not pending:  # the links last, in order: a real path walks its directory first
            links.sort(reverse=True)
            link = links.pop()
            identity = _identity(link)
            if identity in walked:
                continue
            if os.path.commonpath((inside, os.path.realpath(link))) != inside:
                found.append(_relative_parts(root, link))
                continue
            walked.add(identity)
            pending.append(link)
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    if _is_directory(entry):
                        if entry.is_symlink():
                            links.append(entry.path)
                        else:
                            walked.add(_identity(entry))
                            pending.append(entry.path)
                    elif entry.name.lower().endswith(MANIFEST_SUFFIXES):
                        found.append(_relative_parts(root, entry.path))
        except OSError:
            found.append(_relative_parts(root, directory))
    prefix = _display_prefix(root)
    return [prefix + "/".join(parts) if parts else root for parts in sorted(found)]


def _identity(place: str | os.DirEntry[str]) -> tuple[int, int]:
    """A directory's device and inode, following links: which real directory it is (a
    path's ``realpath`` would cost a lookup per component, per directory of a deep tree)."""
    try:
        found = place.stat() if isinstance(place, os.DirEntry) else os.stat(place)
    except OSError:
        return (-1, id(place))  # unlisted below, reported when read
    return (found.st_dev, found.st_ino)


def _is_directory(entry: os.DirEntry[str]) -> bool:
    """As ``os.walk`` tells a directory: following a link, and a failure saying no."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _relative_parts(root: str, path: str) -> tuple[str, ...]:
    relative = os.path.relpath(path, root)
    return () if relative == os.curdir else tuple(relative.split(os.sep))


def _display_prefix(root: str) -> str:
    """The user's spelling of ``root`` followed by ``/``; ``.`` alone gives bare relative
    paths, which is what annotations and reports of a default run should show."""
    if root in (".", "./"):
        return ""
    return root if root.endswith(("/", os.sep)) else root + "/"


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class PathSelection:
    """The files a run reads, each with whether a directory walk found it, and the walked
    files it leaves out, each with what left it out (a pattern, or the snapshot file)."""

    read: tuple[tuple[str, bool], ...]
    excluded: tuple[tuple[str, str], ...] = ()


def select_paths(
    paths: Sequence[str], leave_out: Callable[[str], str | None] | None = None
) -> PathSelection:
    """The expanded PATHs, but for the walked files ``leave_out`` names a reason for (see
    :mod:`gate.inputs.exclude`): a file named on the command line is always read."""
    read: list[tuple[str, bool]] = []
    excluded: list[tuple[str, str]] = []
    for path, walked in _expand(paths):
        why = leave_out(path) if walked and leave_out is not None else None
        if why is None:
            read.append((path, walked))
        else:
            excluded.append((display_path(path), why))
    return PathSelection(tuple(read), tuple(excluded))


def read_documents(
    paths: Sequence[str],
    stdin: BinaryIO,
    *,
    loader: LoaderFactory | None = None,
    leave_out: Callable[[str], str | None] | None = None,
    origin_root: str | None = None,
) -> Iterator[Document]:
    """The documents of every expanded path, in order, but for the walked files
    ``leave_out`` names (see :func:`select_paths`), each with its renderer's origin
    (:mod:`gate.inputs.origins`; ``origin_root`` is what kustomize's paths are relative to).

    Paths are expanded now (a missing path raises ``UsageError`` at the call); files are
    read lazily, one at a time, so memory holds one file, not the whole tree.
    """
    selection = select_paths(paths, leave_out)
    return read_selected(selection, stdin, loader=loader, origin_root=origin_root)


def read_selected(
    selection: PathSelection,
    stdin: BinaryIO,
    *,
    loader: LoaderFactory | None = None,
    origin_root: str | None = None,
) -> Iterator[Document]:
    """The documents of the files ``selection`` reads, lazily, in order."""
    return _read_all(list(selection.read), stdin, loader or default_loader(), origin_root)


def manifest_bytes(selection: PathSelection) -> int:
    """How many bytes of files :func:`read_selected` would read (standard input and what
    cannot be looked at count nothing): what reading them will take, roughly."""
    total = 0
    for path, _ in selection.read:
        if path != "-":
            with contextlib.suppress(OSError):
                total += os.stat(path).st_size
    return total


def _read_all(
    paths: list[tuple[str, bool]],
    stdin: BinaryIO,
    loader: LoaderFactory,
    origin_root: str | None = None,
) -> Iterator[Document]:
    for path, walked in paths:
        documents = _read_path(path, stdin, loader, regular_only=walked)
        yield from with_origins(documents, path == "-", origin_root)


def _read_path(
    path: str, stdin: BinaryIO, loader: LoaderFactory, *, regular_only: bool = False
) -> Iterator[Document]:
    """One file's documents; a file that cannot be read or decoded is one error document,
    and one that ``regular_only`` excludes is one skipped document."""
    name = STDIN_NAME if path == "-" else display_path(path)
    try:
        data = (
            read_capped(stdin.read, MAX_FILE_BYTES, _TooLarge)
            if path == "-"
            else _read_bytes(path, regular_only)
        )
    except _NotRegular as exc:
        yield Document(Location(name, 1), skipped=str(exc))
        return
    except _TooLarge:
        limit = MAX_FILE_BYTES // (1024 * 1024)
        yield Document(Location(name, 1), error=f"longer than {limit} MiB: not read")
        return
    except OSError as exc:
        yield Document(Location(name, 1), error=f"cannot read: {exc.strerror or exc}")
        return
    if path == "-" and not data.strip():
        # An empty pipe is a render step that failed (a shell without pipefail goes on),
        # not a pull request without workloads: a gate must not pass on it.
        reason = "standard input is empty: nothing to check (did the rendering command fail?)"
        yield Document(Location(name, 1), error=reason)
        return
    try:
        text = _normalise(_decode(data))
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        encoding = "UTF-16" if exc.encoding.startswith("utf-16") else "UTF-8"
        reason = f"not {encoding}: {exc.reason} at byte {exc.start} (line {line})"
        yield Document(Location(name, 1), error=reason)
        return
    if path != "-" and path.lower().endswith(".json"):
        yield from _json_documents(name, text)
    else:
        yield from _yaml_documents(name, text, loader)


def display_path(path: str) -> str:
    """The path as reports show it: bytes of a file name that are not UTF-8 (which Python
    carries as lone surrogates, and no report can hold) shown as U+FFFD."""
    return os.fsencode(path).decode("utf-8", "replace")


class _NotRegular(Exception):
    """A walked entry that is not a regular file; the message says what it is."""


class _TooLarge(Exception):
    """More than :data:`MAX_FILE_BYTES`."""


_FILE_TYPES = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _read_bytes(path: str, regular_only: bool = False) -> bytes:
    """The file's bytes. A directory here is one the walk could not list: listing it again
    raises the real reason (permission denied...). With ``regular_only``, anything but a
    regular file (a named pipe, a device, a socket, or a symbolic link to one) raises
    :class:`_NotRegular` without being read: it is checked before opening (opening a
    device can have effects of its own) and again on the opened file, opened without
    blocking, so that swapping the entry in between cannot make the read hang."""
    if os.path.isdir(path):
        os.listdir(path)
        if regular_only and os.path.islink(path):  # listed: the walk found it outside
            raise _NotRegular(
                f"a symbolic link to a directory outside the directory walked "
                f"({_shown_link(path)}): not followed"
            )
        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if regular_only:
        _check_regular(path, os.stat(path).st_mode)
        flags |= getattr(os, "O_NONBLOCK", 0)
    descriptor = os.open(path, flags)
    with open(descriptor, "rb") as stream:
        if regular_only:
            _check_regular(path, os.fstat(descriptor).st_mode)
        return read_capped(stream.read, MAX_FILE_BYTES, _TooLarge)


def _shown_link(path: str) -> str:
    """Where a symbolic link points, as written in it (cut to 200 characters)."""
    try:
        target = display_path(os.readlink(path))
    except OSError:
        return "unreadable"
    return target if len(target) <= 200 else target[:199] + "…"


def _check_regular(path: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    what = next((name for test, name in _FILE_TYPES if test(mode)), "not a regular file")
    if os.path.islink(path):
        what = f"a symbolic link to {what}"
    raise _NotRegular(f"{what}, not a regular file: a directory walk reads only files")


def _decode(data: bytes) -> str:
    """UTF-8 with or without a BOM; UTF-16 only when its BOM says so (Windows shells
    write redirected output that way), as the YAML specification allows."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


def _normalise(text: str) -> str:
    """LF line ends, so that line counting here agrees with both YAML loaders, and no BOM
    at the start of a line (files concatenated by a shell each bring their own)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\ufeff" in text:
        text = text.replace("\n\ufeff", "\n")
    return text


class _LineCounter:
    """Line numbers of increasing character offsets, counting each newline once per file."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._offset = 0
        self._line = 1

    def line_at(self, offset: int) -> int:
        if offset < self._offset:
            self._offset, self._line = 0, 1
        self._line += self._text.count("\n", self._offset, offset)
        self._offset = offset
        return self._line


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of one offset (used once per file at most)."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


# --------------------------------------------------------------------------- helm origins


@dataclass(frozen=True, slots=True)
class _Origins:
    """Helm's ``# Source:`` comments by line. A document marker (``---``/``...``) ends the
    reach of the comment before it, so a template that rendered empty does not lend its
    name to the next document."""

    lines: tuple[int, ...] = ()
    sources: tuple[str | None, ...] = ()

    def at(self, line: int) -> str | None:
        index = bisect_right(self.lines, line)
        return self.sources[index - 1] if index else None


def _origins(text: str) -> _Origins:
    """One pass over the marker and comment lines only (none at all without Helm)."""
    if "Source:" not in text:
        return _Origins()
    counter = _LineCounter(text)
    lines: list[int] = []
    sources: list[str | None] = []
    for match in _DOCUMENT_MARKERS.finditer(text):
        lines.append(counter.line_at(match.start()))
        sources.append(match.group("source") or None)
    return _Origins(tuple(lines), tuple(sources))


# --------------------------------------------------------------------------- YAML


def _yaml_documents(file: str, text: str, loader: LoaderFactory) -> Iterator[Document]:
    """Every document of one YAML stream. A syntax error costs its document: reading
    resumes at the next document marker (``---`` at the start of a line) after it, as a
    stream of rendered manifests is one document after another.

    The stream is read by one loader until its first error; from there on, each part from
    one marker to the next is read by a loader of its own, with its line numbers shifted
    to the file's. A ``---`` at the start of a line always starts a document (YAML allows
    it inside no scalar), so the parts hold the documents one loader would have read, and
    every character is read a bounded number of times: 20,000 broken documents cost what
    20,000 good ones do, not a re-read of the rest of the file after each.
    """
    bad = _NON_PRINTABLE.search(text)
    if bad:
        line, column = _line_column(text, bad.start())
        reason = f"unacceptable character #x{ord(bad.group()):04x} (line {line}, column {column})"
        yield Document(
            Location(file, line), error=f"{reason}: YAML allows printable characters only"
        )
        return
    origins = _origins(text)
    failed_line = yield from _stream_documents(file, text, 0, loader, origins)
    if failed_line is None:
        return
    start = _marker_from(text, _line_start(text, failed_line))
    if start == 0:  # the error is in the document the first marker starts
        start = _marker_from(text, 1)
    counter = _LineCounter(text)
    while start is not None:
        marker = _marker_from(text, start + 1)
        # The part reads on to the next marker itself, so that an error at the marker is
        # worded as one loader words it ("found '<document start>'"); the empty document
        # the marker then starts is no document at all.
        part = text[start:] if marker is None else text[start : marker + 3]
        yield from _stream_documents(file, part, counter.line_at(start) - 1, loader, origins)
        start = marker


def _stream_documents(
    file: str, text: str, base: int, loader: LoaderFactory, origins: _Origins
) -> Generator[Document, None, int | None]:
    """The documents of ``text`` (whose first line is line ``base + 1`` of the file) up to
    its end, or up to a syntax error, whose line it returns after yielding it as an error
    document."""
    # Without an anchor there is no alias, and a document is no larger than its text: the
    # walk that bounds what aliases expand to is only needed when "&" occurs at all.
    anchors = "&" in text
    composer = loader(text)
    read_to = base + 1
    try:
        while True:
            node, failure = _next_node(composer, base)
            if failure is not None:
                line, reason = failure
                line = line or read_to  # an error without a position: where reading stopped
                yield Document(Location(file, line, origins.at(line)), error=reason)
                return line
            if node is None:
                return None
            line = node.start_mark.line + 1 + base
            read_to = node.end_mark.line + 1 + base
            location = Location(file, line, origins.at(line))
            yield from _node_documents(location, node, anchors, base, text)
    finally:
        composer.dispose()


_MARKER = re.compile(r"^---(?=[ \t\n]|$)", re.MULTILINE)


def _line_start(text: str, line: int) -> int:
    """The offset where 1-based ``line`` starts (the end of the text past its last line)."""
    offset = 0
    for _ in range(line - 1):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset


def _marker_from(text: str, offset: int) -> int | None:
    found = _MARKER.search(text, offset)
    return found.start() if found else None


def _next_node(composer: Composer, base: int) -> tuple[Node | None, tuple[int, str] | None]:
    """The next composed document, or the line (0 if the error gives none) and reason
    that stopped the stream."""
    try:
        if not composer.check_node():
            return None, None
        return composer.get_node(), None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return None, (mark.line + 1 + base if mark else 0, _yaml_reason(exc, base))
    except yaml.YAMLError as exc:
        return None, (0, _one_line(str(exc)))
    except RecursionError:
        return None, (0, "YAML nested too deeply to read")


def _yaml_reason(exc: yaml.MarkedYAMLError, base: int = 0) -> str:
    """The parser's reason in one line, positions included (lines shifted by ``base``),
    without the file name (the caller prefixes ``file:line``)."""
    reason = exc.problem or exc.context or "invalid YAML"
    mark = exc.problem_mark or exc.context_mark
    if mark is not None:
        reason += f" (line {mark.line + 1 + base}, column {mark.column + 1})"
    if exc.problem and exc.context:
        context_mark = exc.context_mark
        where = f" at line {context_mark.line + 1 + base}" if context_mark is not None else ""
        reason += f" {exc.context}{where}"
    return _one_line(reason)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _node_documents(
    location: Location, node: Node, anchors: bool = True, base: int = 0, text: str = ""
) -> Iterator[Document]:
    """One composed document -> its Documents; a problem here costs only this document.
    ``base`` is the number of file lines before ``text``, the text the node was composed
    from (kept by reference, for the lines of fields asked for later)."""
    problem = _expansion_problem(node) if anchors else None
    if problem is not None:
        yield Document(location, error=problem)
        return
    try:
        body = construct_document(node, aliased=anchors)
    except yaml.MarkedYAMLError as exc:
        yield Document(location, error=_yaml_reason(exc, base))
        return
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        yield Document(location, error=f"cannot construct document: {_one_line(str(exc))}")
        return
    items = _list_items(body) if isinstance(body, dict) else None
    sources = None if items is None else _item_sources(node, len(items), base, text)
    lines = None if sources is None else [s.line for s in sources]
    source = _span(node, base, text) if text else None
    yield from _documents_from(location, body, lines, source, sources)


def bounded_yaml(text: str, loader: LoaderFactory | None = None) -> Any:
    """The one YAML document of ``text`` (None for none), read with the bounds a manifest
    gets: composed, measured through its aliases, then constructed by the safe
    constructor (a timestamp is its text). Any problem is a ``ValueError`` with the
    reason in one line (``line N: ...`` when the parser gives one)."""
    composer = (loader or default_loader())(_normalise(text))
    try:
        node, failure = _next_node(composer, 0)
        if failure is None and node is not None:
            extra, failure = _next_node(composer, 0)
            if failure is None and extra is not None:
                failure = (extra.start_mark.line + 1, "a second document: expected one")
    finally:
        composer.dispose()
    if failure is not None:
        line, reason = failure
        raise ValueError(f"line {line}: {reason}" if line and "(line" not in reason else reason)
    if node is None:
        return None
    problem = _expansion_problem(node)
    if problem is not None:
        raise ValueError(problem)
    try:
        return construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise ValueError(_yaml_reason(exc)) from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"cannot construct the document: {_one_line(str(exc))}") from None
    except RecursionError:
        raise ValueError("YAML nested too deeply to read") from None


def _expansion_problem(root: Node) -> str | None:
    """Why the document must not be constructed: its node graph, aliases expanded, is
    larger than ``MAX_EXPANDED_NODES``, or it contains itself."""
    size = _expanded_size(root)
    if size is None:
        return "document contains itself through a recursive alias"
    if size > MAX_EXPANDED_NODES:
        return (
            f"document expands to more than {MAX_EXPANDED_NODES:,} YAML nodes "
            "through aliases; refusing to load it"
        )
    return None


def _expanded_size(root: Node) -> int | None:
    """Nodes in the document once every alias is expanded; None if it contains itself.

    Sizes are memoised per collection node, so the cost is that of the composed graph
    (an alias bomb is small there), and the walk stops as soon as the limit is passed.
    It is iterative (a node stays on the stack, open, until its children are sized), so
    deep nesting cannot exhaust the interpreter's stack.
    """
    sizes: dict[int, int] = {}
    open_ids: set[int] = set()
    stack = [root]
    while stack:
        node = stack[-1]
        if id(node) in sizes or not isinstance(node.value, list):
            stack.pop()
            continue
        children = _children(node)
        if id(node) in open_ids:
            stack.pop()
            open_ids.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes.get(id(child), 1) for child in children)
            if sizes[id(node)] > MAX_EXPANDED_NODES:
                return sizes[id(node)]
            continue
        open_ids.add(id(node))
        for child in children:
            if isinstance(child.value, list) and id(child) not in sizes:
                if id(child) in open_ids:
                    return None
                stack.append(child)
    return sizes.get(id(root), 1)


def _children(node: Node) -> list[Node]:
    """A collection's child nodes (keys and values for a mapping); scalars hold a str."""
    if isinstance(node, MappingNode):
        return [child for pair in node.value for child in pair]
    return list(node.value)


def _span(node: Node, base: int, text: str) -> Source:
    start, end = node.start_mark, node.end_mark
    return Source(text, start.index, end.index, start.line + 1 + base, start.column)


def _item_sources(node: Node, count: int, base: int, text: str) -> list[Source] | None:
    """Where the ``items`` sequence entries of a composed List are, when they can be
    matched one to one with the constructed items (else each item gets the List's line)."""
    if not isinstance(node, MappingNode):
        return None
    found: list[Source] | None = None
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == "items":
            found = None
            if isinstance(value, SequenceNode) and len(value.value) == count:
                found = [_span(item, base, text) for item in value.value]
    return found


# --------------------------------------------------------------------------- JSON


def _json_documents(file: str, text: str) -> Iterator[Document]:
    """Every JSON value of a ``.json`` file (one, or several concatenated as ``jq``
    writes them). The top-level object is walked by hand so that List items keep their
    own lines; every value below it is decoded by the C decoder in one call."""
    counter = _LineCounter(text)
    offset = skip_space(text, 0)
    surrogates = may_hold_surrogates(text)
    while offset < len(text):
        try:
            body, item_offsets, end = _decode_json(text, offset)
        except json.JSONDecodeError as exc:
            reason = f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
            yield Document(Location(file, exc.lineno), error=reason)
            return
        except RecursionError:
            yield Document(Location(file, counter.line_at(offset)), error="JSON nested too deeply")
            return
        except ValueError:  # an integer past Python's digit limit: the only other one
            reason = f"a JSON number of more than {sys.get_int_max_str_digits():,} digits"
            yield Document(Location(file, counter.line_at(offset)), error=reason)
            return
        if surrogates:
            body = replace_lone_surrogates(body)
        location = Location(file, counter.line_at(offset))
        source = _json_source(text, offset, end, location.line)
        lines = None if item_offsets is None else [counter.line_at(i) for i in item_offsets]
        sources: list[Source | None] | None = None
        if item_offsets is not None and lines is not None:
            sources = [
                _json_source(text, i, -1, n) for i, n in zip(item_offsets, lines, strict=True)
            ]
        yield from _documents_from(location, body, lines, source, sources)
        offset = skip_space(text, end)


def _json_source(text: str, start: int, end: int, line: int) -> Source:
    return Source(text, start, end, line, start - text.rfind("\n", 0, start) - 1)


def _decode_json(text: str, offset: int) -> tuple[Any, list[int] | None, int]:
    """One JSON value at ``offset``: the value, the offsets of its ``items`` entries (for
    an object with an ``items`` array) and where it ends."""
    if not text.startswith("{", offset):
        value, end = json.JSONDecoder().raw_decode(text, offset)
        return value, None, end
    items: list[Any] = []
    offsets: list[int] = []

    def keep(item: Any, at: int) -> None:
        items.append(item)
        offsets.append(at)

    def start_items() -> OnItem:
        items.clear()  # a repeated name: the last one wins
        offsets.clear()
        return keep

    body, end = walk_object(text, offset, start_items)
    if body.get("items") is not STREAMED:
        return body, None, end
    body["items"] = items
    return body, offsets, end


# --------------------------------------------------------------------------- documents


def _documents_from(
    location: Location,
    body: Any,
    item_lines: Sequence[int] | None,
    source: Source | None = None,
    item_sources: Sequence[Source | None] | None = None,
) -> Iterator[Document]:
    """The Documents of one parsed value: nothing for an empty document, one per item for
    a List (``kind: List``, ``RoleList``...), else the value itself if it is a mapping.
    ``item_lines`` are the List items' own lines when the parser could tell them, and
    ``source``, ``item_sources`` where the value's and the items' text is."""
    if body is None:
        return
    if not isinstance(body, dict):
        yield Document(location, error=f"document is {_describe(body)}, not a mapping")
        return
    items = _list_items(body)
    note = snapshot_note(body, items)
    if note:
        yield Document(location, skipped=note)
        return
    problem = mixed_list_problem(body, items)
    if problem:
        yield Document(location, error=problem)
        return
    if items is None:
        yield Document(location, body=body, source=source)
        return
    if item_lines is None or len(item_lines) != len(items):
        item_lines = [location.line] * len(items)
    if item_sources is None or len(item_sources) != len(items):
        item_sources = [None] * len(items)
    for index, (item, line, place) in enumerate(zip(items, item_lines, item_sources, strict=True)):
        here = Location(location.file, line, location.origin)
        if isinstance(item, dict):
            yield Document(here, body=item, source=place)
        else:
            reason = f"{body['kind']} item {index} is {_describe(item)}, not a mapping"
            yield Document(here, error=reason)


_SNAPSHOT_KINDS = frozenset(
    {
        "Node",
        "Pod",
        "Namespace",
        "LimitRange",
        "RuntimeClass",
        "PriorityClass",
        "ResourceQuota",
        "PodDisruptionBudget",
    }
)
"""The kinds a cluster snapshot holds (what ``kubectl get nodes,pods ... -o json`` lists)."""


def snapshot_note(body: dict[Any, Any], items: list[Any] | None) -> str | None:
    """Why a document is a cluster snapshot rather than manifests, or None.

    A snapshot kept beside the manifests (the default PATH is ``.``) must not have its
    pods checked as workloads: fitgate's own ``ClusterSnapshot``, and a List (``List`` or
    any ``*List``) whose every item is of a snapshot kind (Node, Pod, Namespace,
    LimitRange, RuntimeClass, PriorityClass, ResourceQuota, PodDisruptionBudget) when it is
    one: a ``NodeList`` or ``PodList``, a List with Nodes among its items, or one of objects
    read back from a cluster (each carrying a ``metadata.resourceVersion``). A List of Pod
    manifests to create is none of these and is checked item by item. A List is read by what
    it holds, never by its name alone: see :func:`mixed_list_problem` for one that holds both.
    """
    kind = body.get("kind")
    if kind == "ClusterSnapshot" and str(body.get("apiVersion", "")).startswith("fitgate/"):
        return "a fitgate ClusterSnapshot: a cluster snapshot, not manifests; not checked"
    if items is None or not set(_item_kinds(items)) <= _SNAPSHOT_KINDS:
        return None
    if _cluster_list(kind, items) or (items and all(map(_resource_version, items))):
        return f"a {kind} of cluster objects: a cluster snapshot, not manifests; not checked"
    return None


def mixed_list_problem(body: dict[Any, Any], items: list[Any] | None) -> str | None:
    """Why a List holds both a cluster snapshot and manifests, or None: a ``NodeList`` or
    ``PodList``, or a List with a Node among its items, that also holds another kind
    (a Deployment, say). It is neither, and skipping it as a snapshot would leave its
    workloads unchecked: the document is an ``ERROR``."""
    kind = body.get("kind")
    if items is None or not _cluster_list(kind, items):
        return None
    others = sorted({k for k in _item_kinds(items) if k not in _SNAPSHOT_KINDS}, key=str)
    if not others:
        return None
    return (
        f"a {kind} of cluster objects that also holds {', '.join(map(str, others[:3]))}"
        f"{'...' if len(others) > 3 else ''}: neither a cluster snapshot nor manifests; "
        "not checked (give the snapshot and the manifests in separate files)"
    )


def _cluster_list(kind: object, items: list[Any]) -> bool:
    """A ``NodeList``, a ``PodList``, or a List with a Node among its items."""
    return kind in ("NodeList", "PodList") or "Node" in _item_kinds(items)


def _item_kinds(items: list[Any]) -> list[object]:
    return [item.get("kind") if isinstance(item, dict) else None for item in items]


def _resource_version(item: object) -> bool:
    metadata = item.get("metadata") if isinstance(item, dict) else None
    return isinstance(metadata, dict) and bool(metadata.get("resourceVersion"))


def _list_items(body: dict[Any, Any]) -> list[Any] | None:
    """The items of a List kind (``List``, ``RoleList``, any kind ending in ``List``
    whose ``items`` is a list), else None."""
    kind, items = body.get("kind"), body.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        return items
    return None


def _describe(value: object) -> str:
    """A YAML/JSON reader's name for the type of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (str, bytes)):
        return "a string"
    return f"a {type(value).__name__}"
