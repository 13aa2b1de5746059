"""Orchestration: files -> load -> index -> rules -> sorted findings."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence

from irtools.findings import FileReport, Finding, Report, Severity
from irtools.loading.discover import StreamTooLarge, discover, is_stream, read_stream
from irtools.loading.index import IRIndex
from irtools.loading.load import LoadedIR, load_ir
from irtools.loading.reader import gc_paused
from irtools.options import RunOptions
from irtools.positions import with_positions, with_positions_in
from irtools.rules import RULES
from irtools.rules.context import CheckContext
from irtools.rules.registry import resolve_selection, skipped_note
from irtools.streaming import CoreChecks, FieldDropped, crash_finding


def check_loaded(
    loaded: LoadedIR,
    options: RunOptions | None = None,
    index: IRIndex | None = None,
    cores: CoreChecks | None = None,
) -> list[Finding]:
    """Run every semantic rule on a loaded IR; loader findings included, nothing filtered.

    Pass the `index` an analysis of the same IR already built to share its lookups, and the `cores`
    that checked each core as it was read (irtools.streaming): then only the other steps run here, and
    FieldDropped is raised when one of them reads a snapshot dropped since.
    """
    findings = list(loaded.findings)
    if loaded.ir is None:
        return findings
    options = options or RunOptions()
    index = index or IRIndex(loaded, options, refs=cores.refs if cores else None)
    ctx = CheckContext(options)
    per_core: bool | None = None
    if cores is not None:
        findings.extend(cores.findings)
        cores.give_columns(index)
        per_core = False
    # Each rule runs in the form the file's capabilities allow; the others are named once, with what they lack.
    note = skipped_note(index.capabilities, loaded.dialect.name)
    if note:
        findings.append(Finding("GIR103", Severity.INFO, note, ""))
    # The checks allocate no cycles; with millions of live model objects, collector passes dominate.
    with gc_paused():
        for entry in RULES.values():
            form = entry.form_for(index.capabilities)
            if form is None or (cores is not None and entry.code in cores.crashed):
                continue
            try:
                findings.extend(map(loaded.to_file, form.run(index, ctx, per_core)))
            except FieldDropped:
                raise
            except Exception as exc:  # noqa: BLE001 - a checker bug must not hide the other rules' findings
                findings.append(crash_finding(entry.code, exc))
    return findings


def validate_file(
    path: str,
    options: RunOptions | None = None,
    enabled: frozenset[str] | None = None,
    max_bytes: int | None = None,
    fork: bool = False,
) -> FileReport:
    """Validate one file and keep the findings of the enabled rules, with severity overrides applied.

    A file over `max_bytes` (else `options.max_bytes`) is not read; its report holds one GIR100 finding
    saying so. With `fork`, a large file's cores are shared with a second process (irtools.forked_cores).
    """
    options = options or RunOptions()
    if max_bytes is None:
        max_bytes = options.max_bytes
    # The collector stays paused from loading to the findings, and the models are released before it
    # resumes: resumed with millions of live models, its next passes scanned them all, three times
    # over (young, middle, old generation): 3% of validate's CPU time on a documented file, up to a
    # fifth on the raw dialect's many small objects.
    members: dict[str, tuple[int, int]] = {}
    streamed: bytes | None = None
    with gc_paused():
        try:
            if is_stream(path):
                streamed = read_stream(path, max_bytes)
                findings, members = _check_file(streamed, options, None, path)
            else:
                findings, members = _check_file(path, options, max_bytes, fork=fork)
        except StreamTooLarge as exc:
            findings = [Finding("GIR100", Severity.ERROR, str(exc))]
        except OSError as exc:
            findings = [Finding("GIR100", Severity.ERROR, f"cannot read file: {exc.strerror or exc}")]
    kept = [f for f in findings if enabled is None or f.code in enabled]
    overrides = options.severities
    kept = [
        dataclasses.replace(f, severity=overrides[f.code]) if _overridden(f, overrides) else f for f in kept
    ]
    if streamed is not None:  # a stream cannot be read again for the lines: its bytes were kept
        return FileReport(path, with_positions_in(streamed, kept, members))
    return FileReport(path, with_positions(path, kept, max_bytes, members))


def check_file(path: str, options: RunOptions | None = None, max_bytes: int | None = None) -> list[Finding]:
    """Every rule's findings on the file at `path`, nothing filtered: `check_loaded`'s on the whole file,
    checked core by core as it is read (for a reader that holds the file's analysis without its snapshots,
    as the dashboard does)."""
    with gc_paused():
        return _check_file(path, options or RunOptions(), max_bytes)[0]


def _check_file(
    source: str | bytes,
    options: RunOptions,
    max_bytes: int | None,
    name: str | None = None,
    fork: bool = False,
) -> tuple[list[Finding], dict[str, tuple[int, int]]]:
    """The findings of every rule on the file (or on a stream's bytes, `name` its path), and its members'
    offsets; checked core by core as it is read (irtools.streaming), its cores shared with a second process
    with `fork` (irtools.forked_cores), or read again (from the bytes kept, for a stream) and checked whole
    when a step of the whole file needs a dropped field."""
    cores = CoreChecks(options)
    loaded = _load_checking(source, name, max_bytes, cores, fork)
    if loaded is None:  # the child's checks are not exactly these: check the file in one process
        return _check_file(source, options, max_bytes, name)
    try:
        findings = check_loaded(loaded, options, cores=cores if loaded.cores_handed else None)
    except FieldDropped:
        del loaded, cores
        loaded = load_ir(source, path=name, max_bytes=max_bytes)
        findings = check_loaded(loaded, options)
    return findings, loaded.member_offsets


def _load_checking(
    source: str | bytes, name: str | None, max_bytes: int | None, cores: CoreChecks, fork: bool
) -> LoadedIR | None:
    """The file loaded, each core handed to `cores` as it is read; with `fork`, its cores shared with
    a child (irtools.forked_cores). None when the child's checks cannot be taken as these."""
    if not fork or isinstance(source, bytes):
        return load_ir(source, path=name, max_bytes=max_bytes, on_core=cores)
    from irtools.forked_cores import ForkedCores  # pickle and os.fork: only for the runs that fork

    forked = ForkedCores(cores)
    try:
        loaded = load_ir(source, path=name, max_bytes=max_bytes, on_core=cores, on_split=forked)
        # A file read whole after all (its cores not handed over) is checked whole: the child's part is moot.
        if forked.forked and loaded.cores_handed and not forked.joined:
            return None
        return loaded
    finally:
        forked.close()


def _overridden(finding: Finding, overrides: dict[str, Severity]) -> bool:
    """Whether `--severity` applies: to the findings a rule reports at its own severity, not to the
    notes it reports at info below it (GIR103's known extension keys, GIR303's reading of a ring pair),
    so that `GIR103=error` fails on unknown keys without failing every real Gemini file."""
    rule = RULES.get(finding.code)
    return finding.code in overrides and (rule is None or finding.severity is rule.severity)


def _validate_one(args: tuple[str, RunOptions, frozenset[str], int | None], fork: bool = False) -> FileReport:
    return validate_file(*args, fork=fork)


def validate_paths(
    paths: Sequence[str],
    options: RunOptions | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    max_bytes: int | None = None,
    allow_empty: bool = False,
    per_file: Callable[[str], tuple[RunOptions, frozenset[str]]] | None = None,
    starting: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Validate files and directories; raises UsageError for missing paths, directories with no IR
    file (unless `allow_empty`) or unknown codes. `per_file` gives each file its own options and
    enabled codes (its nearest configuration file's), instead of `options`, `select` and `ignore`.
    `progress(done, total)` follows each file; `starting(path, done, total)` precedes each file checked
    in this process (not those a pool of `jobs` checks)."""
    options = options or RunOptions()
    enabled = resolve_selection(select, ignore)
    files = discover(paths, allow_empty)
    work = [(f, *per_file(f), max_bytes) if per_file else (f, options, enabled, max_bytes) for f in files]
    reports: list[FileReport] = []
    pooled = [item for item in work if not is_stream(item[0])]  # a worker cannot read this process's input
    if jobs > 1 and len(pooled) > 1:
        # Imported here: multiprocessing's modules are a hundredth of a second of every other run.
        from concurrent.futures import ProcessPoolExecutor

        by_path: dict[str, FileReport] = {}
        # With two CPUs or more per file, each worker shares its large file's cores with a child of its own.
        one = functools.partial(_validate_one, fork=jobs >= 2 * len(pooled))
        with ProcessPoolExecutor(max_workers=min(jobs, len(pooled))) as pool:
            for report in pool.map(one, pooled):
                by_path[report.path] = report
                if progress:
                    progress(len(by_path), len(files))
            for item in work:
                if item[0] not in by_path:
                    by_path[item[0]] = _validate_one(item)
                    if progress:
                        progress(len(by_path), len(files))
        reports = [by_path[item[0]] for item in work]
    else:
        for item in work:
            if starting:
                starting(item[0], len(reports), len(files))
            reports.append(_validate_one(item, fork=jobs > 1))
            if progress:
                progress(len(reports), len(files))
    return Report(reports)
