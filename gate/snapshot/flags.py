"""The cluster-autoscaler Deployment's command line -> :class:`~gate.model.autoscaling.Flags`.

Upstream config/flags/flags.go (cluster-autoscaler-1.34.5): ``--max-nodes-total`` (int, 0
for none), ``--cores-total`` and ``--memory-total`` (``<min>:<max>``, cores and GiB),
``--startup-taint`` / ``--status-taint`` / ``--ignore-taint`` (repeated, one taint key a
value), ``--force-ds`` (bool), ``--expendable-pods-priority-cutoff`` (int) and
``--expander`` (a comma-separated list, default ``least-waste``, the binary's; with no
Deployment recorded, a managed autoscaler's ``random`` stays). Go's flag package reads
``-name`` as ``--name``, and ``--name value`` as ``--name=value`` for every flag but a bool; a flag
read here that takes a value takes the next word even when it starts with a dash.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gate.errors import SnapshotError
from gate.model.autoscaling import Flags, Limits

_BOOLS = frozenset({"force-ds"})
_VALUED = frozenset(
    {
        "max-nodes-total",
        "cores-total",
        "memory-total",
        "expendable-pods-priority-cutoff",
        "expander",
        "startup-taint",
        "status-taint",
        "ignore-taint",
    }
)
"""The flags read here that take a value: the command-line parser (pflag, which
cluster-autoscaler's main.go parses with) gives them the next word whatever it is, a
negative number included (``--expendable-pods-priority-cutoff -100``)."""
_DECIMAL = re.compile(r"[+-]?[0-9]+")
_GO_INTEGER = re.compile(
    r"[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|0(?:_?[0-7])*"
    r"|[1-9](?:_?[0-9])*)"
)
_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}

LEAST_WASTE = "least-waste"
"""config/flags/flags.go: ``--expander`` defaults to ``expander.LeastWasteExpanderName``."""


def _words(container: Mapping[str, Any]) -> list[str]:
    words: list[str] = []
    for key in ("command", "args"):
        value = container.get(key)
        words += [w for w in value if isinstance(w, str)] if isinstance(value, list) else []
    return words


def _is_autoscaler(container: object) -> bool:
    if not isinstance(container, Mapping):
        return False
    image = container.get("image")
    said = [image if isinstance(image, str) else "", *_words(container)[:1]]
    return any("cluster-autoscaler" in word for word in said)


def command_flags(words: Sequence[str]) -> dict[str, list[str]]:
    """Every ``--name=value`` of a command line, by name, in order.

    >>> command_flags(["./cluster-autoscaler", "--cores-total", "0:64", "-force-ds"])
    {'cores-total': ['0:64'], 'force-ds': ['true']}
    """
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("-") or word in ("-", "--"):
            continue
        name, equals, value = word.lstrip("-").partition("=")
        # component-base cli/flag InitFlags: WordSepNormalizeFunc reads "_" as "-"
        name = name.replace("_", "-")
        if not equals:
            if (
                name in _BOOLS
                or i >= len(words)
                or (name not in _VALUED and words[i].startswith("-"))
            ):
                value = "true"
            else:
                value, i = words[i], i + 1
        found.setdefault(name, []).append(value)
    return found


def _integer(value: str, name: str, where: str) -> int:
    """``strconv.ParseInt(value, 0, 64)``, as Go's ``flag.Int`` reads its value: a sign,
    then ``0x``, ``0o``, ``0b`` or a bare leading ``0`` (octal: ``010`` is 8) before the
    digits, underscores between them; no space."""
    if _GO_INTEGER.fullmatch(value) is None:
        raise SnapshotError(f"{where}: --{name}: not an integer: {value!r}")
    sign, digits = (-1, value[1:]) if value[0] == "-" else (1, value.lstrip("+"))
    digits = digits.replace("_", "")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return sign * int(digits, 8)
    return sign * int(digits, 0)


def _decimal(value: str, name: str, where: str) -> int:
    """``strconv.ParseInt(value, 10, 64)``: a sign and decimal digits only (``010`` is
    10; no ``0x`` prefix, no underscore, no space)."""
    if _DECIMAL.fullmatch(value) is None:
        raise SnapshotError(f"{where}: --{name}: not an integer: {value!r}")
    return int(value)


def _range(value: str, name: str, where: str, scale: int) -> tuple[int, int]:
    """``<min>:<max>`` as flags.go's ``parseMinMaxFlag`` reads it (each in base 10)."""
    least, colon, most = value.partition(":")
    if not colon:
        raise SnapshotError(f"{where}: --{name}: not <min>:<max>: {value!r}")
    low, high = _decimal(least, name, where), _decimal(most, name, where)
    if low < 0 or high < low:
        raise SnapshotError(f"{where}: --{name}: min must be >= 0 and <= max: {value!r}")
    return low * scale, high * scale


def _bool(value: str, name: str, where: str) -> bool:
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SnapshotError(f"{where}: --{name}: not a boolean: {value!r}")


def _taints(values: list[str]) -> tuple[str, ...]:
    """Each value one key, commas and all: flags.go's ``MultiStringFlag.Set`` appends the
    value whole, and taints.go ``NewTaintConfig`` takes each as a key."""
    return tuple(value for value in values if value)


def flags_from(words: Sequence[str], where: str) -> Flags:
    """The flags a command line gives (the last of a repeated single flag counts)."""
    said = command_flags(words)
    last = {name: values[-1] for name, values in said.items()}
    limits = Limits()
    if "max-nodes-total" in last:
        total = _integer(last["max-nodes-total"], "max-nodes-total", where)
        limits = replace(limits, max_nodes_total=total)
    if "cores-total" in last:
        limits = replace(limits, cores=_range(last["cores-total"], "cores-total", where, 1))
    if "memory-total" in last:
        memory = _range(last["memory-total"], "memory-total", where, 2**30)
        limits = replace(limits, memory=memory)
    cutoff = last.get("expendable-pods-priority-cutoff")
    return Flags(
        limits=limits,
        startup_taints=_taints(said.get("startup-taint", []) + said.get("ignore-taint", [])),
        status_taints=_taints(said.get("status-taint", [])),
        force_ds=_bool(last.get("force-ds", "false"), "force-ds", where),
        expendable_cutoff=-10
        if cutoff is None
        else _integer(cutoff, "expendable-pods-priority-cutoff", where),
        deployment=where,
        expander=tuple(n for n in last.get("expander", LEAST_WASTE).split(",") if n)
        or (LEAST_WASTE,),
    )


def flags_of(obj: Mapping[str, Any]) -> Flags | None:
    """The flags of a Deployment running cluster-autoscaler (a container whose image or
    command names it), or None for any other Deployment."""
    spec = obj.get("spec")
    template = spec.get("template") if isinstance(spec, Mapping) else None
    pod = template.get("spec") if isinstance(template, Mapping) else None
    containers = pod.get("containers") if isinstance(pod, Mapping) else None
    for container in containers if isinstance(containers, list) else []:
        if _is_autoscaler(container):
            meta = obj.get("metadata")
            meta = meta if isinstance(meta, Mapping) else {}
            where = f'Deployment "{meta.get("namespace") or "default"}/{meta.get("name") or "?"}"'
            return flags_from(_words(container), where)
    return None
