"""The live reader: preflight before any list, complete paginated lists, 410 restarts, and
nothing but reads on the wire. Real client, real HTTP, the real CLI entry point."""

from __future__ import annotations

import io
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.errors import ClusterError
from gate.live.connection import Settings
from gate.live.credentials import LiveTarget
from gate.live.reader import read_cluster
from gate.progress import Progress
from tests.apiserver import (
    BINDER,
    LIMIT_RANGES,
    MISBEHAVIOURS,
    NAMESPACES,
    NODES,
    PODS,
    READ_ONLY,
    REVIEWS,
    RUNTIME_CLASSES,
    VERSION_PATH,
    answering,
    write_kubeconfig,
)
from tests.cluster_objects import realistic_node, realistic_pod
from tests.conftest import ROOT
from tests.deadline import deadline
from tests.live import Live, live_cluster, run

READS = {("GET", p) for p in (VERSION_PATH, NODES, PODS, NAMESPACES, LIMIT_RANGES, RUNTIME_CLASSES)}
ALLOWED = READS | {("POST", REVIEWS)}


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_cluster(tmp_path) as cluster:
        cluster.state.serve(NODES, [realistic_node(i) for i in range(4)])
        cluster.state.serve(PODS, [realistic_pod(i, f"aks-user-{i % 4:06d}") for i in range(20)])
        yield cluster


def record(live: Live, tmp_path: Path, *flags: str) -> tuple[int, str, dict[str, Any]]:
    path = tmp_path / "snapshot.json"
    code, _, err = run(["snapshot", "-o", str(path), *flags], live.env)
    document = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return code, err, document


def test_a_binding_capable_identity_is_refused_before_any_list(live: Live, tmp_path: Path) -> None:
    live.state.permissions = BINDER
    code, err, document = record(live, tmp_path)
    assert code == 2 and document == {}
    message = err.splitlines()[-1]
    assert message.startswith("fitgate: refusing to read the cluster with credentials that may")
    assert "create pods/binding" in message and "--i-mean-it" in message
    assert "ClusterRole granting only get and list on nodes, pods" in message
    assert live.state.seen() == [("POST", REVIEWS)]
    review = json.loads(live.state.requests[0].body)
    assert review["spec"]["resourceAttributes"] == {
        "verb": "create",
        "resource": "pods",
        "group": "",
        "subresource": "binding",
    }


def test_i_mean_it_reads_anyway_and_still_only_reads(live: Live, tmp_path: Path) -> None:
    live.state.permissions = BINDER
    code, err, document = record(live, tmp_path, "--i-mean-it")
    assert code == 0
    assert "warning: these credentials may create pods/binding" in err
    assert len(document["pods"]) == 20
    assert set(live.state.seen()) == ALLOWED


@pytest.mark.parametrize(
    ("revoked", "named"),
    [
        ({("list", "", "pods", "")}, "may not list pods (all namespaces)"),
        (
            {("list", "", "nodes", ""), ("list", "node.k8s.io", "runtimeclasses", "")},
            "may not list nodes, list runtimeclasses.node.k8s.io (all namespaces)",
        ),
        ({("list", "", "limitranges", "")}, "may not list limitranges"),
    ],
    ids=["pods", "nodes and runtime classes", "limit ranges"],
)
def test_a_missing_list_permission_fails_early_naming_it(
    live: Live, tmp_path: Path, revoked: set[tuple[str, str, str, str]], named: str
) -> None:
    live.state.permissions = READ_ONLY - revoked
    code, err, _ = record(live, tmp_path)
    assert code == 2
    last = err.splitlines()[-1]
    assert last.startswith("fitgate: the credentials of context test ") and named in last
    assert "docs/rbac.md" in last
    assert {method for method, _ in live.state.seen()} == {"POST"}


def small_pod(index: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"p-{index:05d}", "namespace": "default"},
        "spec": {"nodeName": "aks-user-000000", "containers": [{"name": "c"}]},
        "status": {"phase": "Running"},
    }


def test_thousands_of_pods_are_read_completely_in_pages(live: Live, tmp_path: Path) -> None:
    pods = [small_pod(i) for i in range(3_210)]
    live.state.serve(PODS, pods)
    code, _, document = record(live, tmp_path)
    assert code == 0
    assert [p["metadata"]["name"] for p in document["pods"]] == [
        p["metadata"]["name"] for p in pods
    ]
    pages = [r for r in live.state.requests if r.path == PODS]
    assert len(pages) == 7
    assert all(r.query["limit"] == ["500"] for r in pages)
    assert [("continue" in r.query) for r in pages] == [False] + [True] * 6


