"""``python -m gate``: the ``fitgate`` command."""

import sys

from gate.cli import console

sys.exit(console())
