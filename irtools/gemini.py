"""Constants of Gemini's cost model that irtools reproduces, importable without pandas (the CLI's --help)."""

from __future__ import annotations

GEMINI_FREQUENCY = 1.3
"""Gemini's `SchNode::frequency`: it divides a layer's NoC time (`noc.get_time() / frequency` in
src/schnode.cpp of SET-Scheduling-Project/GEMINI-HPCA2024), as it does the tile time the IR records.
Neither the IR nor Gemini's input line carries it; 1.3 reproduces the scheduler's latency `T` on all 16
shared runs (14 exactly, 2 within 2 cycles), 1.29 and 1.31 only where the NoC does not bind (docs/noc.md)."""