def test_an_expired_continue_token_restarts_the_list_cleanly(live: Live, tmp_path: Path) -> None:
    pods = [small_pod(i) for i in range(1_200)]
    live.state.serve(PODS, pods)
    live.state.expire_continue[PODS] = 1
    code, err, document = record(live, tmp_path)
    assert code == 0
    assert "the list of pods expired (HTTP 410 Gone); listing again" in err
    names = [p["metadata"]["name"] for p in document["pods"]]
    assert names == [p["metadata"]["name"] for p in pods]
    pages = [("continue" in r.query) for r in live.state.requests if r.path == PODS]
    assert pages == [False, True, False, True, True]


def test_a_list_that_keeps_expiring_gives_up(live: Live, tmp_path: Path) -> None:
    live.state.serve(PODS, [small_pod(i) for i in range(600)])
    live.state.expire_continue[PODS] = 100
    code, err, document = record(live, tmp_path)
    assert code == 2 and document == {}
    assert err.splitlines()[-1] == (
        "fitgate: listing pods: the continue token expired 4 times (HTTP 410 Gone); "
        "the list is too slow for the server's compaction window"
    )


def test_a_server_repeating_a_continue_token_is_not_listed_forever(
    live: Live, tmp_path: Path
) -> None:
    live.state.serve(PODS, [small_pod(i) for i in range(1_200)])
    live.state.repeat_continue.add(PODS)
    code, err, document = record(live, tmp_path)
    assert code == 2 and document == {}
    assert err.splitlines()[-1] == (
        "fitgate: listing pods: the server answered a continue token it had given before: "
        "the list would never end"
    )
    assert len([r for r in live.state.requests if r.path == PODS]) == 2


def _answer(item: bytes) -> bytes:
    """A page of pods whose second item is ``item``, as it is written."""
    return (
        b'{"kind": "PodList", "items": [' + json.dumps(small_pod(0)).encode() + b", " + item + b"]}"
    )


DEEP = b'{"metadata": {"name": "deep"}, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
MALFORMED = [
    pytest.param(
        _answer(b'{"metadata": {"name": "odd"}, "spec": ["a list"]}'),
        'item 2 ("odd"): Expected `object`, got `array` - at `$.spec`',
        id="a field of the wrong JSON type names the item and the field",
    ),
    pytest.param(
        _answer(b'{"metadata": {"name": "web", "labels": {"app": 1}}}'),
        'item 2 ("web"): Expected `str`, got `int` - at `$.metadata.labels[...]`',
        id="a label that is no string",
    ),
    pytest.param(
        _answer(
            b'{"metadata": {"name": "web"}, "spec": {"affinity": {"podAntiAffinity": '
            b'{"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "50"}]}}}}'
        ),
        'item 2 ("web"): Expected `int`, got `str` - at `$.spec.affinity.podAntiAffinity'
        ".preferredDuringSchedulingIgnoredDuringExecution[0].weight`",
        id="a preferred term's weight that is no integer",
    ),
    pytest.param(
        _answer(rb'{"metadata": {"name": "a\nb\u001b[31m"}, "status": 7}'),
        'item 2 ("a\\nb\\u001b[31m"): Expected `object`, got `int` - at `$.status`',
        id="a name with a line break and an escape is quoted on the one line",
    ),
    pytest.param(
        _answer(b'{"metadata": {"name": "caf\xff"}}'),
        "item 2: Invalid UTF-8 encoded string",
        id="a name that is not UTF-8",
    ),
    pytest.param(
        _answer(DEEP),
        "the answer is nested too deeply to be read",
        id="an item nested a hundred thousand deep",
    ),
    pytest.param(
        b"<html>502 Bad Gateway</html>",
        "the answer is not JSON: JSON is malformed: invalid character (byte 0)",
        id="an HTML page",
    ),
    pytest.param(
        b'{"kind": "PodList", "items": {"a": 1}}',
        "the answer is not a list: Expected `array | null`, got `object` - at `$.items`",
        id="items that are no array",
    ),
    pytest.param(
        b'{"kind": "PodList", "metadata": {"continue": 5}, "items": []}',
        "the answer is not a list: Expected `str | null`, got `int` - at `$.metadata.continue`",
        id="a continue token that is no string",
    ),
]


@pytest.mark.parametrize(("body", "says"), MALFORMED)
def test_a_malformed_answer_is_a_one_line_error_naming_the_list(
    live: Live, tmp_path: Path, body: bytes, says: str
) -> None:
    live.state.misbehave[PODS] = answering(body)
    code, err, document = record(live, tmp_path)
    assert code == 2 and document == {}
    assert err.splitlines()[-1] == f"fitgate: listing pods: {says}"
    assert "Traceback" not in err


