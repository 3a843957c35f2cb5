"""A kubectl List's indentation, dropped by the compiled part before msgspec decodes it:
the rule (every space that directly follows a line feed), the values and the validity it
keeps, and the reader's answers with and without it. The part is compiled here from this
checkout's source, as an install compiles it."""

from __future__ import annotations

import io
import json
import mmap
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.errors import SnapshotError
from gate.snapshot import jsonstream, stream
from gate.snapshot.load import build_snapshot, load_snapshot
from gate.snapshot.stream import read_snapshot
from tests.conftest import ROOT
from tests.test_snapshot_stream import LAYOUTS, as_list, clusters

Unindent = Callable[[bytes | bytearray | memoryview | mmap.mmap], bytes]
FIXTURES = sorted((ROOT / "fixtures" / "snapshots").glob("*.json"))
_RULE = re.compile(rb"\n +")
# A fixture's value holds for every input alike: nothing in it is to be reset.
_SHARED = [HealthCheck.function_scoped_fixture]


def rule(text: bytes) -> bytes:
    """The part's rule, stated in Python."""
    return _RULE.sub(b"\n", text)


@pytest.fixture(scope="session")
def part_module(indentation_part: ModuleType) -> ModuleType:
    """The part compiled from this checkout's source, as ``pip install`` compiles it."""
    return indentation_part


@pytest.fixture(scope="session")
def built(part_module: ModuleType) -> Unindent:
    found: Unindent = part_module.unindented
    return found


WAYS = ("packing", "runs", "lines")
"""Every way the part has of dropping the spaces, the fastest first (see its source)."""


@pytest.fixture(params=WAYS)
def way(request: pytest.FixtureRequest, part_module: ModuleType) -> Unindent:
    """Each way the part has, where this processor runs it."""
    name = str(request.param)
    if name not in part_module.ways():
        pytest.skip(f"this processor does not run the {name} way")

    def unindent(text: bytes | bytearray | memoryview | mmap.mmap) -> bytes:
        found: bytes = part_module.unindented_by(text, name)
        return found

    return unindent


def test_the_part_takes_the_first_way_this_processor_runs(part_module: ModuleType) -> None:
    ways = part_module.ways()
    assert ways[-1] == "lines" and set(ways) <= set(WAYS)
    assert [name for name in WAYS if name in ways] == list(ways)
    text = b"{\n" + b" " * 70 + b'"a": 1\n}'
    assert {part_module.unindented_by(text, name) for name in ways} == {rule(text)}
    with pytest.raises(ValueError, match="no way 'sideways' runs here"):
        part_module.unindented_by(text, "sideways")
    with pytest.raises(TypeError):
        part_module.unindented_by(text)


# Blocks of 64 bytes: the runs of spaces that cross from one to the next, a line feed as a
# block's last byte, blocks that keep every byte or drop every one, and the bytes past the
# last whole block.
_BLOCKS = st.lists(
    st.sampled_from([b" ", b"\n", b"x", b" " * 63, b" " * 64, b"\n" + b" " * 40, b"y" * 64]),
    max_size=40,
).map(b"".join)


@settings(max_examples=400, suppress_health_check=_SHARED)
@given(_BLOCKS | st.binary(max_size=300) | st.text(alphabet=" \n\tx", max_size=400))
def test_every_way_drops_what_the_rule_says(way: Unindent, text: bytes | str) -> None:
    data = text.encode() if isinstance(text, str) else text
    assert way(data) == rule(data)


@pytest.mark.parametrize("start", [0, 1, 63, 64, 65])
def test_every_way_reads_a_view_from_anywhere(way: Unindent, start: int) -> None:
    text = (b"[\n" + b" " * 30 + b'{"a": 1},\n' + b" " * 90 + b"2\n]") * 5
    view = memoryview(b"z" * start + text)[start:]
    assert way(view) == rule(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        (b"", b""),
        (b"{}", b"{}"),
        (b"\n", b"\n"),
        (b"   {\n    }", b"   {\n}"),
        (b'{\n    "a": 1,\n    "b": [\n        2\n    ]\n}', b'{\n"a": 1,\n"b": [\n2\n]\n}'),
        (b'"a\n   b"', b'"a\nb"'),
        (b"\n\t  x\n" + b" " * 17 + b"y ", b"\n\t  x\ny "),
        (b"x\n" + b" " * 64, b"x\n"),
        (b"\r\n  x", b"\r\nx"),
    ],
    ids=[
        "empty",
        "no-feed",
        "feed-alone",
        "leading-spaces-kept",
        "kubectl",
        "inside-a-string",
        "tab-stops-the-run",
        "ends-in-spaces",
        "carriage-return",
    ],
)
def test_the_spaces_after_each_line_feed_go(built: Unindent, text: bytes, expected: bytes) -> None:
    assert built(text) == expected == rule(text)


