"""Karpenter's requirements algebra against upstream's own tables (sigs.k8s.io/karpenter
v1.8.3, pkg/scheduling/requirements_test.go "Compatibility", "Error Messages" and
pkg/scheduling/requirement_test.go "String"): the zone label, well-known, on both sides."""

from __future__ import annotations

import pytest

from gate.k8s.labels import ZONE
from gate.scheduler.autoscaling.karpenter.requirements import (
    Req,
    compatible,
    from_labels,
    merged,
    text,
    well_known,
)

NAMES = (
    "unconstrained",
    "exists",
    "doesNotExist",
    "inA",
    "inB",
    "inAB",
    "notInA",
    "in1",
    "in9",
    "in19",
    "notIn12",
    "greaterThan1",
    "greaterThan9",
    "lessThan1",
    "lessThan9",
)
SETS = {
    "unconstrained": {},
    "exists": {ZONE: Req.new(ZONE, "Exists")},
    "doesNotExist": {ZONE: Req.new(ZONE, "DoesNotExist")},
    "inA": {ZONE: Req.new(ZONE, "In", ["A"])},
    "inB": {ZONE: Req.new(ZONE, "In", ["B"])},
    "inAB": {ZONE: Req.new(ZONE, "In", ["A", "B"])},
    "notInA": {ZONE: Req.new(ZONE, "NotIn", ["A"])},
    "in1": {ZONE: Req.new(ZONE, "In", ["1"])},
    "in9": {ZONE: Req.new(ZONE, "In", ["9"])},
    "in19": {ZONE: Req.new(ZONE, "In", ["1", "9"])},
    "notIn12": {ZONE: Req.new(ZONE, "NotIn", ["1", "2"])},
    "greaterThan1": {ZONE: Req.new(ZONE, "Gt", ["1"])},
    "greaterThan9": {ZONE: Req.new(ZONE, "Gt", ["9"])},
    "lessThan1": {ZONE: Req.new(ZONE, "Lt", ["1"])},
    "lessThan9": {ZONE: Req.new(ZONE, "Lt", ["9"])},
}
WELL_KNOWN_UNDEFINED = {
    "unconstrained": "+++++++++++++++",
    "exists": "++-++++++++++++",
    "doesNotExist": "+-+---+---+----",
    "inA": "++-+-+----+----",
    "inB": "++--+++---+----",
    "inAB": "++-++++---+----",
    "notInA": "+++-+++++++++++",
    "in1": "++----++-+----+",
    "in9": "++----+-++++---",
    "in19": "++----++++++--+",
    "notIn12": "+++++++-+++++++",
    "greaterThan1": "++----+-+++++-+",
    "greaterThan9": "++----+---+++--",
    "lessThan1": "++----+---+--++",
    "lessThan9": "++----++-+++-++",
}
"""``existing.Compatible(incoming, AllowUndefinedWellKnownLabels)`` succeeds (+) or not (-),
incoming in NAMES order: "should be compatible with well-known v1 labels undefined"."""
STRICT = {**WELL_KNOWN_UNDEFINED, "unconstrained": "+-+---+---+----"}
"""``existing.Compatible(incoming)``: "should be strictly compatible" (only an undefined key
differs: it must be negative)."""


def _cases(table: dict[str, str]) -> list[object]:
    return [
        pytest.param(existing, incoming, row[i] == "+", id=f"{existing}-{incoming}")
        for existing, row in table.items()
        for i, incoming in enumerate(NAMES)
    ]


@pytest.mark.parametrize(("existing", "incoming", "ok"), _cases(WELL_KNOWN_UNDEFINED))
def test_compatible_with_well_known_labels_undefined(
    existing: str, incoming: str, ok: bool
) -> None:
    assert (compatible(SETS[existing], SETS[incoming], well_known()) is None) is ok


@pytest.mark.parametrize(("existing", "incoming", "ok"), _cases(STRICT))
def test_strictly_compatible(existing: str, incoming: str, ok: bool) -> None:
    assert (compatible(SETS[existing], SETS[incoming], frozenset()) is None) is ok


