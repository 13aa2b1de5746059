"""`python -m irtools` runs the command-line interface."""

from irtools.cli.entry import run

run()
