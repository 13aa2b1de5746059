"""Gemini's energy `E`, term by term, as far as the IR determines it.

Gemini's `E` (its cost line `E:… T:…`) sums, per layer, `Ubuf/Buf/Bus/Mac` (the core's unified
buffer, its inner buffers, bus and MACs, from the intra-core mapping), `NoC energy` (bytes x hops times
`NoC::NoC_hop_cost`), `NoP energy` (die-to-die hops, on chiplet packages) and `DRAM energy` (DRAM bytes
times `NoC::DRAM_acc_cost`); src/schnode.cpp `SchNode::print_res`, src/noc.cpp `NoC::get_cost`.

What the IR determines:
- **NoC**: bytes x hops are routed from the IR's transfers (`NoC_tot_hops`, irtools.analysis.batch_groups);
  the per-unit energy is Gemini's 7 nm one (irtools.gemini.GEMINI_NOC_HOP_ENERGY), the process whose
  frequency (1.3) the `noc` model already assumes.
- **DRAM**: the DRAM bytes are the IR's; the per-byte energy depends on the DRAM type of Gemini's input
  line, which the IR does not record: determined only when it is given (`dram_type`).
- **NoP**: the IR records no chiplet cut, so which hops cross a die boundary is unknown (on a one-chip
  run, as every shared run, Gemini's NoP energy is 0).
- **MAC** and **buffers** (Ubuf, Buf, Bus): Gemini computes them from the intra-core mapping it chose
  (`PolarInst::getCost`, src/coremapping.cpp: accesses per buffer level), which the IR records only as
  each workload's time.
An undetermined term is None, named with its reason, and left out of the total.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irtools.gemini import GEMINI_DRAM_ACCESS_ENERGY, GEMINI_NOC_HOP_ENERGY

TERMS = ("noc", "nop", "dram", "mac", "buffers")
"""Gemini's energy terms, in the order its printout gives them (buffers = Ubuf + Buf + Bus)."""

UNDETERMINED = {
    "nop": "the IR records no chiplet cut, so no hop is known to cross a die (0 on a one-chip run)",
    "mac": "Gemini's MAC energy comes from the intra-core mapping, which the IR does not record",
    "buffers": "Gemini's Ubuf/Buf/Bus energy comes from the intra-core mapping, which the IR does not record",
}


@dataclass(frozen=True, slots=True)
class EnergyModel:
    """Gemini's per-unit energies (pJ) that the IR lets irtools apply."""

    noc_hop: float = GEMINI_NOC_HOP_ENERGY
    """Energy per byte and NoC hop."""
    dram_type: str | None = None
    """The input line's DRAM type (LPDDR5, GDDR6X, HBM); None: the DRAM term is undetermined."""
    mesh: bool = True
    """False for a file without xlen/ylen: its transfers cannot be routed, so neither NoC nor DRAM is known."""

    def __post_init__(self) -> None:
        if self.dram_type is not None and self.dram_type not in GEMINI_DRAM_ACCESS_ENERGY:
            known = ", ".join(GEMINI_DRAM_ACCESS_ENERGY)
            raise ValueError(f"unknown DRAM type {self.dram_type!r}; Gemini knows {known}")

    @property
    def dram_access(self) -> float | None:
        """Energy per DRAM byte, or None without a DRAM type."""
        return None if self.dram_type is None else GEMINI_DRAM_ACCESS_ENERGY[self.dram_type]

    def undetermined(self) -> dict[str, str]:
        """Term -> why the IR does not determine it."""
        missing = dict(UNDETERMINED)
        if not self.mesh:
            missing["noc"] = missing["dram"] = (
                "the file has no mesh (xlen, ylen): its transfers cannot be routed"
            )
        elif self.dram_type is None:
            missing["dram"] = (
                "the per-byte DRAM energy depends on the DRAM type, which the IR does not record"
            )
        return {t: missing[t] for t in TERMS if t in missing}


def layer_energy(hops: np.ndarray, dram_bytes: np.ndarray, model: EnergyModel) -> dict[str, Any]:
    """Per layer, each term's energy column (`<term>_energy`, pJ; NaN where undetermined)."""
    nan = np.full(len(hops), np.nan)
    dram = nan if model.dram_access is None else dram_bytes * model.dram_access
    return {
        "noc_energy": hops * model.noc_hop,
        "nop_energy": nan,
        "dram_energy": dram,
        "mac_energy": nan,
        "buffers_energy": nan,
    }


def energy_summary(layer_cost: pd.DataFrame, model: EnergyModel) -> dict[str, Any]:
    """The run's energy: `total` (pJ, the determined terms only), `terms` (pJ or None), `undetermined`
    (term -> why), and the quantities the NoC and DRAM terms multiply: `hops` (bytes x hops) and
    `dram_bytes` (None without a mesh)."""
    missing = model.undetermined()
    terms = {t: None if t in missing else float(layer_cost[f"{t}_energy"].sum()) for t in TERMS}
    return {
        "total": float(sum(v for v in terms.values() if v is not None)),
        "unit": "pJ",
        "terms": terms,
        "undetermined": missing,
        "hops": int(layer_cost["hops"].sum()) if model.mesh else None,
        "dram_bytes": int(layer_cost["dram_bytes"].sum()) if model.mesh else None,
    }


def dram_type_in(cells: Iterable[Any]) -> str | None:
    """The first DRAM type Gemini knows that appears as a word in `cells` (e.g. a manifest row's input line)."""
    for cell in cells:
        for word in str(cell).split():
            if word in GEMINI_DRAM_ACCESS_ENERGY:
                return word
    return None


def with_dram_type(energy: dict[str, Any], dram_type: str) -> dict[str, Any]:
    """`energy` (an energy_summary without a DRAM type) with its DRAM term determined by `dram_type`."""
    if energy["dram_bytes"] is None or "dram" not in energy["undetermined"]:
        return energy
    dram = energy["dram_bytes"] * GEMINI_DRAM_ACCESS_ENERGY[dram_type]
    undetermined = {t: why for t, why in energy["undetermined"].items() if t != "dram"}
    terms = energy["terms"] | {"dram": float(dram)}
    return energy | {"terms": terms, "undetermined": undetermined, "total": energy["total"] + dram}
