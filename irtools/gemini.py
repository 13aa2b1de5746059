"""Constants of Gemini's cost model that irtools reproduces, importable without pandas (the CLI's --help)."""

from __future__ import annotations

GEMINI_FREQUENCY = 1.3
"""Gemini's `SchNode::frequency`: it divides a layer's NoC time (`noc.get_time() / frequency` in
src/schnode.cpp of SET-Scheduling-Project/GEMINI-HPCA2024), as it does the tile time the IR records.
Neither the IR nor Gemini's input line carries it; 1.3 reproduces the scheduler's latency `T` on all 16
shared runs (14 exactly, 2 within 2 cycles), 1.29 and 1.31 only where the NoC does not bind (docs/noc.md)."""

GEMINI_NOC_HOP_ENERGY = 0.4 * 8 * 0.7
"""Gemini's `NoC::NoC_hop_cost`, energy per byte and hop: `0.4 * 8 * power_factor` (src/main.cpp:1008),
power_factor 0.7 for its 7 nm process (src/main.cpp:892), the process the frequency 1.3 belongs to."""

GEMINI_DRAM_ACCESS_ENERGY = {"LPDDR5": 0.0, "GDDR6X": 10.5 * 8, "HBM": 5.5 * 8}
"""Gemini's `NoC::DRAM_acc_cost`, energy per DRAM byte, by the input line's DRAM type (src/main.cpp:961,
967, 973; LPDDR5's is 0 there). The IR does not record the DRAM type."""
