"""The NoC's traffic as routing input, gathered from the transfer columns instead of object by object.

`irtools.analysis.noc.noc_transfers` takes its core-to-core and DRAM-read rows from here: the ofmap and
DRAM `out` destinations of `irtools.loading.columns`, their users found by one sorted search, mesh
positions mapped per distinct core. Same rows in the same order as the reference loop (tested by
tests/analysis/test_noc_transfers.py and, through the tables, tests/equivalence).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irtools.loading.boxes import ints
from irtools.loading.columns import Ints, first_rows, ofmap_sizes, transfer_columns
from irtools.loading.index import IRIndex


def _positions(index: IRIndex, cores: Ints) -> tuple[Ints, Ints, np.ndarray]:
    """x, y and whether it is known (on the mesh), for each core id of `cores`: one lookup per distinct id."""
    ids, inverse = np.unique(cores, return_inverse=True)
    placed = [index.core_position(int(c)) for c in ids]
    known = np.array([p is not None for p in placed], dtype=bool)
    xs = np.array([p[0] if p else 0 for p in placed], dtype=np.int64)
    ys = np.array([p[1] if p else 0 for p in placed], dtype=np.int64)
    return xs[inverse], ys[inverse], known[inverse]


def reads_and_sends(
    index: IRIndex, of_workload: dict[tuple[int, int], int]
) -> dict[str, pd.DataFrame] | None:
    """`core` and `dram_read` rows of noc.noc_transfers (`of_workload`: (core_id, position) -> step),
    or None when a value does not fit int64 (the caller then walks the objects)."""
    columns = transfer_columns(index)
    if columns is None:
        return None
    sizes = ofmap_sizes(index)
    outs = index.ir.dram.out
    out_sizes = ints((e.size for e in outs), len(outs))
    row_keys = columns.workload_keys(columns.core, columns.workload_id)
    dest_keys = columns.workload_keys(columns.dest_core, columns.dest_workload_id)
    if sizes is None or out_sizes is None or row_keys is None or dest_keys is None:
        return None
    user = first_rows(row_keys, dest_keys)  # by_id: the first workload with the id on that core
    rows = index.rows
    row_step = np.fromiter((of_workload[(r.core_id, r.position)] for r in rows), np.int64, len(rows))
    dst_x, dst_y, dst_known = _positions(index, columns.dest_core)
    usable = dst_known & (user >= 0)
    step = np.where(user >= 0, row_step[np.maximum(user, 0)], -1)
    from_core = columns.dest_row >= 0
    producer = np.maximum(columns.dest_row, 0)
    src_x, src_y, src_known = _positions(index, columns.core[producer])
    # The ofmap's place in its group: its workload's first ofmap plus its index in the workload.
    ofmap_at = np.searchsorted(columns.ofmap_row, producer) + columns.dest_producer
    core = usable & from_core & src_known
    read = usable & ~from_core
    # int64 whatever the columns' width (narrowed where the tensors were dropped as the file was read).
    return {
        "core": pd.DataFrame(
            {
                "transfer": columns.dest_tid[core],
                "src_x": src_x[core],
                "src_y": src_y[core],
                "dst_x": dst_x[core],
                "dst_y": dst_y[core],
                "bytes": sizes[ofmap_at[core]],
                "step": step[core],
            }
        ).astype(np.int64),
        "dram_read": pd.DataFrame(
            {
                "transfer": columns.dest_tid[read],
                "dst_x": dst_x[read],
                "dst_y": dst_y[read],
                "bytes": out_sizes[columns.dest_producer[read]],
                "step": step[read],
            }
        ).astype(np.int64),
    }


def dram_writes(index: IRIndex, of_workload: dict[tuple[int, int], int]) -> pd.DataFrame | None:
    """`dram_write` rows of noc.noc_transfers from the columns: per DRAM `in` entry whose producer (the
    first workload with its id on its core) is on the mesh and has an ofmap of its transfer id, that
    ofmap's size (the first such); None when a value does not fit int64 (the caller walks the objects)."""
    columns, sizes = transfer_columns(index), ofmap_sizes(index)
    entries = index.ir.dram.in_
    cores = ints((e.core_id for e in entries), len(entries))
    workload_ids = ints((e.workload_id for e in entries), len(entries))
    tids = ints((e.transfer_id for e in entries), len(entries))
    if columns is None or sizes is None or cores is None or workload_ids is None or tids is None:
        return None
    row_keys = columns.workload_keys(columns.core, columns.workload_id)
    keys = columns.workload_keys(cores, workload_ids)
    if row_keys is None or keys is None:
        return None
    producer = first_rows(row_keys, keys)
    found = producer >= 0
    # Ids beyond the columns' scale make keys of other workloads: only a producer with the entry's own ids.
    held = np.maximum(producer, 0)
    found &= (columns.core[held] == cores) & (columns.workload_id[held] == workload_ids)
    src_x, src_y, known = _positions(index, cores)
    first = np.searchsorted(columns.ofmap_row, held, "left")
    last = np.searchsorted(columns.ofmap_row, held, "right")
    rows, out = index.rows, []
    for i in np.flatnonzero(found & known).tolist():
        own = columns.ofmap_tid[first[i] : last[i]].tolist()
        if tids[i] in own:
            ref = rows[int(producer[i])]
            size = int(sizes[first[i] + own.index(tids[i])])
            out.append(
                (int(tids[i]), int(src_x[i]), int(src_y[i]), size, of_workload[(ref.core_id, ref.position)])
            )
    data = np.array(out, dtype=np.int64).reshape(len(out), 5)
    return pd.DataFrame(data, columns=["transfer", "src_x", "src_y", "bytes", "step"])


def transfer_users(index: IRIndex, transfer_id: int) -> tuple[list[int], list[int]] | None:
    """The rows (in `index.rows`) of the workloads producing `transfer_id` as an ofmap and of those reading it
    (ifmap or weight), each once, in order; None when a value does not fit int64."""
    columns = transfer_columns(index)
    if columns is None:
        return None
    if not -(2**63) <= transfer_id < 2**63:
        return [], []
    tid = np.int64(transfer_id)
    producers = np.unique(columns.ofmap_row[columns.ofmap_tid == tid])
    read = columns.read_row[columns.read_tid == tid], columns.weight_row[columns.weight_tid == tid]
    return producers.tolist(), np.unique(np.concatenate(read)).tolist()
