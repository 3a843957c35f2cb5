"""Composed YAML nodes -> Python data, exactly as PyYAML's SafeConstructor builds them.

SafeConstructor is general: every node goes through a tag lookup, a generator and a state
machine that lets aliased collections refer to themselves. Rendered manifests use almost
none of that, and a monorepo's worth of them spends most of its reading time there. Here a
document without aliases is built by one small recursive function for the plain cases
(maps, sequences, strings, and the scalar tags the safe resolver assigns); anything else
(merge keys, explicit tags such as ``!!binary``, complex keys, deep nesting, any error) is
handed whole to SafeConstructor, so its data and its errors are the reference's.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"
_SAFE = SafeConstructor()
# Only these read nothing but the node itself; every other tag goes to SafeConstructor.
_SCALARS = {
    "tag:yaml.org,2002:null": _SAFE.construct_yaml_null,
    "tag:yaml.org,2002:bool": _SAFE.construct_yaml_bool,
    "tag:yaml.org,2002:int": _SAFE.construct_yaml_int,
    "tag:yaml.org,2002:float": _SAFE.construct_yaml_float,
    "tag:yaml.org,2002:timestamp": _SAFE.construct_yaml_timestamp,
}


class _Unusual(Exception):
    """A node this builder leaves to SafeConstructor."""


def construct_document(node: Node, aliased: bool = True) -> Any:
    """The data of one composed document. ``aliased=False`` promises that no node occurs
    twice in the graph (the text has no anchor): only then is the direct builder used,
    since it would copy a shared node where SafeConstructor shares one object."""
    if not aliased:
        try:
            return _build(node)
        except Exception:
            pass
    return SafeConstructor().construct_document(node)


def _build(node: Node) -> Any:
    kind = node.__class__
    if kind is ScalarNode:
        if node.tag == _STR:
            return node.value
        scalar = _SCALARS.get(node.tag)
        if scalar is None:
            raise _Unusual
        return scalar(node)  # type: ignore[arg-type]
    if kind is MappingNode:
        if node.tag != _MAP:
            raise _Unusual
        data = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not ScalarNode or key_node.tag in (_MERGE, _VALUE):
                raise _Unusual
            data[_build(key_node)] = _build(value_node)
        return data
    if kind is SequenceNode:
        if node.tag != _SEQ:
            raise _Unusual
        return [_build(child) for child in node.value]
    raise _Unusual


_PLAIN_TAGS: dict[str, str] = {}
_PLAIN_TAGS_LIMIT = 1 << 16


class CachedPlainTags:
    """A loader mixin: the safe resolver, remembering the tag of each plain scalar it has
    resolved. Which tag a plain scalar gets depends on its text alone when no path
    resolvers are registered (the safe loaders register none), and manifests repeat the
    same few thousand texts. The cache is bounded: hostile input can cost memory only up
    to that bound."""

    yaml_path_resolvers: dict[Any, Any]

    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
        if self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)  # type: ignore[misc,no-any-return]
        if kind is ScalarNode:
            if not implicit[0]:  # quoted, or tagged "!": BaseResolver.DEFAULT_SCALAR_TAG
                return _STR
            tag = _PLAIN_TAGS.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)  # type: ignore[misc]
                if len(_PLAIN_TAGS) < _PLAIN_TAGS_LIMIT:
                    _PLAIN_TAGS[value] = tag
            return tag
        return _SEQ if kind is SequenceNode else _MAP


class CachedSafeLoader(CachedPlainTags, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader with :class:`CachedPlainTags`."""


if yaml.__with_libyaml__:

    class CachedCSafeLoader(CachedPlainTags, yaml.CSafeLoader):
        """libyaml's safe loader with :class:`CachedPlainTags`."""
