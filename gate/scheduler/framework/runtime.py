"""What every filter plugin is made of, and how the one list of them runs.

The counterpart of upstream ``pkg/scheduler/framework`` (interface.go, runtime/framework.go)
as fitgate runs it: a pod's :class:`PodProfile` (what the filters read of it, parsed once
per workload), a plugin's rejecting status (:class:`Rejection`), the :class:`Plugin`
record each module of :mod:`gate.scheduler.plugins` fills in, and the two ways the list
runs: :func:`run_filters` node by node (the reference) and :func:`filter_groups` per class
of nodes. Both stop at a node's first rejection (RunFilterPlugins).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from gate.k8s.version import Dialect
from gate.model import Cause, Code, Family, FieldPath, NodeView, Rule, Taint, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.profile import PodProfile

UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@dataclass(frozen=True, slots=True)
class Shortfall:
    """One insufficient resource of NodeResourcesFit (noderesources/fit.go
    ``InsufficientResource``): its name and the amount the pod requests, in scheduler units
    (see :class:`NodeView`; ``pods`` requests 1). The node's own amounts stay on its view."""

    resource: str
    requested: int


@dataclass(frozen=True, slots=True)
class Rejection:
    """A plugin's rejecting status (framework.Status): its plugin, code and reasons, the
    untolerated taint for TaintToleration, the insufficient resources for NodeResourcesFit."""

    plugin: str
    code: Code
    reasons: tuple[str, ...]
    taint: Taint | None = None
    shortfall: tuple[Shortfall, ...] = ()


Parts = Iterable[tuple[int, "Rejection | None"]]
"""Sets of nodes (bitsets) by a plugin's answer for them (None: they pass)."""

Groups = dict[Rejection, int]
"""Disjoint sets of nodes (bitsets) by the rejection they share; fitting nodes are absent."""

SharedParts = dict[Hashable, tuple[tuple[tuple["Rejection", int], ...], int]]
"""A plugin's rejections of the nodes still in question, each with the nodes it rejects
among them, and all those nodes, by what it asks, its name and the nodes still in question
(see :func:`filter_groups`)."""

Explained = tuple[Term, str, int, str]
"""One cause a rejection names: the term of the pod spec, the resource ("" for none), its
place in fitsRequest's order (0 for none) and the reason string shown for it."""

State = TypeVar("State")


def the_pod(pod: PodProfile, cluster: Cluster) -> PodProfile:
    """The PreFilter of a plugin that reads the pod's profile itself."""
    return pod


def _never(state: object) -> bool:
    return False


def _no_refusal(state: object) -> Rejection | None:
    return None


def _as_is(cause: Cause, state: Any, node: NodeView) -> Cause:
    return cause


