"""Iterative AES-128 encryption: a 128-bit datapath computing one round per round-step.

The textbook "basic iterative" architecture (the 128-bit column of Zhou & Gaj Table I, and the
``round_units=1`` end of the unrolling family of seed 004): 16 datapath S-boxes, four MixColumns
units and an on-the-fly key schedule with four S-boxes of its own, so a new round key is ready in
the same cycle as the round that uses it.

Implementation notes
--------------------
A round-step takes ``1 + sbox_latency`` cycles: the state and round key registers hold still while
the (possibly pipelined) S-boxes settle, and both are written in the step's last cycle. The final
round writes the output register instead of the state register, and in that same cycle the state
register can load the next block (with its initial AddRoundKey), so back-to-back blocks cost
``10 x (1 + sbox_latency)`` cycles each, and no cycle is spent on loading.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring

from .interface import AESSignature, bytes_value, column_words, value_bytes
from .prims import gf
from .prims.keyschedule import ROUNDS, next_round_key_128_value, rot_word_bytes
from .prims.mixcolumns import mix_column_value
from .prims.sbox import make_sbox, sbox_latency
from .prims.shiftrows import shift_rows

__all__ = ["Iterative"]


class Iterative(wiring.Component):
    """AES-128 encryption core, one round per round-step, key expanded on the fly.

    Parameters
    ----------
    sbox : str
        S-box family (see :data:`archs.prims.sbox.SBOX_FAMILIES`), used for all 20 S-boxes.
    sbox_stages : int
        Pipeline registers inside each S-box, for the families that have them.
    target : str
        Device family of the netlist (``"generic"`` or ``"ecp5"``), passed to the S-boxes.

    Members
    -------
    key, i, o
        The common AES interface (:class:`archs.interface.AESSignature`); AES-128 only,
        encryption only, so the block input has no extra fields.

    Attributes
    ----------
    rounds : int
        Rounds per block (10).
    sbox_latency : int
        Cycles from S-box input to output.
    """

    def __init__(self, *, sbox="lut", sbox_stages=0, target="generic"):
        self.sbox = sbox
        self.target = target
        self.sbox_stages = sbox_stages
        self.sbox_latency = sbox_latency(sbox, stages=sbox_stages)  # validates both eagerly
        super().__init__(AESSignature(key_sizes=(128,)))

    rounds = ROUNDS[128]

    def elaborate(self, platform):
        m = Module()

        key = Signal(128)
        state = Signal(128)
        round_key = Signal(128)
        rcon = Signal(8)
        round_index = Signal(range(self.rounds + 1))
        step_cycle = Signal(range(self.sbox_latency + 1))
        busy = Signal()
        out_data = Signal(128)
        out_valid = Signal()

        # SubBytes of the state and SubWord(RotWord(w3)) of the round key, one S-box each.
        state_bytes = value_bytes(state)
        sub_bytes = []
        for n in range(16):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, target=self.target)
            m.submodules[f"sbox{n}"] = sb
            m.d.comb += sb.i.eq(state_bytes[n])
            sub_bytes.append(sb.o)
        key_words = column_words(round_key)
        sub_rot = []
        for n, b in enumerate(rot_word_bytes(value_bytes(key_words[3], 4))):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, target=self.target)
            m.submodules[f"key_sbox{n}"] = sb
            m.d.comb += sb.i.eq(b)
            sub_rot.append(sb.o)

        # The rest of the round: ShiftRows, MixColumns (skipped in the last round), AddRoundKey.
        next_round_key = Signal(128)
        m.d.comb += next_round_key.eq(bytes_value(
            b for w in next_round_key_128_value(key_words, sub_rot, rcon) for b in value_bytes(w, 4)))
        shifted = shift_rows(sub_bytes)
        mixed = [b for c in range(4) for b in mix_column_value(shifted[4 * c:4 * c + 4])]
        last_round = round_index == self.rounds
        round_out = Signal(128)
        with m.If(last_round):
            m.d.comb += round_out.eq(bytes_value(shifted) ^ next_round_key)
        with m.Else():
            m.d.comb += round_out.eq(bytes_value(mixed) ^ next_round_key)

        step_done = busy & (step_cycle == self.sbox_latency)
        output_free = ~out_valid | self.o.ready
        finishing = step_done & last_round & output_free

        # Interface. A pending key write takes priority over a new block, so the order of
        # key and block transfers is the order the user issued them in.
        m.d.comb += [
            self.key.ready.eq(~busy),
            self.i.ready.eq((~busy | finishing) & ~self.key.valid),
            self.o.valid.eq(out_valid),
            self.o.payload.data.eq(out_data),
        ]

        with m.If(self.o.valid & self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += key.eq(self.key.payload.key)

        with m.If(busy & ~step_done):
            m.d.sync += step_cycle.eq(step_cycle + 1)
        with m.If(step_done & ~last_round):
            m.d.sync += [
                state.eq(round_out),
                round_key.eq(next_round_key),
                rcon.eq(gf.xtime_value(rcon)),
                round_index.eq(round_index + 1),
                step_cycle.eq(0),
            ]
        with m.If(finishing):
            m.d.sync += [out_data.eq(round_out), out_valid.eq(1), busy.eq(0)]

        # Load a block: initial AddRoundKey, first round key, first round constant.
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [
                state.eq(self.i.payload.data ^ key),
                round_key.eq(key),
                rcon.eq(gf.RCON[0]),
                round_index.eq(1),
                step_cycle.eq(0),
                busy.eq(1),
            ]
        return m
