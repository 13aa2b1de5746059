"""A file analyzed and checked as it is read: the snapshot tables built a few cores at a time and each core's
per-core rules run meanwhile, its snapshots then dropped (as `irtools analyze` and `irtools validate` read
it). The dashboard's store and the sweep's rows read files so."""

from __future__ import annotations

import os

from irtools.analysis.analysis import Analysis, analyze
from irtools.findings import Finding
from irtools.loading.dropping import FieldDropped
from irtools.options import RunOptions
from irtools.streaming import CoreChecks
from irtools.validate import check_loaded


def analyze_as_read(
    path: str | os.PathLike[str],
    options: RunOptions,
    max_bytes: int | None = None,
    for_views: bool = False,
    name: str | None = None,
) -> tuple[Analysis, CoreChecks | None]:
    """The file analyzed with its snapshots dropped as it is read (`analyze(keep_snapshots=False)`), and the
    per-core checks run meanwhile; those are None where no core was handed over, or where the file was read
    whole after all: a deadlocked one, whose wait cycles are found by walking the tensors (rare).

    Raises AnalysisError when the file is not JSON or not an IR at all, OSError when unreadable."""
    checks = CoreChecks(options, drops=False)
    analysis = analyze(
        path, options, max_bytes, keep_snapshots=False, for_views=for_views, name=name, on_core=checks
    )
    if analysis.snapshots_dropped and analysis.deadlocked:
        return analyze(path, options, max_bytes, name=name), None
    return analysis, checks if analysis.loaded.cores_handed else None


def check_as_read(analysis: Analysis, checks: CoreChecks | None) -> list[Finding]:
    """Every rule's findings on `analysis`, nothing filtered: on its own objects where nothing was dropped,
    else from the per-core `checks` (`analyze_as_read`'s, used once) and the other steps run now, as
    `irtools validate` runs them. Raises FieldDropped where the file must be read again
    (`validate.check_file`): a step needs a dropped snapshot, or there are no checks to take."""
    if not analysis.snapshots_dropped:
        return check_loaded(analysis.loaded, analysis.options, analysis.index)
    if checks is None:
        raise FieldDropped("the file's snapshots were dropped as it was read, and no per-core checks kept")
    return check_loaded(analysis.loaded, analysis.options, cores=checks)