@pytest.mark.parametrize(
    ("requirement", "said"),
    [
        pytest.param(Req.new("key", "Exists"), "key Exists", id="exists"),
        pytest.param(Req.new("key", "DoesNotExist"), "key DoesNotExist", id="does-not-exist"),
        pytest.param(Req.new("key", "In", ["B", "A"]), "key In [A B]", id="in-sorted"),
        pytest.param(Req.new("key", "NotIn", ["2", "1"]), "key NotIn [1 2]", id="not-in"),
        pytest.param(Req.new("key", "Gt", ["1"]), "key Exists >1", id="gt"),
        pytest.param(Req.new("key", "Lt", ["9"]), "key Exists <9", id="lt"),
        pytest.param(
            Req.new("key", "Gt", ["1"]).intersection(Req.new("key", "Lt", ["9"])),
            "key Exists >1 <9",
            id="gt-lt",
        ),
        pytest.param(
            Req.new("key", "Gt", ["9"]).intersection(Req.new("key", "Lt", ["1"])),
            "key DoesNotExist",
            id="empty-bounds",
        ),
        pytest.param(
            Req.new("key", "In", list("abcdefg")),
            "key In [a b c d e and 2 others]",
            id="past-five",
        ),
        pytest.param(Req.new("key", "In", ["a"], 1), "key In [a] minValues 1", id="min-values"),
    ],
)
def test_requirement_string(requirement: Req, said: str) -> None:
    """requirement_test.go "should print the right string"."""
    assert str(requirement) == said


@pytest.mark.parametrize(
    ("label", "said"),
    [
        (
            "zone",
            'label "zone" does not have known values (typo of "topology.kubernetes.io/zone"?)',
        ),
        (
            "capacity-type",
            'label "capacity-type" does not have known values '
            '(typo of "karpenter.sh/capacity-type"?)',
        ),
        (
            "node.kubernetes.io/region",
            'label "node.kubernetes.io/region" does not have known values '
            '(typo of "topology.kubernetes.io/region"?)',
        ),
        (
            "karpenter/nodepool",
            'label "karpenter/nodepool" does not have known values '
            '(typo of "karpenter.sh/nodepool"?)',
        ),
        ("deployment", 'label "deployment" does not have known values'),
    ],
    ids=["zone", "capacity-type", "region", "nodepool", "unknown"],
)
def test_undefined_label_message(label: str, said: str) -> None:
    """requirements_test.go "Error Messages"."""
    incoming = {label: Req.new(label, "Exists")}
    assert compatible({}, incoming, well_known()) == said


@pytest.mark.parametrize(
    ("existing", "incoming", "said"),
    [
        pytest.param(
            {"team": Req.new("team", "In", ["c"])},
            {"team": Req.new("team", "In", ["a", "b"])},
            "key team, team In [a b] not in team In [c]",
            id="in-in",
        ),
        pytest.param(
            {"team": Req.new("team", "In", ["a"])},
            {"team": Req.new("team", "NotIn", ["a"])},
            "key team, team NotIn [a] not in team In [a]",
            id="in-notin",
        ),
        pytest.param(
            {"team": Req.new("team", "Exists")},
            {"team": Req.new("team", "DoesNotExist")},
            "key team, team DoesNotExist not in team Exists",
            id="exists-doesnotexist",
        ),
        pytest.param(
            {"size": Req.new("size", "Gt", ["8"])},
            {"size": Req.new("size", "Lt", ["4"])},
            "key size, size Exists <4 not in size Exists >8",
            id="gt-lt",
        ),
        pytest.param(
            {"team": Req.new("team", "NotIn", ["a"])},
            {"team": Req.new("team", "DoesNotExist")},
            None,
            id="both-negative",
        ),
    ],
)
def test_intersect_errors(existing: dict[str, Req], incoming: dict[str, Req], said: str) -> None:
    """requirements.go ``badKeyError``: ``key k, <incoming> not in <existing>``."""
    assert compatible(existing, incoming, frozenset()) == said


def test_requirements_string_sorted_without_hostname() -> None:
    """requirements_test.go "should print Requirements in the same order"; the hostname
    (``RestrictedLabels``) is left out."""
    reqs = merged(
        from_labels({"kubernetes.io/hostname": "h", "b": "2", "a": "1"}),
        [Req.new("c", "Exists")],
    )
    assert text(reqs) == "a In [1], b In [2], c Exists"


def test_aliases_are_normalised() -> None:
    """requirements_test.go "should normalize aliased labels"."""
    req = Req.new("failure-domain.beta.kubernetes.io/zone", "In", ["test"])
    assert req.key == ZONE and req.has("test")


@pytest.mark.parametrize(
    ("value", "held"),
    [
        pytest.param("10", True, id="a decimal integer is within the bound"),
        pytest.param("+10", True, id="a signed integer is read as Atoi reads it"),
        pytest.param("1_0", False, id="an underscore is no digit separator to Atoi"),
        pytest.param("\u0661\u0660", False, id="only ASCII digits are digits to Atoi"),
        pytest.param("99999999999999999999", False, id="a value past int64 is no integer"),
        pytest.param("0x10", False, id="a hexadecimal value is no integer"),
    ],
)
def test_bounds_read_values_as_go_atoi_does(value: str, held: bool) -> None:
    """requirement.go ``withinIntPtrs``: a value ``strconv.Atoi`` refuses is outside any
    bound."""
    assert Req.new("size", "Gt", ["1"]).has(value) is held
