"""`--noc-bw` and `--noc-frequency`: the NoC of the `noc` timing model, for every command that has timing models."""

from __future__ import annotations

import argparse

from irtools.analysis.noc import GEMINI_FREQUENCY
from irtools.cli.common import positive_float, positive_int


def add_noc_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--noc-bw",
        type=positive_int,
        metavar="N",
        help=(
            "NoC bandwidth in bytes per cycle and directed link, as in Gemini's input line (e.g. 8, 32); "
            "adds the `noc` timing model, whose makespan is the scheduler's own latency T. "
            "Without it nothing NoC-related is computed"
        ),
    )
    parser.add_argument(
        "--noc-frequency",
        type=positive_float,
        default=GEMINI_FREQUENCY,
        metavar="F",
        help=f"Gemini's SchNode::frequency, which divides the NoC time (default: {GEMINI_FREQUENCY})",
    )
