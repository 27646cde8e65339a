"""aesdse.flow.asic: the gate-equivalent library, the critical path, and a real estimate of the
S-box (issue 14)."""

import pytest
from amaranth.back import rtlil

from aesdse.flow.asic import LIBRARY, critical_path, estimate
from archs import FAMILIES


def test_library_is_in_gate_equivalents():
    assert LIBRARY["NAND2"] == (1.0, 1.0)
    assert LIBRARY["XOR2"] == (2.67, 2.0) and LIBRARY["DFF"] == (4.67, 2.0)
    assert set(LIBRARY) == {"BUF", "NOT", "NAND2", "NOR2", "AND2", "OR2", "XOR2", "XNOR2",
                            "MUX2", "DFF"}


def test_critical_path_from_flip_flop_through_gates_to_output():
    # q (DFF, clock-to-output 2) -> XOR2 (2) -> NAND2 (1) -> output: 5; the input a -> NAND2 is 1.
    module = {
        "ports": {"a": {"direction": "input", "bits": [2]},
                  "y": {"direction": "output", "bits": [5]}},
        "cells": {
            "ff": {"type": "DFF", "connections": {"C": [1], "D": [5], "Q": [3]}},
            "x": {"type": "XOR2", "connections": {"A": [3], "B": [2], "Y": [4]}},
            "n": {"type": "NAND2", "connections": {"A": [4], "B": [2], "Y": [5]}},
        }}
    assert critical_path(module) == 5.0


@pytest.mark.flow
def test_composite_sbox_estimate(tmp_path):
    sbox = FAMILIES["sbox"].build(sbox="composite")
    (tmp_path / "design.il").write_text(rtlil.convert(sbox, name="top", emit_src=False))
    result = estimate("design.il", "top", tmp_path)
    assert result.ok, result.reason
    assert result.cells["DFF"] == 16  # the registered input and output bytes
    assert result.sequential_ge == pytest.approx(16 * 4.67)
    # A GF((2^4)^2) S-box is a few hundred GE (Canright's is about 230 with a richer library).
    assert 150 < result.area_ge - result.sequential_ge < 600
    assert 5 < result.depth_nand2 < 100
