"""The labels a workload's pods carry beyond its template's: those its controller (or the
API server, on the controller's object) adds before any pod exists. They take part in
what selects the pods: a spread constraint's or an affinity term's ``matchLabelKeys``
(``pod-template-hash`` is the documented one) and every selector the pod's own copies
match.

- Deployment: ``pod-template-hash``, set over the template's own
  (pkg/controller/deployment/sync.go ``getNewReplicaSet``, ``CloneAndAddLabel``).
- Job, and a CronJob's Job: ``batch.kubernetes.io/job-name`` and ``job-name`` (the Job's
  name), ``batch.kubernetes.io/controller-uid`` and ``controller-uid`` (its UID), each
  unless the template sets it, and none when ``manualSelector`` is true
  (pkg/registry/batch/job/strategy.go ``generateSelector``); an indexed Job's pods also
  ``batch.kubernetes.io/job-completion-index``, their index, set over the template's own
  (pkg/controller/job/indexed_job_utils.go ``addCompletionIndexLabel``, PodIndexLabel GA).
- StatefulSet: ``statefulset.kubernetes.io/pod-name`` (``<name>-<ordinal>``) and
  ``apps.kubernetes.io/pod-index`` (the ordinal), by stateful_set_utils.go
  ``updateIdentity``, and ``controller-revision-hash``, the name of its revision
  ``<name>-<hash>`` (``newVersionedStatefulSetPod``, ``setPodRevision``), each set over the
  template's own.
- DaemonSet: ``controller-revision-hash`` (its revision's hash) and
  ``pod-template-generation`` (the ``deprecated.daemonset.template.generation`` the API
  server sets to 1 on a new DaemonSet), set over the template's own
  (pkg/controller/daemon/util ``CreatePodTemplate``).

The hashes and the UID are stand-ins (:mod:`gate.k8s.podnames`), drawn from the workload's
name (the hash a report's ReplicaSet name shows is drawn from the template, which costs a
pass over it; no selector can tell the two apart): no pod of the snapshot carries them,
only the workload's own copies, which is what they select upstream for a new template or
Job. A StatefulSet's pod name and index and an indexed Job's completion index differ from
one copy to the next (:func:`copy_labels`): a workload's pod carries its first copy's.

>>> controller_labels("Deployment", "web", {"app": "web"})
{'pod-template-hash': '6b9f6cd69'}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from gate.k8s.podnames import controller_object, fnv32a, safe_encode, template_hash

TEMPLATE_HASH = "pod-template-hash"
JOB_NAME = ("batch.kubernetes.io/job-name", "job-name")
CONTROLLER_UID = ("batch.kubernetes.io/controller-uid", "controller-uid")
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
POD_NAME = "statefulset.kubernetes.io/pod-name"
POD_INDEX = "apps.kubernetes.io/pod-index"
REVISION_HASH = "controller-revision-hash"
TEMPLATE_GENERATION = "pod-template-generation"
GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
PER_COPY = frozenset({COMPLETION_INDEX, POD_NAME, POD_INDEX})
"""The keys whose values differ from one copy of a workload to the next."""


# A Job's UID is asked for by its pods' labels and, more than once, by its validation.
@lru_cache(maxsize=4096)
def stand_in_uid(kind: str, name: str) -> str:
    """A UID for the object of ``kind`` and ``name`` the run creates, shaped as one.

    >>> len(stand_in_uid("Job", "pi"))
    36
    """
    digits = "".join(f"{fnv32a(f'{kind}/{name}/{part}'):08x}" for part in range(4))
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:32]}"


def controller_labels(
    kind: str,
    name: str,
    template_labels: Mapping[str, str],
    *,
    manual_selector: bool = False,
    first_ordinal: int = 0,
    indexed: bool = False,
    generation: int = 1,
) -> dict[str, str]:
    """The labels the first pod of the workload ``kind``/``name`` carries beyond
    ``template_labels`` (module doc); ``first_ordinal``: a StatefulSet's
    ``spec.ordinals.start``; ``indexed``: a Job (or a CronJob's) of ``completionMode``
    ``Indexed``; ``generation``: a DaemonSet's template generation."""
    if kind == "Deployment":
        return {TEMPLATE_HASH: template_hash(name)}
    if kind == "StatefulSet":
        revision = f"{name}-{revision_hash(kind, name)}"
        return {REVISION_HASH: revision, **copy_labels(kind, name, first_ordinal)}
    if kind == "DaemonSet":
        return {REVISION_HASH: revision_hash(kind, name), TEMPLATE_GENERATION: str(generation)}
    if kind not in ("Job", "CronJob"):
        return {}
    index = copy_labels(kind, name, 0, indexed=indexed)
    if manual_selector:
        return index
    made = controller_object(kind, name)
    job = name if made is None else made[1]
    uid = stand_in_uid("Job", job)
    added = {key: job for key in JOB_NAME} | {key: uid for key in CONTROLLER_UID}
    return {key: value for key, value in added.items() if key not in template_labels} | index


def revision_hash(kind: str, name: str) -> str:
    """A stand-in for the hash of the first ControllerRevision of the StatefulSet or
    DaemonSet ``name`` (history.HashControllerRevision: rand.SafeEncodeString of an FNV-32a
    sum's decimal digits), of 10 characters, as three sums in four have: a StatefulSet's
    revision name ``<name>-<hash>`` then outgrows a label value past a name of 52.

    >>> len(revision_hash("StatefulSet", "db"))
    10
    """
    low = 10**9
    return safe_encode(str(low + fnv32a(f"ControllerRevision/{kind}/{name}") % (2**32 - low)))


def copy_labels(kind: str, name: str, ordinal: int, *, indexed: bool = False) -> dict[str, str]:
    """The labels of :data:`PER_COPY` the copy of ``ordinal`` (a StatefulSet's ordinal, an
    indexed Job's completion index) carries, set over its template's.

    >>> copy_labels("StatefulSet", "db", 2)
    {'statefulset.kubernetes.io/pod-name': 'db-2', 'apps.kubernetes.io/pod-index': '2'}
    >>> copy_labels("Job", "pi", 1, indexed=True)
    {'batch.kubernetes.io/job-completion-index': '1'}
    """
    if kind == "StatefulSet":
        return {POD_NAME: f"{name}-{ordinal}", POD_INDEX: str(ordinal)}
    if kind in ("Job", "CronJob") and indexed:
        return {COMPLETION_INDEX: str(ordinal)}
    return {}


_VALUED = ("In", "NotIn")
"""The operators whose answer depends on a label's value (``Exists`` and
``DoesNotExist`` answer alike for every copy: each carries the key)."""


def differs_by_copy(kind: str, pod_spec: Mapping[str, Any], *, indexed: bool = False) -> bool:
    """Whether the pod's own required inter-pod terms or ``DoNotSchedule`` spread
    constraints read the value of a label of :data:`PER_COPY` its copies carry (by
    ``matchLabels``, ``In``/``NotIn``, ``matchLabelKeys`` or ``mismatchLabelKeys``): then a
    copy's selectors match the copies before it differently from how they match it, and
    each copy is placed with its own labels."""
    carried = copy_labels(kind, "", 0, indexed=indexed).keys()
    return bool(carried) and any(key in carried for key in _valued_keys(pod_spec))


def _valued_keys(pod_spec: Mapping[str, Any]) -> Iterator[str]:
    affinity = pod_spec.get("affinity")
    affinity = affinity if isinstance(affinity, Mapping) else {}
    terms: list[object] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        held = affinity.get(kind)
        listed = (
            held.get("requiredDuringSchedulingIgnoredDuringExecution")
            if isinstance(held, Mapping)
            else None
        )
        terms.extend(listed if isinstance(listed, list) else [])
    spread = pod_spec.get("topologySpreadConstraints")
    for constraint in spread if isinstance(spread, list) else []:
        if isinstance(constraint, Mapping) and constraint.get("whenUnsatisfiable") in (
            None,
            "DoNotSchedule",
        ):
            terms.append(constraint)
    for term in terms:
        if isinstance(term, Mapping):
            yield from _term_keys(term)


def _term_keys(term: Mapping[str, Any]) -> Iterator[str]:
    for field in ("matchLabelKeys", "mismatchLabelKeys"):
        keys = term.get(field)
        yield from (k for k in keys if isinstance(k, str)) if isinstance(keys, list) else ()
    selector = term.get("labelSelector")
    if not isinstance(selector, Mapping):
        return
    labels = selector.get("matchLabels")
    yield from (str(k) for k in labels) if isinstance(labels, Mapping) else ()
    expressions = selector.get("matchExpressions")
    for expression in expressions if isinstance(expressions, list) else []:
        if isinstance(expression, Mapping) and expression.get("operator") in _VALUED:
            yield str(expression.get("key"))
