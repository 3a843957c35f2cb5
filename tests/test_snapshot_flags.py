"""The cluster-autoscaler Deployment's command line read into its flags
(gate.snapshot.flags), as cluster-autoscaler-1.34.5's config/flags/flags.go defines them
(``parseMinMaxFlag`` for the totals, ``<min>:<max>`` in cores and GiB) and Go's flag
package reads a command line."""

from __future__ import annotations

from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.model.autoscaling import Flags, Limits
from gate.snapshot.flags import LEAST_WASTE, command_flags, flags_from, flags_of

GI = 2**30
WHERE = 'Deployment "kube-system/cluster-autoscaler"'

WORDS: list[tuple[str, list[str], dict[str, list[str]]]] = [
    (
        "a value after a space or an equals sign, one dash or two",
        ["ca", "--max-nodes-total", "10", "-cores-total=0:64"],
        {"max-nodes-total": ["10"], "cores-total": ["0:64"]},
    ),
    ("a bool flag never takes the next word", ["--force-ds", "x"], {"force-ds": ["true"]}),
    (
        "a flag followed by another flag or by nothing is true",
        ["--a", "--b"],
        {"a": ["true"], "b": ["true"]},
    ),
    (
        "a repeated flag keeps every value in order",
        ["--startup-taint=a", "--startup-taint", "b"],
        {"startup-taint": ["a", "b"]},
    ),
    ("words that are no flags are passed over", ["ca", "-", "--", "plain"], {}),
    (
        # main.go kube_flag.InitFlags: pflag's WordSepNormalizeFunc
        "an underscore in a flag's name reads as a dash",
        ["--max_nodes_total=5", "--cores_total", "0:8"],
        {"max-nodes-total": ["5"], "cores-total": ["0:8"]},
    ),
    (
        # pflag (main.go, kube_flag.InitFlags) gives a flag that takes a value the next word
        "a flag read with a value takes the next word even when it starts with a dash",
        ["--expendable-pods-priority-cutoff", "-100", "--expander", "--x"],
        {"expendable-pods-priority-cutoff": ["-100"], "expander": ["--x"]},
    ),
]


@pytest.mark.parametrize(("words", "expected"), [c[1:] for c in WORDS], ids=[c[0] for c in WORDS])
def test_command_flags(words: list[str], expected: dict[str, list[str]]) -> None:
    assert command_flags(words) == expected


