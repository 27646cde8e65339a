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

from types import SimpleNamespace

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring

from .interface import AESSignature, bytes_value, column_words, value_bytes
from .params import SBOX_PARAM, SBOX_STAGES_PARAM, bind
from .prims import gf
from .prims.keyexpander import next_round_key_128_value, rot_word_bytes
from .prims.keyschedule import ROUNDS
from .prims.mixcolumns import mix_column_value
from .prims.sbox import check_device_family, make_sbox, sbox_latency
from .prims.shiftrows import shift_rows

__all__ = ["Iterative"]


class Iterative(wiring.Component):
    """AES-128 encryption core, one round per round-step, key expanded on the fly.

    Parameters
    ----------
    sbox : str
        S-box family (see :data:`archs.prims.sbox.SBOX_KINDS`), used for all 20 S-boxes.
    sbox_stages : int
        Pipeline registers inside each S-box, for the families that have them.
    device_family : str
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

    #: The design-space parameters (:mod:`archs.params`).
    PARAMS = (SBOX_PARAM, SBOX_STAGES_PARAM)

    @classmethod
    def check(cls, *, device_family="generic", **params):
        """Raise ``ValueError`` for parameters the core cannot build; returns the S-box
        latency."""
        p = bind(cls.PARAMS, params, cls.__name__)
        latency = sbox_latency(p.sbox, stages=p.sbox_stages)
        check_device_family(device_family)
        return latency

    def __init__(self, *, device_family="generic", **params):
        self.sbox_latency = self.check(device_family=device_family, **params)
        p = bind(self.PARAMS, params, type(self).__name__)
        self.sbox = p.sbox
        self.device_family = device_family
        self.sbox_stages = p.sbox_stages
        super().__init__(AESSignature(key_sizes=(128,)))

    rounds = ROUNDS[128]

    # elaborate() builds the core from named parts, in dataflow order: the S-boxes, the rest of
    # the round with the next round key, then the control and the stream interface. They share
    # the registers through one namespace, ``regs`` (see :meth:`_registers`), to which each part
    # adds the signals the later ones read.

    def elaborate(self, platform):
        m = Module()
        regs = self._registers()
        self._build_sboxes(m, regs)
        self._build_round(m, regs)
        self._build_control(m, regs)
        return m

    def _registers(self):
        """The registers of the core, in a namespace.

        ``key`` is the stored cipher key (round key 0), ``state`` and ``round_key`` the block and
        round key of the round-step in progress, ``rcon`` the round constant of the next round
        key, ``round_index`` the round being computed (1..10), ``step_cycle`` counts the cycles
        of a round-step while the pipelined S-boxes settle (module notes), ``busy`` is set while
        a block is in the datapath; ``out_data`` / ``out_valid`` are the output register.
        """
        key = Signal(128)
        state = Signal(128)
        round_key = Signal(128)
        rcon = Signal(8)
        round_index = Signal(range(self.rounds + 1))
        step_cycle = Signal(range(self.sbox_latency + 1))
        busy = Signal()
        out_data = Signal(128)
        out_valid = Signal()
        return SimpleNamespace(
            key=key, state=state, round_key=round_key, rcon=rcon, round_index=round_index,
            step_cycle=step_cycle, busy=busy, out_data=out_data, out_valid=out_valid)

    def _build_sboxes(self, m, regs):
        """The 20 S-boxes: SubBytes of the state and SubWord(RotWord(w3)) of the round key.

        The key schedule has S-boxes of its own (the 128-bit column of Zhou & Gaj Table I, seed
        000), so the next round key is ready in the same round-step as the round that uses it.
        Adds ``sub_bytes`` (16 state bytes after SubBytes), ``key_words`` (the round key's four
        words) and ``sub_rot`` (the four S-box outputs of SubWord(RotWord)) to ``regs``.
        """
        state_bytes = value_bytes(regs.state)
        sub_bytes = []
        for n in range(16):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, device_family=self.device_family)
            m.submodules[f"sbox{n}"] = sb
            m.d.comb += sb.i.eq(state_bytes[n])
            sub_bytes.append(sb.o)
        key_words = column_words(regs.round_key)
        sub_rot = []
        for n, b in enumerate(rot_word_bytes(value_bytes(key_words[3], 4))):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, device_family=self.device_family)
            m.submodules[f"key_sbox{n}"] = sb
            m.d.comb += sb.i.eq(b)
            sub_rot.append(sb.o)
        regs.sub_bytes, regs.key_words, regs.sub_rot = sub_bytes, key_words, sub_rot

    def _build_round(self, m, regs):
        """The rest of the round after the S-boxes, and the next round key.

        ShiftRows, MixColumns (skipped in the last round, FIPS-197 section 5.1) and AddRoundKey
        with the round key the on-the-fly schedule computes in the same round-step. Adds
        ``next_round_key``, ``round_out`` (the state after the round) and ``last_round`` to
        ``regs``.
        """
        next_round_key = Signal(128)
        m.d.comb += next_round_key.eq(bytes_value(
            b for w in next_round_key_128_value(regs.key_words, regs.sub_rot, regs.rcon)
            for b in value_bytes(w, 4)))
        shifted = shift_rows(regs.sub_bytes)
        mixed = [b for c in range(4) for b in mix_column_value(shifted[4 * c:4 * c + 4])]
        last_round = regs.round_index == self.rounds
        round_out = Signal(128)
        with m.If(last_round):
            m.d.comb += round_out.eq(bytes_value(shifted) ^ next_round_key)
        with m.Else():
            m.d.comb += round_out.eq(bytes_value(mixed) ^ next_round_key)
        regs.next_round_key, regs.round_out, regs.last_round = (next_round_key, round_out,
                                                                last_round)

    def _build_control(self, m, regs):
        """The stream interface and the register updates of a round-step.

        A round-step ends after ``1 + sbox_latency`` cycles; the final one writes the output
        register, and in that cycle the state register may already load the next block with
        its initial AddRoundKey (module notes: no cycle is spent on loading).
        """
        busy, out_valid, step_cycle = regs.busy, regs.out_valid, regs.step_cycle
        step_done = busy & (step_cycle == self.sbox_latency)
        output_free = ~out_valid | self.o.ready
        finishing = step_done & regs.last_round & output_free

        # Interface. A pending key write takes priority over a new block, so the order of
        # key and block transfers is the order the user issued them in.
        m.d.comb += [
            self.key.ready.eq(~busy),
            self.i.ready.eq((~busy | finishing) & ~self.key.valid),
            self.o.valid.eq(out_valid),
            self.o.payload.data.eq(regs.out_data),
        ]

        with m.If(self.o.valid & self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += regs.key.eq(self.key.payload.key)

        with m.If(busy & ~step_done):
            m.d.sync += step_cycle.eq(step_cycle + 1)
        with m.If(step_done & ~regs.last_round):
            m.d.sync += [
                regs.state.eq(regs.round_out),
                regs.round_key.eq(regs.next_round_key),
                regs.rcon.eq(gf.xtime_value(regs.rcon)),
                regs.round_index.eq(regs.round_index + 1),
                step_cycle.eq(0),
            ]
        with m.If(finishing):
            m.d.sync += [regs.out_data.eq(regs.round_out), out_valid.eq(1), busy.eq(0)]

        # Load a block: initial AddRoundKey, first round key, first round constant.
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [
                regs.state.eq(self.i.payload.data ^ regs.key),
                regs.round_key.eq(regs.key),
                regs.rcon.eq(gf.RCON[0]),
                regs.round_index.eq(1),
                step_cycle.eq(0),
                busy.eq(1),
            ]
