"""The ledger's DaemonSets kept by mix (gate.scheduler.placement.mixes): a node's entries,
written only when read, are those of taking each DaemonSet's pod node by node, whatever is
read in between and whatever copies are taken after."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.model import HostPort
from gate.scheduler.placement.copyrules import CopyRules, Ledger, set_bits
from gate.scheduler.placement.mixes import mix_at, with_daemon
from tests.builders import node

NODES = tuple(
    node(f"n{i}", cpu=1000 + 500 * (i % 3), pods=2 + i % 2, pod_count=i % 2) for i in range(6)
)
PORT = HostPort("0.0.0.0", "TCP", 9100)
OTHER_PORT = HostPort("0.0.0.0", "TCP", 9200)


def _rules(cpu: int, memory: int, ports: Sequence[HostPort]) -> CopyRules:
    requests = {"cpu": cpu} if memory < 0 else {"memory": memory, "cpu": cpu}
    return CopyRules(requests=requests, host_ports=tuple(ports))


def _take(ledger: Ledger, bits: int, rules: CopyRules, taker: str, node_by_node: bool) -> None:
    nonzero = (rules.requests.get("cpu", 0) or 100, 200)
    labels = {"app": taker}
    if node_by_node:
        names = (NODES[p].name for p in set_bits(bits))
        ledger.take_each(names, rules, taker, nonzero, labels)
    else:
        ledger.take_daemon(NODES, bits, rules, taker, nonzero, labels)


def _read(ledger: Ledger, rules: CopyRules) -> list[object]:
    """Everything a placement reads of the ledger node by node, in order (dicts as lists:
    their order included)."""
    found: list[object] = []
    for n in NODES:
        view = ledger.view(n, rules, 1)
        found += [ledger.holds(n.name), ledger.lacking(n, rules), ledger.scored(n)]
        found += [list(view.requested.items()), view.pod_count, view.used_ports]
    return found


def _entries(ledger: Ledger) -> list[object]:
    return [
        sorted((n, list(amounts.items())) for n, amounts in ledger.requested.items()),
        sorted(ledger.pods.items()),
        sorted(ledger.ports.items(), key=lambda item: item[0]),
        sorted((n, list(held.items())) for n, held in ledger.takers.items()),
        sorted(ledger.nonzero.items()),
        list(ledger.rules),
    ]


daemonsets = st.lists(
    st.tuples(
        st.integers(0, 2 ** len(NODES) - 1),
        st.integers(-100, 900),
        st.integers(-1, 300),
        st.lists(st.sampled_from([PORT, OTHER_PORT]), max_size=2, unique=True),
        st.sampled_from(["a", "b", "c", "d"]),
        st.booleans(),
    ),
    max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(taken=daemonsets, copy_on=st.integers(0, len(NODES) - 1))
def test_daemonsets_kept_by_mix_read_as_taken_node_by_node(
    taken: list[tuple[int, int, int, list[HostPort], str, bool]], copy_on: int
) -> None:
    by_mix, by_node = Ledger(), Ledger()
    for bits, cpu, memory, ports, taker, read in taken:
        rules = _rules(cpu, memory, ports)
        for ledger, node_by_node in ((by_mix, False), (by_node, True)):
            _take(ledger, bits, rules, taker, node_by_node)
        lacking = [by_node.lacking(n, rules) for n in NODES]
        clashes = sum(1 << p for p, found in enumerate(lacking) if found and found[1])
        assert by_mix.port_clashes(NODES, rules) == clashes
        if read:
            assert _read(by_mix, rules) == _read(by_node, rules)
    assert _entries(by_mix) == _entries(by_node)
    copy = _rules(100, 10, [PORT])
    for ledger in (by_mix, by_node):
        ledger.take(NODES[copy_on].name, copy, 2, "web")
    assert _entries(by_mix) == _entries(by_node)
    assert _read(by_mix, copy) == _read(by_node, copy)


@settings(max_examples=80, deadline=None)
@given(sets=st.lists(st.integers(0, 2**8 - 1), max_size=6))
def test_a_daemonsets_nodes_split_the_mixes_they_cut(sets: list[int]) -> None:
    mixes = with_daemon([], 0, [], (0, 0), frozenset(), "none")
    for k, bits in enumerate(sets):
        mixes = with_daemon(mixes, bits, [("cpu", 1)], (1, 1), frozenset(), f"d{k}")
    covered = 0
    for held, _ in mixes:
        assert held and not held & covered
        covered |= held
    for position in range(8):
        wanted = {f"d{k}": 1 for k, bits in enumerate(sets) if bits >> position & 1}
        mix = mix_at(mixes, position)
        assert (mix.takers if mix else {}) == wanted
        assert (mix.pods if mix else 0) == len(wanted)


def test_a_daemonset_over_other_nodes_is_taken_node_by_node_beside_the_mixes() -> None:
    by_mix, by_node = Ledger(), Ledger()
    rules = _rules(300, 10, [PORT])
    other = tuple([*NODES])  # the same nodes in another sequence: the mixes are not over it
    for ledger, node_by_node in ((by_mix, False), (by_node, True)):
        _take(ledger, 0b011, rules, "a", node_by_node)
    by_mix.take_daemon(other, 0b110, rules, "b", (300, 200), {"app": "b"})
    by_node.take_each(["n1", "n2"], rules, "b", (300, 200), {"app": "b"})
    assert by_mix.mixes is None
    assert by_mix.port_clashes(NODES, rules) is None
    assert _entries(by_mix) == _entries(by_node)
    assert _read(by_mix, rules) == _read(by_node, rules)
