"""The Priority admission plugin: a created pod's priority, from its PriorityClass.

``plugin/pkg/admission/priority/admission.go`` (``admitPod``, on create): a pod without
``priorityClassName`` takes the ``globalDefault`` class (the lowest if several claim it, as
a race may leave them), else priority 0 and ``PreemptLowerPriority``; a named class that does
not exist is refused; a ``priority`` or ``preemptionPolicy`` written in the pod must equal
the class's. The two system classes exist in every cluster (``pkg/apis/scheduling/v1/
helpers.go``), recorded or not. A class the run ships is created only as the API server
validates (:func:`class_problem`) and admits (:func:`admitted`) one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from gate.k8s.validation import (
    FORBIDDEN,
    REQUIRED,
    Errors,
    FieldError,
    aggregate,
    cluster_metadata,
    invalid_object,
    json_quote,
    not_supported_value,
    object_meta,
    stored_name,
)
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
    """The class a recorded PriorityClass object is; None for one not shaped like one. A
    ``value`` left out (or null) is 0, as the decoder leaves a Go int32 it sets nothing in."""
    name = mapping(item.get("metadata")).get("name")
    value = item.get("value")
    value = 0 if value is None else value
    if not isinstance(name, str) or not isinstance(value, int) or isinstance(value, bool):
        return None
    policy = item.get("preemptionPolicy", PREEMPT_LOWER_PRIORITY)
    if policy is None:  # SetDefaults_PriorityClass fills only a nil policy
        policy = PREEMPT_LOWER_PRIORITY
    if not isinstance(policy, str):
        return None
    return PriorityClass(name, value, item.get("globalDefault") is True, policy)


def class_problem(body: Mapping[str, Any]) -> str | None:
    """The API server's refusal of a PriorityClass written from ``body``
    (``PriorityClass.scheduling.k8s.io "name" is invalid: <errors>``, as
    apierrors.NewInvalid words it), or None when it takes it (:func:`class_errors`). A
    ``value`` that is no int32, or a ``preemptionPolicy`` or ``globalDefault`` of another
    type, is refused before validation, when the object is decoded: named by its field, in
    fitgate's words."""
    for field, wanted, shape_ok in _DECODED:
        raw = body.get(field)
        if raw is not None and not shape_ok(raw):
            return f"{field}: must be {wanted}"
    metadata = cluster_metadata(body)
    errors = aggregate(str(e) for e in class_errors(body))
    return (
        None if errors is None else invalid_object("PriorityClass", stored_name(metadata), errors)
    )


_DECODED: Final[tuple[tuple[str, str, Callable[[object], bool]], ...]] = (
    (
        "value",
        "a 32-bit integer",
        lambda raw: type(raw) is int and -(2**31) <= raw < 2**31,
    ),
    ("globalDefault", "a boolean", lambda raw: isinstance(raw, bool)),
    ("preemptionPolicy", "a string", lambda raw: isinstance(raw, str)),
)
"""The fields of a PriorityClass the decoder refuses a value of another type for."""


def class_errors(body: Mapping[str, Any]) -> Errors:
    """ValidatePriorityClass (``pkg/apis/scheduling/validation/validation.go``), in its
    order, on a class as SetDefaults_PriorityClass leaves it: its metadata (its name a DNS
    subdomain), a ``system-`` name only a built-in class as it is
    (IsKnownSystemPriorityClass's words), a user's class at most
    :data:`HIGHEST_USER_DEFINABLE_PRIORITY`, and ValidatePreemptionPolicy (an empty policy
    Required, another than :data:`PREEMPTION_POLICIES` Unsupported). Fields of another type
    are :func:`class_problem`'s."""
    metadata = cluster_metadata(body)
    yield from object_meta({"metadata": metadata}, "PriorityClass")
    name, value = stored_name(metadata), body.get("value") or 0
    if name.startswith(SYSTEM_PREFIX):
        reason = _system_class_error(name, value, body.get("globalDefault") is True)
        if reason is not None:
            detail = (
                f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system "
                f"use only. error: {reason}"
            )
            yield FieldError("metadata.name", FORBIDDEN, None, detail)
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = (
            f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        )
        yield FieldError("value", FORBIDDEN, None, detail)
    policy = body.get("preemptionPolicy")
    if policy == "":
        yield FieldError("preemptionPolicy", REQUIRED)
    elif isinstance(policy, str) and policy not in PREEMPTION_POLICIES:
        yield not_supported_value("preemptionPolicy", json_quote(policy), PREEMPTION_POLICIES)


def _system_class_error(name: str, value: int, global_default: bool) -> str | None:
    """IsKnownSystemPriorityClass's error for a ``system-`` class, None for a built-in one."""
    for system in SYSTEM_CLASSES:
        if system.name != name:
            continue
        if system.value != value:
            return f"value of {name} PriorityClass must be {system.value}"
        if system.global_default != global_default:
            wanted = "true" if system.global_default else "false"  # %v of a Go bool
            return f"globalDefault of {name} PriorityClass must be {wanted}"
        return None
    return f"{name} is not a known system priority class"


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
    their order, each as the API server takes it (:func:`class_problem`, :func:`admitted`):
    a run's class replaces a recorded one of its name, and one the API server refuses
    leaves the classes as they were."""
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
        if class_problem(body) is None and admitted(found, known):
            known[found.name] = found
            recorded[found.name] = body
    return replace(admission, priority_classes=recorded)


def admitted(new: PriorityClass, known: Mapping[str, PriorityClass]) -> bool:
    """Whether the API server, beside the ``known`` classes, creates (or, beside one of its
    name, updates) a class its validation takes (:func:`class_problem`):
    ValidatePriorityClassUpdate (``value`` and ``preemptionPolicy`` never change) and the
    Priority admission's validatePriorityClass (no second ``globalDefault`` class)."""
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
