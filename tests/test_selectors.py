"""Label selectors as LabelSelectorAsSelector reads them (gate.k8s.selectors).

Upstream ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go``
LabelSelectorAsSelector and ``helpers_test.go`` TestLabelSelectorAsSelector: null selects
nothing, ``{}`` everything, matchLabels and matchExpressions are ANDed, and what
NewRequirement refuses (or an operator outside In, NotIn, Exists, DoesNotExist) is an
error.
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.selectors import SelectorError, parse_selector

FOO_BAR = {"foo": "bar"}
BAZ_IN = [{"key": "baz", "operator": "In", "values": ["qux", "norf"]}]

MATCHES = [
    pytest.param(None, {"foo": "bar"}, False, id="a null selector selects nothing"),
    pytest.param({}, {}, True, id="an empty selector selects everything"),
    pytest.param({"matchLabels": FOO_BAR}, {"foo": "bar"}, True, id="matchLabels select equal"),
    pytest.param({"matchLabels": FOO_BAR}, {"foo": "baz"}, False, id="matchLabels refuse other"),
    pytest.param(
        {"matchExpressions": BAZ_IN}, {"baz": "norf"}, True, id="In selects a listed value"
    ),
    pytest.param(
        {"matchLabels": FOO_BAR, "matchExpressions": BAZ_IN},
        {"baz": "qux"},
        False,
        id="matchLabels and matchExpressions are ANDed",
    ),
    pytest.param(
        {"matchLabels": FOO_BAR, "matchExpressions": BAZ_IN},
        {"baz": "qux", "foo": "bar"},
        True,
        id="a pod meeting both parts is selected",
    ),
]


@pytest.mark.parametrize(("raw", "labels", "selected"), MATCHES)
def test_what_a_selector_selects(raw: Any, labels: dict[str, str], selected: bool) -> None:
    assert parse_selector(raw).matches(labels) is selected


REFUSED = [
    pytest.param(
        [{"key": "baz", "operator": "Exists", "values": ["qux", "norf"]}],
        id="Exists with values is refused",
    ),
    pytest.param([{"key": "baz", "operator": "In"}], id="In without values is refused"),
    pytest.param(
        [{"key": "baz", "operator": "=", "values": ["qux"]}],
        id="an equality operator is refused in matchExpressions",
    ),
    pytest.param(
        [{"key": "baz", "operator": "Gt", "values": ["1"]}],
        id="Gt is a node selector operator only",
    ),
    pytest.param([{"key": "baz", "operator": "in", "values": ["qux"]}], id="operators are cased"),
]


@pytest.mark.parametrize("expressions", REFUSED)
def test_what_the_api_server_refuses(expressions: list[dict[str, Any]]) -> None:
    with pytest.raises(SelectorError):
        parse_selector({"matchExpressions": expressions})
