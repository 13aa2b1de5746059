"""GIR4xx: the WL0 weight buffer snapshots; one module per rule."""

from irtools.rules.wl0 import wl0_capacity, wl0_overlap

__all__ = ["wl0_capacity", "wl0_overlap"]