def _no_field(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    return []


_CONTAINER_LISTS = ("containers", "initContainers")


def containers(spec: Mapping[str, Any]) -> list[tuple[str, int, Mapping[str, Any]]]:
    """Every container of a pod spec, init containers after, with its list and position."""
    found = []
    for key in _CONTAINER_LISTS:
        items = spec.get(key)
        for i, container in enumerate(items if isinstance(items, list) else []):
            if isinstance(container, Mapping):
                found.append((key, i, container))
    return found


def indexed(path: FieldPath, index: int | None) -> list[FieldPath]:
    """The ``index``-th entry of the list at ``path`` when one is at fault, then the list."""
    return ([(*path, index)] if index is not None else []) + [path]


@dataclass(frozen=True, slots=True)
class Plugin(Generic[State]):
    """One filter plugin: what it is, what it reads, how it runs and how it explains itself.

    ``name``, ``family`` (the kind of "no" its rejections are, one code-scanning ``rule``
    per family), ``term`` (the part of the pod spec its rejections point at), ``room``
    (whether it rejects a node the pod is meant for because of what already runs there or
    nearby), ``reasons`` (its reason strings; a ``{...}`` template reads as its text before
    the brace).

    ``key``: everything its PreFilter and Filter read of the pod, hashable; pods equal in
    every plugin's key get the same answer (the engine's scheduling key is these keys).
    A plugin whose answer depends on the cluster's pods may give a constant when it can
    reject nothing for this pod in this cluster.

    ``prepare`` (PreFilter: the pod and the :class:`Cluster` -> its state, upstream's
    CycleState entry), ``check`` (Filter: the state and one node -> None or a rejection),
    ``passes`` (the state passes every node: PreFilter's Skip), and how the per-class path
    runs it: ``reads`` (the part of a node the check reads; nodes alike in it share the
    answer), or ``split`` ((index, state, dialect, nodes) -> parts covering the nodes);
    with neither, every node is asked. ``asks``: what of the state decides ``split``'s
    answer, for sharing it between pods alike in that.

    ``refuses``: the PreFilter's own rejection, which ends the cycle before any Filter.

    ``explain``: the causes a rejection names (default: one, its ``term`` and first
    reason); ``refine``: a cause made precise from the state and one node it rejected
    (which term, which port); ``fields``: the fields of a pod spec a cause points at, best
    first (a manifest's line is found for the first one there).
    """

    name: str
    family: Family
    term: Term
    rule: Rule
    key: Callable[[PodProfile, Cluster], Hashable]
    prepare: Callable[[PodProfile, Cluster], State]
    check: Callable[[State, NodeView, Dialect], Rejection | None]
    room: bool = False
    reasons: tuple[str, ...] = ()
    reads: Callable[[NodeView], Hashable] | None = None
    passes: Callable[[State], bool] = _never
    split: Callable[[NodeIndex, State, Dialect, int], Parts] | None = None
    asks: Callable[[State], Hashable] | None = None
    explain: Callable[[Rejection], list[Explained]] | None = None
    refine: Callable[[Cause, State, NodeView], Cause] = _as_is
    fields: Callable[[Mapping[str, Any], Cause], list[FieldPath]] = _no_field
    refuses: Callable[[State], Rejection | None] = _no_refusal
    """The PreFilter's own rejection of the pod (None: it lets the Filters run). A plugin
    that gives one also returns it from ``check`` for every node."""

    def parts(self, index: NodeIndex, state: State, dialect: Dialect, among: int) -> Parts:
        """``among`` split into sets of nodes by this plugin's answer."""
        if self.split is not None:
            return self.split(index, state, dialect, among)
        reads = self.reads
        if reads is None:  # reads all of a node: each node is its own class
            classes: Iterable[tuple[int, int]] = ((1 << i, i) for i in range(len(index.nodes)))
        else:
            classes = index.classes(reads)
        nodes, check = index.nodes, self.check
        return ((bits, check(state, nodes[rep], dialect)) for bits, rep in classes if bits & among)

    def causes(self, rejection: Rejection) -> list[Explained]:
        """Each cause ``rejection`` names, with the reason shown for it."""
        if self.explain is not None:
            return self.explain(rejection)
        return [(self.term, "", 0, rejection.reasons[0] if rejection.reasons else "")]


@dataclass(frozen=True, slots=True)
class Prepared(Generic[State]):
    """A plugin with its state for one pod."""

    plugin: Plugin[State]
    state: State

    def check(self, node: NodeView, dialect: Dialect) -> Rejection | None:
        return self.plugin.check(self.state, node, dialect)

    def passes(self) -> bool:
        return self.plugin.passes(self.state)

    def parts(self, index: NodeIndex, dialect: Dialect, among: int) -> Parts:
        return self.plugin.parts(index, self.state, dialect, among)


CycleState = tuple[Prepared[Any], ...]
"""Every plugin of the registry, in order, prepared for one pod."""


def pre_filter_refusal(cycle: CycleState) -> Rejection | None:
    """The first PreFilter's own rejection in plugin order (RunPreFilterPlugins stops
    there): every node then has that status, and the FitError says it alone."""
    for prepared in cycle:
        refused = prepared.plugin.refuses(prepared.state)
        if refused is not None:
            return refused
    return None


def run_filters(cycle: CycleState, node: NodeView, dialect: Dialect) -> Rejection | None:
    """The first rejection in plugin order, or None when every filter passes."""
    for prepared in cycle:
        rejection = prepared.check(node, dialect)
        if rejection is not None:
            return rejection
    return None


def filter_groups(
    index: NodeIndex,
    cycle: CycleState,
    dialect: Dialect,
    shared: SharedParts | None = None,
) -> Groups:
    """Every node's first rejection, as :func:`run_filters` gives it, for a pod whose answer
    does not depend on node names. With ``shared`` (one per index and dialect), a plugin
    that says what it ``asks`` splits the nodes once for the pods alike in that."""
    groups: Groups = {}
    remaining = index.everyone
    for prepared in cycle:
        if not remaining:
            break
        if prepared.passes():
            continue
        parts = prepared.parts(index, dialect, remaining)
        asks = prepared.plugin.asks
        found = None
        if shared is not None and asks is not None:
            key = (prepared.plugin.name, asks(prepared.state), remaining)
            try:
                found = shared.get(key)
            except TypeError:  # some part of the pod cannot be hashed: not shared
                pass
            else:
                if found is None:
                    found = shared[key] = _rejected(parts, remaining)
        # A shared split is kept as its rejections alone: most of a plugin's parts pass
        # their nodes, and the pods alike in what it asks would walk them again.
        rejected, taken = _rejected(parts, remaining) if found is None else found
        for rejection, bits in rejected:
            groups[rejection] = groups.get(rejection, 0) | bits
        remaining &= ~taken
    return groups


def _rejected(parts: Parts, remaining: int) -> tuple[tuple[tuple[Rejection, int], ...], int]:
    """The rejections of ``parts`` among the ``remaining`` nodes, each with the nodes it
    rejects that an earlier part has not, in the parts' order; and all the nodes rejected."""
    rejected = []
    among = remaining
    for bits, rejection in parts:
        bits &= among
        if rejection is not None and bits:
            rejected.append((rejection, bits))
            among &= ~bits
    return tuple(rejected), remaining & ~among
