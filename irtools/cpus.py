"""How many CPUs this process may run on: what `--jobs auto` and the sweep's default pool take."""

from __future__ import annotations

import os


def cpus() -> int:
    """The CPUs of this process's affinity (a CI container's share, not the host's count), else the
    machine's count where there is no affinity."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
