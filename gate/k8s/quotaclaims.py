"""What a PersistentVolumeClaim counts in a ResourceQuota, as the API server's claim evaluator
measures it when the claim is created.

Upstream: ``pkg/quota/v1/evaluator/core/persistent_volume_claims.go`` (Usage,
getStorageUsage, MatchingResources, Matches, pvcMatchesScopeFunc). A claim is charged one
``persistentvolumeclaims`` and one ``count/persistentvolumeclaims``, its storage request
(rounded up to whole bytes) as ``requests.storage``, and both again under its class's names
``<class>.storageclass.storage.k8s.io/<resource>`` when it has a class: the class
``GetPersistentVolumeClaimClass`` reads, the beta annotation first, as the DefaultStorageClass
admission plugin left it (it runs before the quota is asked, so a claim naming no class is
charged to the default one, :func:`gate.k8s.claims.created_claim`). A claim has no other
constraint; the only scope it can meet is ``VolumeAttributesClass`` (the feature is on by
default since v1.34).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Final

from gate.k8s.quota import DOES_NOT_EXIST, EXISTS, IN, NOT_IN, ResourceQuota, ScopeRequirement
from gate.k8s.quotausage import ONE, Amount, Usage
from gate.k8s.volumes import PlainObject, claim_class, spec_of
from gate.untyped import mapping

CLAIMS: Final = "persistentvolumeclaims"
"""The claims' resource, and the quota name counting them (ResourcePersistentVolumeClaims)."""
COUNT_CLAIMS: Final = f"count/{CLAIMS}"
REQUESTS_STORAGE: Final = "requests.storage"
CLASS_SUFFIX: Final = ".storageclass.storage.k8s.io/"
"""storageClassSuffix: ``<class>.storageclass.storage.k8s.io/<resource>`` names a class's
share of a resource."""
VOLUME_ATTRIBUTES_CLASS: Final = "VolumeAttributesClass"
_BY_CLASS: Final = (CLAIMS, REQUESTS_STORAGE)
"""pvcResources: what a claim is charged, and may be charged again under its class."""


def tracked_by_claims(names: Iterable[str]) -> list[str]:
    """MatchingResources: the quota's resources the claim evaluator counts, whatever class
    they name."""
    return [
        name
        for name in names
        if name == COUNT_CLAIMS
        or name in _BY_CLASS
        or any(name.endswith(CLASS_SUFFIX + resource) for resource in _BY_CLASS)
    ]


def _attributes_classes(claim: PlainObject) -> set[str]:
    """getReferencedVolumeAttributesClassNames: the class the claim asks for, has, or is
    being modified to."""
    status = mapping(claim.get("status"))
    found = {
        spec_of(claim).get("volumeAttributesClassName"),
        status.get("currentVolumeAttributesClassName"),
        mapping(status.get("modifyVolumeStatus")).get("targetVolumeAttributesClassName"),
    }
    return {name for name in found if isinstance(name, str) and name}


def claim_scope_matches(requirement: ScopeRequirement, claim: PlainObject) -> bool:
    """pvcMatchesScopeFunc: a ``VolumeAttributesClass`` requirement over the claim's
    attributes classes (a selector over ``{VolumeAttributesClass: <name>}``, one class at a
    time, an empty set when it has none); any other scope matches no claim."""
    if requirement.scope != VOLUME_ATTRIBUTES_CLASS:
        return False
    names = _attributes_classes(claim)
    operator, values = requirement.operator, requirement.values
    if operator == EXISTS:
        return bool(names)
    if not names:  # the selector over an empty set of labels
        return operator in (NOT_IN, DOES_NOT_EXIST)
    if operator == IN:
        return any(name in values for name in names)
    if operator == NOT_IN:
        return any(name not in values for name in names)
    return False


def claim_quota_matches(quota: ResourceQuota, claim: PlainObject) -> bool:
    """generic.Matches: the quota tracks a resource claims are charged, and the claim meets
    every one of its scopes."""
    return bool(tracked_by_claims(quota.hard)) and all(
        claim_scope_matches(s, claim) for s in quota.scopes
    )


def _storage(claim: PlainObject) -> Amount | None:
    """getStorageUsage of a claim being created (it has no allocated size yet): its storage
    request, rounded up to a whole number of bytes (``Quantity.RoundUp(0)``, which keeps its
    format). Raises QuantityError."""
    raw = mapping(mapping(spec_of(claim).get("resources")).get("requests")).get("storage")
    if raw is None:
        return None
    amount = Amount.of(raw)
    if amount.value.denominator == 1:
        return amount
    return Amount(Fraction(math.ceil(amount.value)), amount.format)


def claim_usage(claim: PlainObject) -> Usage:
    """Usage: what creating ``claim`` charges (module doc). Raises QuantityError on a
    storage request that does not parse.

    >>> spec = {"storageClassName": "fast", "resources": {"requests": {"storage": "10Gi"}}}
    >>> sorted(f"{name}={amount}" for name, amount in claim_usage({"spec": spec}).items())
    ... # doctest: +NORMALIZE_WHITESPACE
    ['count/persistentvolumeclaims=1', 'fast.storageclass.storage.k8s.io/persistentvolumeclaims=1',
     'fast.storageclass.storage.k8s.io/requests.storage=10Gi', 'persistentvolumeclaims=1',
     'requests.storage=10Gi']
    """
    usage: Usage = {CLAIMS: ONE, COUNT_CLAIMS: ONE}
    storage_class = claim_class(claim)
    if storage_class:
        usage[storage_class + CLASS_SUFFIX + CLAIMS] = ONE
    requested = _storage(claim)
    if requested is not None:
        usage[REQUESTS_STORAGE] = requested
        if storage_class:
            usage[storage_class + CLASS_SUFFIX + REQUESTS_STORAGE] = requested
    return usage
