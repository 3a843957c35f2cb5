"""The direct builder and the cached resolver give exactly PyYAML's safe results."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from yaml.constructor import SafeConstructor

from gate.inputs.construct import CachedSafeLoader, construct_document
from gate.inputs.manifests import default_loader

LOADERS = [yaml.SafeLoader, *([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])]


def nodes(text: str, loader: Any = yaml.SafeLoader) -> list[yaml.Node]:
    return list(yaml.compose_all(text, Loader=loader))


def reference(node: yaml.Node) -> Any:
    return SafeConstructor().construct_document(node)


def same(left: Any, right: Any) -> bool:
    """Equal, with types (True is not 1) and NaN compared by its text."""
    return type(left) is type(right) and repr(left) == repr(right)


CASES = {
    "plain map": "a: 1\nb: [x, 'y', \"z\"]\n",
    "yaml 1.1 booleans": "a: yes\nb: No\nc: on\nd: OFF\ne: true\nf: 'yes'\n",
    "yaml 1.1 integers": "a: 0o17\nb: 017\nc: 0x1F\nd: 0b101\ne: 1_000\nf: 190:20:30\ng: -0\n",
    "floats": "a: 1.5\nb: .inf\nc: -.Inf\nd: .nan\ne: 6.8523015e+5\nf: 190:20:30.15\n",
    "nulls": "a: ~\nb: null\nc:\nd: Null\n",
    "timestamps": "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
    "boolean and null keys": "yes: 1\n~: 2\n3: 4\n",
    "duplicate keys, last wins": "a: 1\na: 2\n",
    "merge key": "base: {a: 1}\nderived:\n  <<: {a: 2, b: 3}\n  c: 4\n",
    "value key": "=: 1\n",
    "binary": "a: !!binary aGVsbG8=\n",
    "set": "a: !!set {x, y}\n",
    "omap": "a: !!omap [x: 1, y: 2]\n",
    "explicit str on a number": "a: !!str 1\n",
    "quoted scalars stay strings": "a: '1'\nb: \"true\"\nc: !!str null\n",
    "block scalars": "a: |\n  line\n  line\nb: >-\n  folded\n  text\n",
    "empty document": "",
    "scalar document": "just text\n",
}
BROKEN = {
    "unknown tag": "a: !Ref thing\n",
    "bad int": "a: !!int nope\n",
    "str tag on a map": "a: !!str {b: 1}\n",
    "unhashable key in a flow map": "{[a]: 1}\n",
    "complex key": "? [a, b]\n: 1\n",
}


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_the_builder_gives_the_safe_constructors_data(text: str, loader: Any) -> None:
    for node in nodes(text, loader):
        assert same(construct_document(node, aliased=False), reference(node))


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_the_builder_raises_the_safe_constructors_error(text: str) -> None:
    (node,) = nodes(text)
    with pytest.raises(Exception) as expected:
        reference(node)
    with pytest.raises(type(expected.value)) as got:
        construct_document(node, aliased=False)
    assert str(got.value) == str(expected.value)


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="the pure composer recurses itself")
def test_nesting_deeper_than_the_interpreter_stack_still_builds() -> None:
    depth = 990  # libyaml stops at 1000 flow levels; past the stack with pytest on it
    text = "[" * depth + "]" * depth
    (node,) = nodes(text, default_loader())
    built = construct_document(node, aliased=False)
    for _ in range(depth - 1):
        built = built[0]
    assert built == []


def test_aliased_documents_share_objects_as_the_safe_constructor_does() -> None:
    (node,) = nodes("a: &x [1]\nb: *x\n")
    built = construct_document(node, aliased=True)
    assert built["a"] is built["b"]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
def test_the_cached_resolver_tags_as_the_safe_resolver(loader: Any) -> None:
    text = "".join(f"k{i}: {value}\n" for i, value in enumerate(SCALARS)) * 2
    cached = default_loader() if loader is not yaml.SafeLoader else CachedSafeLoader
    expected = [(k.tag, v.tag) for k, v in nodes(text, loader)[0].value]
    assert [(k.tag, v.tag) for k, v in nodes(text, cached)[0].value] == expected


SCALARS = [
    "1", "1.0", "yes", "No", "~", "null", "", "'1'", '"x"', "2001-12-14", "0x1F", "0o7",
    "<<", "=", ".nan", "-.inf", "190:20:30", "text", "!!str 1", "!custom x", "[1, 2]", "{a: b}",
]  # fmt: skip

plain_scalars = st.one_of(
    st.sampled_from(SCALARS[:18]),
    st.from_regex(r"[-+0-9a-zA-Z_.:~]{0,12}", fullmatch=True),
)
documents = st.recursive(
    plain_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), inner, max_size=4).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs.items()) + "}"
        ),
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_any_flow_document_builds_as_the_safe_constructor_builds_it(text: str) -> None:
    try:
        composed = nodes(text, CachedSafeLoader)
        plain = nodes(text)
    except yaml.YAMLError:
        return
    for mine, theirs in zip(composed, plain, strict=True):
        try:
            expected = reference(theirs)
        except Exception as exc:  # whatever it raises, the builder must raise too
            with pytest.raises(type(exc)) as got:
                construct_document(mine, aliased=False)
            assert str(got.value) == str(exc)
        else:
            assert same(construct_document(mine, aliased=False), expected)
