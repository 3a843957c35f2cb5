"""An IntOrString count read against a total, as the workload controllers read theirs."""

from __future__ import annotations


def scaled(value: object, total: int, *, round_up: bool) -> int | None:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, ``"N%"`` of ``total`` rounded
    up or down; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    digits = value[:-1] if isinstance(value, str) and value.endswith("%") else ""
    # strconv.Atoi reads ASCII digits only ("²" is a digit to Python)
    if digits.isascii() and digits.isdigit():
        percent = int(digits)
        whole, rest = divmod(percent * total, 100)
        return whole + (1 if round_up and rest else 0)
    return None
