"""Masked AES-128 encryption: the iterative round on ``masking_order + 1`` Boolean shares.

The round-based architecture of :mod:`archs.iterative` (16 state S-boxes, 4 key S-boxes, a
round key computed on the fly) with every value shared: the state, the round key and the stored
key are ``d + 1`` shares each (masking order ``d``), the linear layers (ShiftRows, MixColumns,
AddRoundKey, the key expansion's XORs) act share by share, the round constant enters share 0
only, and every S-box is :class:`archs.prims.masked_sbox.MaskedSBox` (Canright's tower-field
circuit with each AND a DOM-indep or HPC2 gadget: Gross, Mangard and Korak, TIS 2016;
Cassiers, Gregoire, Levi and Standaert, IEEE TC 2021).

Randomness
----------
Every masked S-box takes fresh random bits every cycle; loading a key or a block takes
``2 x 128 x d`` more, to split it into shares and to refresh the stored key's shares into the
round key's. :attr:`Masked.random_bits` is the number per cycle. With ``randomness="port"``
they are the core's ``rnd`` input, as a product would feed them from its random number
generator; the family builds ``randomness="prng"``, which takes them from
:class:`archs.prims.prng.RandomBits`, a linear generator inside the core that lets a point be
verified, placed and routed on its own. It is not a security claim: the leakage of a core is
judged with uniform bits on ``rnd``.

Outputs are recombined (the XOR of the output shares) into the common AES interface, so the
verify stage checks a masked core like any other; a mask that does not cancel is an error it
sees.

Timing
------
A round-step takes ``1 + sbox_latency`` cycles: state and round key hold still while the
pipelined S-boxes compute (their random bits change every cycle, their inputs do not), and
both are written in the step's last cycle. The S-box latency is 4 (DOM-indep) or 8 (HPC2)
cycles, so a block takes 50 or 90 cycles.
"""

from functools import reduce
from operator import xor
from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from .interface import AESSignature, CoreSignature, bytes_value, column_words, value_bytes
from .params import Param, bind
from .prims import gf
from .prims.keyexpander import next_round_key_128_value, rot_word_bytes
from .prims.keyschedule import ROUNDS
from .prims.masked_sbox import MULTIPLIERS, MaskedSBox, plan
from .prims.masking import GADGETS
from .prims.mixcolumns import mix_column_value
from .prims.prng import RandomBits
from .prims.shiftrows import shift_rows

__all__ = ["Masked", "RANDOMNESS"]

#: Where the fresh random bits come from (module documentation).
RANDOMNESS = ("prng", "port")

_SBOXES = 20      # 16 for SubBytes, 4 for the key expansion's SubWord


