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
  (pkg/registry/batch/job/strategy.go ``generateSelector``).

The hash and the UID are stand-ins (:mod:`gate.k8s.podnames`), drawn from the workload's
name (the hash a report's ReplicaSet name shows is drawn from the template, which costs a
pass over it; no selector can tell the two apart): no pod of the snapshot carries them,
only the workload's own copies, which is what they select upstream for a new template or
Job. Labels that differ from one pod to the next (a StatefulSet's
``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index``, an indexed
Job's ``batch.kubernetes.io/job-completion-index``) are not added: a workload's copies are
judged alike. Nor are the revision labels of a StatefulSet or a DaemonSet
(``controller-revision-hash``, ``pod-template-generation``), whose values depend on the
object's history.

>>> controller_labels("Deployment", "web", {"app": "web"})
{'pod-template-hash': '6b9f6cd69'}
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.k8s.podnames import controller_object, fnv32a, template_hash

TEMPLATE_HASH = "pod-template-hash"
JOB_NAME = ("batch.kubernetes.io/job-name", "job-name")
CONTROLLER_UID = ("batch.kubernetes.io/controller-uid", "controller-uid")


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
) -> dict[str, str]:
    """The labels the pods of the workload ``kind``/``name`` carry beyond
    ``template_labels`` (module doc)."""
    if kind == "Deployment":
        return {TEMPLATE_HASH: template_hash(name)}
    if kind not in ("Job", "CronJob") or manual_selector:
        return {}
    made = controller_object(kind, name)
    job = name if made is None else made[1]
    uid = stand_in_uid("Job", job)
    added = {key: job for key in JOB_NAME} | {key: uid for key in CONTROLLER_UID}
    return {key: value for key, value in added.items() if key not in template_labels}
