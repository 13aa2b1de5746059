"""Routing on Gemini's mesh: which directed links a transfer loads, and with how many bytes.

This is the one routing function of irtools (the NoC timing model and the mesh view both use it).
It follows Gemini's own model, `NoC::unicastCalc`, `NoC::multicastCalc` and `NoC::unicast_dram` /
`unicast_to_dram` / `multicast_dram` in src/noc.cpp of SET-Scheduling-Project/GEMINI-HPCA2024, and
the DRAM port list that its src/main.cpp builds:

- Coordinates are Gemini's: cores at x in 0..xlen-1, y in 0..ylen-1 (`irtools.loading.mesh.position`);
  the DRAM ports sit on the edge columns x = -1 and x = xlen (mesh-id columns 0 and xlen+1), one per row.
- A transfer with one destination goes X first along the source's row, then Y along the destination's
  column. A transfer with several destinations (multicast) is a tree: along the source's row from the
  source to the westmost and to the eastmost destination column, then in each destination column from
  the source's row to the column's lowest and highest destination row. Each tree link carries the
  transfer's bytes once. With one destination both rules give the same path.
- A DRAM read or write is interleaved over Gemini's 4 DRAM channels (`dram_id == -2`): each channel
  takes `bytes // 4` (integer division, as Gemini does), spread over its `ylen // 2` ports with
  Gemini's running split `(s * i) // n - (s * (i - 1)) // n`. Channel 0 is the west ports of the upper
  half of the rows, 1 the west ports of the lower half, 2 and 3 the east ports likewise.

Everything is vectorized over a transfers table: the cost is linear in transfers x hops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

DRAM_CHANNELS = 4
"""Gemini's `NoC::DRAM_num`."""

DIRECTIONS = ("+x", "-y", "-x", "+y")
"""Link directions by Gemini's code (`link_hops.get(x, y, dir)`): 0 = +x (east), 1 = -y, 2 = -x, 3 = +y."""

_STEP = {0: (1, 0), 1: (0, -1), 2: (-1, 0), 3: (0, 1)}
STEP_X = np.array([_STEP[c][0] for c in range(4)], dtype=np.int64)
STEP_Y = np.array([_STEP[c][1] for c in range(4)], dtype=np.int64)
"""One hop in each direction code (DIRECTIONS' order): a link from (x, y) ends at (x + STEP_X, y + STEP_Y)."""

TRANSFER_COLUMNS = ("transfer", "src_x", "src_y", "dst_x", "dst_y", "bytes")
"""Input of `route`: one row per (transfer, source, destination); rows sharing transfer and source are one
tree, unless an optional integer column `tree` tells them apart (`to_dram` numbers its unicasts so)."""

LINK_COLUMNS = ("transfer", "x", "y", "direction", "to_x", "to_y", "bytes")
"""Output of `route`: one row per (transfer, source tree, link), `direction` one of DIRECTIONS."""


def dram_ports(xlen: int, ylen: int) -> pd.DataFrame:
    """Gemini's DRAM ports: columns `channel`, `x`, `y`, in each channel's order (src/main.cpp's dram_list).

    A 1-row mesh has no port for the channels of its lower half (Gemini's ylen // 2 is 0): those
    channels are left out here and their share is dropped by `from_dram`/`to_dram`, as in Gemini.
    """
    per = ylen // 2
    channel, xs, ys = [], [], []
    for c, (x, first) in enumerate(((-1, 0), (-1, ylen - per), (xlen, 0), (xlen, ylen - per))):
        for i in range(per):
            channel.append(c)
            xs.append(x)
            ys.append(first + i)
    return pd.DataFrame({"channel": channel, "x": xs, "y": ys}, dtype="int64")