def test_an_item_is_counted_across_the_pages(live: Live, tmp_path: Path) -> None:
    pods = [small_pod(i) for i in range(1_200)]
    pods[1_100]["spec"]["containers"] = "none"
    live.state.serve(PODS, pods)
    code, err, _ = record(live, tmp_path)
    assert code == 2
    assert err.splitlines()[-1] == (
        'fitgate: listing pods: item 1101 ("p-01100"): Expected `array | null`, got `str` '
        "- at `$.spec.containers`"
    )


def test_terminal_pods_are_not_listed(live: Live, tmp_path: Path) -> None:
    pods = [
        realistic_pod(0, "aks-user-000000", phase="Running"),
        realistic_pod(1, "aks-user-000000", phase="Succeeded"),
        realistic_pod(2, "aks-user-000000", phase="Failed"),
        realistic_pod(3, None, phase="Pending"),
    ]
    live.state.serve(PODS, pods)
    _, _, document = record(live, tmp_path)
    phases = [p["status"]["phase"] for p in document["pods"]]
    assert phases == ["Running", "Pending"]
    selectors = {r.query["fieldSelector"][0] for r in live.state.requests if r.path == PODS}
    assert selectors == {"status.phase!=Succeeded,status.phase!=Failed"}


def test_a_whole_run_sends_only_reads_and_the_review(live: Live) -> None:
    code, out, _ = run(["check", "fixtures/manifests/01-web-small.yaml"], live.env)
    assert code in (0, 1) and out
    assert set(live.state.seen()) == ALLOWED
    reviews = [r for r in live.state.requests if r.method == "POST"]
    # the five lists fitgate needs and pods/binding before the version; the PriorityClasses,
    # the ResourceQuotas, the six storage kinds and the PodDisruptionBudgets it may list
    # (asked, not needed) after
    assert len(reviews) == 15 and live.state.requests[6].path == VERSION_PATH


def test_long_lists_report_progress_as_every_long_phase_does(live: Live) -> None:
    """The live reader's lists go through the same progress lines as the rest of a run."""
    live.state.serve(PODS, [realistic_pod(i, "aks-user-000000") for i in range(1_200)])
    ticks = iter(range(10_000))
    stream = io.StringIO()
    progress = Progress(stream, tty=False, clock=lambda: float(next(ticks)), delay=1, interval=1)
    target = LiveTarget(kubeconfig=str(live.kubeconfig))
    read_cluster(target, live.env, datetime.now(timezone.utc), lambda line: None, None, progress)
    lines = stream.getvalue().splitlines()
    assert [line for line in lines if "pods" in line] == [
        "fitgate: listing pods: 500 pods, 1 s",
        "fitgate: listing pods: 1,000 pods, 2 s",
        "fitgate: listing pods: 1,200 pods, 3 s",
    ]


FORBIDDEN_NAMES = (
    "V1Binding",
    "create_namespaced_pod_binding",
    "create_namespaced_binding",
    "kubernetes.watch",
    "from kubernetes import watch",
)


@pytest.mark.parametrize("name", FORBIDDEN_NAMES)
def test_the_package_never_names_binding_or_watch(name: str) -> None:
    users = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "gate").rglob("*.py"))
        if re.search(re.escape(name), path.read_text(encoding="utf-8"))
    ]
    assert users == []


def test_a_server_version_no_check_can_use_is_not_recorded(live: Live, tmp_path: Path) -> None:
    live.state.version = "v1." + "9" * 30
    code, err, document = record(live, tmp_path)
    assert code == 2 and document == {}
    assert err.splitlines()[-1].startswith(f"fitgate: {live.url}/version: gitVersion: version ")


# A misbehaving server: each read ends by its deadline or at the answer cap, in one line.

SHORT = Settings(deadline=1.0, max_answer=2**20)


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Live]:
    with deadline(20), live_cluster(tmp_path) as cluster:
        cluster.state.serve(NODES, [realistic_node(i) for i in range(4)])
        yield cluster
    # An abandoned read is blocked on the server, which is gone now: let it end here, so
    # that its socket is not left to a later test.
    for thread in threading.enumerate():
        if thread.name == "fitgate-deadline":
            thread.join(5)


def read_with(live: Live, settings: Settings) -> tuple[str, float]:
    """The one-line error a read ends with, and how long it took."""
    started = time.monotonic()
    with pytest.raises(ClusterError) as raised:
        read_cluster(LiveTarget(), live.env, datetime.now(timezone.utc), print, settings)
    message = str(raised.value)
    assert "\n" not in message
    return message, time.monotonic() - started