class Masked(wiring.Component):
    """Masked AES-128 encryption core, one round per round-step (module documentation).

    Parameters
    ----------
    masking_order : int
        ``d``: values are ``d + 1`` shares; first- or second-order masking.
    gadget : str
        The AND gadget of the S-boxes (:data:`archs.prims.masking.GADGETS`).
    multipliers : str
        ``bit`` or ``field`` (:data:`archs.prims.masked_sbox.MULTIPLIERS`; ``field`` needs
        ``dom_indep``).
    randomness : str
        ``port`` (an ``rnd`` input) or ``prng`` (:class:`archs.prims.prng.RandomBits` inside).

    Members
    -------
    key, i, o
        The common AES interface (:class:`archs.interface.AESSignature`), AES-128, encryption;
        unshared values in and out.
    rnd : In(:attr:`random_bits`)
        With ``randomness="port"`` only: fresh uniform random bits, all of them every cycle.

    Attributes
    ----------
    random_bits : int
        Fresh random bits the core takes per cycle.
    sbox_latency : int
        Cycles from a masked S-box's input to its output.
    state_shares : list of Signal
        After elaboration: the ``d + 1`` shares of the state register.
    """

    #: The design-space parameters (:mod:`archs.params`).
    PARAMS = (
        Param("masking_order", (1, 2), 1, "masking order d: every value as d + 1 shares",
              error="Masking order must be 1 or 2"),
        Param("gadget", tuple(GADGETS), "hpc2",
              "AND gadget of the masked S-boxes: hpc2 (composable, 2 cycles) or dom_indep "
              "(1 cycle, not composable)",
              error=f"Gadget must be one of {', '.join(map(repr, GADGETS))}"),
        Param("multipliers", MULTIPLIERS, "bit",
              "bit: every AND of the tower S-box a gadget; field: every GF(2^4)/GF(2^2) "
              "product one DOM-indep gadget (half the random bits)",
              error=f"Multipliers must be one of {', '.join(map(repr, MULTIPLIERS))}"),
    )

    @classmethod
    def check(cls, *, device_family="generic", randomness="prng", **params):
        """Raise ``ValueError`` for parameters the core cannot build; returns the S-box
        latency."""
        p = bind(cls.PARAMS, params, cls.__name__)
        if randomness not in RANDOMNESS:
            raise ValueError(f"Randomness must be one of {', '.join(map(repr, RANDOMNESS))}, "
                             f"not {randomness!r}")
        if p.multipliers == "field" and p.gadget != "dom_indep":
            raise ValueError("Field multipliers are DOM-indep gadgets over the field: "
                             "multipliers='field' needs gadget='dom_indep'")
        return plan(p.gadget, p.masking_order, p.multipliers)[1]

    def __init__(self, *, device_family="generic", randomness="prng", **params):
        self.sbox_latency = self.check(device_family=device_family, randomness=randomness,
                                       **params)
        p = bind(self.PARAMS, params, type(self).__name__)
        self.order, self.gadget, self.multipliers = p.masking_order, p.gadget, p.multipliers
        self.randomness = randomness
        self.shares = self.order + 1
        self.sbox_random_bits = plan(self.gadget, self.order, self.multipliers)[2]
        self.random_bits = self.random_bits_per_cycle(**params)
        signature = AESSignature(key_sizes=(128,))
        if randomness == "port":
            signature = CoreSignature({**signature.members, "rnd": In(self.random_bits)})
        super().__init__(signature)

    @classmethod
    def random_bits_per_cycle(cls, *, device_family="generic", **params) -> int:
        """The fresh random bits a core of ``params`` takes every cycle, without building it:
        the 20 S-boxes' (:func:`archs.prims.masked_sbox.plan`), then ``128 d`` to share a
        loaded value and ``128 d`` to refresh the key's shares."""
        p = bind(cls.PARAMS, params, cls.__name__)
        per_sbox = plan(p.gadget, p.masking_order, p.multipliers)[2]
        return _SBOXES * per_sbox + 2 * 128 * p.masking_order

    rounds = ROUNDS[128]

    def elaborate(self, platform):
        m = Module()
        regs = self._registers()
        #: The state's shares (after elaboration): what a probe of the state register sees.
        self.state_shares = regs.state
        rnd = self._random_bits(m)
        self._build_sboxes(m, regs, rnd)
        self._build_round(m, regs)
        self._build_control(m, regs, rnd)
        return m

    def _registers(self):
        """The shared registers (lists of ``d + 1`` 128-bit shares: ``key``, ``state``,
        ``round_key``) and the unshared control (as :class:`archs.iterative.Iterative`)."""
        def shared(name):
            return [Signal(128, name=f"{name}{k}") for k in range(self.shares)]
        return SimpleNamespace(
            key=shared("key"), state=shared("state"), round_key=shared("round_key"),
            rcon=Signal(8), round_index=Signal(range(self.rounds + 1)),
            step_cycle=Signal(range(self.sbox_latency + 1)), busy=Signal(),
            out_data=Signal(128), out_valid=Signal())

    def _random_bits(self, m):
        """The :attr:`random_bits` of this cycle: the ``rnd`` port, or the generator's."""
        if self.randomness == "port":
            return self.rnd
        m.submodules.prng = prng = RandomBits(self.random_bits)
        return prng.bits

    def _sbox(self, m, name, share_bytes, rnd_slice):
        """One masked S-box on a byte given as its shares; returns the output's shares."""
        sb = MaskedSBox(self.gadget, self.order, self.multipliers)
        m.submodules[name] = sb
        m.d.comb += [sb.i.eq(Cat(*share_bytes)), sb.rnd.eq(rnd_slice)]
        return [sb.o[8 * k:8 * k + 8] for k in range(self.shares)]

    def _build_sboxes(self, m, regs, rnd):
        """The 20 masked S-boxes, each with its own part of ``rnd``. Adds ``sub_bytes`` and
        ``sub_rot`` (per share, 16 and 4 bytes) and ``key_words`` (per share, 4 words)."""
        width = self.sbox_random_bits
        state_bytes = [value_bytes(s) for s in regs.state]
        outs = [self._sbox(m, f"sbox{n}", [b[n] for b in state_bytes],
                           rnd[width * n:width * (n + 1)]) for n in range(16)]
        regs.sub_bytes = [[o[k] for o in outs] for k in range(self.shares)]
        regs.key_words = [column_words(rk) for rk in regs.round_key]
        rot = [rot_word_bytes(value_bytes(words[3], 4)) for words in regs.key_words]
        outs = [self._sbox(m, f"key_sbox{n}", [r[n] for r in rot],
                           rnd[width * (16 + n):width * (17 + n)]) for n in range(4)]
        regs.sub_rot = [[o[k] for o in outs] for k in range(self.shares)]

    def _build_round(self, m, regs):
        """ShiftRows, MixColumns (not in the last round), the next round key and AddRoundKey,
        share by share; the round constant goes into share 0. Adds ``next_round_key`` and
        ``round_out`` (lists of shares) and ``last_round``."""
        regs.last_round = last = regs.round_index == self.rounds
        regs.next_round_key, regs.round_out = [], []
        for k in range(self.shares):
            rcon = regs.rcon if k == 0 else Const(0, 8)
            next_key = Signal(128, name=f"next_round_key{k}")
            m.d.comb += next_key.eq(bytes_value(
                b for w in next_round_key_128_value(regs.key_words[k], regs.sub_rot[k], rcon)
                for b in value_bytes(w, 4)))
            shifted = shift_rows(regs.sub_bytes[k])
            mixed = [b for c in range(4) for b in mix_column_value(shifted[4 * c:4 * c + 4])]
            out = Signal(128, name=f"round_out{k}")
            with m.If(last):
                m.d.comb += out.eq(bytes_value(shifted) ^ next_key)
            with m.Else():
                m.d.comb += out.eq(bytes_value(mixed) ^ next_key)
            regs.next_round_key.append(next_key)
            regs.round_out.append(out)

    def _build_control(self, m, regs, rnd):
        """The stream interface and the register updates (as
        :meth:`archs.iterative.Iterative._build_control`), with the loads sharing what comes
        in: a key or a block is split into shares with fresh masks, and the key's shares are
        refreshed into the round key's at every block."""
        busy, out_valid, step_cycle = regs.busy, regs.out_valid, regs.step_cycle
        step_done = busy & (step_cycle == self.sbox_latency)
        finishing = step_done & regs.last_round & (~out_valid | self.o.ready)
        base = _SBOXES * self.sbox_random_bits
        masks = [rnd[base + 128 * j:base + 128 * (j + 1)] for j in range(self.order)]
        refresh = [rnd[base + 128 * (self.order + j):base + 128 * (self.order + j + 1)]
                   for j in range(self.order)]

        m.d.comb += [
            self.key.ready.eq(~busy),
            self.i.ready.eq((~busy | finishing) & ~self.key.valid),
            self.o.valid.eq(out_valid),
            self.o.payload.data.eq(regs.out_data),
        ]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += [s.eq(v) for s, v in zip(regs.key, _split(self.key.payload.key, masks))]

        with m.If(busy & ~step_done):
            m.d.sync += step_cycle.eq(step_cycle + 1)
        with m.If(step_done & ~regs.last_round):
            m.d.sync += [s.eq(v) for s, v in zip(regs.state, regs.round_out)]
            m.d.sync += [s.eq(v) for s, v in zip(regs.round_key, regs.next_round_key)]
            m.d.sync += [regs.rcon.eq(gf.xtime_value(regs.rcon)),
                         regs.round_index.eq(regs.round_index + 1), step_cycle.eq(0)]
        with m.If(finishing):
            m.d.sync += [regs.out_data.eq(reduce(xor, regs.round_out)), out_valid.eq(1),
                         busy.eq(0)]

        # Load a block: the key's shares refreshed (into the key register and the round key),
        # the block split into shares on top of them (the initial AddRoundKey).
        with m.If(self.i.valid & self.i.ready):
            key = _refresh(regs.key, refresh)
            m.d.sync += [s.eq(v) for s, v in zip(regs.key, key)]
            m.d.sync += [s.eq(v) for s, v in zip(regs.round_key, key)]
            m.d.sync += [s.eq(v ^ w) for s, v, w in
                         zip(regs.state, key, _split(self.i.payload.data, masks))]
            m.d.sync += [regs.rcon.eq(gf.RCON[0]), regs.round_index.eq(1), step_cycle.eq(0),
                         busy.eq(1)]


def _split(value, masks):
    """``value`` as ``len(masks) + 1`` shares: the masks, and ``value`` XOR all of them."""
    return [reduce(xor, masks, value)] + list(masks)


def _refresh(shares, masks):
    """The same secret in new shares: share ``j + 1`` XOR mask ``j``, share 0 XOR them all."""
    return [reduce(xor, masks, shares[0])] + [s ^ r for s, r in zip(shares[1:], masks)]
