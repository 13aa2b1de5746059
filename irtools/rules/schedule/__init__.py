"""GIR5xx: the schedule (workload order, coordinates, the core mesh, cross-core waits); one module per rule."""

from irtools.rules.schedule import (
    bad_range,
    core_outside_mesh,
    deadlock,
    implausible_mesh,
    workload_order,
    workload_range,
)

__all__ = [
    "bad_range",
    "core_outside_mesh",
    "deadlock",
    "implausible_mesh",
    "workload_order",
    "workload_range",
]
