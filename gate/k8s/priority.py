"""The Priority admission plugin: a created pod's priority, from its PriorityClass.

``plugin/pkg/admission/priority/admission.go`` (``admitPod``, on create): a pod without
``priorityClassName`` takes the ``globalDefault`` class (the lowest if several claim it, as
a race may leave them), else priority 0 and ``PreemptLowerPriority``; a named class that does
not exist is refused; a ``priority`` or ``preemptionPolicy`` written in the pod must equal
the class's. The two system classes exist in every cluster (``pkg/apis/scheduling/v1/
helpers.go``), recorded or not. A class the run ships is created only as the API server
validates and admits one (:func:`accepted`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from gate.k8s.names import DNS1123_SUBDOMAIN
from gate.model import AdmissionObjects, WarningKind, WorkloadWarning
from gate.untyped import mapping

PREEMPT_LOWER_PRIORITY: Final = "PreemptLowerPriority"
"""A PriorityClass's ``preemptionPolicy`` when it sets none (SetDefaults_PriorityClass)."""
PREEMPTION_POLICIES: Final = (PREEMPT_LOWER_PRIORITY, "Never")
"""ValidatePreemptionPolicy: the policies a class may hold."""
DEFAULT_PRIORITY: Final = 0
"""``scheduling.DefaultPriorityWhenNoDefaultClassExists``."""
SYSTEM_CRITICAL_PRIORITY: Final = 2_000_000_000
"""``scheduling.SystemCriticalPriority``: system-cluster-critical; system-node-critical is
1000 above it."""
HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1_000_000_000
"""``scheduling.HighestUserDefinablePriority``: the most a class of the user's may hold."""
SYSTEM_PREFIX: Final = "system-"
"""``scheduling.SystemPriorityClassPrefix``: names reserved for the built-in classes."""


class PriorityRefused(Exception):
    """The Priority admission refuses to create the pod; the message is its own."""


@dataclass(frozen=True, slots=True)
class PriorityClass:
    """What the admission reads of a PriorityClass."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY


SYSTEM_CLASSES: Final = (
    PriorityClass("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000),
    PriorityClass("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY),
)


def priority_class(item: Mapping[str, Any]) -> PriorityClass | None:
    """The class a recorded PriorityClass object is; None for one not shaped like one."""
    name = mapping(item.get("metadata")).get("name")
    value = item.get("value")
    if not isinstance(name, str) or not isinstance(value, int) or isinstance(value, bool):
        return None
    policy = item.get("preemptionPolicy", PREEMPT_LOWER_PRIORITY)
    if policy is None:  # SetDefaults_PriorityClass fills only a nil policy
        policy = PREEMPT_LOWER_PRIORITY
    if not isinstance(policy, str):
        return None
    return PriorityClass(name, value, item.get("globalDefault") is True, policy)


def classes_of(admission: AdmissionObjects) -> dict[str, PriorityClass]:
    """The cluster's classes by name: the recorded ones, and the system ones."""
    classes = {c.name: c for c in SYSTEM_CLASSES}
    for item in admission.priority_classes.values():
        found = priority_class(item)
        if found is not None:
            classes[found.name] = found
    return classes


def with_run_classes(
    admission: AdmissionObjects, bodies: Iterable[Mapping[str, Any]]
) -> AdmissionObjects:
    """The snapshot's classes and the PriorityClasses among the run's manifests, which are
    applied with the workloads that name them (a chart ships its class beside them), in
    their order, each as the API server takes it (:func:`accepted`): a run's class replaces
    a recorded one of its name, and one the API server refuses leaves the classes as they
    were."""
    shipped = [
        (found, body)
        for body in bodies
        if body.get("kind") == "PriorityClass"
        and str(body.get("apiVersion", "")).startswith("scheduling.k8s.io/")
        and (found := priority_class(body)) is not None
    ]
    if not shipped:
        return admission
    recorded = dict(admission.priority_classes)
    known = classes_of(admission)
    for found, body in shipped:
        if accepted(found, known):
            known[found.name] = found
            recorded[found.name] = body
    return replace(admission, priority_classes=recorded)


def accepted(new: PriorityClass, known: Mapping[str, PriorityClass]) -> bool:
    """Whether the API server creates (or, beside a ``known`` class of its name, updates)
    the class: ValidatePriorityClass (its name a DNS subdomain, as ValidateObjectMeta holds
    it; a ``system-`` name is only a built-in class as it is, a user's class holds at most
    :data:`HIGHEST_USER_DEFINABLE_PRIORITY`),
    ValidatePriorityClassUpdate (``value`` and ``preemptionPolicy`` never change) and the
    Priority admission's validatePriorityClass (no second ``globalDefault`` class); its
    ``preemptionPolicy`` one of :data:`PREEMPTION_POLICIES` (ValidatePreemptionPolicy: an
    empty one is Required, another Unsupported)."""
    if new.preemption_policy not in PREEMPTION_POLICIES:
        return False
    if len(new.name) > 253 or not DNS1123_SUBDOMAIN.fullmatch(new.name):
        return False
    if new.name.startswith(SYSTEM_PREFIX):
        if not any(
            (c.name, c.value, c.global_default) == (new.name, new.value, new.global_default)
            for c in SYSTEM_CLASSES
        ):
            return False
    elif new.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        return False
    old = known.get(new.name)
    if old is not None and (old.value, old.preemption_policy) != (
        new.value,
        new.preemption_policy,
    ):
        return False
    default = default_class(known) if new.global_default else None
    return default is None or default.name == new.name


def default_class(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """``getDefaultPriorityClass``: the globalDefault class, the lowest value if several
    are, the first listed (by name, as the lister lists them) among equals."""
    found: PriorityClass | None = None
    for name in sorted(classes):
        candidate = classes[name]
        if candidate.global_default and (found is None or found.value > candidate.value):
            found = candidate
    return found


def admit_priority(spec: dict[str, Any], admission: AdmissionObjects) -> list[WorkloadWarning]:
    """Set ``priorityClassName``, ``priority`` and ``preemptionPolicy`` in ``spec`` as the
    Priority admission does; a warning when the class named is unknown because the snapshot
    recorded no PriorityClass (the pod is then judged with the priority it writes). Raises
    :class:`PriorityRefused` where the admission refuses the pod."""
    classes = classes_of(admission)
    name = spec.get("priorityClassName")
    if not name:
        chosen = default_class(classes)
        if chosen is not None:
            spec["priorityClassName"] = chosen.name
    else:
        chosen = classes.get(str(name))
        if chosen is None and not admission.has_priority_classes:
            text = f'PriorityClass "{name}": priority not known (the snapshot recorded none)'
            return [WorkloadWarning(WarningKind.ADMISSION, text)]
        if chosen is None:
            raise PriorityRefused(f"no PriorityClass with name {name} was found")
    value = DEFAULT_PRIORITY if chosen is None else chosen.value
    policy = PREEMPT_LOWER_PRIORITY if chosen is None else chosen.preemption_policy
    written = spec.get("priority")
    if written is not None and written != value:
        raise PriorityRefused(
            f"the integer value of priority ({written}) must not be provided in pod spec; "
            f"priority admission controller computed {value} from the given PriorityClass name"
        )
    spec["priority"] = value
    written_policy = spec.get("preemptionPolicy")
    if written_policy is not None and written_policy != policy:
        raise PriorityRefused(
            f"the string value of PreemptionPolicy ({written_policy}) must not be provided in "
            f"pod spec; priority admission controller computed {policy} from the given "
            "PriorityClass name"
        )
    spec["preemptionPolicy"] = policy
    return []
