"""How long fitgate's live read takes, against the cost of merely fetching and parsing.

A test API server (tests/apiserver.py) runs in a child process and serves ``--nodes`` nodes
and ``--pods`` realistic pods (about 5 KB each: env, volumes, probes, owner references,
managedFields). This process then

1. downloads every page of the same lists with urllib3 and ``json.loads`` each page, keeping
   nothing (the floor any reader pays), once with the cyclic collector on and once off;
2. runs fitgate's reader (``gate.live.reader.read_cluster``: preflight, paginated lists through
   the ``kubernetes`` client, each page decoded into the recording's structs, each object
   kept encoded);
3. optionally writes the snapshot file (``--write FILE``) and builds node views (``--build``).

It prints the read time as a ratio to the faster baseline (goal: at most 1.5) and the peak
resident memory of this process. Not a unit test; run it by hand from the repository root:

    python benchmarks/live_read.py --nodes 5000 --pods 150000
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import urllib3  # noqa: E402

from tests.apiserver import (  # noqa: E402
    LIST_KINDS,
    NODES,
    PODS,
    ApiServer,
    ApiState,
    Item,
    write_kubeconfig,
)
from tests.cluster_objects import realistic_node, realistic_pod  # noqa: E402

TOKEN = "benchmark-token"
PAGE = 500
MARK = "QQINDEXQQ"
NODE_MARK = "QQNODEQQ"


def _templates() -> list[tuple[str, str | None]]:
    """A few pod shapes as JSON text with placeholders: rendering 150k pods one dict at a time
    would take longer than the measurement."""
    shapes: list[tuple[str, str | None]] = []
    for variant, phase in enumerate(("Running",) * 14 + ("Pending", "Succeeded")):
        pod = realistic_pod(variant, NODE_MARK, secret=f"v{variant}-{MARK}", phase=phase)
        pod["metadata"]["name"] = f"web-{variant}-{MARK}"
        pod["metadata"]["uid"] = f"uid-{MARK}"
        shapes.append((json.dumps(pod), phase))
    return shapes


def _pod_items(count: int, nodes: int) -> Iterator[Item]:
    shapes = _templates()
    for index in range(count):
        text, phase = shapes[index % len(shapes)]
        node = f"aks-user-{index % nodes:06d}"
        raw = text.replace(MARK, f"{index:07d}").replace(NODE_MARK, node).encode()
        yield Item(raw, phase)


def serve(nodes: int, pods: int) -> None:
    """Child process: build the objects, print the URL, serve until stdin closes."""
    state = ApiState(token=TOKEN)
    state.collections[NODES] = [Item.of(realistic_node(i)) for i in range(nodes)]
    state.collections[PODS] = list(_pod_items(pods, nodes))
    state.requests = _Discard()
    with ApiServer(state) as server:
        print(server.url, flush=True)
        sys.stdin.read()


class _Discard(list):  # type: ignore[type-arg]
    """The request log, not kept: a long run would otherwise grow it."""

    def append(self, item: object) -> None:
        pass


def baseline(url: str) -> tuple[float, int]:
    """Fetch every page of the same lists and json.loads each; nothing is kept."""
    http = urllib3.PoolManager(retries=False)
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    started, total = time.perf_counter(), 0
    json.loads(http.request("GET", f"{url}/version", headers=headers).data)
    for path in LIST_KINDS:
        token = ""
        while True:
            fields = {"limit": str(PAGE)}
            if path == PODS:
                fields["fieldSelector"] = "status.phase!=Succeeded,status.phase!=Failed"
            if token:
                fields["continue"] = token
            data = http.request("GET", url + path, fields=fields, headers=headers).data
            total += len(data)
            page = json.loads(data)
            token = page["metadata"].get("continue") or ""
            del page, data
            if not token:
                break
    return time.perf_counter() - started, total


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(options: argparse.Namespace, url: str, kubeconfig: Path) -> None:
    from gate.live.credentials import LiveTarget
    from gate.live.reader import live_snapshot, read_cluster
    from gate.live.recorder import atomic_output, write_snapshot
    from gate.run import without_cycle_collection

    with_gc, size = baseline(url)
    gc.disable()
    without_gc, _ = baseline(url)
    gc.enable()
    floor = min(with_gc, without_gc)
    print(f"baseline: {size / 2**20:,.0f} MiB fetched and parsed in {with_gc:.2f} s "
          f"(collector on), {without_gc:.2f} s (collector off)")  # fmt: skip
    before = _rss_mib()
    started = time.perf_counter()
    with without_cycle_collection():  # as ``fitgate snapshot`` runs
        recording = read_cluster(
            LiveTarget(kubeconfig=str(kubeconfig)),
            {},
            datetime.now(timezone.utc),
            lambda line: print(f"  fitgate: {line}", file=sys.stderr),
        )
    read = time.perf_counter() - started
    nodes, pods = len(recording.sections["nodes"]), len(recording.sections["pods"])
    print(f"fitgate read: {nodes:,} nodes, {pods:,} pods "
          f"in {read:.2f} s = {read / floor:.2f}x the baseline (goal <= 1.5x)")  # fmt: skip
    print(f"memory: peak RSS {_peak_mib():,.0f} MiB so far; resident memory grew by "
          f"{_rss_mib() - before:,.0f} MiB while reading (the recording)")  # fmt: skip
    if options.write:
        started = time.perf_counter()
        with atomic_output(options.write) as output:
            write_snapshot(recording, output)
        written = os.path.getsize(options.write) / 2**20
        print(f"write: {written:,.1f} MiB in {time.perf_counter() - started:.2f} s")
    if options.build:
        started = time.perf_counter()
        snapshot = live_snapshot(recording)
        print(f"node views: {snapshot.info.nodes:,} nodes, {snapshot.info.pods:,} pods counted "
              f"in {time.perf_counter() - started:.2f} s")  # fmt: skip
    print(f"peak RSS of this process: {_peak_mib():,.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--write", metavar="FILE", help="also write the snapshot file")
    parser.add_argument("--build", action="store_true", help="also build the node views")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.nodes, options.pods)
        return
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", f"--nodes={options.nodes}", f"--pods={options.pods}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        print(f"serving {options.nodes:,} nodes and {options.pods:,} pods...", file=sys.stderr)
        url = child.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as scratch:
            kubeconfig = write_kubeconfig(Path(scratch) / "kubeconfig", url, token=TOKEN)
            measure(options, url, kubeconfig)
    finally:
        child.stdin.close()
        child.wait()
    server = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the test API server (child process): {server:,.0f} MiB")


if __name__ == "__main__":
    main()
