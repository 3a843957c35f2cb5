"""Karpenter's volume topology: a pod's volumes pin the NodeClaims it may launch.

``sigs.k8s.io/karpenter`` v1.8 ``pkg/controllers/provisioning/scheduling/volumetopology.go``
(``Inject``): for each claim of the pod, a bound volume's first ``nodeAffinity.required``
term (a local or hostPath volume's hostname requirement left out), or for an unbound claim
the first ``allowedTopologies`` term of the StorageClass its ``spec.storageClassName``
names (each key ``In`` its values), is added to every required node affinity term of the pod. A copy
pinned to its volume's zone is launched only there; being node affinity, the requirements
also narrow a zonal spread's ``podDomains`` (v1.9 keeps them out of them). fitgate reads
the claims VolumeBinding's PreFilter found: a bound claim's volume, a waiting claim's class.

Before that, ``provisioner.go`` ``Validate`` ignores a pod whose claims
``ValidatePersistentVolumeClaims`` refuses: a claim not found, being deleted or Lost, one
naming a volume not found or without ``pv.kubernetes.io/bind-completed``, an unbound one
whose ``spec.storageClassName`` is empty, names no class found or an Immediate one. The
volume plugins' PreFilters refuse each of those pods too (the scheduler could place it on
no node, new or old), so their refusal is read as Karpenter's; but Karpenter reads an
unbound claim's class from ``spec.storageClassName`` alone, and ignores a waiting claim
that names its class by the beta annotation only.

``Validate`` also ignores a pod whose requirements keep it off every Karpenter node
(``karpenter.sh/nodepool DoesNotExist``) or whose node selector or required node affinity
names a restricted label, whatever its operator, or ``karpenter.sh/capacity-type`` ``In``
none of its known values (a selector's ``spot-instance``), or a ``Gt``/``Lt`` bound below
zero, or whose required node affinity has a term with ``matchFields`` (:func:`invalid`); its
errors come first. Karpenter's requirements never read ``matchFields`` (scheduling/requirements.go
``newPodRequirements`` takes ``MatchExpressions`` only): such a pod is refused, not judged
by its expressions alone.
The restricted-label error names the label only, not upstream's lists of well-known labels
and restricted domains.
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.k8s.labels import HOSTNAME
from gate.k8s.volumes import name_of, spec_of
from gate.model.karpenter import CAPACITY_TYPE_LABEL, NODEPOOL_LABEL
from gate.scheduler.autoscaling.karpenter.requirements import (
    DOES_NOT_EXIST,
    GT,
    IN,
    LT,
    NORMALIZED,
    Req,
    Reqs,
    atoi,
    restricted,
)
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.plugins.volumebinding.binder import VOLUME_BINDING, State
from gate.scheduler.plugins.volumerestrictions import VOLUME_RESTRICTIONS
from gate.scheduler.plugins.volumezone import VOLUME_ZONE
from gate.untyped import as_list, mapping

VOLUME_PLUGINS = frozenset({VOLUME_RESTRICTIONS, VOLUME_BINDING, VOLUME_ZONE})
"""The volume plugins whose PreFilter refuses a pod by its claims."""
IGNORED = "ignoring pod, {why}"
"""provisioner.go's log line for a pod ``Validate`` refuses."""
NO_CLASS = 'persistentvolumeclaim "{claim}": unbound pvc must define a storage class'


NOT_ON_KARPENTER = (
    "configured to not run on a Karpenter provisioned node "
    f"(requirement={NODEPOOL_LABEL} {DOES_NOT_EXIST})"
)
"""provisioner.go ``KarpenterManagedLabelDoesNotExistError``."""
RESTRICTED = (
    "label is restricted; specify a well known label or a custom label that does not use a "
    "restricted domain (label={key})"
)
"""pkg/apis/v1/labels.go ``IsRestrictedLabel``'s error, without its lists."""
KNOWN_VALUES = {CAPACITY_TYPE_LABEL: ("on-demand", "reserved", "spot")}
"""pkg/apis/v1/labels.go ``WellKnownValuesForRequirements``, sorted as Go prints a set."""
NO_KNOWN_VALUE = (
    "no valid values found in [{values}] for {key}, expected one of: {known}, got: [{got}]"
)
"""nodeclaim_validation.go ``validateWellKnownValues``: ``%v`` of the values, the known
values' set (a map: ``map[on-demand:{{}} ...]``) and the values not among them."""
MATCH_FIELDS = "node selector term with matchFields is not supported"
"""provisioner.go ``validateNodeSelectorTerm``: a term whose ``MatchFields`` is not nil."""
BOUND = "key {key} with operator {operator} must have a single positive integer value"
"""nodeclaim_validation.go ``ValidateRequirement``: a ``Gt``/``Lt`` value ``Atoi`` refuses
or below zero."""


