"""Which decoder for the columnar core (issue 28, item 1): typed decodes of the same file against today's loader.

Run: python benchmarks/bench_decode.py FILE... [--runs 3] [--msgspec-path DIR]

Each way of reading FILE runs in its own process (so each peak RSS is its own), the minimum CPU time of
--runs runs, as a ratio to the gc-off `json.loads` of the same bytes measured the same way:

- parse:    gc-off json.loads into dicts (the reference of every speed goal);
- loader:   the models' `load_ir` (IRTOOLS_DECODER=models: member-by-member read with the GIR102 hook,
            pydantic models, GIR103 key scan, the dialect's finish), with the collector paused as
            validate pauses it;
- decoder:  `load_ir` as it runs since issue 28: the typed decoder (irtools.loading.decoder) with its
            key count, key scan, fallback and the dialect's finish; on the synth files every member is
            decoded, none falls back;
- pydantic: pydantic-core's `validate_json` of each top-level member straight from its bytes into the
            same models (TypeAdapter(list[Workload]) per core, the DRAM section, the scalars), after a
            msgspec.Raw split of the top level;
- msgspec:  msgspec's typed decode of each member into Structs derived from the pydantic models
            (`derive` below: field names, aliases, defaults, unions; constraints such as `ge=0` or
            list lengths are not carried over in this probe), after the same split.

msgspec is a dependency of irtools since issue 28 (--msgspec-path DIR is for another version). The
machine is shared: read the CPU ratios, run it under the heavy-run lock.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import gc, json, resource, sys, time
sys.path[:0] = [p for p in sys.argv[3:] if p]
mode, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
cpu = time.process_time
if mode == "parse":
    gc.disable(); t0 = cpu(); json.loads(data); spent = cpu() - t0
elif mode in ("loader", "decoder"):
    import os
    os.environ["IRTOOLS_DECODER"] = "msgspec" if mode == "decoder" else "models"
    from irtools.loading.load import load_ir
    from irtools.loading.reader import gc_paused
    with gc_paused():
        t0 = cpu(); loaded = load_ir(data, path); spent = cpu() - t0
else:
    import msgspec
    from benchmarks.bench_decode import typed_decoders
    gc.disable()
    decoders = typed_decoders(path, mode)  # built before the clock: a decoder is made once per process
    t0 = cpu()
    top = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
    out = {key: decoders(key)(raw) for key, raw in top.items()}
    spent = cpu() - t0
print(json.dumps({"cpu": spent, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def derive(annotation, structs, tagged=None):  # type: ignore[no-untyped-def]
    """The msgspec type of a pydantic annotation: models and dataclasses become Structs (field names,
    aliases as renames, defaults), a field `type: Literal["x"]` the Struct's tag; constraints dropped."""
    import typing

    import msgspec

    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return derive(typing.get_args(annotation)[0], structs)
    if origin in (list, tuple):
        return list[derive(typing.get_args(annotation)[0], structs)]  # type: ignore[misc]
    if origin is dict:
        key, value = typing.get_args(annotation)
        return dict[derive(key, structs), derive(value, structs)]  # type: ignore[misc]
    if origin in (typing.Union, __import__("types").UnionType):
        members, items = [], []
        for arg in typing.get_args(annotation):
            derived = derive(arg, structs)
            if typing.get_origin(derived) is list:
                items.append(typing.get_args(derived)[0])  # msgspec takes one array type per union
            elif derived not in members:
                members.append(derived)
        if items:
            # `[t]` or `[[t]]` becomes a list of `t | [t]`: looser than the models (a mix passes).
            members.append(list[typing.Union[tuple(dict.fromkeys(items))]])  # type: ignore[misc]  # noqa: UP007
        return typing.Union[tuple(members)] if len(members) > 1 else members[0]  # noqa: UP007
    fields = getattr(annotation, "__pydantic_fields__", None)
    if fields is None:
        return annotation
    if annotation in structs:
        return structs[annotation]
    specs, rename, tag = [], {}, None
    for name, info in fields.items():
        if info.init is False or name.startswith("$") or (info.alias or "").startswith("$"):
            continue
        literal = (
            typing.get_args(info.annotation) if typing.get_origin(info.annotation) is typing.Literal else ()
        )
        if name == "type" and len(literal) == 1:
            tag = literal[0]
            continue
        if info.alias and info.alias != name:
            rename[name] = info.alias
        kind = derive(info.annotation, structs)
        if info.is_required():
            specs.append((name, kind))
        elif info.default_factory is not None:
            specs.append((name, kind, msgspec.field(default_factory=info.default_factory)))
        else:
            specs.append((name, kind, info.default))
    options = {"tag_field": "type", "tag": tag} if tag is not None else {}
    struct = msgspec.defstruct(annotation.__name__, specs, rename=rename, kw_only=True, **options)
    structs[annotation] = struct
    return struct


