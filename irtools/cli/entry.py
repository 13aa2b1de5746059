"""The `irtools` process: its modules imported with the collector paused, then frozen out of its sight.

Importing irtools makes hundreds of thousands of objects the collector tracks (classes, functions, the
models' schemas) that live as long as the process: its passes over them while they are imported, and
again as the interpreter shuts down, were 0.03-0.06 s of every command (`irtools --help`: 0.32 s of
CPU, now 0.26 s; validating a 45 KB sample: 0.33-0.36 s, now 0.31-0.32 s). Only the process's entry
does this: `irtools.cli.main.main` run in another program changes nothing of its collector.

The entry also asks numpy's OpenBLAS for one thread unless the user chose a number: irtools does no
linear algebra, and the worker thread OpenBLAS starts per further core as numpy loads spins before it
sleeps: 0.1 s of CPU of every command on a 2-core machine (validating a 73 MB file: 1.58 -> 1.50 s).
"""

from __future__ import annotations

import gc
import os
import sys

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")
"""What the process sets before numpy loads, when the environment does not say."""


def run() -> None:
    """Run the command line of `sys.argv` and exit with its code (the console script, `python -m irtools`)."""
    os.environ.setdefault(*BLAS_THREADS)
    gc.disable()
    from irtools.cli.main import main

    gc.freeze()
    gc.enable()
    sys.exit(main())
