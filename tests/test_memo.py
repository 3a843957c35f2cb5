"""The identity cache: same object, same answer without recomputing; never a stale one."""

from __future__ import annotations

from gate.memo import by_identity


def test_cache_is_keyed_by_identity_and_bounded() -> None:
    calls: list[tuple[int, ...]] = []

    @by_identity(maxsize=2)
    def total(values: tuple[int, ...]) -> int:
        calls.append(values)
        return sum(values)

    first, twin, other = (1, 2, 3), tuple([1, 2, 3]), (4,)
    assert first == twin and first is not twin
    assert total(first) == 6 and total(first) == 6
    assert len(calls) == 1  # the same object is not recomputed
    assert total(twin) == 6
    assert len(calls) == 2  # an equal but different object is computed on its own
    total(other)  # evicts the least recently used entry, ``first``
    total(first)
    assert len(calls) == 4