@settings(suppress_health_check=_SHARED)
@given(st.binary(max_size=200) | st.text(alphabet=' \n\t"{}[],:ab1\\', max_size=200))
def test_any_bytes_lose_what_the_rule_says(built: Unindent, text: bytes | str) -> None:
    data = text.encode() if isinstance(text, str) else text
    assert built(data) == rule(data)


def test_any_buffer_is_read(built: Unindent, tmp_path: Path) -> None:
    text = b'[\n    {\n        "a": 1\n    }\n]'
    path = tmp_path / "t.json"
    path.write_bytes(text)
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY) as m:
        assert built(m) == rule(text)
    assert built(bytearray(text)) == built(memoryview(text)[0:]) == rule(text)
    assert built(memoryview(b"xx" + text)[2:]) == rule(text)
    with pytest.raises(TypeError):
        built("text")  # type: ignore[arg-type]


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, suppress_health_check=_SHARED)
@given(_JSON, st.sampled_from([None, 0, 1, 2, 4, "\t"]))
def test_values_are_the_texts_own(built: Unindent, value: Any, indent: int | str | None) -> None:
    text = json.dumps(value, indent=indent).encode()
    assert msgspec.json.decode(built(text)) == msgspec.json.decode(text) == value


def _decodes(text: bytes) -> bool:
    try:
        msgspec.json.decode(text)
    except msgspec.DecodeError:
        return False
    return True


@settings(max_examples=500, suppress_health_check=_SHARED)
@given(st.text(alphabet=' \n"{}[],:a1-e.\\tnu', max_size=40))
def test_a_text_decodes_exactly_when_its_unindented_text_does(built: Unindent, text: str) -> None:
    """Dropping the spaces after a line feed never joins two tokens (the feed stays between
    them) nor mends a string a raw line feed breaks."""
    data = text.encode()
    assert _decodes(built(data)) == _decodes(data)


@pytest.fixture(params=["compiled", "as written"])
def part(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each reader test below, with the compiled parts and without them (as an install
    without a C compiler reads): this one and the loop that counts the pods (``_pods.c``)."""
    compiled = request.param == "compiled"
    monkeypatch.setattr(
        jsonstream, "unindented", request.getfixturevalue("built") if compiled else None
    )
    loop = request.getfixturevalue("pods_part").counted if compiled else None
    monkeypatch.setattr(stream, "counted", loop)
    return str(request.param)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixtures_read_alike_with_and_without_the_part(path: Path, part: str) -> None:
    document = json.loads(path.read_text())
    for shape in (document, as_list(document)):
        data = json.dumps(shape, indent=4).encode()
        got = read_snapshot(io.BytesIO(data), "snap.json", lambda n: None, 1 << 20)
        assert got == build_snapshot(shape, "snap.json")


@settings(max_examples=40, deadline=None, suppress_health_check=_SHARED)
@given(clusters(), st.sampled_from(list(LAYOUTS)), st.integers(16, 4096))
def test_any_cluster_reads_alike_with_and_without_the_part(
    part: str, snapshot: dict[str, Any], layout: str, window: int
) -> None:
    shape = as_list(snapshot)
    data = json.dumps(shape, **LAYOUTS[layout]).encode()
    got = read_snapshot(io.BytesIO(data), "snap.json", lambda n: None, window)
    assert got == build_snapshot(shape, "snap.json")


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(
            lambda t: t.replace(b'"name": "', b'"name": "a\n     b', 1), id="feed-in-a-name"
        ),
        pytest.param(
            lambda t: t.replace(b'"cpu": "', b'"cpu": 1\n      2, "x": "', 1), id="two-numbers"
        ),
        pytest.param(lambda t: t.replace(b"true", b"tr\n    ue", 1), id="split-literal"),
        pytest.param(lambda t: t[: len(t) // 2], id="cut-short"),
        pytest.param(lambda t: t.replace(b'"Node"', b'"Node",', 1), id="stray-comma"),
    ],
)
def test_a_damaged_list_is_the_same_error_with_and_without_the_part(
    built: Unindent, tmp_path: Path, damage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = as_list(json.loads(FIXTURES[0].read_text()))
    document["items"][0]["spec"]["unschedulable"] = True
    text = damage(json.dumps(document, indent=4).encode())
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    monkeypatch.setattr(jsonstream, "unindented", built)
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path))
    monkeypatch.setattr(jsonstream, "unindented", None)
    with pytest.raises(SnapshotError) as written:
        load_snapshot(str(path))
    assert str(raised.value) == str(written.value)
