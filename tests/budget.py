"""How many examples a property test draws, and how much memory a test on generated input may use.

The hypothesis profiles (tests/conftest.py) set `max_examples`: 100 in `ci` and `dev`, far more in
`fuzz`. A test that states its own count scales with the profile through `examples(n)`, so the
fuzz profile multiplies every test's budget instead of leaving the hand-tuned ones unchanged.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from hypothesis import settings

BASE_EXAMPLES = 100
"""The `ci` and `dev` profiles' max_examples: there, `examples(n)` is n."""

ROOT = Path(__file__).resolve().parent.parent
GIB = 2**30
TEST_HEADROOM_GIB = 2
"""Address space a test on generated input may add to the test process (its children get as much)."""
CHILD_LIMIT_GIB = 1
"""Address space of a child that runs `irtools` on generated input (analyzing a small real fixture fits in 0.75)."""


def examples(n: int) -> int:
    """`n` scaled by the active profile (n under `ci` and `dev`, 20n under `fuzz`)."""
    return max(1, n * settings().max_examples // BASE_EXAMPLES)


def _address_space() -> int:
    """The bytes of address space this process has mapped now (VmSize)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


@contextmanager
def memory_bound(headroom_gib: float = TEST_HEADROOM_GIB) -> Iterator[int]:
    """Within the block, this process may map at most `headroom_gib` GiB more than it has now.

    An allocation past the bound raises MemoryError in the test (which then fails with the
    falsifying example) instead of growing until the kernel kills the run or the machine. The
    limit is lifted before pytest formats the failure. Yields the limit in bytes.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _address_space() + int(headroom_gib * GIB)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield limit
    except MemoryError as exc:
        exc.add_note(
            f"memory bound: this test on generated input may map {headroom_gib} GiB more than the test "
            "process held when it started (tests/budget.py); the input above needed more"
        )
        raise
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_bounded(
    argv: Sequence[str], limit_gib: float = CHILD_LIMIT_GIB, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run `python -m irtools *argv` in a child limited to `limit_gib` GiB of address space."""
    limit = int(limit_gib * GIB)

    def limit_child() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    # this checkout's irtools, even where another one is installed
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "irtools", *argv],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit_child,
        check=False,
    )
