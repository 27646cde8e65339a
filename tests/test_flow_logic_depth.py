"""aesdse.flow.logic_depth: LUT levels between registers of a Yosys JSON netlist, and the
depth model the exploration's pruning learns from it (aesdse.explore.pruning)."""

import pytest

from aesdse.explore.pruning import FMAX_OPTIMISM, PREDICTION_SLACK, FamilyBounds, fit_period
from aesdse.flow.logic_depth import logic_depth, netlist_depth
from aesdse.store.database import Row


def cell(kind, inputs, outputs):
    """A cell whose input ports A, B, ... take ``inputs`` and whose outputs Z, ... drive
    ``outputs`` (net bit numbers)."""
    ins = {f"I{n}": [bit] for n, bit in enumerate(inputs)}
    outs = {f"O{n}": [bit] for n, bit in enumerate(outputs)}
    return {"type": kind, "connections": {**ins, **outs},
            "port_directions": {**{p: "input" for p in ins}, **{p: "output" for p in outs}}}


def netlist(cells, top=True):
    return {"modules": {"top": {"attributes": {"top": "00000000000000000000000000000001"}
                                if top else {}, "cells": cells}}}


def test_the_deepest_path_between_registers_counts_lut_levels():
    cells = {
        "q0": cell("TRELLIS_FF", [10], [1]),
        # Register -> three LUTs in a row -> register; beside it a path of one LUT and a
        # wide-function mux (half a level).
        "a": cell("LUT4", [1, "0"], [2]), "b": cell("LUT4", [2, 1], [3]),
        "c": cell("LUT4", [3], [4]), "q1": cell("TRELLIS_FF", [4], [5]),
        "d": cell("LUT4", [5], [6]), "m": cell("PFUMX", [6, 3], [7]),
        "q2": cell("TRELLIS_FF", [7], [10]),
    }
    # m is fed by b (depth 2) and d (depth 1): 2.5; the chain a-b-c is 3.
    assert netlist_depth(netlist(cells)) == 3.0
    cells["e"] = cell("LUT4", [7], [8])
    cells["f"] = cell("CCU2C", [8], [9])
    # m (2.5) -> e (+1) -> f (+0.5)
    assert netlist_depth(netlist(cells)) == 4.0


def test_a_combinational_loop_and_odd_netlists_do_not_hang():
    loop = {"a": cell("LUT4", [2], [1]), "b": cell("LUT4", [1], [2])}
    assert netlist_depth(netlist(loop)) == 2.0
    assert netlist_depth({"modules": {}}) is None
    assert netlist_depth(netlist({"q": cell("TRELLIS_FF", [1], [2])})) is None


def test_a_long_chain_needs_no_recursion(tmp_path):
    cells = {f"l{n}": cell("LUT4", [n], [n + 1]) for n in range(5000)}
    path = tmp_path / "netlist.json"
    import json
    path.write_text(json.dumps(netlist(cells)))
    assert logic_depth(path) == 5000.0
    assert logic_depth(tmp_path / "missing.json") is None


def _row(key, depth_fmax):
    depth, fmax = depth_fmax
    return Row(key=key, experiment="x", arch="a", params={}, target="t", flow={}, seed=1,
               freq_mhz=100.0, status="ok", luts=1000, ffs=100, slices=500, fmax_mhz=fmax,
               cycles_per_block=10, throughput_mbps=12.8 * fmax)


def test_the_depth_model_bounds_the_fmax_of_a_deeper_candidate():
    # Period 2 ns + 1 ns per level, measured at depths 2, 4 and 6 (250, 166.7, 125 MHz).
    measured = {f"k{d}": (d, 1000.0 / (2 + d)) for d in (2, 4, 6)}
    rows = [_row(k, v) for k, v in measured.items()]
    intercept, slope, ratio, deepest = fit_period([v for v in measured.values()])
    assert (intercept, slope, ratio, deepest) == pytest.approx((2.0, 1.0, 1.0, 6))
    bounds = FamilyBounds(rows, {k: d for k, (d, _) in measured.items()})
    assert bounds.fmax_bound(4) == pytest.approx(1000 / 6 * PREDICTION_SLACK)
    # Not extrapolated downwards beyond the deepest point; never above the loose bound.
    assert bounds.fmax_bound(20) == pytest.approx(1000 / 8 * PREDICTION_SLACK)
    assert bounds.fmax_bound(0) == pytest.approx(250 * FMAX_OPTIMISM)
    assert FamilyBounds(rows).fmax_bound(4) == pytest.approx(250 * FMAX_OPTIMISM)
    # Fewer than three pairs, or a period that does not grow with depth: no model.
    assert fit_period([(2, 250.0), (4, 166.0)]) is None
    assert fit_period([(2, 100.0), (4, 150.0), (6, 200.0)]) is None
