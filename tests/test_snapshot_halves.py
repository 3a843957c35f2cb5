"""A large List read by two processes gives the snapshot one reader gives, wherever it is
cut; and whenever a cut does not hold, or the second process fails, the file is read whole,
so every answer and message stays the whole reading's."""

from __future__ import annotations

import io
import json
import math
import multiprocessing
import os
import pickle
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.errors import SnapshotError
from gate.model import Snapshot
from gate.model.storage import Mount
from gate.snapshot import forked, halves
from gate.snapshot.forked import Forked
from gate.snapshot.halves import (
    PIECES,
    Claims,
    Cut,
    SecondReader,
    cut_at,
    cuts_at,
    first_part,
    first_share,
    piece,
    rest_part,
)
from gate.snapshot.jsonstream import FileRegion
from gate.snapshot.load import build_snapshot, load_snapshot
from gate.snapshot.stream import (
    NotAccepted,
    Reading,
    _PodTotals,
    read_more,
    read_part,
    read_snapshot,
    snapshot_of,
)
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.conftest import ROOT
from tests.test_cli import AKS, NOW
from tests.test_snapshot_stream import FIXTURES, LAYOUTS, as_list, clusters

SHARES = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95]


def whole(path: Path) -> Snapshot:
    with path.open("rb") as handle:
        return read_snapshot(handle, str(path), lambda n: None)


def in_one_process(path: Path, share: float) -> Snapshot | None:
    """Both parts read here and joined: the join, without a fork."""
    with path.open("rb") as handle:
        cut = cut_at(handle, path.stat().st_size, lambda key: share)
        if cut is None:
            return None
        try:
            first = read_part(first_part(handle, cut), lambda n: None)
            rest = read_part(rest_part(handle, cut), lambda n: None)
            return snapshot_of(first.joined(rest.handed_over(), cut.key), str(path))
        except NotAccepted:
            return None


def read_in_halves(
    path: str,
    on_read: Callable[[int], None],
    *,
    split_from: int | None = None,
    share: float | None = None,
) -> Snapshot | None:
    """The file read by two processes at once, as the command's reading does it; None
    when it is not read so."""
    second = SecondReader.start(path, split_from=split_from, share=share)
    return None if second is None else second.snapshot(path, on_read)


def constant(share: float) -> Callable[[str], float]:
    return lambda key: share


def split(path: Path, share: float = 0.5) -> Snapshot | None:
    return read_in_halves(str(path), lambda n: None, split_from=0, share=share)


def busy_list() -> dict[str, Any]:
    """A List whose pods repeat templates, labels and owners across the cut, some mounting
    claims, with a namespace listed twice, and limit ranges on both sides."""
    nodes = [api_node(f"n{i}", labels={"zone": f"z{i % 2}"}) for i in range(4)]
    pods = []
    for i in range(40):
        pod = api_pod(
            f"web-{i}",
            f"n{i % 5}",  # n4 is no node: not counted
            namespace=("shop", "pay")[i % 2],
            phase=("Running", "Succeeded", "Pending")[i % 3],
            containers=[container("c", {"cpu": f"{100 + 10 * (i % 4)}m"})],
        )
        pod["metadata"]["labels"] = {"app": f"web{i % 3}"}
        if i % 4 == 1:  # some pods mount a claim, on both sides of the cut
            claim = {"claimName": f"data-web-{i}"}
            pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": claim}]
        pod["metadata"]["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"web-{i % 3}", "uid": "u"},
            {"apiVersion": "v1", "kind": "Node", "name": "n0", "uid": "v"},
        ]
        pods.append(pod)
    document = as_list(cluster_snapshot(nodes, pods))
    limit = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "shop"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "50m"}}]},
    }
    namespaces = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "shop", "labels": {"a": "1"}},
        },
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "shop", "labels": {"a": "2"}},
        },
    ]
    document["items"][5:5] = [limit]
    document["items"] += [*namespaces, limit]
    return document


def write(
    tmp_path: Path, document: object, layout: str = "kubectl", name: str = "list.json"
) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document, **LAYOUTS[layout]))
    return path


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("share", SHARES)
def test_a_list_cut_anywhere_reads_as_one_reader_reads_it(
    tmp_path: Path, layout: str, share: float
) -> None:
    path = write(tmp_path, busy_list(), layout)
    joined = in_one_process(path, share)
    if layout == "kubectl":  # its items' separator occurs only between items
        assert joined is not None
    assert joined is None or joined == whole(path)
    assert len(whole(path).mounts) == 4  # those counted: on a node of the List, not done


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
@pytest.mark.parametrize("listed", [True, False], ids=["as a List", "as a recording"])
def test_the_fixtures_read_alike_in_two_processes(tmp_path: Path, path: Path, listed: bool) -> None:
    recording = json.loads(path.read_text())
    document = as_list(recording) if listed else recording
    written = write(tmp_path, document)
    expected = build_snapshot(document, str(written))
    reads = [split(written, share) for share in SHARES]
    assert all(read in (None, expected) for read in reads)
    # Past the last element's start no cut is found; with one, none at all.
    elements = len(document["items"]) if listed else len(recording["pods"])
    assert any(read is not None for read in reads) == (elements > 1)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(clusters(), st.sampled_from(list(LAYOUTS)), st.booleans(), st.floats(0.0, 1.0))
def test_any_snapshot_reads_alike_wherever_it_is_cut(
    tmp_path: Path, snapshot: dict[str, Any], layout: str, listed: bool, share: float
) -> None:
    path = write(tmp_path, as_list(snapshot) if listed else snapshot, layout)
    joined = in_one_process(path, share)
    assert joined is None or joined == whole(path)


def test_a_cut_between_owner_references_is_not_taken(tmp_path: Path) -> None:
    """Compact JSON: ``},{"apiVersion"`` also parts two owner references inside a pod. A
    cut there leaves a first part no ``]}`` closes: it is not taken, and one reader reads."""
    path = write(tmp_path, busy_list(), "compact")
    data = path.read_bytes()
    inside = data.index(b'},{"apiVersion":"v1","kind":"Node","name"')
    with path.open("rb") as handle:
        for part in (first_part, rest_part):
            with pytest.raises(NotAccepted):
                read_part(part(handle, Cut("items", inside + 1)), lambda n: None)
    share = inside / len(data)
    assert in_one_process(path, share - 1e-9) in (None, whole(path))
    assert split(path, share - 1e-9) in (None, whole(path))


def test_only_files_large_enough_are_cut(tmp_path: Path) -> None:
    path = write(tmp_path, busy_list())
    assert read_in_halves(str(path), lambda n: None) is None  # below SPLIT_FROM
    assert split(path) is not None


def test_a_file_with_no_list_to_cut_is_read_whole(tmp_path: Path) -> None:
    nodes = busy_list()["items"][:4]
    no_items: list[dict[str, Any]] = []
    for items in (no_items, nodes[:1]):  # no two elements to learn the separator from
        path = write(tmp_path, {"kind": "List", "apiVersion": "v1", "items": items})
        assert split(path) is None
    recording = json.loads(FIXTURES[0].read_text())
    path = write(tmp_path, {**recording, "nodes": recording["nodes"][:1]})
    assert split(path) is None


def test_a_cut_in_a_recordings_namespaces_is_not_taken(tmp_path: Path) -> None:
    """A recording's cut is taken only in its pods: elsewhere both parts may read, but
    the second would not be pods."""
    recording = json.loads(FIXTURES[0].read_text())
    recording["namespaces"] = [{"metadata": {"name": f"ns{i}"}} for i in range(200)]
    path = write(tmp_path, recording)
    assert split(path, 0.9) is None
    assert split(path, 0.2) == whole(path)


@pytest.mark.parametrize(
    ("key", "size", "meanwhile", "compiled", "share"),
    [
        ("items", 2_380_000_000, 0, False, 0.5),
        ("items", 2_440_000_000, 5_300_000, False, 0.439),
        ("items", 2_440_000_000, 5_300_000, True, 0.387),
        ("pods", 130_000_000, 5_300_000, False, 0.174),
        ("pods", 130_000_000, 5_300_000, True, 0.174),
        ("pods", 10_000_000, 5_300_000, False, 0.1),
    ],
    ids=[
        "nothing else to read: half each",
        "the large case's List and manifests",
        "the same, its indentation dropped: a List's byte costs less",
        "the large case's recording and manifests",
        "a recording has no indentation to drop",
        "manifests that take longer than the file: a tenth at least",
    ],
)
def test_this_process_reads_less_by_what_it_reads_first(
    key: str, size: int, meanwhile: int, compiled: bool, share: float
) -> None:
    assert first_share(key, size, meanwhile, compiled) == pytest.approx(share, abs=0.001)


