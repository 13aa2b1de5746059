"""The `irtools` process: its modules imported with the collector paused, then frozen out of its sight.

Importing irtools makes hundreds of thousands of objects the collector tracks (classes, functions, the
models' schemas) that live as long as the process: its passes over them while they are imported, and
again as the interpreter shuts down, were 0.03-0.06 s of every command (`irtools --help`: 0.32 s of
CPU, now 0.26 s; validating a 45 KB sample: 0.33-0.36 s, now 0.31-0.32 s). Only the process's entry
does this: `irtools.cli.main.main` run in another program changes nothing of its collector.
"""

from __future__ import annotations

import gc
import sys


def run() -> None:
    """Run the command line of `sys.argv` and exit with its code (the console script, `python -m irtools`)."""
    gc.disable()
    from irtools.cli.main import main

    gc.freeze()
    gc.enable()
    sys.exit(main())
