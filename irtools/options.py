"""RunOptions: what the user gave one command besides its files, as one frozen value every part reads.

The configuration layer (irtools.config) makes it from the command line and configuration files, and
hands it whole to the check (irtools.validate), `Analysis`, the dashboard's store and the sweep engine.
Importable without pandas or pydantic (the CLI's --help).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from irtools.findings import Severity
from irtools.gemini import GEMINI_FREQUENCY


@dataclass(frozen=True, slots=True)
class RunOptions:
    """User options that switch rules and tables on or parameterize them."""

    l2_size: int | None = None
    """--l2-size: the L2 size in bytes of files that record none (raw, alloc); a file's own buffersize wins
    (see `l2_size_for`). Enables GIR301 there, l2_blocks' capacity and the L2 maps' end."""
    wl0_size: int | None = None
    """--wl0-size: WL0 capacity in bytes (enables GIR402, free space in the WL0 tables and maps)."""
    addr_align: int | None = None
    """--addr-align: required L2 address alignment in bytes (enables GIR308)."""
    noc_bw: int | None = None
    """--noc-bw: NoC bandwidth per directed link and cycle, as in Gemini's input line; enables the `noc`
    timing model and the busy share of each link in the noc_links table."""
    noc_frequency: float = GEMINI_FREQUENCY
    """--noc-frequency: Gemini's frequency, which divides the NoC time (irtools.analysis.noc)."""
    dram_bw: int | None = None
    """--dram-bw: DRAM bandwidth as in Gemini's input line (e.g. 1024000); with noc_bw, adds Gemini's DRAM
    time (each of 4 channels moves dram_bw / 1024 / 4 bytes per cycle) to the noc model's NoC time."""
    dram_type: str | None = None
    """--dram-type: DRAM type as in Gemini's input line (LPDDR5, GDDR6X, HBM): its per-byte energy."""
    noc_links: bool = False
    """--noc-links: route the NoC traffic (the noc_links table, the busiest link) without --noc-bw."""
    max_bytes: int | None = None
    """--max-mb in bytes: files larger than this are refused unread (None: no limit)."""
    severities: dict[str, Severity] = field(default_factory=dict, hash=False)
    """--severity: per-code severity overrides (applied once, in irtools.validate.validate_file)."""

    @property
    def routes_noc(self) -> bool:
        """Whether the run asks for the routed NoC traffic: --noc-links, or --noc-bw (the noc model needs
        it). Routing a 64-core file's millions of link rows costs more than parsing it, so without either
        a command computes nothing NoC-related (a table read by name is still computed on demand)."""
        return self.noc_links or self.noc_bw is not None

    def l2_size_for(self, buffersize: int | None) -> int | None:
        """The L2 size in bytes of a file whose `buffersize` is this: the file's own when it records one,
        else --l2-size, else None. The one place that decides it; everything else reads IRIndex.l2_size."""
        return buffersize or self.l2_size
