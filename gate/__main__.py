"""``python -m gate``: the only place that exits the process."""

import os
import sys

from gate.cli import main

code = main()
try:
    if sys.stdout is not None:  # None: started without one (>&-), nothing was written
        sys.stdout.flush()
except OSError:  # standard output full or closed: said once, not again at exit
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if not code:
        sys.stderr.write("fitgate: cannot write the output: standard output is full or closed\n")
        code = 2
sys.exit(code)
