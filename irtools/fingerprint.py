"""Stable fingerprints of findings: for baselines, SARIF partialFingerprints and GitLab Code Quality.

A fingerprint must survive what does not change the finding: the file moving lines (line numbers are
left out), the repository being checked out elsewhere (the path is relative to the project root: the
configuration file's directory, else the current one), and numbers in the message that measure rather
than identify (sizes, addresses, counts such as "5 more uses"). It keeps the code, the path, the
pointer, the finding's core, workload and transfer ids (the numbers that do identify it) and the
message with its numbers masked. Findings of one file that are still alike get an ordinal.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

from irtools.findings import Finding

_NUMBER = re.compile(r"0x[0-9a-fA-F]+|\d+")


def normalized_message(message: str) -> str:
    """The message with every number masked: `size 618240 differs from ... = 69888` -> `size # ...`."""
    return _NUMBER.sub("#", message)


def _identity(finding: Finding, path: str) -> str:
    ids = (finding.core_id, finding.workload_id, finding.transfer_id)
    parts = [finding.code, path, finding.pointer, *("" if i is None else str(i) for i in ids)]
    return "\0".join([*parts, normalized_message(finding.message)])


def file_fingerprints(findings: list[Finding], path: str) -> list[str]:
    """One fingerprint per finding of a file whose path relative to the project root is `path`."""
    seen: Counter[str] = Counter()
    prints = []
    for finding in findings:
        identity = _identity(finding, path)
        ordinal = seen[identity]
        seen[identity] += 1
        if ordinal:
            identity += f"\0{ordinal}"
        prints.append(hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:32])
    return prints
