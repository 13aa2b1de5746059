"""`--noc-bw` and `--noc-frequency` (the NoC of the `noc` timing model), and `--dram-bw`/`--dram-type` (Gemini's DRAM)."""

from __future__ import annotations

import argparse

from irtools.cli.common import positive_float, positive_int
from irtools.gemini import GEMINI_DRAM_ACCESS_ENERGY, GEMINI_FREQUENCY


def add_noc_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --noc-bw and --noc-frequency (the noc timing model) to a command."""
    parser.add_argument(
        "--noc-bw",
        type=positive_int,
        metavar="N",
        help=(
            "NoC bandwidth in bytes per cycle and directed link, as in Gemini's input line (e.g. 8, 32); "
            "adds the `noc` timing model, whose makespan is the scheduler's own latency T. "
            "Without it (or --noc-links, where offered) nothing NoC-related is computed"
        ),
    )
    parser.add_argument(
        "--noc-frequency",
        type=positive_float,
        default=GEMINI_FREQUENCY,
        metavar="F",
        help=f"Gemini's SchNode::frequency, which divides the NoC time (default: {GEMINI_FREQUENCY})",
    )


def add_dram_arguments(parser: argparse.ArgumentParser) -> None:
    """`--dram-bw` and `--dram-type`: the DRAM of Gemini's cost (the layer_cost table and the energy)."""
    parser.add_argument(
        "--dram-bw",
        type=positive_int,
        metavar="N",
        help=(
            "DRAM bandwidth as in Gemini's input line (e.g. 1024000); with --noc-bw, the noc model also "
            "bounds a layer by Gemini's DRAM time (4 channels of N / 1024 / 4 bytes per cycle)"
        ),
    )
    parser.add_argument(
        "--dram-type",
        choices=sorted(GEMINI_DRAM_ACCESS_ENERGY),
        help="DRAM type as in Gemini's input line: gives the energy's DRAM term (per-byte energy)",
    )
