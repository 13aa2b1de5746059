"""Gemini's batch groups: a layer's DRAM weight loads shared evenly by its steps (irtools.analysis.batch_groups)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irtools.analysis.batch_groups import run_step_link_loads, run_step_traffic, step_link_loads, step_traffic
from irtools.analysis.noc import KINDS, KindRuns, noc_links, routed_steps
from irtools.analysis.routing import Runs

# conv runs in 3 groups (steps 0-2), pool in 1 (step 3), on a 2x1 mesh (ports at x = -1 and x = 2).
STEPS = pd.DataFrame(
    {"step": [0, 1, 2, 3], "layer_name": ["conv", "conv", "conv", "pool"], "instance": [0, 1, 2, 0]}
)
WEIGHTS = np.array([7])


def _links(rows: list[tuple[int, str, int, int, int, str, int, int, int]]) -> pd.DataFrame:
    columns = ["step", "kind", "transfer", "x", "y", "direction", "to_x", "to_y"]
    frame = pd.DataFrame([r[:-1] for r in rows], columns=columns)
    return frame.assign(bytes=[r[-1] for r in rows])


LINKS = _links(
    [
        # conv's weights (transfer 7), listed for its first group only: 100 bytes from the west port, 1 hop on.
        (0, "dram_read", 7, -1, 0, "+x", 0, 0, 100),
        (0, "dram_read", 7, 0, 0, "+x", 1, 0, 100),
        # each group's own ifmap: 30 bytes from the west port.
        (0, "dram_read", 1, -1, 0, "+x", 0, 0, 30),
        (1, "dram_read", 2, -1, 0, "+x", 0, 0, 30),
        (2, "dram_read", 3, -1, 0, "+x", 0, 0, 30),
        # pool writes 40 bytes to the east port.
        (3, "dram_write", 4, 1, 0, "+x", 2, 0, 40),
    ]
)


def test_each_group_carries_a_third_of_the_weights_integer_divided() -> None:
    loads = step_link_loads(LINKS, STEPS, WEIGHTS).set_index(["step", "x"])["bytes"]
    # 100 // 3 = 33 on each of conv's steps, on both links, plus each group's own 30 on the port link.
    assert [loads[(s, -1)] for s in (0, 1, 2)] == [63, 63, 63]
    assert [loads[(s, 0)] for s in (0, 1, 2)] == [33, 33, 33]
    assert loads[(3, 1)] == 40


def test_hops_and_dram_bytes_per_group_as_gemini_counts_them() -> None:
    traffic = step_traffic(LINKS, STEPS, WEIGHTS, xlen=2).set_index("step")
    # Weights: 200 byte-hops and 100 DRAM bytes for the layer, // 3 per group (Gemini's NoC::operator/=).
    assert traffic["hops"].tolist() == [200 // 3 + 30] * 3 + [40]
    assert traffic["dram_bytes"].tolist() == [100 // 3 + 30] * 3 + [40]


def test_without_weights_nothing_moves() -> None:
    links = LINKS[LINKS["transfer"] != 7]
    loads = step_link_loads(links, STEPS, WEIGHTS)
    assert loads["bytes"].sum() == links["bytes"].sum() and set(loads["step"]) == {0, 1, 2, 3}


def _random_runs(seed: int, xlen: int = 3, ylen: int = 2) -> list[KindRuns]:
    """Runs of every kind anywhere on a mesh and its port columns (x = -1, xlen), some of no link or of
    no bytes, some reading weights: what the run-based sums must agree with the rows on."""
    rng = np.random.default_rng(seed)
    routed = []
    for kind in KINDS:
        n = int(rng.integers(0, 40))
        runs = Runs(
            transfer=rng.integers(0, 12, n),
            x=rng.integers(-1, xlen + 1, n),
            y=rng.integers(0, ylen, n),
            code=rng.integers(0, 4, n),
            count=rng.integers(0, 4, n),
            size=rng.choice([0, 1, 7, 40], n),
        )
        routed.append(KindRuns(kind, runs, rng.integers(0, len(STEPS), n)))
    return routed


@pytest.mark.parametrize("seed", range(40))
def test_the_sums_over_runs_are_the_sums_over_their_rows(seed: int) -> None:
    routed = _random_runs(seed)
    weights = np.array([2, 5, 7])
    rows = noc_links(None, routed)  # type: ignore[arg-type]  # the runs given: no index read
    runs = routed_steps(routed, weights, xlen=3)
    # A link that only runs of no bytes cross is a (step, link) of 0 bytes in both (its step then has a link).
    pd.testing.assert_frame_equal(
        run_step_link_loads(runs, STEPS), step_link_loads(rows, STEPS, weights), check_exact=True
    )
    pd.testing.assert_frame_equal(
        run_step_traffic(runs, STEPS), step_traffic(rows, STEPS, weights, xlen=3), check_exact=True
    )
