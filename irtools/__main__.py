"""`python -m irtools` runs the command-line interface."""

import sys

from irtools.cli.main import main

sys.exit(main())