def typed_decoders(path: str, mode: str):  # type: ignore[no-untyped-def]
    """key -> a function decoding that top-level member's bytes, typed (msgspec) or validated (pydantic)."""
    import re

    import msgspec
    from pydantic import TypeAdapter

    from irtools.dialects.alloc.models import AllocIR
    from irtools.dialects.documented.ir import SchedulerIR
    from irtools.dialects.raw.models import RawIR

    data = Path(path).read_bytes()  # the DRAM section may come first: look at the whole file
    top = AllocIR if b'"start_loading"' in data else RawIR if b'"block"' in data else SchedulerIR
    fields = top.model_fields
    core_annotation = fields["cores"].annotation
    workloads = __import__("typing").get_args(core_annotation)[1]
    dram_field = next(f for f in fields.values() if f.alias == "-1")
    core = re.compile(r"^\d+$")
    if mode == "msgspec":
        structs: dict[object, object] = {}
        core_decoder = msgspec.json.Decoder(derive(workloads, structs))
        dram_decoder = msgspec.json.Decoder(derive(dram_field.annotation, structs))
        any_decoder = msgspec.json.Decoder()
        pick = {"core": core_decoder.decode, "dram": dram_decoder.decode, "other": any_decoder.decode}
    else:
        core_adapter = TypeAdapter(workloads)
        dram_adapter = TypeAdapter(dram_field.annotation)
        pick = {
            "core": lambda raw: core_adapter.validate_json(bytes(raw)),
            "dram": lambda raw: dram_adapter.validate_json(bytes(raw)),
            "other": lambda raw: json.loads(bytes(raw)),
        }
    return lambda key: pick["core" if core.match(key) else "dram" if key == "-1" else "other"]


def measure(mode: str, path: str, runs: int, extra: str) -> tuple[float, int]:
    best_cpu, best_rss = float("inf"), 0
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, mode, path, extra],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        if done.returncode:
            raise SystemExit(f"{mode} {path}: {done.stderr[-2000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        best_cpu = min(best_cpu, result["cpu"])
        best_rss = max(best_rss, result["rss"]) if best_rss == 0 else min(best_rss, result["rss"])
    return best_cpu, best_rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--msgspec-path", default="")
    args = parser.parse_args()
    print(
        "| file | MB | parse CPU s | loader / parse | decoder / parse | pydantic validate_json / parse "
        "| msgspec typed / parse | peak RSS / file: parse, loader, decoder, pydantic, msgspec |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in args.files:
        size = Path(path).stat().st_size
        figures = {
            mode: measure(mode, path, args.runs, args.msgspec_path)
            for mode in ("parse", "loader", "decoder", "pydantic", "msgspec")
        }
        parse = figures["parse"][0]
        ratios = " | ".join(
            f"{figures[m][0] / parse:.2f}x" for m in ("loader", "decoder", "pydantic", "msgspec")
        )
        rss = ", ".join(f"{figures[m][1] / size:.1f}" for m in figures)
        print(f"| {Path(path).name} | {size / 1e6:.1f} | {parse:.2f} | {ratios} | {rss} |", flush=True)


if __name__ == "__main__":
    main()
