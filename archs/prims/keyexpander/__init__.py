"""AES key expansion hardware (FIPS-197 section 5.2), checked against :mod:`archs.prims.keyschedule`.

:class:`KeyExpander`
    On-the-fly expansion for 128/192/256-bit keys producing 8, 32, 64 or 128 bits of round key per
    step, forwards (encryption) and/or backwards (decryption). Zhou & Gaj (seed 000, section II.D)
    Fig. 7 is its 32-bit form and Fig. 10 its 64-bit form; the three key sizes in one datapath
    follow their Fig. 8/9 "3-in-1" schedule and Lin & Huang (seed 003, section IV) on-the-fly
    generation for 128/192/256-bit keys. :class:`archs.prims.roundkeys.RoundKeyStore` stores its
    round keys once per key.
:class:`ByteKeySchedule`
    The AES-128 byte-serial schedule of an 8-bit core with a byte-wide key stream
    (:mod:`archs.prims.bytekeyschedule`, re-exported here): it walks the round keys 0..10 in a
    cycle and refills its window with the cipher key during the last round, from a rotating
    copy, so a block never reloads 128 bits in parallel.

The S-boxes of the key schedule are not created inside a component unless asked for
(``sbox="lut"`` etc.): by default they are narrow ``sbox_i`` / ``sbox_o`` ports, so an architecture
can share S-boxes between key schedule and datapath or give the schedule its own (after
secworks/aes ``aes_key_mem.v``'s ``sboxw`` / ``new_sboxw`` port).

Expression builders and parts
-----------------------------
:mod:`archs.prims.keyexpander.steps` holds the expression builders, re-exported here:
:func:`rot_word_bytes` and :func:`next_round_key_128_value` are the one-round-per-cycle AES-128
step used inside :mod:`archs.iterative`. :func:`key_step_sub_input`, :func:`key_step` and
:func:`lead_key_step` are one 128-bit step of a key window of any key size, as the round units
of :mod:`archs.unrolled` carry it beside every block (seed 004 section III.C).

:class:`KeyExpander` is one component built from parts (mixins, so its netlist is one module):
the static plan of its XOR network, derived from the recurrence in plain Python
(:mod:`archs.prims.keyexpander.plan`), the step logic built from it
(:mod:`archs.prims.keyexpander.network`) and the register updates of the walk
(:mod:`archs.prims.keyexpander.control`).
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from ..bytekeyschedule import ByteKeySchedule
from ..keyschedule import ROUNDS
from .control import WalkControl
from .network import StepNetwork
from .plan import WalkGeometry
from .steps import (inv_xtime_value, key_step, key_step_sub_input, lead_key_step,
                    next_round_key_128_value, rot_word_bytes, window_words)

__all__ = [
    "WIDTHS", "rot_word_bytes", "next_round_key_128_value", "inv_xtime_value",
    "window_words", "key_step_sub_input", "key_step", "lead_key_step", "KeyExpander",
    "ByteKeySchedule",
]

#: Round-key bits per step that :class:`KeyExpander` supports.
WIDTHS = (8, 32, 64, 128)


class KeyExpander(StepNetwork, WalkControl, wiring.Component):
    """On-the-fly AES key expansion, ``width`` bits of round key per step, forwards and/or
    backwards.

    Parameters
    ----------
    width : int
        Round-key bits per step: 8 (byte-serial), 32 (one word, Zhou & Gaj Fig. 7), 64 (Fig. 10)
        or 128 (a whole round key).
    key_sizes : tuple of int
        Key sizes in bits to support, a non-empty subset of (128, 192, 256) (several sizes in one
        datapath: the "3-in-1" schedule of Zhou & Gaj Fig. 8/9).
    directions : tuple of str
        ``("forward",)`` (encryption order, round 0 first), ``("reverse",)`` (decryption order,
        round Nr first) or both.
    sbox : str or None
        ``None``: the S-boxes are outside, reached through ``sbox_i`` / ``sbox_o``. An S-box kind
        (:data:`archs.prims.sbox.SBOX_KINDS`): that many S-boxes are built inside with
        :func:`archs.prims.sbox.make_sbox`.
    sbox_stages : int
        Pipeline stages of the internal S-boxes.
    sbox_latency : int or None
        With ``sbox=None``: cycles from ``sbox_i`` to ``sbox_o`` of the outside S-boxes
        (default 0). Derived from the kind otherwise.
    device_family : str
        Device family for the internal S-boxes.
    registered_control : bool
        ``False`` (default): ``last`` and the end-of-schedule test are comparisons of the walk
        position with the last position of the stored key size, after the registers. ``True``:
        both are flags in registers, written with the position (see "Registered control"
        below): the same values in every cycle, so the same behaviour at every port and the same
        cycle counts, but no key-size decode on the way from the registers to ``last``,
        ``valid`` and the window's clock enable.

    Members
    -------
    key : In(max(key_sizes))
        Cipher key, left-aligned (a 128-bit key in a 256-bit port occupies bits 255..128), byte 0
        most significant, as in :class:`archs.interface.AESSignature`.
    key_bits : In(9)
        128, 192 or 256; only present when ``key_sizes`` has more than one entry. Any other value
        selects ``key_sizes[0]``.
    load : In(1)
        Strobe: take ``key`` (and ``key_bits``) and restart. Forward only: the key is stored in
        the load cycle and moved into the window in the next, so the first group is presented
        two cycles after the strobe (``valid`` then, or once the S-box has settled, see below).
        With ``"reverse"`` in ``directions`` the expander first walks forward, invisibly, to the
        last group (one step per cycle, ``1 + sbox_latency`` for steps that use the S-box:
        ``groups - 1`` steps, 10 at width 128 for AES-128 and 239 at width 8 for AES-256),
        spends a cycle storing it, then presents the first group of the direction ``reverse``
        selected at the ``load``.
    start : In(1)
        Strobe: restart the walk from the stored key (forward) or the stored last group
        (reverse); the first group is presented in the next cycle. Ignored while a ``load`` is in
        progress. The expander keeps the key, so an architecture needs no key register of its
        own: ``load`` once per key, ``start`` once per block.
    reverse : In(1)
        Only with both directions: sampled with ``load`` and ``start``; 1 selects the reverse walk.
    next : In(1)
        The consumer takes the current group: a transfer happens in a cycle with ``valid`` and
        ``next`` both high (stream ready/valid semantics); then the next group follows.
    round_key : Out(width)
        The current group of round-key bits: bits ``[128 - width*(part+1), 128 - width*part)`` of
        round key ``round`` (big-endian, part 0 holds byte 0).
    round : Out(range(Nr_max + 1))
        Round index of ``round_key``.
    part : Out(range(128 // width))
        Part index of ``round_key`` within its round key. Forward walks go through parts
        0, 1, ... of each round; reverse walks through parts P-1 .. 0 (descending), because the
        backward recurrence produces the highest word first.
    valid : Out(1)
        ``round_key`` is the current group and may be taken.
    last : Out(1)
        The current group is the final one of the walk (forward: round Nr, last part; reverse:
        round 0, part 0). After it is taken ``valid`` stays low until ``load`` or ``start``.
    sbox_i : Out(8 * k)
        With ``sbox=None``: the bytes for the outside S-boxes, ``k = 4`` (``width >= 32``) or 1
        (``width == 8``), byte 0 most significant. A function of the expander's registers only.
    sbox_o : In(8 * k)
        With ``sbox=None``: S(``sbox_i``) of ``sbox_latency`` cycles earlier, byte for byte.
    sbox_req : Out(1)
        The pending step uses ``sbox_o`` (an architecture sharing the S-boxes with its datapath
        must present S(``sbox_i``) then).

    Protocol timing
    ---------------
    A step (advancing to the next group) happens when the current group is taken with
    ``next``. The S-box inputs are a function of the expander's registers, so after every register
    update they need ``sbox_latency`` cycles to settle: a group whose successor needs the S-box is
    ``valid`` only once the S-box has settled, i.e. ``sbox_latency`` cycles after the step that
    produced it. Groups whose successor needs no S-box are valid at once. With latency 0 a
    consumer that keeps ``next`` high receives one group per cycle: 4 x (Nr + 1) x 32 / width
    cycles for a whole walk. With latency L a walk costs L extra cycles per step that uses the
    S-box, i.e. per step that computes (part of) a SubWord word: every Nk-th word, and for
    256-bit keys also the words with i mod 8 = 4; at width 8 each byte of such a word is a step
    of its own. At width 128 that is every step for 128- and 256-bit keys and two steps in three
    for 192-bit keys.

    Priority: ``load`` over ``start`` over ``next``.

    Implementation notes
    --------------------
    The state is a window of the last Nk words (4·Nk bytes) of the expansion, the consumer's
    group at its low end: Zhou & Gaj's shift register of "at least 3 columns of key words"
    (seed 000 section II.D), generalised. A forward step shifts the window down by ``width``
    bits and computes the new top bytes from ``w[i] = w[i-Nk] ^ temp(w[i-1])``; a reverse step
    shifts it up and computes the new bottom bytes from ``w[i-Nk] = w[i] ^ temp(w[i-1])``. Each
    step involves at most one SubWord (one S-box lookup at width 8), whose input is at most a
    few XORs of window bytes, so the S-box is never chained through another S-box within one
    step; the exact XOR network for every phase of the walk is derived by
    :func:`archs.prims.keyexpander.plan.window_step_plan` from the recurrence. The S-box input is
    built from the formulas of the phases that feed it only (:meth:`_step_network`), so no path
    leads from ``sbox_o`` to ``sbox_i`` even through phases that do not use it (AES-192 at width
    128 feeds a new byte of one phase to the S-box whose output other phases compute that byte
    from). At the last group the window reaches 4·Nk - width/8 bytes past the schedule end (the
    extended words of :func:`extend_key`); the reverse walk starts from that window, so the walk
    positions (and the phase of the XOR network) coincide in both directions.
    """

    def __init__(self, width=128, *, key_sizes=(128,), directions=("forward",), sbox=None,
                 sbox_stages=0, sbox_latency=None, device_family="generic",
                 registered_control=False):
        from ..sbox import sbox_latency as kind_latency

        if width not in WIDTHS:
            raise ValueError(f"Width must be one of 8, 32, 64, 128, not {width!r}")
        key_sizes = tuple(key_sizes)
        if not key_sizes or any(k not in ROUNDS for k in key_sizes) \
                or len(set(key_sizes)) != len(key_sizes):
            raise ValueError(f"Key sizes must be a non-empty subset of (128, 192, 256), "
                             f"not {key_sizes!r}")
        directions = tuple(directions)
        if not directions or any(d not in ("forward", "reverse") for d in directions) \
                or len(set(directions)) != len(directions):
            raise ValueError(f"Directions must be a non-empty subset of ('forward', 'reverse'), "
                             f"not {directions!r}")
        if sbox is None:
            latency = 0 if sbox_latency is None else sbox_latency
            if not isinstance(latency, int) or latency < 0:
                raise ValueError(f"S-box latency must be a non-negative integer, "
                                 f"not {sbox_latency!r}")
        else:
            latency = kind_latency(sbox, stages=sbox_stages)  # validates kind and stages
            if sbox_latency is not None and sbox_latency != latency:
                raise ValueError(f"S-box latency of family {sbox!r} with {sbox_stages} stages is "
                                 f"{latency}, not {sbox_latency!r}")
        self.width = width
        self.key_sizes = key_sizes
        self.directions = directions
        self.sbox = sbox
        self.sbox_stages = sbox_stages
        self.sbox_latency = latency
        self.device_family = device_family
        self.registered_control = bool(registered_control)
        #: Groups per round key.
        self.parts = 128 // width
        #: S-box lookups per step (the width of ``sbox_i`` / ``sbox_o`` in bytes).
        self.sbox_count = 4 if width >= 32 else 1
        self._geo = {k: WalkGeometry(k, width // 8) for k in key_sizes}

        ports = {
            "key": In(max(key_sizes)),
            "load": In(1),
            "start": In(1),
            "next": In(1),
            "round_key": Out(width),
            "round": Out(range(max(ROUNDS[k] for k in key_sizes) + 1)),
            "part": Out(range(self.parts)),
            "valid": Out(1),
            "last": Out(1),
            "sbox_req": Out(1),
        }
        if len(key_sizes) > 1:
            ports["key_bits"] = In(9)
        if len(directions) > 1:
            ports["reverse"] = In(1)
        if sbox is None:
            ports["sbox_i"] = Out(8 * self.sbox_count)
            ports["sbox_o"] = In(8 * self.sbox_count)
        super().__init__(ports)

    def groups(self, key_bits):
        """Groups in a whole walk for ``key_bits``: 16 x (Nr + 1) x 8 / width."""
        return self._geo[key_bits].total * 8 // self.width

    # elaborate() builds the expander from named parts, in the order of the class notes: the
    # S-boxes, the XOR network of a step (StepNetwork, .network), the consumer's side, the
    # control (WalkControl, .control). They share the registers of the walk through one
    # namespace, ``walk`` (see :meth:`_registers`), to which each part adds the signals the
    # later ones read.

    def elaborate(self, platform):
        m = Module()
        walk = self._registers()
        sbox_i, sub = self._build_sbox_wiring(m)
        self._build_step_logic(m, walk, sub)
        self._build_outputs(m, walk, sbox_i)
        self._build_control(m, walk)
        return m

    def _registers(self):
        """The registers of the walk, in a namespace.

        ``win`` is the window of the last Nk words of the expansion (the consumer's group at its
        low end, seed 000 section II.D); ``key_copy`` (forward walks) and ``last_copy`` (reverse
        walks) keep the key and the last group for later ``start``s; ``pos`` is the schedule
        byte index of the window start, ``phase`` the position within the XOR network
        (:mod:`archs.prims.keyexpander.plan`), ``rcon`` the next round constant. ``prepass`` is
        set while a ``load`` of a core with a reverse direction walks forward to the last group.
        The namespace also holds the static facts the parts need: ``n_max`` (window bytes of the
        largest key), ``has_fwd`` and ``has_rev`` (the directions built).
        """
        n_max = 4 * max(g.nk for g in self._geo.values())
        has_fwd = "forward" in self.directions
        has_rev = "reverse" in self.directions

        win = Signal(data.ArrayLayout(8, n_max))
        key_copy = Signal(data.ArrayLayout(8, n_max)) if has_fwd else None
        last_copy = Signal(data.ArrayLayout(8, n_max)) if has_rev else None
        size = Signal(range(len(self.key_sizes)))  # index into key_sizes
        pos = Signal(8)                            # schedule byte index of the window start
        phase = Signal(range(n_max))               # see window_step_plan
        rcon = Signal(8)
        rev = Signal()                             # walking backwards
        running = Signal()                         # a walk is in progress
        prepass = Signal()                         # load is walking forward to the last group
        rev_after = Signal()                       # direction to take when the prepass ends
        loading = Signal()                         # key_copy was just loaded
        settle = Signal(range(self.sbox_latency + 1))  # cycles since the window last changed
        # Registered control (class notes): `is_last` and `at_end` as flags.
        last_flag = Signal(name="last_flag") if self.registered_control else None
        end_flag = Signal(name="end_flag") if self.registered_control else None
        return SimpleNamespace(
            n_max=n_max, has_fwd=has_fwd, has_rev=has_rev, win=win, key_copy=key_copy,
            last_copy=last_copy, size=size, pos=pos, phase=phase, rcon=rcon, rev=rev,
            running=running, prepass=prepass, rev_after=rev_after, loading=loading,
            settle=settle, last_flag=last_flag, end_flag=end_flag)

    def _build_sbox_wiring(self, m):
        """The S-boxes of the step: the ``sbox_i`` / ``sbox_o`` ports (``sbox=None``, the S-boxes
        belong to the architecture), or S-boxes of the expander's own.

        Returns ``(sbox_i, sub)``: the S-box inputs (slot 0 the most significant byte) and the
        S-box outputs per slot.
        """
        if self.sbox is None:
            sbox_i, sbox_o = self.sbox_i, self.sbox_o
        else:
            from ..sbox import make_sbox
            sbox_i = Signal(8 * self.sbox_count)
            sbox_o = Signal(8 * self.sbox_count)
            for s in range(self.sbox_count):
                sb = make_sbox(self.sbox, stages=self.sbox_stages,
                               device_family=self.device_family)
                m.submodules[f"sbox{s}"] = sb
                hi = 8 * (self.sbox_count - s)     # slot 0 is the most significant byte
                m.d.comb += [sb.i.eq(sbox_i[hi - 8:hi]), sbox_o[hi - 8:hi].eq(sb.o)]
        sub = [sbox_o[8 * (self.sbox_count - s) - 8:8 * (self.sbox_count - s)]
               for s in range(self.sbox_count)]
        return sbox_i, sub

    def _build_outputs(self, m, walk, sbox_i):
        """The consumer's side: the current group, ``valid``/``last``, and when the walk steps.

        A group whose step uses the S-box is ``valid`` only once the S-box has settled,
        ``sbox_latency`` cycles after the window changed (class notes, "Protocol timing");
        ``settle`` counts those cycles. Adds ``can_step``, ``take`` (the group is taken) and
        ``do_step`` (the window advances: a taken group, or a prepass step) to ``walk``.
        """
        step = self.width // 8
        latency = self.sbox_latency
        win, pos, settle, running, prepass = (walk.win, walk.pos, walk.settle, walk.running,
                                              walk.prepass)
        # Slot 0 is the most significant byte of sbox_i.
        m.d.comb += sbox_i.eq(Cat(*[walk.sbox_bytes[s]
                                    for s in reversed(range(self.sbox_count))]))

        settled = Const(1, 1) if latency == 0 else (settle == latency)
        can_step = settled | ~walk.needs_sbox
        take = Signal()
        do_step = Signal()
        m.d.comb += [
            self.valid.eq(running & ~prepass & (can_step | walk.is_last)),
            self.last.eq(walk.is_last),
            self.sbox_req.eq(running & walk.needs_sbox),
            self.round_key.eq(Cat(*[win[x] for x in reversed(range(step))])),
            self.round.eq(pos[4:]),
            take.eq(self.valid & self.next),
            do_step.eq((take & ~walk.is_last) | (prepass & running & ~walk.at_end & can_step)),
        ]
        if self.parts > 1:
            m.d.comb += self.part.eq(pos[exact_log2(step):4])

        if latency:
            with m.If(~settled):
                m.d.sync += settle.eq(settle + 1)
        walk.can_step, walk.take, walk.do_step = can_step, take, do_step
