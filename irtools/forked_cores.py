"""A large file's cores shared between this process and a forked child, each taking the next core no one has.

Validate reads a file core by core (irtools.streaming); on a file of 64 cores most of its time is
per-core work: decoding each core, the checks of what the Structs cannot show (a repeated key: GIR102),
the per-core steps of the rules, the columns kept for the whole-file steps, the key scan (GIR103,
GIR104). With a second CPU (`validate --jobs 2` or more on one file), a child is forked once the file's
members are found, and both walk the cores in file order, each claiming the next core neither has taken
(`Claims`): so each takes what its speed allows, on any machine and under any load. The child decodes
and checks its cores exactly as this process would (the same loader and `CoreChecks`, given the file's
non-core members and its cores only) and sends back their findings, columns and key scan. This process
checks its own cores and only skims the child's (their workloads' fields that the whole-file steps read;
the snapshots and tensors left as the JSON they are, unchecked, never made into objects), then adds what
the child sent, each core in its place, and runs the whole-file steps.

The result is exactly the sequential one, or the file is checked again sequentially: when the child
fails, finds a core the Structs do not hold exactly (it goes to the models), a rule crashes on either
side (a crash stops the rule on the later cores), or this process's read of the file does not hand its
cores over (`cores_handed`).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import pickle
import signal
import struct
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


class Claims:
    """Which process checks each core: both walk the cores in file order and claim each, and a core goes
    to the first that claims it. Shared after the fork: the next core no one has taken (a counter in
    shared memory), under a lock (a pipe holding one byte: whoever reads it holds the lock)."""

    def __init__(self, keys: list[str]) -> None:
        self.place = {key: i for i, key in enumerate(keys)}
        """Core key -> its place among the file's cores."""
        self._next = mmap.mmap(-1, 8)  # anonymous and shared: both processes see one counter
        self._lock, self._unlock = os.pipe()
        os.write(self._unlock, b".")

    def __call__(self, key: str) -> bool:
        """Whether the caller takes this core: no one has taken it (a process claims every core in order)."""
        os.read(self._lock, 1)
        try:
            (taken,) = _COUNTER.unpack_from(self._next)
            if taken != self.place[key]:
                return False
            _COUNTER.pack_into(self._next, 0, taken + 1)
            return True
        finally:
            os.write(self._unlock, b".")

    def close(self) -> None:
        """Let the lock and the counter go (this process's copies)."""
        os.close(self._lock)
        os.close(self._unlock)
        self._next.close()


_COUNTER = struct.Struct("q")


class ForkedCores:
    """A `load_ir(on_split=...)` hook that forks a child sharing the cores of a large file with this process."""

    def __init__(self, checks: CoreChecks) -> None:
        self.checks = checks
        self.forked = False
        """Whether a child was forked for this file."""
        self.joined = False
        """Whether the child's checks and key scan were taken: the file's report is then whole."""
        self._child: int | None = None
        self._reader: int | None = None
        self._claims: Claims | None = None

    def __call__(self, fast: decoder.Split, name: str, size: int) -> None:
        """Fork a child to share the cores of `fast`, unless the file is small or has one core."""
        keys = [key for key in fast.spans if CORE_KEY.match(key)]
        if size < MIN_BYTES or len(keys) < 2 or not _may_fork():
            return
        claims = self._claims = Claims(keys)
        reader, writer = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's work is measured by its result in the parent
            os.close(reader)
            _die_with(parent)
            _check_in_child(fast, name, size, claims, self.checks, writer)
        os.close(writer)
        self._child, self._reader, self.forked = child, reader, True
        fast.claim = self._claim
        fast.scanned_elsewhere = self._take

    def _claim(self, key: str) -> bool:
        assert self._claims is not None
        if self._claims(key):
            return True
        self.checks.checked_elsewhere.add(int(key))
        return False

    def _take(self, keys: KeyScan) -> None:
        """Once this process has read every core: wait for the child and, unless it did not check every core
        this process left it exactly or a rule crashed, add its key scan to `keys` and its checks to
        `checks`."""
        result = self._wait()
        if result is None or self._claims is None:
            return
        exact, checks, scan = result
        # The child's cores, each with its transfer columns (None too), are exactly those refused here.
        if exact and not self.checks.crashed and set(checks.transfers) == self.checks.checked_elsewhere:
            keys.add_cores(scan, self._claims.place)
            self.checks.add(checks)
            self.joined = True

    def _wait(self) -> tuple[bool, CoreChecks, KeyScan] | None:
        if self._reader is None or self._child is None:
            return None
        result: tuple[bool, CoreChecks, KeyScan] | None
        with os.fdopen(self._reader, "rb") as pipe:
            self._reader = None
            try:
                result = pickle.load(pipe)  # as it comes: the columns' bytes are never held whole
            except Exception:  # noqa: BLE001 - a child that died before or while writing: one process then
                result = None
        _, status = os.waitpid(self._child, 0)
        self._child = None
        return result if os.waitstatus_to_exitcode(status) == 0 else None

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
        if self._claims is not None:
            self._claims.close()
            self._claims = None


def _may_fork() -> bool:
    """Whether this process can fork safely: a POSIX process with no other thread (a lock another thread
    holds, of an import or a stream, would stay held in the child)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _die_with(parent: int) -> None:
    """Have the kernel end this child when its parent ends (Linux's PR_SET_PDEATHSIG): a parent killed while
    it held the claims' lock would leave the child waiting for it forever."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: no such call
        return
    if os.getppid() != parent:  # the parent ended before the call
        os._exit(1)


_PR_SET_PDEATHSIG = 1


def _check_in_child(
    fast: decoder.Split, name: str, size: int, claims: Claims, checks: CoreChecks, writer: int
) -> None:
    """The child's whole life: check the cores it claims, write whether they were checked exactly, its
    `CoreChecks` and its key scan of them (pickled) to `writer`, exit."""
    code = 1
    try:
        fast.claim, fast.skip_refused = claims, True
        scans: list[KeyScan] = []
        fast.scanned_elsewhere = scans.append  # the child's own scan of its cores, to send
        mine = CoreChecks(checks.options)
        loaded = load_typed(fast, name, size, mine)
        exact = bool(
            loaded is not None
            and loaded.cores_handed
            and scans
            and not mine.crashed
            and not fast.models_read & {str(core) for core in mine.refs}
        )
        mine.refs.clear()  # its cores' workloads: the parent has its own
        with os.fdopen(writer, "wb") as pipe:
            pickle.dump((exact, mine, scans[0] if scans else None), pipe, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)