def invalid(pod: PodProfile, reqs: Reqs) -> list[str]:
    """``Validate``'s errors before the claims', in its order: the managed label (``reqs``:
    the pod's requirements with its heaviest preference, ``NewPodRequirements``), then each
    node selector key (sorted), then each required term: its ``matchFields``, then its
    expressions: a restricted label, no known value, a ``Gt``/``Lt`` bound below zero
    (``validateNodeSelectorTerm``, ``ValidateRequirement``; the API server refuses the rest
    of what it checks)."""
    errors = []
    nodepool = reqs.get(NODEPOOL_LABEL)
    if nodepool is not None and nodepool.operator == DOES_NOT_EXIST:
        errors.append(NOT_ON_KARPENTER)
    for key, value in sorted(pod.node_selector.items()):
        key = NORMALIZED.get(key, key)
        if restricted(key):
            errors.append(RESTRICTED.format(key=key))
        errors += _unknown_values(key, IN, (value,))
    for position, term in enumerate(pod.node_affinity.required):
        if position in pod.node_affinity.fields:
            errors.append(MATCH_FIELDS)
        for expression in term:
            key = NORMALIZED.get(expression.key, expression.key)
            if restricted(key):
                errors.append(RESTRICTED.format(key=key))
            errors += _unknown_values(key, expression.operator, expression.values)
            if expression.operator in (GT, LT):
                values = expression.values
                number = atoi(values[0]) if len(values) == 1 else None
                if number is None or number < 0:
                    errors.append(BOUND.format(key=key, operator=expression.operator))
    return errors


def _unknown_values(key: str, operator: str, values: tuple[str, ...]) -> list[str]:
    """``validateWellKnownValues``: an ``In`` on a key of known values naming none of them."""
    known = KNOWN_VALUES.get(key)
    if operator != IN or known is None or any(v in known for v in values):
        return []
    return [
        NO_KNOWN_VALUE.format(
            values=" ".join(values),
            key=key,
            known="map[" + " ".join(f"{v}:{{}}" for v in known) + "]",
            got=" ".join(values),
        )
    ]


def ignored(cycle: CycleState) -> str:
    """Why Karpenter ignores the pod for its claims (module doc); "" when it does not."""
    for prepared in cycle:
        if prepared.plugin.name in VOLUME_PLUGINS:
            refusal = prepared.plugin.refuses(prepared.state)
            if refusal is not None:
                return IGNORED.format(why=refusal.reasons[0])
    state = next((p.state for p in cycle if p.plugin.name == VOLUME_BINDING), None)
    if isinstance(state, State):
        for claim in state.waiting:
            if not spec_of(claim).get("storageClassName"):
                return IGNORED.format(why=NO_CLASS.format(claim=name_of(claim)))
    return ""


def volume_requirements(cycle: CycleState) -> list[Req]:
    """The requirements the pod's volumes add (module doc)."""
    state = next((p.state for p in cycle if p.plugin.name == VOLUME_BINDING), None)
    if not isinstance(state, State) or state.storage is None:
        return []
    storage = state.storage
    found: list[Req] = []
    for name in state.bound:
        volume = spec_of(storage.volumes.get(name) or {})
        terms = as_list(
            mapping(mapping(volume.get("nodeAffinity")).get("required")).get("nodeSelectorTerms")
        )
        if not terms:
            continue
        local = volume.get("local") is not None or volume.get("hostPath") is not None
        for expression in as_list(mapping(terms[0]).get("matchExpressions")):
            found += _requirement(mapping(expression), skip_hostname=local)
    for claim in state.waiting:
        # the class as Karpenter reads it: spec.storageClassName, never the beta annotation
        named = spec_of(claim).get("storageClassName")
        chosen = storage.classes.get(named) if isinstance(named, str) else None
        topologies = as_list((chosen or {}).get("allowedTopologies"))
        if topologies:
            for expression in as_list(mapping(topologies[0]).get("matchLabelExpressions")):
                found += _requirement({**mapping(expression), "operator": "In"})
    return found


def _requirement(expression: Mapping[str, object], skip_hostname: bool = False) -> list[Req]:
    key, operator = expression.get("key"), expression.get("operator")
    if not isinstance(key, str) or not isinstance(operator, str):
        return []
    if skip_hostname and key == HOSTNAME:
        return []
    values = [str(v) for v in as_list(expression.get("values"))]
    return [Req.new(key, operator, values)]
