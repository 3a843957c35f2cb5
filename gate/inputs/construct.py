"""Composed YAML nodes -> Python data, as ``kubectl`` (``sigs.k8s.io/yaml``, over
``go.yaml.in/yaml/v2``) turns them into the JSON the API server reads.

That is PyYAML's SafeConstructor except for the types JSON has no place for, which Go's
decoder turns into JSON values (``decode.go``, ``scalar``), so that a value reads here as
the cluster would store it and never as a Python type whose text changes from run to run:

- a timestamp (``2024-01-01``, ``!!timestamp ...``) is its text: Go keeps timestamps
  decoded into ``interface{}`` as the original string;
- ``!!binary`` is its decoded bytes as text, bytes UTF-8 cannot hold being U+FFFD (Go's
  ``string(data)``, which ``encoding/json`` then writes with U+FFFD);
- ``!!set {a, b}`` is the mapping ``{a: null, b: null}`` (Go ignores the tag), which a
  field that wants a string refuses like any mapping;
- ``!!omap`` and ``!!pairs`` are lists of one-key mappings (Go ignores the tag).

SafeConstructor is general: every node goes through a tag lookup, a generator and a state
machine that lets aliased collections refer to themselves. Rendered manifests use almost
none of that, and a monorepo's worth of them spends most of its reading time there. Here a
document without aliases is built by one small recursive function for the plain cases
(maps, sequences, strings, and the scalar tags the safe resolver assigns); anything else
(merge keys, explicit tags such as ``!!binary``, complex keys, deep nesting, any error) is
handed whole to :class:`ManifestConstructor`, so its data and its errors are the
reference's.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"


class ManifestConstructor(SafeConstructor):
    """SafeConstructor with Go's reading of the types JSON lacks (see the module)."""

    def construct_yaml_timestamp(self, node: Node) -> str:  # type: ignore[override]
        return self.construct_scalar(node)  # type: ignore[arg-type]

    def construct_yaml_binary(self, node: Node) -> str:  # type: ignore[override]
        """base64.StdEncoding.DecodeString: padding required, only line breaks ignored."""
        text = self.construct_scalar(node)  # type: ignore[arg-type]
        try:
            data = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
        except (binascii.Error, ValueError):
            raise ConstructorError(
                None, None, "!!binary value contains invalid base64 data", node.start_mark
            ) from None
        return data.decode("utf-8", "replace")


ManifestConstructor.yaml_constructors = {
    **SafeConstructor.yaml_constructors,
    "tag:yaml.org,2002:timestamp": ManifestConstructor.construct_yaml_timestamp,
    "tag:yaml.org,2002:binary": ManifestConstructor.construct_yaml_binary,
    "tag:yaml.org,2002:set": SafeConstructor.construct_yaml_map,
    "tag:yaml.org,2002:omap": SafeConstructor.construct_yaml_seq,
    "tag:yaml.org,2002:pairs": SafeConstructor.construct_yaml_seq,
}

_SAFE = ManifestConstructor()
# Only these read nothing but the node itself; every other tag goes to ManifestConstructor.
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
    since it would copy a shared node where the constructor shares one object."""
    if not aliased:
        try:
            return _build(node)
        except Exception:
            pass
    return ManifestConstructor().construct_document(node)


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
