"""The one interface every report is written through.

A writer takes the run's one :class:`~gate.model.Report` and a :class:`ReportContext`
(what some writers need beyond the report: the cluster's name, the clock, a comment
template) and returns its text, whole or as UTF-8 pieces (the JSON report can be a
gigabyte, and is written as it is rendered). Where the text goes is the caller's choice:
the command line keeps one table of (option, writer, destination).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from gate.model import Report
from gate.reports.views import Views

Output = str | Iterable[bytes]
"""A report's text, whole, or as encoded pieces to write one after another."""

JSON_NODES = 10
"""How many node names each outcome group of the JSON report lists by default (its
``count`` is always the full count): enough to name a small pool, or to find a few nodes
of a large one; ``--json-nodes N`` changes it, ``--json-nodes all`` lists every one."""


@dataclass(frozen=True, slots=True)
class ReportContext:
    """What writers may read besides the report.

    ``cluster`` names the cluster in every report; ``now`` dates the snapshot's age (None:
    no age is shown); ``comment_template`` is the text of a jinja2 template replacing the
    shipped comment template. ``quiet`` and ``colour`` shape the text summary only (the
    failing workloads and the status line; coloured verdict words). ``json_nodes`` bounds
    the node names each outcome group of the JSON report lists (None: every one).
    ``views`` derives what several reports show of one tuple of per-node outcomes once for
    all of them: writers given the same context share it.
    """

    cluster: str = "cluster"
    now: datetime | None = None
    comment_template: str | None = None
    views: Views = field(default_factory=Views, compare=False)
    quiet: bool = False
    colour: bool = False
    json_nodes: int | None = JSON_NODES
    comment_template_name: str = ""
    """The file ``comment_template`` was read from, for its errors."""


class Reporter(Protocol):
    """A report writer: the report and its context in, the report's text out."""

    def __call__(self, report: Report, context: ReportContext, /) -> Output: ...


@dataclass(frozen=True, slots=True)
class Deferred:
    """A writer whose module ``load`` imports when it first writes: a run imports the
    writers of the reports it writes, not those of every report it could."""

    load: Callable[[], Reporter]

    def __call__(self, report: Report, context: ReportContext, /) -> Output:
        return self.load()(report, context)
