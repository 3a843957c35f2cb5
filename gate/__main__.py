"""``python -m gate``: the only place that exits the process."""

import sys

from gate.cli import main

sys.exit(main())
