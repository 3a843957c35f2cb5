"""Where one run's time goes: ``python -m benchmarks.phases SNAPSHOT MANIFESTS``.

Prints, as JSON, the seconds spent loading the snapshot, reading the manifests, evaluating
(after both are loaded: the engine alone) and rendering every report (into nothing), and
how many classes each filter saw: the engine's cost follows those, not the node count.
"""

from __future__ import annotations

import io
import json
import os
import sys
from time import perf_counter

from gate.cli import without_cycle_collection
from gate.inputs.manifests import read_documents
from gate.inputs.workloads import extract_all
from gate.k8s.version import dialect_for
from gate.model import Report, Workload
from gate.reports.jsonreport import json_chunks
from gate.reports.junit import render_junit
from gate.reports.markdown import render_comment, render_summary
from gate.scheduler.engine import Evaluator
from gate.snapshot.load import load_snapshot


def phases(snapshot_path: str, manifests: str) -> dict[str, float | int]:
    start = perf_counter()
    snapshot = load_snapshot(snapshot_path)
    loaded = perf_counter()
    items = list(extract_all(read_documents([manifests], io.BytesIO())))
    read = perf_counter()
    evaluator = Evaluator.for_snapshot(snapshot, dialect_for(snapshot.info.server_version))
    results = tuple(evaluator.evaluate(i) for i in items if isinstance(i, Workload))
    evaluated = perf_counter()
    report = Report(snapshot=snapshot.info, results=results)
    # Rendered as the CLI renders them, written where writing costs nothing: the disk's
    # share is in the end-to-end figures.
    with open(os.devnull, "wb") as sink:
        sink.writelines(json_chunks(report))
        for text in (
            render_junit(report, "bench"),
            render_comment(report, "bench", None),
            render_summary(report, "bench", None),
        ):
            sink.write(text.encode("utf-8"))
    rendered = perf_counter()
    index = evaluator.index
    return {
        "load": loaded - start,
        "read": read - loaded,
        "evaluate": evaluated - read,
        "reports": rendered - evaluated,
        "nodes": len(index.nodes),
        "workloads": len(results),
        "taint_classes": len(index.taint_classes),
        "port_classes": len(index.port_classes),
    }


def main(argv: list[str]) -> int:
    with without_cycle_collection():  # as ``fitgate check`` runs
        print(json.dumps(phases(argv[0], argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
