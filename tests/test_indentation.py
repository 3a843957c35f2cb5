"""A kubectl List's indentation, dropped by the compiled part before msgspec decodes it:
the rule (every space that directly follows a line feed), the values and the validity it
keeps, and the reader's answers with and without it."""

from __future__ import annotations

import io
import json
import mmap
import re
import shutil
import sysconfig
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.errors import SnapshotError
from gate.snapshot import jsonstream
from gate.snapshot.load import build_snapshot, load_snapshot
from gate.snapshot.stream import read_snapshot
from tests.conftest import ROOT
from tests.test_snapshot_stream import LAYOUTS, as_list, clusters

try:
    from gate.snapshot._indentation import unindented
except ImportError:  # built without a C compiler; see test_the_part_is_built_where_it_can_be
    unindented = None  # type: ignore[assignment]

needs_part = pytest.mark.skipif(unindented is None, reason="the compiled part is not built")
FIXTURES = sorted((ROOT / "fixtures" / "snapshots").glob("*.json"))
_RULE = re.compile(rb"\n +")


def rule(text: bytes) -> bytes:
    """The part's rule, stated in Python."""
    return _RULE.sub(b"\n", text)


def test_the_part_is_built_where_it_can_be() -> None:
    """An install with a C compiler and Python's headers builds it (``pip install .``):
    without it a List is only slower, so nothing else would say it went missing."""
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if shutil.which("cc") is None or not headers.exists():
        pytest.skip("no C compiler or no Python headers here")
    assert unindented is not None


@needs_part
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
def test_the_spaces_after_each_line_feed_go(text: bytes, expected: bytes) -> None:
    assert unindented(text) == expected == rule(text)


@needs_part
@given(st.binary(max_size=200) | st.text(alphabet=' \n\t"{}[],:ab1\\', max_size=200))
def test_any_bytes_lose_what_the_rule_says(text: bytes | str) -> None:
    data = text.encode() if isinstance(text, str) else text
    assert unindented(data) == rule(data)


@needs_part
def test_any_buffer_is_read(tmp_path: Path) -> None:
    text = b'[\n    {\n        "a": 1\n    }\n]'
    path = tmp_path / "t.json"
    path.write_bytes(text)
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY) as m:
        assert unindented(m) == rule(text)
    assert unindented(bytearray(text)) == unindented(memoryview(text)[0:]) == rule(text)
    assert unindented(memoryview(b"xx" + text)[2:]) == rule(text)
    with pytest.raises(TypeError):
        unindented("text")  # type: ignore[arg-type]


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


@needs_part
@settings(max_examples=300)
@given(_JSON, st.sampled_from([None, 0, 1, 2, 4, "\t"]))
def test_values_are_the_texts_own(value: Any, indent: int | str | None) -> None:
    text = json.dumps(value, indent=indent).encode()
    assert msgspec.json.decode(unindented(text)) == msgspec.json.decode(text) == value


def _decodes(text: bytes) -> bool:
    try:
        msgspec.json.decode(text)
    except msgspec.DecodeError:
        return False
    return True


@needs_part
@settings(max_examples=500)
@given(st.text(alphabet=' \n"{}[],:a1-e.\\tnu', max_size=40))
def test_a_text_decodes_exactly_when_its_unindented_text_does(text: str) -> None:
    """Dropping the spaces after a line feed never joins two tokens (the feed stays between
    them) nor mends a string a raw line feed breaks."""
    data = text.encode()
    assert _decodes(unindented(data)) == _decodes(data)


@pytest.fixture(params=["compiled", "as written"])
def part(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each reader test below, with the compiled part and without it (as an install
    without a C compiler reads)."""
    if request.param == "compiled":
        if unindented is None:
            pytest.skip("the compiled part is not built")
    else:
        monkeypatch.setattr(jsonstream, "unindented", None)
    return str(request.param)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixtures_read_alike_with_and_without_the_part(path: Path, part: str) -> None:
    document = json.loads(path.read_text())
    for shape in (document, as_list(document)):
        data = json.dumps(shape, indent=4).encode()
        got = read_snapshot(io.BytesIO(data), "snap.json", lambda n: None, 1 << 20)
        assert got == build_snapshot(shape, "snap.json")


# The part fixture's setting holds for every input alike: nothing in it is to be reset.
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(clusters(), st.sampled_from(list(LAYOUTS)), st.integers(16, 4096))
def test_any_cluster_reads_alike_with_and_without_the_part(
    part: str, snapshot: dict[str, Any], layout: str, window: int
) -> None:
    shape = as_list(snapshot)
    data = json.dumps(shape, **LAYOUTS[layout]).encode()
    got = read_snapshot(io.BytesIO(data), "snap.json", lambda n: None, window)
    assert got == build_snapshot(shape, "snap.json")


@needs_part
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
    tmp_path: Path, damage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = as_list(json.loads(FIXTURES[0].read_text()))
    document["items"][0]["spec"]["unschedulable"] = True
    text = damage(json.dumps(document, indent=4).encode())
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path))
    monkeypatch.setattr(jsonstream, "unindented", None)
    with pytest.raises(SnapshotError) as written:
        load_snapshot(str(path))
    assert str(raised.value) == str(written.value)