def test_no_cut_while_other_threads_run(tmp_path: Path) -> None:
    path = write(tmp_path, busy_list())
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert split(path) is None
    finally:
        stop.set()
        other.join()
    assert split(path) == whole(path)


def test_progress_counts_the_whole_file(tmp_path: Path) -> None:
    path = write(tmp_path, busy_list())
    counted: list[int] = []
    read_in_halves(str(path), counted.append, split_from=0)
    assert sum(counted) >= path.stat().st_size


@pytest.fixture
def cut_from_zero(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every List is read in two processes, as a large one is."""
    monkeypatch.setattr(halves, "SPLIT_FROM", 0)
    yield


@pytest.mark.usefixtures("cut_from_zero")
@pytest.mark.parametrize("where", [-5, 22], ids=["after the cuts", "in a piece"])
def test_an_invalid_item_after_the_cut_gets_the_whole_readings_message(
    tmp_path: Path, where: int
) -> None:
    document = busy_list()
    document["items"][where]["metadata"]["name"] = 7
    path = write(tmp_path, document)
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path), processes=2)
    with pytest.raises(SnapshotError) as reference:
        build_snapshot(document, str(path))
    assert str(raised.value) == str(reference.value)
    assert "metadata.name" in str(raised.value)


@pytest.mark.usefixtures("cut_from_zero")
def test_a_member_named_on_both_sides_of_the_cut_is_the_whole_readings_to_judge(
    tmp_path: Path,
) -> None:
    items = busy_list()["items"]
    text = json.dumps({"kind": "List", "apiVersion": "v1", "items": items}, indent=4)
    text = text[: text.rindex("}")] + ',\n    "kind": "List"\n}'  # "kind" twice: last wins
    path = tmp_path / "twice.json"
    path.write_text(text)
    with path.open("rb") as handle:
        cut = cut_at(handle, path.stat().st_size, lambda key: 0.5)
        assert cut is not None
        first = read_part(first_part(handle, cut), lambda n: None)
        with pytest.raises(NotAccepted):
            first.joined(read_part(rest_part(handle, cut), lambda n: None), "items")
    assert load_snapshot(str(path), processes=2) == build_snapshot(json.loads(text), str(path))


def exits_at_once(*args: object) -> None:
    os._exit(3)


def raises_inside(*args: object) -> None:
    raise MemoryError


@pytest.mark.parametrize(
    "rest", [exits_at_once, raises_inside], ids=["dies without a word", "fails"]
)
def test_a_second_process_that_fails_leaves_the_file_to_one_reader(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    rest: Callable[..., None],
) -> None:
    path = write(tmp_path, busy_list())
    monkeypatch.setattr(halves, "read_part", _failing(rest, read_part))
    assert split(path) is None
    monkeypatch.setattr(halves, "SPLIT_FROM", 0)
    assert load_snapshot(str(path), processes=2) == whole(path)
    assert capfd.readouterr().err == ""  # no traceback from either process


def _failing(rest: Callable[..., None], read: Callable[..., Any]) -> Callable[..., Any]:
    """``read_part`` as it is, except in the second process (whose stream starts with the
    ``{"items":[`` the cut adds)."""
    parent = os.getpid()

    def reading(stream: io.BufferedReader, *args: Any) -> Any:
        if os.getpid() != parent:
            rest()
        return read(stream, *args)

    return reading


def check_run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env={}, now=NOW)
    code = main(["check", *argv], streams)
    return code, out.getvalue(), err.getvalue()


def test_a_check_on_a_list_read_in_two_processes_answers_as_one_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the command reads the manifests while the second reader reads, and
    every report is what one reader's snapshot gives."""
    listed = write(tmp_path, as_list(json.loads((ROOT / AKS).read_text())))
    manifests = str(ROOT / "fixtures" / "manifests")
    argv = (manifests, "--snapshot", str(listed), "--json", "-")
    monkeypatch.setattr(halves, "SPLIT_FROM", 0)
    started: list[SecondReader | None] = []
    monkeypatch.setattr(halves.SecondReader, "start", _recorded(SecondReader.start, started))
    whole_run = check_run(*argv, "--processes", "1")
    assert started == []  # one process when one is asked for
    assert check_run(*argv, "--snapshot-processes", "2") == whole_run
    assert started and started[0] is not None
    assert whole_run[0] == 1 and json.loads(whole_run[1])["workloads"]


def test_the_second_reader_stops_when_the_documents_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = write(tmp_path, busy_list())
    monkeypatch.setattr(halves, "SPLIT_FROM", 0)
    code, _, err = check_run(
        str(tmp_path / "missing"), "--snapshot", str(listed), "--snapshot-processes", "2"
    )
    assert code == 2 and "missing" in err
    assert multiprocessing.active_children() == []


def _recorded(
    start: Callable[..., SecondReader | None], started: list[SecondReader | None]
) -> Callable[..., SecondReader | None]:
    def recording(*args: Any, **kwargs: Any) -> SecondReader | None:
        started.append(start(*args, **kwargs))
        return started[-1]

    return recording


@pytest.mark.parametrize("chunk", [1, 2, 7, 23, 64, 1000])
def test_the_cut_is_found_wherever_the_separator_straddles_the_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    path = write(tmp_path, busy_list())
    size = path.stat().st_size

    def cuts() -> list[Cut | None]:
        with path.open("rb") as handle:
            return [cut_at(handle, size, constant(share)) for share in SHARES]

    expected = cuts()
    monkeypatch.setattr(halves, "_CHUNK", chunk)
    assert cuts() == expected
    assert None not in expected[:-1]


def test_one_core_reads_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, busy_list())
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert split(path) is None


def test_a_pipe_is_read_once_by_one_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--snapshot <(kubectl get ...)``: the pipe is not opened to look for a cut, which
    would take the bytes its writer sends first (with no writer yet, opening it would wait)."""
    monkeypatch.setattr(halves, "SPLIT_FROM", 0)
    source = write(tmp_path, busy_list())
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    def stuck(signum: int, frame: object) -> None:
        raise TimeoutError("the pipe was opened")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(5)
    try:
        assert SecondReader.start(str(pipe)) is None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    writer = subprocess.Popen(["sh", "-c", f"cat '{source}' > '{pipe}'"])
    try:
        assert load_snapshot(str(pipe), processes=2).pods == whole(source).pods
    finally:
        writer.wait(timeout=10)
    assert writer.returncode == 0


@pytest.mark.parametrize(
    ("v2", "v1", "cores"),
    [
        ("max 100000\n", None, math.inf),
        ("100000 100000\n", None, 1.0),
        ("250000 100000\n", None, 2.5),
        (None, ("150000\n", "100000\n"), 1.5),
        (None, ("-1\n", "100000\n"), math.inf),
        ("garbage\n", None, math.inf),
        (None, None, math.inf),
    ],
    ids=[
        "v2 without a limit",
        "v2 limited to one core",
        "v2 limited to two and a half",
        "v1 limited to one and a half",
        "v1 without a limit",
        "unreadable",
        "no cgroup files",
    ],
)
def test_the_containers_cpu_limit_is_read(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    v2: str | None,
    v1: tuple[str, str] | None,
    cores: float,
) -> None:
    files = {"cpu.max": v2, "quota": v1 and v1[0], "period": v1 and v1[1]}
    for name, text in files.items():
        if text is not None:
            (tmp_path / name).write_text(text)
    where = (
        (str(tmp_path / "cpu.max"), None),
        (str(tmp_path / "quota"), str(tmp_path / "period")),
    )
    monkeypatch.setattr(forked, "CGROUP_QUOTAS", where)
    assert forked.cpu_quota() == cores


def test_a_container_limited_to_one_core_reads_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, busy_list())
    (tmp_path / "cpu.max").write_text("100000 100000\n")
    monkeypatch.setattr(forked, "CGROUP_QUOTAS", ((str(tmp_path / "cpu.max"), None),))
    assert split(path) is None


_TEXT = st.text(max_size=12)
_MOUNTS = st.builds(
    Mount,
    name=_TEXT,
    source=st.sampled_from(["persistentVolumeClaim", "ephemeral", "rbd", "azureDisk"]),
    disk=_TEXT,
    read_only=st.booleans(),
    monitors=st.frozensets(_TEXT, max_size=3),
    pool=_TEXT,
    managed=st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_TEXT, _TEXT, st.booleans(), st.none() | _TEXT, st.integers(0, 2**40)),
        max_size=20,
    ),
    st.dictionaries(st.integers(0, 40), st.lists(_MOUNTS, max_size=3).map(tuple), max_size=5),
)
def test_a_part_hands_its_pods_over_as_they_were_read(
    pods: list[tuple[str, str, bool, str | None, int]], mounted: dict[int, tuple[Mount, ...]]
) -> None:
    """The counted pods' columns and mounts are packed for the hand-over (msgpack, not
    pickle's object by object): whatever they hold comes back equal."""
    totals = _PodTotals(mounted=mounted, templates={(b"[]", None, None, None, None): 0})
    for name, node, terminating, started, parts in pods:
        totals.names.append(name)
        totals.nodes.append(node)
        totals.terminating.append(terminating)
        totals.started.append(started)
        totals.parts.append(parts)
    back = pickle.loads(pickle.dumps(totals))
    assert [getattr(back, f.name) for f in fields(back) if f.name != "shared"] == [
        getattr(totals, f.name) for f in fields(totals) if f.name != "shared"
    ]
    assert back.shared.keys == totals.shared.keys


def in_pieces(path: Path, share: float, pieces: int, taken: float) -> Snapshot | None:
    """The file read as the two processes read it once the middle is cut into ``pieces``,
    without a fork: this process takes the first ``taken`` share of them, each read on into
    its own reading, the second the rest from the back, each a reading of its own; None when
    a cut does not hold."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        cuts = cuts_at(handle, size, constant(share), 0.5, pieces)
        if cuts is None:
            return None
        key, mine = cuts.key, round(cuts.pieces * taken)
        try:
            first = read_part(first_part(handle, cuts.first), lambda n: None)
            for index in range(mine):
                read_more(first, piece(handle, cuts, index), key)
            rest = read_part(rest_part(handle, cuts.last), lambda n: None)
            theirs = [
                read_more(rest.sharing(key), piece(handle, cuts, index), key)
                for index in reversed(range(mine, cuts.pieces))
            ]
            joined = first
            for later in (*reversed(theirs), rest):
                joined = joined.joined(later.handed_over(), key)
            return snapshot_of(joined, str(path))
        except NotAccepted:
            return None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    clusters(),
    st.sampled_from(list(LAYOUTS)),
    st.floats(0.0, 1.0),
    st.integers(1, 6),
    st.floats(0.0, 1.0),
)
def test_any_list_reads_alike_however_its_pieces_are_shared(
    tmp_path: Path, snapshot: dict[str, Any], layout: str, share: float, pieces: int, taken: float
) -> None:
    path = write(tmp_path, as_list(snapshot), layout)
    joined = in_pieces(path, share, pieces, taken)
    assert joined is None or joined == whole(path)


@pytest.mark.parametrize("taken", [0.0, 0.3, 0.5, 1.0])
def test_a_busy_list_reads_alike_whoever_reads_its_pieces(tmp_path: Path, taken: float) -> None:
    """Templates, labels and owners repeat across the pieces, some pods mount claims, a
    namespace is listed twice and limit ranges sit on both sides: each piece of the
    second process decodes only texts its earlier readings did not."""
    path = write(tmp_path, busy_list())
    joined = in_pieces(path, 0.5, 8, taken)
    assert joined is not None
    assert joined == whole(path)


def test_the_middle_is_cut_between_items_into_pieces(tmp_path: Path) -> None:
    path = write(tmp_path, busy_list())
    data = path.read_bytes()
    with path.open("rb") as handle:
        cuts = cuts_at(handle, len(data), constant(0.5))
    assert cuts is not None and cuts.key == "items"
    assert 1 < len(cuts.offsets) <= PIECES + 1
    assert list(cuts.offsets) == sorted(set(cuts.offsets))
    assert all(data[offset : offset + 1] == b"," for offset in cuts.offsets)
    low, high = cuts.offsets[0] / len(data), cuts.offsets[-1] / len(data)
    assert 0.42 <= low < high < 0.6  # the middle: a sixth of the file around the share


class _Counted(io.BufferedReader):
    """A file that counts the bytes read from it."""

    read_bytes = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.read_bytes += len(data)
        return data


def test_items_larger_than_a_piece_are_cut_between_and_read_once(tmp_path: Path) -> None:
    """Where an item spans several shares, the shares inside it are passed over: the cut
    after it is not looked for again from each of them."""
    document = busy_list()
    for item in document["items"]:
        item["metadata"]["annotations"] = {"note": "x" * 6000}
    path = write(tmp_path, document)
    data = path.read_bytes()
    with _Counted(io.FileIO(path)) as handle:
        cuts = cuts_at(handle, len(data), constant(0.5))
        searched = handle.read_bytes
    assert cuts is not None
    assert all(data[offset : offset + 1] == b"," for offset in cuts.offsets)
    assert list(cuts.offsets) == sorted(set(cuts.offsets))
    assert 1 < len(cuts.offsets) < PIECES // 2  # an item spans several shares
    # The head, then a chunk for each cut found (an item is a tenth of one): not a search
    # from each of the shares an item spans.
    assert searched <= min(len(data), halves._HEAD) + len(cuts.offsets) * halves._CHUNK


def test_a_recording_is_cut_once(tmp_path: Path) -> None:
    """Its other arrays follow its pods: a piece past their end would cost the split."""
    path = write(tmp_path, json.loads(FIXTURES[0].read_text()))
    with path.open("rb") as handle:
        cuts = cuts_at(handle, path.stat().st_size, constant(0.3))
    assert cuts is not None and cuts.key == "pods" and cuts.pieces == 0


def test_a_piece_past_the_end_of_the_items_is_not_taken(tmp_path: Path) -> None:
    """A piece reads only when the array is all it holds: text that closes the array and
    opens another member is no run of items."""
    path = tmp_path / "piece.json"
    path.write_bytes(b'{"kind": "Pod"}], "kind": "List", "more": [{"kind": "Pod"}')
    with path.open("rb") as handle:
        region = FileRegion(handle, 0, None, b'{"items":[', b"]}")
        with pytest.raises(NotAccepted):
            read_more(Reading(names=["items"]), region, "items")
        with pytest.raises(NotAccepted):  # and only a reading whose last member it continues
            read_more(
                Reading(names=["nodes"]), FileRegion(handle, 0, 15, b'{"items":[', b"]}"), "items"
            )


def test_both_ends_take_every_piece_once(tmp_path: Path) -> None:
    claims = Claims(12)
    try:
        if not forked.can_fork():
            assert [claims.front(lambda: True) for _ in range(3)] == [0, 1, 2]
            assert claims.back(2, lambda: True) == 11
            return
        second = Forked(lambda: list(iter(lambda: claims.back(0, lambda: True), None)))
        mine = list(iter(lambda: claims.front(lambda: True), None))
        theirs = second.value()
        assert theirs is not None
        assert sorted(mine + theirs) == list(range(12))
        assert mine == list(range(len(mine)))  # this process's are consecutive, from the front
        assert theirs == list(range(11, len(mine) - 1, -1))  # the other's, from the back
    finally:
        claims.close()


def test_the_second_process_leaves_its_reserve(tmp_path: Path) -> None:
    claims = Claims(5)
    try:
        assert [claims.back(2, lambda: True) for _ in range(4)] == [4, 3, 2, None]
        assert [claims.front(lambda: True) for _ in range(3)] == [0, 1, None]
    finally:
        claims.close()


def test_a_process_that_died_holding_the_token_is_not_waited_for() -> None:
    claims = Claims(3)
    try:
        assert os.read(claims._taken, 1)  # as a process killed between taking and giving back
        assert claims.front(lambda: False) is None
    finally:
        claims.close()
