"""The signals the parts of :class:`archs.unrolled.Unrolled` hand to each other.

The core is built from three parts, in the order a block meets them (see the package notes):
the output control (:mod:`archs.unrolled.control`) first, because its credit counter decides
whether a block may go in, then the key path (:mod:`archs.unrolled.keypath`), the entry register
and the rings of round units (:mod:`archs.unrolled.datapath`). Each part fills in the fields it
drives; a later part reads them. A field is None until its part has been built, or when the
configuration has no such signal. :class:`UnitFlags` is what a round unit hands its ring, and
:func:`delayed` the register chain of the side data that travels beside the S-boxes.
"""

from dataclasses import dataclass
from typing import Any

from amaranth.hdl import Signal
from amaranth.lib import data

__all__ = ["CoreWires", "UnitFlags", "delayed"]


@dataclass
class CoreWires:
    """The signals between the parts of one unrolled core.

    Attributes
    ----------
    slot : StructLayout
        Layout of a pipeline slot: valid bit, round, state and, with keys on the fly, the key
        window.
    depth : int
        Depth of the output buffer, which is also the credit limit.
    buffer_write, buffer_data
        The output buffer's write side; driven from the exit (``exit_write``, ``exit_data``).
    buffer_write_next
        With a banked buffer: the value ``buffer_write`` takes at the next edge.
    credit_ok
        A credit is left: a block may be accepted.
    in_flight
        Blocks accepted but not yet written to the output buffer.
    in_flight_increment
        What the in-flight counter counts as accepted: this cycle's accept, or with a round key
        chain the accept a cycle late.
    accept, handed_out
        This cycle's input and output transfers.
    accepted_late
        ``accept`` a cycle late (with ``registered_accept``).
    round_keys
        Precomputed keys: the round key registers, one per round.
    expanding
        Precomputed keys: a key is being expanded, no other key may go in.
    input_busy
        Precomputed keys: no block may go in (the key path's busy flag, or a copy of it).
    key
        Keys on the fly: the key register.
    key_ready
        The key input's ready.
    round_key_0
        The key of the initial AddRoundKey.
    entry, entry_taken
        The entry register (a slot) and "the first ring takes its block this cycle".
    ring_free_next
        Lean control in a loop: the first ring's input slot is free in the next cycle.
    exit_write, exit_data
        A finished block leaves the last ring this cycle, and its state.
    """
    slot: data.StructLayout
    depth: int
    buffer_write: Any = None
    buffer_data: Any = None
    buffer_write_next: Any = None
    credit_ok: Any = None
    in_flight: Any = None
    in_flight_increment: Any = None
    accept: Any = None
    handed_out: Any = None
    accepted_late: Any = None
    round_keys: Any = None
    expanding: Any = None
    input_busy: Any = None
    key: Any = None
    key_ready: Any = None
    round_key_0: Any = None
    entry: Any = None
    entry_taken: Any = None
    ring_free_next: Any = None
    exit_write: Any = None
    exit_data: Any = None


@dataclass
class UnitFlags:
    """What a round unit tells its ring about the slot it hands on.

    Attributes
    ----------
    last
        The block in the unit's last stage is in its last round.
    leaving
        A register: the slot is empty or its block leaves the ring (lean control in a loop),
        or None where it is not kept.
    """
    last: Any = None
    leaving: Any = None


def delayed(m, value, cycles, name):
    """``value`` delayed by ``cycles`` registers (the side data that travels beside an S-box)."""
    for n in range(cycles):
        reg = Signal.like(value, name=f"{name}_d{n + 1}")
        m.d.sync += reg.eq(value)
        value = reg
    return value
