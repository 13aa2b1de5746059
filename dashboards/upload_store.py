"""Uploaded files' bytes, bounded in total: the least recently used are dropped first.

A server shared by a team lives for weeks and anyone who reaches it can upload; without a bound,
every distinct upload stayed in memory until the server ran out of it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable

from flask import Flask, g, request
from werkzeug.wrappers import Response

UPLOAD_PREFIX = "upload:"
EVICTED = (
    "that upload is no longer available (the server keeps only the most recent uploads); upload it again"
)


def default_store_bytes(max_upload_bytes: int) -> int:
    """A sixteenth of this machine's memory (1 GB when unknown), and never less than one upload."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not POSIX, or the value is not known
        memory = 16 * 10**9
    return max(memory // 16, max_upload_bytes)


def upload_key(data: bytes) -> str:
    """The key of an upload: the same bytes uploaded twice (by anyone) are one upload."""
    return UPLOAD_PREFIX + hashlib.sha256(data).hexdigest()[:16]


class UploadStore:
    """Uploads by key, at most `max_bytes` of file content in all; `on_evict(key)` hears of each one dropped."""

    def __init__(self, max_bytes: int, on_evict: Callable[[str], None] | None = None) -> None:
        self.max_bytes = max_bytes
        self._on_evict = on_evict
        self._uploads: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        """The bytes of file content held now (what the bound counts)."""
        return self._total

    def __len__(self) -> int:
        return len(self._uploads)

    def __contains__(self, key: object) -> bool:
        return key in self._uploads

    def add(self, filename: str, data: bytes) -> str:
        """Keep `data` (dropping the least recently used uploads to make room); returns its key."""
        if len(data) > self.max_bytes:
            raise ValueError(f"{len(data)} bytes do not fit an upload store of {self.max_bytes}")
        key = upload_key(data)
        evicted = []
        with self._lock:
            if key in self._uploads:
                self._uploads.move_to_end(key)
                return key
            while self._uploads and self._total + len(data) > self.max_bytes:
                old, (_, old_data) = self._uploads.popitem(last=False)
                self._total -= len(old_data)
                evicted.append(old)
            self._uploads[key] = (filename, data)
            self._total += len(data)
        for old in evicted:  # outside the lock: the listener takes its own
            if self._on_evict:
                self._on_evict(old)
        return key

    def get(self, key: str) -> tuple[str, bytes]:
        """(file name, bytes) of an upload, now the most recently used; KeyError once dropped."""
        with self._lock:
            self._uploads.move_to_end(key)
            return self._uploads[key]


UPLOADS_IN_FLIGHT = 2
"""Uploads read at once: each holds its request (the file in base64) and its decoded bytes until read."""
UPLOAD_REQUEST_BYTES = 4 * 10**6
"""A callback request this large carries a file: other callbacks send a few kilobytes of state."""
UPLOADS_BUSY = (
    "irtools serve: {slots} uploads are being read already; upload again when one of them is done\n"
)
REFUSED_HEADER = "X-Irtools-Refused"
"""Marks a refusal whose text the page shows (dashboards/upload_guard.py)."""


def limit_uploads(
    server: Flask, slots: int = UPLOADS_IN_FLIGHT, min_bytes: int = UPLOAD_REQUEST_BYTES
) -> None:
    """At most `slots` large callback requests (uploads) in flight; the rest are refused unread (503).

    Four 190 MB uploads at once took 3 GB while each was decoded and loaded: the memory of
    uploads in flight is bounded by refusing, before its body is read, a request past `slots`.
    """
    free = threading.BoundedSemaphore(slots)

    @server.before_request
    def take_slot() -> Response | None:
        size = request.content_length or 0
        if (
            request.method != "POST"
            or size < min_bytes
            or not request.path.endswith("_dash-update-component")
        ):
            return None
        if not free.acquire(blocking=False):
            refused = Response(UPLOADS_BUSY.format(slots=slots), status=503, mimetype="text/plain")
            refused.headers[REFUSED_HEADER] = "uploads"
            refused.headers["Retry-After"] = "5"
            return refused
        g.upload_slot = True
        return None

    @server.teardown_request
    def give_slot(_: BaseException | None) -> None:
        if g.pop("upload_slot", False):
            free.release()
