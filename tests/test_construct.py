"""The direct builder gives exactly the reference constructor's results (PyYAML's safe
constructor with Go's reading of timestamps, binary, sets and ordered maps), and the cached
resolver exactly PyYAML's safe tags."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.inputs.construct import CachedSafeLoader, ManifestConstructor, construct_document
from gate.inputs.manifests import default_loader

LOADERS = [yaml.SafeLoader, *([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])]


def nodes(text: str, loader: Any = yaml.SafeLoader) -> list[yaml.Node]:
    return list(yaml.compose_all(text, Loader=loader))


def reference(node: yaml.Node) -> Any:
    return ManifestConstructor().construct_document(node)


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
def test_the_builder_gives_the_reference_constructors_data(text: str, loader: Any) -> None:
    for node in nodes(text, loader):
        assert same(construct_document(node, aliased=False), reference(node))


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_the_builder_raises_the_reference_constructors_error(text: str) -> None:
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


def test_aliased_documents_share_objects_as_the_reference_constructor_does() -> None:
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
def test_any_flow_document_builds_as_the_reference_constructor_builds_it(text: str) -> None:
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


# go.yaml.in/yaml/v2 decode.go (scalar): a timestamp decoded into interface{} is its text,
# !!binary is string(data); other tags on collections are ignored. kubectl sends the JSON
# of that (sigs.k8s.io/yaml), writing bytes UTF-8 cannot hold as U+FFFD.
GO_READS = {
    "a timestamp is its text": ("a: 2001-12-14t21:59:43.1-05:00\n", "2001-12-14t21:59:43.1-05:00"),
    "a date is its text": ("a: 2002-12-14\n", "2002-12-14"),
    "an explicit timestamp is its text": ("a: !!timestamp 2002-12-14\n", "2002-12-14"),
    "an impossible date is text": ("a: 2024-13-45\n", "2024-13-45"),
    "binary is its decoded text": ("a: !!binary aGVsbG8=\n", "hello"),
    "binary over lines is decoded": ("a: !!binary |\n  aGVs\n  bG8=\n", "hello"),
    "binary that is not UTF-8 is U+FFFD": ("a: !!binary /w==\n", "\ufffd"),
    "a set is a mapping of nulls": ("a: !!set {x, y}\n", {"x": None, "y": None}),
    "an omap is a list of mappings": ("a: !!omap [x: 1, y: 2]\n", [{"x": 1}, {"y": 2}]),
    "pairs are a list of mappings": ("a: !!pairs [x: 1, x: 2]\n", [{"x": 1}, {"x": 2}]),
}  # fmt: skip


@pytest.mark.parametrize(("text", "value"), GO_READS.values(), ids=GO_READS.keys())
@pytest.mark.parametrize("aliased", [False, True], ids=["direct", "constructor"])
def test_types_json_lacks_read_as_kubectl_reads_them(text: str, value: Any, aliased: bool) -> None:
    (node,) = nodes(text)
    assert same(construct_document(node, aliased=aliased), {"a": value})


@pytest.mark.parametrize(
    "text",
    ['a: !!binary "%%%"\n', "a: !!binary aGVsbG8\n", "a: !!binary aGVs bG8=\n"],
    ids=["not base64", "without padding", "with a space"],
)
def test_binary_go_cannot_decode_is_an_error(text: str) -> None:
    (node,) = nodes(text)
    with pytest.raises(yaml.constructor.ConstructorError, match="invalid base64 data"):
        construct_document(node, aliased=False)
