"""Sweep results cached by what they depend on: the file's bytes, the irtools version, the options.

Like ruff's cache: a rerun over 10,000 files recomputes only the files whose content changed. The key is
a BLAKE2b hash of the file's bytes, the irtools version, the options that change results, and the
bytes of the ZeBu trace found beside the IR (its measured columns). To avoid reading every file again on
a rerun, the content hash of a path is remembered with its size and mtime (as git's index does): a file
whose size and mtime are unchanged is not read at all.

Location: --cache-dir, else $IRTOOLS_CACHE_DIR, else $XDG_CACHE_HOME/irtools (~/.cache/irtools). Every
entry is written to a temp file and renamed into place, so concurrent sweeps sharing a cache never see a
torn entry (the last writer wins; both wrote the same result); an entry that cannot be read or parsed
counts as a miss. Deleting the directory is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from irtools import __version__

ENV_VAR = "IRTOOLS_CACHE_DIR"
CHUNK = 1 << 20


def default_cache_dir() -> Path:
    """Where results are cached: $IRTOOLS_CACHE_DIR, else $XDG_CACHE_HOME/irtools (~/.cache/irtools)."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "irtools"


def content_hash(path: str | os.PathLike[str]) -> str:
    """BLAKE2b (160 bits) of the file's bytes, read in 1 MiB chunks."""
    digest = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class ResultCache:
    """Per-file sweep results under `root`/sweep-v1/<irtools version>/."""

    def __init__(self, root: str | os.PathLike[str], options: dict[str, Any]) -> None:
        self.root = Path(root) / "sweep-v1"
        self._results = self.root / __version__
        self._stats = self.root / "stat"
        self._options = json.dumps(options, sort_keys=True)
        self.hits = 0
        self.misses = 0

    def key(
        self, path: str | os.PathLike[str], extra: tuple[str | None, ...] = (), salt: str = ""
    ) -> str | None:
        """The result key of a file: its bytes, those of the `extra` files its result depends on (None
        for absent ones), `salt`, the options and the version; None when the file cannot be read (its
        row says why, and is not cached)."""
        digest = hashlib.blake2b(digest_size=20)
        digest.update(self._options.encode() + b"\0" + salt.encode())
        for item in (str(path), *extra):
            if item is None:
                digest.update(b"\0none")
                continue
            content = self._content_hash(item)
            if content is None:
                return None
            digest.update(content.encode())
        return digest.hexdigest()

    def get(self, key: str) -> Any | None:
        """The cached result under `key`, or None (a miss: absent, torn or unreadable)."""
        try:
            data = json.loads(self._entry(self._results, key).read_bytes())
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return data

    def put(self, key: str, value: Any) -> None:
        """Store a result under `key`, written to a temp file and renamed (concurrent sweeps may share a
        cache)."""
        _write(self._entry(self._results, key), json.dumps(value, separators=(",", ":")).encode())

    def _content_hash(self, path: str) -> str | None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        where = hashlib.blake2b(os.path.abspath(path).encode(), digest_size=16).hexdigest()
        memo = self._entry(self._stats, where)
        fingerprint = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
        try:
            known = json.loads(memo.read_bytes())
            if known["stat"] == fingerprint:
                return str(known["hash"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        try:
            content = content_hash(path)
        except OSError:
            return None
        _write(memo, json.dumps({"stat": fingerprint, "hash": content}).encode())
        return content

    @staticmethod
    def _entry(directory: Path, key: str) -> Path:
        return directory / key[:2] / f"{key}.json"


def _write(path: Path, data: bytes) -> None:
    """Write `data` to a temp file beside `path` and rename it over `path`; a cache that cannot be
    written (full disk, read-only) only costs the next run time, so errors are ignored."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass
