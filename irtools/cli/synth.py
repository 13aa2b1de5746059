"""`irtools synth`: argument glue over irtools.synth (generate a valid IR, optionally with defects)."""

from __future__ import annotations

import argparse
import re
import sys
import time

from irtools.cli.common import EXIT_OK, positive_int

_MESH = re.compile(r"([1-9][0-9]*)[xX]([1-9][0-9]*)")
_BYTES = re.compile(r"(0x[0-9a-fA-F]+|[0-9]+)\s*(k|kib|m|mib|g|gib)?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}


def mesh(text: str) -> tuple[int, int]:
    """`XxY` -> (xlen, ylen), both positive."""
    match = _MESH.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"expected XxY with positive integers (e.g. 4x4), got {text!r}")
    return int(match[1]), int(match[2])


def byte_count(text: str) -> int:
    """A positive number of bytes: 8388608, 0x800000, 8M, 8MiB or 512K."""
    match = _BYTES.fullmatch(text.strip())
    value = int(match[1], 0) * _UNITS[(match[2] or "").lower()] if match else 0
    if value <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive number of bytes (e.g. 8388608 or 8M), got {text!r}"
        )
    return value


def seed(text: str) -> int:
    """A non-negative integer."""
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _epilog() -> str:
    from irtools.synth.inject import HOW

    lines = [
        "The IR: a ResNet-like layer DAG (conv on the PE array; relu and add with two inputs on the vector",
        "processor; skip connections, stride-2 stages), each layer cut by rows, channels or both into",
        "workloads spread over the mesh, one per batch sample; core-to-core transfers with matching ifmap",
        "transfer ids, buffer sources and ofmap destinations; network inputs, weights and spilled fmaps read",
        "from DRAM (out) and outputs and spills written to it (in); per-workload L2 snapshots placed by a",
        "ring allocator (tensors wrap around the end of their region; addresses are multiples of 64) and",
        "WL0 snapshots within 16 KiB. It validates with no finding, except that two or more ring regions",
        "add GIR303's info note on how ring_buffer_info is read.",
        "",
        "--inject codes. For -o NAME.json the findings `irtools validate` must report go to NAME.expected.json",
        "(sample_ir's golden format); GIR308 and GIR402 are checked only with a validate option, which",
        "NAME.options.expected.json records:",
    ]
    lines += [f"  {code}  {how}" for code, how in HOW.items()]
    return "\n".join(lines)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `synth` command to the parser."""
    syn = sub.add_parser(
        "synth",
        help="generate a valid synthetic IR of any size, optionally with injected defects",
        description=(
            "Write a valid multi-core Scheduler IR (deterministic for a seed), atomically. With --inject, "
            "add one known defect per rule code and write the findings `irtools validate` must report "
            "beside it. Exit 0: written; 2: usage error."
        ),
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    syn.add_argument("-o", "--output", required=True, metavar="FILE", help="IR file to write (atomically)")
    syn.add_argument(
        "--mesh", type=mesh, default=(2, 2), metavar="XxY", help="core mesh, xlen x ylen (default 2x2)"
    )
    syn.add_argument(
        "--layers", type=positive_int, default=20, metavar="N", help="number of layers (default 20)"
    )
    syn.add_argument(
        "--batch",
        type=positive_int,
        default=1,
        metavar="N",
        help="batch size; one workload set per sample (default 1)",
    )
    syn.add_argument(
        "--buffersize",
        type=byte_count,
        default=8 << 20,
        metavar="BYTES",
        help="L2 size, a multiple of 64 (default 8M = 8388608); the network shrinks to fit smaller buffers",
    )
    syn.add_argument(
        "--ring-regions",
        type=positive_int,
        default=1,
        metavar="N",
        help="equal ring regions of L2 (default 1)",
    )
    syn.add_argument("--seed", type=seed, default=0, metavar="N", help="random seed (default 0)")
    syn.add_argument(
        "--inject",
        metavar="CODES",
        help="comma-separated rule codes (GIR201,GIR302): one defect each, see below",
    )
    from irtools.synth.forms import FORMS

    syn.add_argument(
        "--dialect",
        choices=list(FORMS),
        default="documented",
        help=". ".join(form.help for form in FORMS.values() if form.dialect.name != "documented"),
    )
    syn.add_argument(
        "--indent",
        type=positive_int,
        metavar="N",
        help="indent the JSON by N spaces (default: compact, faster)",
    )


def run_synth(args: argparse.Namespace) -> int:
    """`irtools synth`: write a synthetic IR (and with --inject its expected findings); the exit code."""
    from irtools.synth import SynthOptions, parse_codes, synthesize
    from irtools.synth.forms import FORMS
    from irtools.synth.writer import sidecar, validate_args, write_expected, write_ir

    codes = parse_codes(args.inject) if args.inject is not None else []
    xlen, ylen = args.mesh
    options = SynthOptions(xlen, ylen, args.layers, args.batch, args.buffersize, args.ring_regions, args.seed)
    started = time.perf_counter()
    result = synthesize(options)
    form = FORMS[args.dialect]
    document = form.convert(result.document)
    injection = None
    if codes:
        injection = form.inject(document, codes, args.seed)
        document = injection.document
    size = write_ir(args.output, document, args.indent)
    elapsed = time.perf_counter() - started
    s = result.stats
    print(
        f"wrote {args.output}: {s.cores} cores ({xlen}x{ylen}), {s.layers} layers, {s.workloads:,} workloads, "
        f"{size / 1e6:,.1f} MB in {elapsed:.1f} s"
    )
    print(
        f"  network: {s.scale}; transfers: {s.core_transfers:,} to cores ({s.cross_core_transfers:,} cross-core), "
        f"{s.dram_out:,} DRAM out, {s.dram_in:,} DRAM in"
    )
    print(form.summary(s, args.ring_regions))
    if injection is not None:
        written = write_expected(args.output, injection.findings, injection.options)
        print(
            f"  injected {', '.join(codes)}: wrote {written[0]} ({len(injection.findings)} expected findings)"
        )
        flags = validate_args(injection.options)
        if flags:
            print(
                f"  validate with: irtools validate {' '.join(flags)} {args.output}  (recorded in {written[1]})"
            )
    elif sidecar(args.output).exists():
        print(
            f"irtools synth: note: {sidecar(args.output)} is from an earlier run with --inject",
            file=sys.stderr,
        )
    for note in form.notes(args.ring_regions):
        print(note)
    return EXIT_OK


COMMANDS = {"synth": run_synth}
