"""GF(2)-linear maps as pipelined XOR networks: at most four bits XORed between two registers.

A linear map's output bit is the XOR of the input bits its matrix row selects. Between two
registers a LUT4 XORs four bits; a row of more bits needs LUT4 levels, and Yosys's ABC9 maps
rows that are not on its own critical path with more levels than they need (its area recovery
relaxes every path up to the design's deepest one, which in a core with counters is a carry
chain). A :class:`XorPlan` cuts each row into a tree of XORs of at most ``fan_in`` bits with a
register after every level but the last, so every path between registers is one LUT4 whatever
ABC does, and rows share the partial XORs they have in common (fewer LUT4s than one tree per
row).

:func:`xor_plan` plans the network from the rows (pure Python, testable on ints);
:func:`xor_pipeline` builds it from Amaranth bits; :func:`xor_plan_value` is its int model.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections import Counter
from dataclasses import dataclass

from amaranth.hdl import Cat, Signal

__all__ = ["XorPlan", "xor_plan", "xor_pipeline", "xor_plan_value", "matrix_rows"]


@dataclass(frozen=True)
class XorPlan:
    """A pipelined XOR network.

    Attributes
    ----------
    levels : tuple of tuple of tuple of int
        ``levels[0]`` are XORs of terms (indices into the input bits), ``levels[s]`` XORs of
        nodes of ``levels[s - 1]``; each node has at most ``fan_in`` children. A register
        follows every level but the last, whose node ``j`` is output ``j``.
    consts : tuple of int
        Output ``j`` is inverted where ``consts[j]`` is 1 (inside the last level's LUT4).
    """
    levels: tuple
    consts: tuple

    @property
    def registers(self) -> int:
        """Flip-flops of the network (the nodes of every level but the last)."""
        return sum(len(level) for level in self.levels[:-1])

    @property
    def xor_nodes(self) -> int:
        """Nodes of two or more children: the LUT4s of the network."""
        return sum(len(node) > 1 for level in self.levels for node in level)


def matrix_rows(columns, width_out: int) -> list[tuple[int, ...]]:
    """The rows of a GF(2) matrix given as columns (:func:`archs.prims.gf.affine_parts`): for
    each output bit, the input bits whose column has that bit set."""
    return [tuple(k for k, column in enumerate(columns) if (column >> j) & 1)
            for j in range(width_out)]


def _shared_chunks(rows, fan_in):
    """Cover each row (a set of items) with chunks of at most ``fan_in`` items, taking first the
    chunks most rows contain: grow the most frequent pair while at least two rows share it."""
    remaining = [set(row) for row in rows]
    chunks = [[] for _ in rows]
    while True:
        pairs = Counter(pair for row in remaining if len(row) >= 2
                        for pair in itertools.combinations(sorted(row), 2))
        if not pairs:
            break
        pair, users_count = pairs.most_common(1)[0]
        if users_count < 2:
            break
        chunk = set(pair)
        users = [i for i, row in enumerate(remaining) if chunk <= row]
        while len(chunk) < fan_in:
            more = Counter(item for i in users for item in sorted(remaining[i] - chunk))
            if not more:
                break
            item, _ = more.most_common(1)[0]
            sharing = [i for i in users if item in remaining[i]]
            if len(sharing) < 2:
                break
            chunk.add(item)
            users = sharing
        for i in users:
            remaining[i] -= chunk
            chunks[i].append(tuple(sorted(chunk)))
    for i, row in enumerate(remaining):
        items = sorted(row)
        chunks[i] += [tuple(items[k:k + fan_in]) for k in range(0, len(items), fan_in)]
    return chunks


@functools.lru_cache(maxsize=None)
def _plan(rows, consts, stages, fan_in):
    current = [tuple(sorted(set(row))) for row in rows]
    levels = []
    for stage in range(stages):
        capacity = fan_in ** (stages - stage - 1)     # nodes a row may keep for later levels
        if stage == stages - 1:
            row_chunks = [[row] for row in current]
        else:
            row_chunks = _shared_chunks(current, fan_in)
            for i, row in enumerate(current):
                if len(row_chunks[i]) > capacity:     # sharing cost this row a level
                    row_chunks[i] = [row[k:k + fan_in] for k in range(0, len(row), fan_in)]
        nodes = {}
        for chunk_list in row_chunks:
            for chunk in chunk_list:
                nodes.setdefault(chunk, len(nodes))
        levels.append(tuple(nodes))
        current = [tuple(sorted(nodes[chunk] for chunk in chunk_list))
                   for chunk_list in row_chunks]
    return XorPlan(tuple(levels), consts)


def xor_plan(rows, stages: int, *, consts=None, fan_in: int = 4) -> XorPlan:
    """Plan the XOR network of ``rows`` (for each output, the indices of the input bits it
    XORs) in ``stages`` levels of at most ``fan_in`` inputs each.

    Raises
    ------
    ValueError
        If a row has no terms, or more than ``fan_in ** stages``.
    """
    rows = tuple(tuple(row) for row in rows)
    consts = tuple(consts) if consts is not None else (0,) * len(rows)
    if len(consts) != len(rows):
        raise ValueError(f"{len(consts)} constants for {len(rows)} rows")
    if stages < 1:
        raise ValueError(f"An XOR network has at least one stage, not {stages!r}")
    for j, row in enumerate(rows):
        if not row or len(set(row)) > fan_in ** stages:
            raise ValueError(f"Row {j} has {len(set(row))} terms; {stages} stages of "
                             f"{fan_in}-input XORs take 1 to {fan_in ** stages}")
    return _plan(rows, consts, stages, fan_in)


def _xor(values):
    return functools.reduce(operator.xor, values)


def xor_plan_value(plan: XorPlan, bits) -> list[int]:
    """The outputs of ``plan`` on the int bits ``bits`` (the model of :func:`xor_pipeline`)."""
    values = list(bits)
    for level in plan.levels:
        values = [_xor(values[k] for k in node) for node in level]
    return [v ^ c for v, c in zip(values, plan.consts)]


def xor_pipeline(m, name: str, plan: XorPlan, bits) -> list:
    """Build ``plan`` on the 1-bit Amaranth values ``bits``: a register (``{name}_x{level}``,
    without reset: the slot's valid bit travels beside it) after every level but the last.
    Returns the outputs, combinational: ``len(plan.levels) - 1`` cycles after ``bits``."""
    values = list(bits)
    for level_index, level in enumerate(plan.levels):
        xors = [_xor(values[k] for k in node) for node in level]
        if level_index == len(plan.levels) - 1:
            return [x ^ c if c else x for x, c in zip(xors, plan.consts)]
        reg = Signal(len(level), name=f"{name}_x{level_index}", reset_less=True)
        m.d.sync += reg.eq(Cat(*xors))
        values = [reg[k] for k in range(len(level))]
    raise AssertionError("unreachable: a plan has at least one level")
