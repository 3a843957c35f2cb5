"""Where one run's time goes: ``python -m benchmarks.phases SNAPSHOT MANIFESTS``.

Prints, as JSON, the seconds spent loading the snapshot, reading the manifests' documents,
evaluating them (after both are loaded: :func:`gate.run.check`, the pipeline the command
runs, from documents to report), rendering every report (into nothing), and how many
classes each filter saw: the engine's cost follows those, not the node count. Every phase
is timed around a public entry point of :mod:`gate.run` (the reports' writers aside): the
engine carries no timing code and is not patched to time it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from time import perf_counter

from gate.inputs.manifests import read_documents
from gate.model import NODE_PORTS, TAINT_TOLERATION
from gate.reports.jsonreport import write_json
from gate.reports.junit import write_junit
from gate.reports.markdown import write_comment, write_summary
from gate.reports.reporter import Output, ReportContext
from gate.run import (
    RunOptions,
    check,
    read_snapshot_file,
    without_cycle_collection,
    write_reports,
)
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.plugins import FILTERS


def phases(snapshot_path: str, manifests: str) -> dict[str, float | int]:
    start = perf_counter()
    snapshot = read_snapshot_file(snapshot_path)
    loaded = perf_counter()
    documents = list(read_documents([manifests], io.BytesIO()))
    read = perf_counter()
    report = check(documents, snapshot, RunOptions(cluster="bench"))
    evaluated = perf_counter()
    # Rendered as the CLI renders them, written where writing costs nothing: the disk's
    # share is in the end-to-end figures.
    with open(os.devnull, "wb") as devnull:

        def sink(output: Output) -> None:
            devnull.writelines([output.encode("utf-8")] if isinstance(output, str) else output)

        writers = (write_json, write_junit, write_comment, write_summary)
        write_reports(report, ReportContext("bench"), [(w, (sink,)) for w in writers])
    rendered = perf_counter()
    index = NodeIndex.of(snapshot.nodes)  # the classes the run's evaluator saw, untimed
    return {
        "load": loaded - start,
        "read": read - loaded,
        "evaluate": evaluated - read,
        "reports": rendered - evaluated,
        "nodes": len(index.nodes),
        "workloads": len(report.results),
        "taint_classes": _classes(index, TAINT_TOLERATION),
        "port_classes": _classes(index, NODE_PORTS),
    }


def _classes(index: NodeIndex, name: str) -> int:
    """How many classes of nodes plugin ``name`` sees."""
    plugin = next(p for p in FILTERS if p.name == name)
    return len(index.classes(plugin.reads)) if plugin.reads else len(index.nodes)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.phases", description="Where one run's time goes, as JSON."
    )
    parser.add_argument("snapshot", help="a snapshot file (a recording or a kubectl List)")
    parser.add_argument("manifests", help="the manifests' folder")
    options = parser.parse_args(argv)
    with without_cycle_collection():  # as ``fitgate check`` runs
        print(json.dumps(phases(options.snapshot, options.manifests)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