def _port_shares(
    size: np.ndarray, xlen: int, ylen: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(row index, port x, port y, share) for every (row, port): Gemini's interleaved split of each size."""
    ports = dram_ports(xlen, ylen)
    per = ylen // 2
    n_rows, n_ports = len(size), len(ports)
    if n_ports == 0 or n_rows == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    channel_size = size // DRAM_CHANNELS
    i = np.tile(np.arange(n_ports) % per + 1, n_rows)
    s = np.repeat(channel_size, n_ports)
    share = (s * i) // per - (s * (i - 1)) // per
    rows = np.repeat(np.arange(n_rows), n_ports)
    return rows, np.tile(ports["x"].to_numpy(), n_rows), np.tile(ports["y"].to_numpy(), n_rows), share


def from_dram(reads: pd.DataFrame, xlen: int, ylen: int) -> pd.DataFrame:
    """DRAM reads as `route` input: each (transfer, dst_x, dst_y, bytes) row becomes one row per DRAM port.

    Rows of one transfer are its destinations; from each port they form one multicast tree carrying
    that port's share of `bytes` (which must be the same on every row of a transfer).
    """
    size = reads["bytes"].to_numpy(dtype=np.int64)
    rows, px, py, share = _port_shares(size, xlen, ylen)
    return pd.DataFrame(
        {
            "transfer": reads["transfer"].to_numpy()[rows],
            "src_x": px,
            "src_y": py,
            "dst_x": reads["dst_x"].to_numpy(dtype=np.int64)[rows],
            "dst_y": reads["dst_y"].to_numpy(dtype=np.int64)[rows],
            "bytes": share,
        }
    )


def to_dram(writes: pd.DataFrame, xlen: int, ylen: int) -> pd.DataFrame:
    """DRAM writes as `route` input: each (transfer, src_x, src_y, bytes) row becomes one unicast per DRAM port."""
    size = writes["bytes"].to_numpy(dtype=np.int64)
    rows, px, py, share = _port_shares(size, xlen, ylen)
    # Each port's share is its own unicast, not one tree to all ports: `tree` keeps them apart.
    return pd.DataFrame(
        {
            "transfer": writes["transfer"].to_numpy()[rows],
            "tree": np.arange(len(rows)),
            "src_x": writes["src_x"].to_numpy(dtype=np.int64)[rows],
            "src_y": writes["src_y"].to_numpy(dtype=np.int64)[rows],
            "dst_x": px,
            "dst_y": py,
            "bytes": share,
        }
    )


@dataclass(frozen=True, slots=True)
class Runs:
    """Routed trees as straight runs of links: run i loads `count[i]` links, from (x[i], y[i]) on in the
    direction DIRECTIONS[code[i]], each with `size[i]` bytes of transfer `transfer[i]` (the input's id).

    A tree is at most two runs along its source row and two per destination column, so a transfer's
    links are known from a few runs instead of a row per hop: `expand` gives the rows, `line_spans`
    the runs as closed intervals of link positions for sums over links without them. Whatever makes
    runs makes them `narrowed`.
    """

    transfer: np.ndarray
    x: np.ndarray
    y: np.ndarray
    code: np.ndarray
    count: np.ndarray
    size: np.ndarray

    def take(self, keep: np.ndarray) -> Runs:
        """The runs `keep` (a mask or indices) selects, in their order."""
        return Runs(*(column[keep] for column in self._columns()))

    def narrowed(self) -> Runs:
        """The same runs, each column in the narrowest integers that hold it. An analysis keeps its runs
        as long as the file is open (millions on a 64-core file: 48 bytes each as int64, about 12 so).
        The readers that compute with them widen first (`line_spans`, `expand`)."""
        return Runs(*map(narrowed, self._columns()))

    def _columns(self) -> tuple[np.ndarray, ...]:
        return (self.transfer, self.x, self.y, self.code, self.count, self.size)


def tree_runs(transfers: pd.DataFrame) -> Runs:
    """The runs of links every transfer loads (see `route`, which expands them into rows)."""
    if transfers.empty:
        return _no_runs()
    keys = [transfers[k].to_numpy() for k in ("transfer", "src_x", "src_y")]
    if "tree" in transfers.columns:
        keys.append(transfers["tree"].to_numpy())
    tree = first_appearance_groups(*keys)
    first = group_first_rows(tree)
    trees = _Trees.of(
        tree,
        first,
        transfers["dst_x"].to_numpy(np.int64),
        transfers["dst_y"].to_numpy(np.int64),
    )
    return trees.runs(
        transfer=keys[0][first],
        sx=keys[1][first].astype(np.int64, copy=False),
        sy=keys[2][first].astype(np.int64, copy=False),
        size=transfers["bytes"].to_numpy(np.int64)[first],
    )


def dram_read_runs(reads: pd.DataFrame, xlen: int, ylen: int) -> Runs:
    """`tree_runs(from_dram(reads, xlen, ylen))`, in the same order, without a row per (read, port).

    Every port's tree of a transfer reaches the same destinations, so the trees' extents are found once
    per transfer and then placed at each port: the rows grouped are the reads, not the reads times the
    ports (16 on an 8x8 mesh).
    """
    ports = dram_ports(xlen, ylen)
    if reads.empty or ports.empty:
        return _no_runs()
    transfer = reads["transfer"].to_numpy()
    tree = first_appearance_groups(transfer)
    first = group_first_rows(tree)
    per_transfer = _Trees.of(
        tree, first, reads["dst_x"].to_numpy(np.int64), reads["dst_y"].to_numpy(np.int64)
    )
    group, px, py, share = _port_shares(reads["bytes"].to_numpy(np.int64)[first], xlen, ylen)
    # The tree of (transfer group g, port p) is number g * n_ports + p, as from_dram's rows order them.
    return per_transfer.at_ports(len(ports)).runs(transfer=transfer[first][group], sx=px, sy=py, size=share)


def dram_write_runs(writes: pd.DataFrame, xlen: int, ylen: int) -> Runs:
    """`tree_runs(to_dram(writes, xlen, ylen))`, in the same order: each (write, port) share is a unicast,
    so each is one tree with one destination column and no grouping is needed."""
    row, px, py, share = _port_shares(writes["bytes"].to_numpy(np.int64), xlen, ylen)
    if len(row) == 0:
        return _no_runs()
    unicasts = np.arange(len(row))
    trees = _Trees(min_x=px, max_x=px, col_tree=unicasts, col_x=px, min_y=py, max_y=py)
    return trees.runs(
        transfer=writes["transfer"].to_numpy()[row],
        sx=writes["src_x"].to_numpy(np.int64)[row],
        sy=writes["src_y"].to_numpy(np.int64)[row],
        size=share,
    )


@dataclass(frozen=True, slots=True)
class _Trees:
    """The extent of each multicast tree: its westmost and eastmost destination column, and per
    destination column (col_tree: the column's tree, col_x: its x) its lowest and highest row."""

    min_x: np.ndarray
    max_x: np.ndarray
    col_tree: np.ndarray
    col_x: np.ndarray
    min_y: np.ndarray
    max_y: np.ndarray

    @classmethod
    def of(cls, tree: np.ndarray, first: np.ndarray, dst_x: np.ndarray, dst_y: np.ndarray) -> _Trees:
        """The trees of rows numbered `tree` (first_appearance_groups; `first`: each tree's first row),
        each row one destination; columns numbered in order of first appearance, as groupby(sort=False)."""
        min_x, max_x = group_min_max(tree, len(first), dst_x)
        column = first_appearance_groups(tree, dst_x)
        column_first = group_first_rows(column)
        min_y, max_y = group_min_max(column, len(column_first), dst_y)
        return cls(min_x, max_x, tree[column_first], dst_x[column_first], min_y, max_y)

    def at_ports(self, n_ports: int) -> _Trees:
        """Each tree repeated for `n_ports` sources, tree-major (tree t at port p is t * n_ports + p)."""
        port = np.arange(n_ports)
        return _Trees(
            min_x=np.repeat(self.min_x, n_ports),
            max_x=np.repeat(self.max_x, n_ports),
            col_tree=(self.col_tree[:, None] * n_ports + port).ravel(),
            col_x=np.repeat(self.col_x, n_ports),
            min_y=np.repeat(self.min_y, n_ports),
            max_y=np.repeat(self.max_y, n_ports),
        )

    def runs(self, transfer: np.ndarray, sx: np.ndarray, sy: np.ndarray, size: np.ndarray) -> Runs:
        """The runs of trees sourced at (sx, sy): along the source row west to the westmost destination
        column and east to the eastmost; then each column south and north from the source row. Runs come
        out in this order (route's order)."""
        n_trees, n_cols = len(self.min_x), len(self.col_tree)
        col_sy = sy[self.col_tree]
        owner = np.concatenate([np.arange(n_trees), np.arange(n_trees), self.col_tree, self.col_tree])
        # Each column narrowed as soon as it is made (`Runs.narrowed`): the six in int64 side by side
        # were most of routing's peak on a 64-core file (1.1 million DRAM read runs, 55 MB).
        return Runs(
            transfer=narrowed(transfer[owner]),
            x=narrowed(np.concatenate([sx, sx, self.col_x, self.col_x])),
            y=narrowed(np.concatenate([sy, sy, col_sy, col_sy])),
            code=np.repeat(np.array([2, 0, 1, 3], dtype=np.int8), [n_trees, n_trees, n_cols, n_cols]),
            count=narrowed(
                np.maximum(
                    np.concatenate(
                        [sx - self.min_x, self.max_x - sx, col_sy - self.min_y, self.max_y - col_sy]
                    ),
                    0,
                )
            ),
            size=narrowed(size[owner]),
        )


def narrowed(column: np.ndarray) -> np.ndarray:
    """A signed integer column in the narrowest integers that hold it (`narrowest`); another as it is."""
    return column.astype(narrowest(column), copy=False) if column.dtype.kind == "i" else column


def _no_runs() -> Runs:
    empty = np.zeros(0, dtype=np.int64)
    return Runs(empty, empty, empty, empty, empty, empty).narrowed()


def first_appearance_groups(*keys: np.ndarray) -> np.ndarray:
    """Each row's group among the rows equal in every key, groups numbered 0, 1, ... in order of first
    appearance (pandas' groupby(sort=False) order), by hashing: linear in the rows."""
    groups, _ = pd.factorize(keys[0], use_na_sentinel=False)
    for key in keys[1:]:
        codes, uniques = pd.factorize(key, use_na_sentinel=False)
        # A pair (group, code) as one integer below len(rows) ** 2, numbered again in row order.
        groups, _ = pd.factorize(groups.astype(np.int64) * len(uniques) + codes)
    return np.asarray(groups, dtype=np.int64)


def group_first_rows(groups: np.ndarray) -> np.ndarray:
    """The first row of each group of first_appearance_groups (group g's at position g)."""
    first = np.full(int(groups.max()) + 1 if len(groups) else 0, len(groups), dtype=np.int64)
    np.minimum.at(first, groups, np.arange(len(groups)))
    return first


def group_min_max(groups: np.ndarray, n_groups: int, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and largest of `values` in each of `n_groups` groups (every group has a row)."""
    low = np.full(n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(n_groups, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(low, groups, values)
    np.maximum.at(high, groups, values)
    return low, high


def tree_runs_by_groupby(transfers: pd.DataFrame) -> Runs:
    """tree_runs with pandas groupbys (the reference core's: what tree_runs, dram_read_runs and
    dram_write_runs replaced)."""
    if transfers.empty:
        return _no_runs()
    keys = ["transfer", "src_x", "src_y", *(["tree"] if "tree" in transfers.columns else [])]
    frame = transfers.loc[:, list(dict.fromkeys([*TRANSFER_COLUMNS, *keys]))]
    tree = frame.groupby(keys, sort=False, dropna=False)
    tree_id = tree.ngroup().to_numpy()
    trees = tree.agg(min_x=("dst_x", "min"), max_x=("dst_x", "max"), bytes=("bytes", "first")).reset_index()
    sx, sy = trees["src_x"].to_numpy(np.int64), trees["src_y"].to_numpy(np.int64)
    # In each destination column: from the source row to the column's lowest and highest destination row.
    columns = (
        pd.DataFrame(
            {
                "tree": tree_id,
                "col": frame["dst_x"].to_numpy(np.int64),
                "y": frame["dst_y"].to_numpy(np.int64),
            }
        )
        .groupby(["tree", "col"], sort=False)["y"]
        .agg(["min", "max"])
        .reset_index()
    )
    col_tree = columns["tree"].to_numpy()
    col_x = columns["col"].to_numpy(np.int64)
    col_sy = sy[col_tree]
    # Along the source row west to the westmost destination column and east to the eastmost; then the
    # columns south and north. Rows come out in this order (route's order).
    owner = np.concatenate([np.arange(len(trees)), np.arange(len(trees)), col_tree, col_tree])
    n_trees, n_cols = len(trees), len(columns)
    return Runs(
        transfer=trees["transfer"].to_numpy()[owner],
        x=np.concatenate([sx, sx, col_x, col_x]),
        y=np.concatenate([sy, sy, col_sy, col_sy]),
        code=np.repeat(np.array([2, 0, 1, 3], dtype=np.int64), [n_trees, n_trees, n_cols, n_cols]),
        count=np.maximum(
            np.concatenate(
                [
                    sx - trees["min_x"].to_numpy(np.int64),
                    trees["max_x"].to_numpy(np.int64) - sx,
                    col_sy - columns["min"].to_numpy(np.int64),
                    columns["max"].to_numpy(np.int64) - col_sy,
                ]
            ),
            0,
        ),
        size=trees["bytes"].to_numpy(np.int64)[owner],
    ).narrowed()


def route(transfers: pd.DataFrame) -> pd.DataFrame:
    """The directed links every transfer loads, with its bytes (columns LINK_COLUMNS).

    `transfers` has TRANSFER_COLUMNS: `transfer` any hashable id, coordinates as in this module's
    docstring (DRAM ports included), `bytes` per tree. Rows with the same `transfer` and source form
    one tree (unicast when it has one destination) unless an integer column `tree` separates them;
    a destination equal to the source loads nothing.
    """
    return expand(tree_runs(transfers))


def expand(runs: Runs) -> pd.DataFrame:
    """One row per link of every run (LINK_COLUMNS), run by run in order.

    Millions of rows on a 64-core file: coordinates in the narrowest integers that hold the mesh (its
    DRAM port columns included), the direction as int8 codes; ids and bytes stay int64.
    """
    count = runs.count.astype(np.int64, copy=False)
    owner = np.repeat(np.arange(len(count)), count)
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)
    code = runs.code[owner].astype(np.int8)
    xs = runs.x[owner] + STEP_X[code] * offset
    ys = runs.y[owner] + STEP_Y[code] * offset
    coordinate = narrowest(xs, ys)
    return pd.DataFrame(
        {
            "transfer": runs.transfer[owner].astype(np.int64, copy=False),
            "x": xs.astype(coordinate, copy=False),
            "y": ys.astype(coordinate, copy=False),
            "direction": pd.Categorical.from_codes(code, categories=list(DIRECTIONS)),
            "to_x": (xs + STEP_X[code]).astype(coordinate, copy=False),
            "to_y": (ys + STEP_Y[code]).astype(coordinate, copy=False),
            "bytes": runs.size[owner].astype(np.int64, copy=False),
        }
    )


def line_spans(runs: Runs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each run as (code, line, lo, hi): its links are the positions lo..hi (closed) along its line, a
    row y for east and west links (position x), a column x for north and south links (position y). All
    four in int64, whatever the runs' own integers (`Runs.narrowed`): ids are computed from them."""
    # Millions of runs on a 64-core file: computed from the runs' narrow columns, in place, so that
    # no int64 copy of an input is made besides the four answers.
    along_x = (runs.code == 0) | (runs.code == 2)
    line = np.where(along_x, runs.y, runs.x).astype(np.int64, copy=False)
    lo = np.where(along_x, runs.x, runs.y).astype(np.int64, copy=False)  # the run's start, for now
    hi = lo.copy()
    del along_x
    extra = runs.count.astype(np.int64)  # links beyond the start
    extra -= 1
    forward = (runs.code == 0) | (runs.code == 3)
    np.add(hi, extra, out=hi, where=forward)
    np.subtract(lo, extra, out=lo, where=~forward)
    return runs.code.astype(np.int64), line, lo, hi


def narrowest(*columns: np.ndarray) -> type[np.signedinteger]:
    """The narrowest signed integer type holding every value of `columns`, and one step off each end
    (a link's far end lies one hop beyond its start)."""
    values = [c for c in columns if len(c)]
    if not values:
        return np.int8
    low = min(int(c.min()) for c in values) - 1
    high = max(int(c.max()) for c in values) + 1
    for kind in (np.int8, np.int16, np.int32):
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return kind
    return np.int64


def link_loads(links: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Bytes per directed link (summed over `route`'s rows), optionally per extra keys `by`; heaviest first."""
    keys = [*(by or []), "x", "y", "direction", "to_x", "to_y"]
    loads = links.groupby(keys, observed=True, sort=False)["bytes"].sum().reset_index()
    return loads.sort_values(
        ["bytes", *keys], ascending=[False, *([True] * len(keys))], kind="stable"
    ).reset_index(drop=True)


def link_label(x: int, y: int, to_x: int, to_y: int, xlen: int) -> str:
    """`(0,1)->(1,1)`, with DRAM ports named `DRAM W`/`DRAM E` (x = -1 / xlen) and their row."""

    def end(px: int, py: int) -> str:
        if px < 0:
            return f"DRAM W{py}"
        if px >= xlen:
            return f"DRAM E{py}"
        return f"({px},{py})"

    return f"{end(x, y)}->{end(to_x, to_y)}"