FLAGS: list[tuple[str, list[str], Flags]] = [
    (
        # config/flags/flags.go: --expander defaults to expander.LeastWasteExpanderName
        "no flag keeps CA's defaults, least-waste the expander",
        [],
        Flags(deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        "the totals in cores and GiB, the GiB in bytes",
        ["--max-nodes-total=30", "--cores-total=8:64", "--memory-total=16:256"],
        Flags(Limits(30, (8, 64), (16 * GI, 256 * GI)), deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        # flags.go MultiStringFlag.Set appends each value whole: a comma splits nothing
        "ignore taints count as startup taints, each value one key, commas and all",
        ["--startup-taint=a,b", "--ignore-taint=c", "--status-taint=d,,e", "--status-taint=f"],
        Flags(
            startup_taints=("a,b", "c"),
            status_taints=("d,,e", "f"),
            deployment=WHERE,
            expander=(LEAST_WASTE,),
        ),
    ),
    (
        "--force-ds takes Go's bool spellings",
        ["--force-ds=T", "--expendable-pods-priority-cutoff=-5"],
        Flags(force_ds=True, expendable_cutoff=-5, deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        # flags.go parseMinMaxFlag: strconv.ParseInt(token, 10, 64)
        "a total's bounds are read in base 10, a leading zero included",
        ["--cores-total=010:064"],
        Flags(Limits(cores=(10, 64)), deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        # Go's flag.Int: strconv.ParseInt(value, 0, 64), a bare leading 0 octal
        "an int flag is read as Go reads an integer literal, a leading zero octal",
        ["--max-nodes-total=010", "--expendable-pods-priority-cutoff=-1_000"],
        Flags(
            Limits(max_nodes_total=8),
            expendable_cutoff=-1000,
            deployment=WHERE,
            expander=(LEAST_WASTE,),
        ),
    ),
    (
        "an int flag takes Go's hexadecimal, octal and binary prefixes",
        ["--max-nodes-total=0x1F", "--expendable-pods-priority-cutoff=-0b101"],
        Flags(
            Limits(max_nodes_total=31),
            expendable_cutoff=-5,
            deployment=WHERE,
            expander=(LEAST_WASTE,),
        ),
    ),
    (
        "a negative cutoff after a space",
        ["--expendable-pods-priority-cutoff", "-100"],
        Flags(expendable_cutoff=-100, deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        "the last of a repeated single flag counts",
        ["--max-nodes-total=5", "--max-nodes-total=7", "--force-ds", "--force-ds=false"],
        Flags(Limits(max_nodes_total=7), deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
]


@pytest.mark.parametrize(("words", "expected"), [c[1:] for c in FLAGS], ids=[c[0] for c in FLAGS])
def test_flags_from(words: list[str], expected: Flags) -> None:
    assert flags_from(words, WHERE) == expected


BAD: list[tuple[str, str, str]] = [
    (
        "a total that is not a range",
        "--cores-total=64",
        "--cores-total: not <min>:<max>: '64'",
    ),
    (
        "a range below zero",
        "--memory-total=-1:64",
        "--memory-total: min must be >= 0 and <= max: '-1:64'",
    ),
    (
        "a range whose max is below its min",
        "--cores-total=9:8",
        "--cores-total: min must be >= 0 and <= max: '9:8'",
    ),
    (
        "a total's bound in hexadecimal, which base 10 refuses",
        "--cores-total=0:0x40",
        "--cores-total: not an integer: '0x40'",
    ),
    (
        "a count that is not an integer",
        "--max-nodes-total=many",
        "--max-nodes-total: not an integer: 'many'",
    ),
    (
        "a count with a digit octal has not, after its leading zero",
        "--max-nodes-total=08",
        "--max-nodes-total: not an integer: '08'",
    ),
    (
        "a count with a space, which Go refuses",
        "--max-nodes-total= 5",
        "--max-nodes-total: not an integer: ' 5'",
    ),
    (
        "a cutoff with a doubled underscore",
        "--expendable-pods-priority-cutoff=1__0",
        "--expendable-pods-priority-cutoff: not an integer: '1__0'",
    ),
    ("a bool that is not one of Go's", "--force-ds=yes", "--force-ds: not a boolean: 'yes'"),
]


@pytest.mark.parametrize(("word", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_flag_that_cannot_be_read_is_one_line_naming_the_deployment(
    word: str, message: str
) -> None:
    with pytest.raises(SnapshotError) as raised:
        flags_from([word], WHERE)
    assert str(raised.value) == f"{WHERE}: {message}"


def _deployment(*containers: dict[str, Any], name: str = "cluster-autoscaler") -> dict[str, Any]:
    return {
        "metadata": {"namespace": "kube-system", "name": name},
        "spec": {"template": {"spec": {"containers": list(containers)}}},
    }


OF: list[tuple[str, dict[str, Any], Flags | None]] = [
    (
        "the autoscaler's container is found by its image, its command and args read",
        _deployment(
            {"image": "nginx"},
            {
                "image": "registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.5",
                "command": ["./cluster-autoscaler", "--force-ds"],
                "args": ["--max-nodes-total=9"],
            },
        ),
        Flags(Limits(max_nodes_total=9), force_ds=True, deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        "or by its command's first word",
        _deployment({"image": "mirror/ca:1", "command": ["/cluster-autoscaler", "--force-ds"]}),
        Flags(force_ds=True, deployment=WHERE, expander=(LEAST_WASTE,)),
    ),
    (
        "any other Deployment has none",
        _deployment({"image": "nginx", "args": ["--force-ds"]}),
        None,
    ),
    ("a Deployment without a template has none", {"spec": {}}, None),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in OF], ids=[c[0] for c in OF])
def test_flags_of(obj: dict[str, Any], expected: Flags | None) -> None:
    assert flags_of(obj) == expected
