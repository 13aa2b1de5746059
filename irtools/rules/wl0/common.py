"""What both WL0 rules share: how a finding names a WL0 weight."""

from __future__ import annotations

from collections.abc import Sequence

from irtools.rules.context import id_list


def weight_text(transfer_ids: Sequence[int]) -> str:
    """How GIR4xx messages name a WL0 weight: `weight [transfer 12]`."""
    return f"weight [transfer {id_list(transfer_ids)}]"
