"""``python -m gate``: the ``fitgate`` command."""

from gate.cli import console

console()