@pytest.mark.parametrize(
    "behaviour",
    ["silent", "dripping headers", "dripping body"],
    ids=["a silent server", "headers a byte at a time", "a body a byte at a time"],
)
def test_a_slow_list_ends_at_the_reads_deadline(hostile: Live, behaviour: str) -> None:
    hostile.state.misbehave[PODS] = MISBEHAVIOURS[behaviour]
    message, took = read_with(hostile, SHORT)
    assert message == "listing pods: the cluster was not read within 1s (--timeout); giving up"
    assert 0.9 < took < 2.0
    assert hostile.state.seen().count(("GET", PODS)) == 1  # not asked again


@pytest.mark.parametrize(
    "behaviour",
    ["silent", "dripping body"],
    ids=["a silent server", "a body a byte at a time"],
)
def test_a_request_ends_at_its_own_deadline(hostile: Live, behaviour: str) -> None:
    hostile.state.misbehave[PODS] = MISBEHAVIOURS[behaviour]
    message, took = read_with(hostile, Settings(request_timeout=0.5, deadline=10))
    assert message == f"listing pods: {hostile.url} gave no complete answer within 0.5s"
    assert 0.4 < took < 1.5


@pytest.mark.parametrize(
    "behaviour",
    ["endless body", "endless chunks", "inflating body"],
    ids=["ten GB announced", "endless chunks", "a gzip answer that inflates without end"],
)
def test_an_endless_answer_is_refused_at_the_cap(hostile: Live, behaviour: str) -> None:
    hostile.state.misbehave[PODS] = MISBEHAVIOURS[behaviour]
    message, took = read_with(hostile, Settings(deadline=10, max_answer=2**20))
    assert message == f"listing pods: the answer of {hostile.url} is longer than 1 MiB"
    assert took < 2.0


def test_the_deadline_covers_a_credential_plugin_that_does_not_return(
    hostile: Live, tmp_path: Path
) -> None:
    """Nothing before the first request can hold the run either: the kubeconfig's exec
    plugin is still running when the read is given up."""
    plugin = tmp_path / "slow-credential.py"
    plugin.write_text("import time\ntime.sleep(1.5)\n", encoding="utf-8")
    kubeconfig = write_kubeconfig(
        tmp_path / "exec.yaml", hostile.url, exec_command=[sys.executable, str(plugin)]
    )
    started = time.monotonic()
    with pytest.raises(ClusterError) as raised:
        read_cluster(
            LiveTarget(kubeconfig=str(kubeconfig)),
            {},
            datetime.now(timezone.utc),
            print,
            Settings(deadline=0.3),
        )
    assert time.monotonic() - started < 1.0
    assert str(raised.value) == (
        "connecting to the cluster: the cluster was not read within 0.3s (--timeout); giving up"
    )
    assert hostile.state.requests == []


def test_the_deadline_covers_every_request_and_the_waits_between_them(hostile: Live) -> None:
    """Back-off waits count: a server that keeps answering 503 is given up at the deadline,
    not after every attempt's wait."""
    hostile.state.faults[NODES] = [503] * 10
    settings = Settings(deadline=1.0, backoff=0.4, attempts=10)
    message, took = read_with(hostile, settings)
    assert message == "listing nodes: the cluster was not read within 1s (--timeout); giving up"
    assert took < 1.5


@pytest.mark.parametrize("command", ["check", "snapshot"])
def test_timeout_bounds_a_live_run_from_the_command_line(
    hostile: Live, tmp_path: Path, command: str
) -> None:
    hostile.state.misbehave[PODS] = MISBEHAVIOURS["dripping body"]
    output = tmp_path / "snapshot.json"
    argv = {"check": ["check", "fixtures"], "snapshot": ["snapshot", "-o", str(output)]}[command]
    started = time.monotonic()
    code, out, err = run([*argv, "--timeout", "0.5s"], hostile.env)
    assert time.monotonic() - started < 1.5
    assert (code, out) == (2, "") and not output.exists()
    assert err.splitlines()[-1] == (
        "fitgate: listing pods: the cluster was not read within 0.5s (--timeout); giving up"
    )
    assert "Traceback" not in err


@pytest.mark.parametrize("text", ["0", "-1s", "25h", "soon", "1e9", "nan", "5d"])
def test_a_timeout_that_is_not_a_duration_is_a_usage_error(text: str) -> None:
    code, out, err = run(["snapshot", "-o", "-", f"--timeout={text}"], {})
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "argument --timeout" in err and "expected a duration such as 90s, 10m or 1h" in err
