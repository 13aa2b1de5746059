"""Bytes as people read them, in binary units, the same in the terminal, the dashboard and the report."""

from __future__ import annotations

import math

_UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def format_bytes(n: float, space: str = " ") -> str:
    """'448 B', '13 KiB', '1.5 MiB', '0.99 MiB' (never '1.01e+03 KiB'), '1,234 GiB'.

    A value from 1000 of a unit up moves to the next unit (1,010 KiB reads 0.99 MiB), so a number has
    at most three digits before GiB.
    """
    for unit, scale in _UNITS:
        if n >= scale * 1000 / 1024:
            value = n / scale
            text = f"{value:,.0f}" if value >= 100 else f"{value:.3g}" if value >= 1 else f"{value:.2f}"
            return f"{text}{space}{unit}"
    return f"{int(n):,}{space}B"


_STEPS = (0.125, 0.25, 0.5) + tuple(m * 10**k for k in range(7) for m in (1, 2, 2.5, 5))
"""Tick steps in the axis's unit: below one unit, powers of two (128, 256, 512 of the unit below)."""


def byte_ticks(top: float, count: int = 5) -> tuple[list[float], list[str]]:
    """About `count` round tick values from 0 to `top` bytes, and their labels in binary units.

    The unit is the one `format_bytes` writes `top` in, and the step a round number of it (or an eighth,
    a quarter, a half): every tick then reads round, "512 KiB" and "1.5 MiB", never "0.98 MiB" (a step
    of 1,000 KiB) or "205 KiB" (a fifth of a MiB).
    """
    if not top > 0 or not math.isfinite(top):
        return [0.0], ["0 B"]
    unit = next((scale for _, scale in _UNITS if top >= scale * 1000 / 1024), 1)
    wanted = top / max(count, 1) / unit
    step = next((m for m in _STEPS if m >= wanted and m * unit >= 1), _STEPS[-1]) * unit
    values = [i * step for i in range(int(top // step) + 1)]
    return values, [format_bytes(v) for v in values]


def count_ticks(top: float, count: int = 5) -> tuple[list[float], list[str]]:
    """About `count` round tick values from 0 to `top` of a count (cycles, say), whole numbers only,
    and their labels ("2,500"): a bar up to 1 reads 0 and 1, never 0, 1, 1 (0.5 rounded)."""
    if not top > 0 or not math.isfinite(top):
        return [0.0], ["0"]
    wanted = max(top / max(count, 1), 1.0)
    power = 10 ** math.floor(math.log10(wanted))
    steps = (1, 2, 2.5, 5, 10) if power >= 10 else (1, 2, 5, 10)  # 2.5 is whole from 25 up
    step = next(m * power for m in steps if m * power >= wanted)
    values = [float(i * step) for i in range(int(top // step) + 1)]
    return values, [f"{v:,.0f}" for v in values]


_ENERGY_UNITS = (("J", 1e12), ("mJ", 1e9), ("µJ", 1e6), ("nJ", 1e3))


def format_energy(picojoules: float) -> str:
    """Energy given in pJ (Gemini's unit) as people read it: '4.8 mJ', '312 µJ', '17 pJ'; '' for NaN."""
    if not math.isfinite(picojoules):
        return ""
    for unit, scale in _ENERGY_UNITS:
        if abs(picojoules) >= scale:
            value = picojoules / scale
            return f"{value:,.0f} {unit}" if abs(value) >= 100 else f"{value:.3g} {unit}"
    return f"{picojoules:.3g} pJ"
