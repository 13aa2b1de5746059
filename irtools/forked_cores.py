"""The later cores of a large file checked in a forked process while this one checks the earlier ones.

Validate reads a file core by core (irtools.streaming); on a file of 64 cores most of its time is
per-core work: decoding each core, the checks of what the Structs cannot show (a repeated key: GIR102),
the per-core steps of the rules and the columns kept for the whole-file steps. With a second CPU
(`validate --jobs 2` or more on one file), a child forked once the file's members are found takes the
later cores: it decodes them, checks them exactly as this process would (the same loader and
`CoreChecks`, on the file's non-core members and those cores only) and sends back their findings and
columns, and its key scan of them (GIR103, GIR104). This process only skims those cores (their workloads'
fields that the whole-file steps read, the snapshots and tensors left as the JSON they are: unchecked,
never made into objects) and checks the earlier ones and the whole file.

The result is exactly the sequential one, or the file is checked again sequentially: when the child
fails, finds a core the Structs do not hold exactly (it goes to the models), a rule crashes on either
side (a crash stops the rule on the later cores), or this process's read of the file does not hand its
cores over (`cores_handed`).
"""

from __future__ import annotations

import os
import pickle
import sys
import threading

from irtools.dialects.keys import KeyScan
from irtools.loading import decoder
from irtools.loading.load import load_typed
from irtools.model.base import CORE_KEY
from irtools.streaming import CoreChecks

MIN_BYTES = 16 * 2**20
"""Smaller files are checked in one process: forking and sending the results back would cost more than
the half of their cores' checks saved."""

SHARE = 0.55
"""The part of the cores' bytes the child takes: it decodes and checks them whole, while this process
only skims them (their workloads' scalars) besides checking its own cores and the whole file. On 8x8
stand-ins of 73-98 MB, 0.5-0.6 kept either process from waiting long on the other (docs/speed.md)."""


class ForkedCores:
    """A `load_ir(on_split=...)` hook that forks a child checking the later cores into `checks`' options."""

    def __init__(self, checks: CoreChecks) -> None:
        self.checks = checks
        self.forked = False
        """Whether a child was forked for this file."""
        self.joined = False
        """Whether the child's checks and key scan were taken: the file's report is then whole."""
        self._child: int | None = None
        self._reader: int | None = None

    def __call__(self, fast: decoder.Split, name: str, size: int) -> None:
        """Fork a child for the later cores of `fast` (`SHARE` of their bytes), unless the file is small."""
        if size < MIN_BYTES or not _may_fork():
            return
        taken = _later_cores(fast, SHARE)
        if not taken:
            return
        reader, writer = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's work is measured by its result in the parent
            os.close(reader)
            _check_in_child(fast, name, size, taken, self.checks, writer)
        os.close(writer)
        self._child, self._reader, self.forked = child, reader, True
        fast.checked_elsewhere = taken
        fast.scanned_elsewhere = self._take
        self.checks.checked_elsewhere = frozenset(int(key) for key in taken)

    def _take(self, keys: KeyScan) -> None:
        """Once this process has read every core: wait for the child, and unless its cores were not all
        checked exactly or a rule crashed, add its key scan to `keys` and its checks to `checks`."""
        result = self._wait()
        if result is None:
            return
        exact, checks, scan = result
        if exact and not self.checks.crashed:
            keys.add_cores(scan)
            self.checks.add(checks)
            self.joined = True

    def _wait(self) -> tuple[bool, CoreChecks, KeyScan] | None:
        if self._reader is None or self._child is None:
            return None
        with os.fdopen(self._reader, "rb") as pipe:
            self._reader = None
            payload = pipe.read()
        _, status = os.waitpid(self._child, 0)
        self._child = None
        if os.waitstatus_to_exitcode(status) != 0 or not payload:
            return None
        try:
            result: tuple[bool, CoreChecks, KeyScan] = pickle.loads(payload)
        except Exception:  # noqa: BLE001 - a child that died while writing: check the file in one process
            return None
        return result

    def close(self) -> None:
        """Stop a child whose result is not wanted (this process failed, or read the file another way)."""
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None
        if self._child is not None:
            try:
                os.kill(self._child, 9)
            except ProcessLookupError:
                pass
            os.waitpid(self._child, 0)
            self._child = None


def _may_fork() -> bool:
    """Whether this process can fork safely: a POSIX process with no other thread (a lock another thread
    holds, of an import or a stream, would stay held in the child)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _later_cores(fast: decoder.Split, share: float) -> frozenset[str]:
    """The last cores of the file, in its order, holding about `share` of its cores' bytes (not the first
    core: this process keeps some of the checks)."""
    sizes = [(key, end - start) for key, (_, start, end) in fast.spans.items() if CORE_KEY.match(key)]
    total = sum(size for _, size in sizes)
    taken: list[str] = []
    held = 0
    for key, size in reversed(sizes[1:]):
        if held + size / 2 > share * total:
            break
        taken.append(key)
        held += size
    return frozenset(taken)


def _check_in_child(
    fast: decoder.Split, name: str, size: int, taken: frozenset[str], checks: CoreChecks, writer: int
) -> None:
    """The child's whole life: check the `taken` cores, write whether they were checked exactly, its
    `CoreChecks` and its key scan of them (pickled) to `writer`, exit."""
    code = 1
    try:
        fast.cores = taken
        scans: list[KeyScan] = []
        fast.scanned_elsewhere = scans.append  # the child's own scan of its cores, to send
        mine = CoreChecks(checks.options)
        loaded = load_typed(fast, name, size, mine)
        exact = bool(
            loaded is not None
            and loaded.cores_handed
            and scans
            and not mine.crashed
            and not fast.models_read & taken
        )
        mine.refs.clear()  # this process's workloads: the parent has its own
        with os.fdopen(writer, "wb") as pipe:
            pickle.dump((exact, mine, scans[0] if scans else None), pipe, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)
