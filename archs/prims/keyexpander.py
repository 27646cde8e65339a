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

Expression builders
-------------------
:func:`rot_word_bytes` and :func:`next_round_key_128_value` are the one-round-per-cycle AES-128
step used inside :mod:`archs.iterative`. :func:`key_step_sub_input`, :func:`key_step` and
:func:`lead_key_step` are one 128-bit step of a key window of any key size, as the round units
of :mod:`archs.unrolled` carry it beside every block (seed 004 section III.C).
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from . import gf
from .bytekeyschedule import ByteKeySchedule
from .keyschedule import ROUNDS, key_step_plan, word_kind

__all__ = [
    "WIDTHS", "rot_word_bytes", "next_round_key_128_value", "inv_xtime_value",
    "window_words", "key_step_sub_input", "key_step", "lead_key_step", "KeyExpander", "ByteKeySchedule",
]

#: Round-key bits per step that :class:`KeyExpander` supports.
WIDTHS = (8, 32, 64, 128)


# --- Expression builders ---------------------------------------------------------------------


def rot_word_bytes(word_bytes):
    """RotWord on a word given as four bytes (byte 0 first): the S-box inputs of
    SubWord(RotWord)."""
    return list(word_bytes[1:]) + [word_bytes[0]]


def next_round_key_128_value(words, sub_rot_bytes, rcon):
    """One AES-128 expansion step, 128 bits per cycle, as Amaranth expressions.

    Parameters
    ----------
    words : list of 4 Values (32 bits, word 0 first)
        The current round key.
    sub_rot_bytes : list of 4 Values (8 bits)
        S-box outputs for the bytes ``rot_word_bytes(bytes of words[3])``.
    rcon : Value (8 bits)
        The round constant of the round being produced.

    Returns the next round key's four words.
    """
    temp = Cat(*reversed(sub_rot_bytes))
    temp = temp ^ (rcon.as_unsigned() << 24)[:32]
    out = []
    prev = temp
    for w in words:
        prev = w ^ prev
        out.append(prev)
    return out


def inv_xtime_value(a):
    """Amaranth expression dividing an 8-bit value by x in GF(2^8): the inverse of
    :func:`gf.xtime_value`, which steps the round constant backwards in the reverse key walk.

    If bit 0 is set, adding the reduction polynomial first makes the value divisible by x.
    """
    return (a >> 1) ^ (a[0].replicate(8) & (gf.AES_POLY >> 1))



def window_words(value):
    """The words of a key window value (FIPS-197 ``w[i]``, 32 bits each), word 0 first (in the
    most significant bits)."""
    width = len(value)
    return [value[width - 32 * (n + 1):width - 32 * n] for n in range(width // 32)]


def _word_bytes(word):
    return [word[32 - 8 * (n + 1):32 - 8 * n] for n in range(4)]


def _bytes_value(byte_list):
    return Cat(*reversed(list(byte_list)))


def key_step_sub_input(m, name, key_bits, words, round_value, rounds):
    """S-box input bytes of the 128-bit expansion steps ``rounds`` (window ``r - 1`` ->
    window ``r``, :func:`archs.prims.keyschedule.key_step_plan`), chosen by ``round_value``.

    Parameters
    ----------
    m : Module
        Where the selection logic goes.
    name : str
        Prefix of the signals made here.
    key_bits : int
        128, 192 or 256.
    words : list of Value
        The key window, ``Nk`` words of 32 bits (:func:`window_words`).
    round_value : Value
        The step's round, one of ``rounds`` (not read when the steps agree).
    rounds : sequence of int
        The steps this logic serves.

    Returns
    -------
    list of Value or None
        The four bytes (RotWord already applied where the step has it), or ``None`` when none of
        the steps has a SubWord.
    """
    nk = key_bits // 32
    candidates = {}
    for r in rounds:
        plan = key_step_plan(key_bits, r)
        if plan is None:
            continue
        p, rotate, _ = plan
        # temp is the word before new word p: the window's last word, or a new word
        # computed by XOR only (a step has at most one SubWord, and it is this one).
        temp = words[nk - 1]
        for q in range(p):
            temp = words[q] ^ temp
        word_bytes = _word_bytes(temp)
        candidates.setdefault((p, rotate), (rot_word_bytes(word_bytes) if rotate
                                            else word_bytes, []))[1].append(r)
    if not candidates:
        return None  # AES-192 steps without SubWord: no key S-boxes at all
    if len(candidates) == 1:
        return next(iter(candidates.values()))[0]
    sel = Signal(32, name=f"{name}_in")
    with m.Switch(round_value):
        for value, rs in candidates.values():
            with m.Case(*rs):
                m.d.comb += sel.eq(_bytes_value(value))
    return _word_bytes(sel)


def key_step(m, name, key_bits, words, sub_bytes, round_value, rounds, *, rcon=None):
    """The next key window (list of ``Nk`` words) after the 128-bit expansion steps ``rounds``.

    ``sub_bytes`` are the S-box outputs for the bytes of :func:`key_step_sub_input` (``None``
    when it returned ``None``); the other arguments are as there. ``rcon``, if given, is the
    step's round constant (8 bits, e.g. a register the caller keeps) instead of a decode of
    ``round_value``.
    """
    nk = key_bits // 32
    plans = {}
    for r in rounds:
        plan = key_step_plan(key_bits, r)
        key = None if plan is None else plan[:2]
        plans.setdefault(key, []).append((r, 0 if plan is None else plan[2]))

    def rcon_value(entries):
        # The round constant of the step, a constant when the unit does one step only.
        if rcon is not None:
            return rcon
        values = {rc for _, rc in entries}
        if len(values) == 1:
            return Const(values.pop(), 8)
        decoded = Signal(8, name=f"{name}_rcon")
        with m.Switch(round_value):
            for r, rc in entries:
                with m.Case(r):
                    m.d.comb += decoded.eq(rc)
        return decoded

    results = {}
    for key, entries in plans.items():
        if key == (0, True) and nk == 4:
            # AES-128: the one-step helper above.
            new = next_round_key_128_value(words, sub_bytes, rcon_value(entries))
        else:
            temp = words[nk - 1]
            new = []
            for p in range(4):
                if key is not None and p == key[0]:
                    temp = Cat(*reversed(sub_bytes))
                    if key[1]:
                        temp = temp ^ (rcon_value(entries).as_unsigned() << 24)[:32]
                temp = words[p] ^ temp
                new.append(temp)
        results[key] = list(words[4:]) + new
    if len(results) == 1:
        return next(iter(results.values()))
    out = [Signal(32, name=f"{name}_w{n}") for n in range(nk)]
    with m.Switch(round_value):
        for key, window in results.items():
            with m.Case(*(r for r, _ in plans[key])):
                m.d.comb += [o.eq(w) for o, w in zip(out, window)]
    return out


def lead_key_step(m, name, key_bits, words, sub_bytes, r, latency):
    """Expansion step ``r`` registered one stage before the round key is needed (the key lead
    of :class:`archs.unrolled.Unrolled`).

    The key S-boxes are one stage shorter than the datapath's, so their result ``sub_bytes``
    arrives ``latency`` cycles after ``words`` while the data S-boxes still have their output
    stage to go, and the step is registered in that stage. Its XORs of window words travel
    precomputed beside the S-boxes (``latency`` registers), so the step itself is one XOR with
    the S-box output per bit. Returns the registered next window's words (issue 15: balancing
    the stages of the fully pipelined core).
    """
    nk = key_bits // 32
    plan = key_step_plan(key_bits, r)
    p0 = 4 if plan is None else plan[0]
    # FIPS-197 5.2: new word p is w[p] ^ new word p - 1 (w[Nk - 1] before the first), except
    # that word p0 takes SubWord(...) ^ Rcon instead of its predecessor. So word p is the
    # XOR of window words alone before p0, and those XORs ^ SubWord(...) ^ Rcon from p0 on.
    parts = []
    for p in range(4):
        first, acc = (0, words[nk - 1]) if p < p0 else (p0, None)
        for q in range(first, p + 1):
            acc = words[q] if acc is None else acc ^ words[q]
        parts.append(acc)
    pre = Signal(128 + 32 * (nk - 4), name=f"{name}_kpre")
    m.d.comb += pre.eq(Cat(*reversed(list(words[4:]) + parts)))
    for n in range(latency):
        reg = Signal.like(pre, name=f"{name}_kpre_d{n + 1}")
        m.d.sync += reg.eq(pre)
        pre = reg
    pre_words = [pre[len(pre) - 32 * (n + 1):len(pre) - 32 * n] for n in range(nk)]
    if plan is not None:
        temp = Cat(*reversed(sub_bytes)) ^ (Const(plan[2], 8).as_unsigned() << 24)[:32]
        pre_words = pre_words[:nk - 4] + [w ^ temp if p >= p0 else w
                                          for p, w in enumerate(pre_words[nk - 4:])]
    window = Signal(key_bits, name=f"{name}_klead")
    m.d.sync += window.eq(Cat(*reversed(pre_words)))
    return window_words(window)


# --- On-the-fly key expander -----------------------------------------------------------------


def _step_plan(nk: int, step: int, reverse: bool, phase: int):
    """Static description of one expansion step of ``step`` bytes (the derivation of the XOR
    network from the model, as ``amaranth.lib.crc`` derives its matrices).

    Bytes are addressed relative to the window start: the window holds bytes ``0 .. 4*nk - 1``;
    a forward step computes bytes ``4*nk .. 4*nk + step - 1``, a reverse step bytes
    ``-step .. -1``. ``phase`` is the schedule byte index of the lowest byte computed, modulo
    ``4*nk``.

    Returns
    -------
    outs : dict
        For each computed byte (in computation order): ``(old, temp)``; the byte is
        ``byte[old] ^ temp`` with ``temp`` either ``("byte", rel)`` or ``("sbox", slot, rcon)``
        (S-box output ``slot``, XORed with the round constant if ``rcon``).
    sbox : dict
        S-box input slot -> relative byte index it substitutes.
    rcon : bool
        Whether the step consumes the round constant.
    """
    n = 4 * nk
    xs = range(n, n + step) if not reverse else range(-1, -step - 1, -1)
    outs, sbox, uses_rcon = {}, {}, False
    for x in xs:
        offset = x - n if not reverse else x + step
        a = (phase + offset) % n
        kind, t = word_kind(nk, a // 4), a % 4
        # Forward: w[i] = w[i-nk] ^ temp(w[i-1]). Reverse: w[k] = w[k+nk] ^ temp(w[k+nk-1]).
        old = x - n if not reverse else x + n
        prev_word = (x if not reverse else x + n) - t - 4
        if kind is None:
            temp = ("byte", prev_word + t)
        else:
            src = prev_word + ((t + 1) % 4 if kind == "rot" else t)
            slot = t if step >= 4 else 0
            assert sbox.get(slot, src) == src, "two SubWords in one step"
            sbox[slot] = src
            rc = kind == "rot" and t == 0
            uses_rcon |= rc
            temp = ("sbox", slot, rc)
        outs[x] = (old, temp)
    return outs, sbox, uses_rcon


class _Geometry:
    """Static facts of one key size at one step width (positions, phases, round constants)."""

    def __init__(self, key_bits, step):
        self.key_bits = key_bits
        self.nk = key_bits // 32
        self.n = 4 * self.nk                      # window bytes
        self.rounds = ROUNDS[key_bits]
        self.total = 16 * (self.rounds + 1)       # schedule bytes
        self.end = self.total - step              # byte index of the last group
        self.step = step
        # Reverse walk starts with the window at the last group; its first step computes the
        # bytes just below it.
        self.rev_phase = (self.end - step) % self.n
        # Round constant of the first "rot" word met walking down from the last group: the
        # highest word k below the window start (byte 4k < end) whose inversion uses
        # w[k + nk] with k + nk a multiple of nk.
        k = (self.end - 1) // 4
        while k % self.nk:
            k -= 1
        rcon = 1
        for _ in range((k + self.nk) // self.nk - 1):
            rcon = gf.xtime(rcon)
        self.rev_rcon = rcon

    def phases(self, reverse):
        """Every phase a walk in this direction visits, with its step plan."""
        phase = self.rev_phase if reverse else 0
        seen = {}
        while phase not in seen:
            seen[phase] = _step_plan(self.nk, self.step, reverse, phase)
            phase = (phase - self.step if reverse else phase + self.step) % self.n
        return seen


def _select(sel, cases):
    """``cases``: list of (phases, value); a Mux chain choosing by ``sel``, the most common
    value last as the default (its condition is never built)."""
    cases = sorted(cases, key=lambda c: len(c[0]))
    result = cases[-1][1]
    for phases, value in cases[-2::-1]:
        cond = 0
        for p in sorted(phases):
            cond = cond | (sel == p)
        result = Mux(cond, value, result)
    return result


class KeyExpander(wiring.Component):
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
    step; the exact XOR network for every phase of the walk is derived by :func:`_step_plan`
    from the recurrence. The S-box input is built from the formulas of the phases that feed it
    only (:meth:`_step_network`), so no path leads from ``sbox_o`` to ``sbox_i`` even through
    phases that do not use it (AES-192 at width 128 feeds a new byte of one phase to the S-box
    whose output other phases compute that byte from). At the last group the window reaches 4·Nk - width/8 bytes past the
    schedule end (the extended words of :func:`extend_key`); the reverse walk starts from that
    window, so the walk positions (and the phase of the XOR network) coincide in both
    directions.
    """

    def __init__(self, width=128, *, key_sizes=(128,), directions=("forward",), sbox=None,
                 sbox_stages=0, sbox_latency=None, device_family="generic",
                 registered_control=False):
        from .sbox import sbox_latency as kind_latency

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
        self._geo = {k: _Geometry(k, width // 8) for k in key_sizes}

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
    # S-boxes, the XOR network of a step, the consumer's side, the control. They share the
    # registers of the walk through one namespace, ``walk`` (see :meth:`_registers`), to which
    # each part adds the signals the later ones read.

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
        (:func:`_step_plan`), ``rcon`` the next round constant. ``prepass`` is set while a
        ``load`` of a core with a reverse direction walks forward to the last group. The
        namespace also holds the static facts the parts need: ``n_max`` (window bytes of the
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
        phase = Signal(range(n_max))               # see _step_plan
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
            from .sbox import make_sbox
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

    def _step_network(self, geo, reverse, walk, sub):
        """The XOR network of one key size and direction, selected by the phase register.

        Derived from the recurrence by :meth:`_Geometry.phases` / :func:`_step_plan`: each byte
        of the new window is a Mux over the distinct formulas the phases use. Returns
        ``(new_win, sbox_in, needs_sbox, uses_rcon)``: the next window's bytes, the S-box input
        of each slot, and whether the step at the current phase uses the S-box / the round
        constant.
        """
        step = self.width // 8
        win, phase, rcon = walk.win, walk.phase, walk.rcon
        plans = geo.phases(reverse)
        known = {x: win[x] for x in range(geo.n)}
        # Bytes of the new window, each a Mux over the distinct formulas the phases use.
        order = list(plans[next(iter(plans))][0])
        for x in order:
            formulas = {}
            for p, (outs, _, _) in plans.items():
                formulas.setdefault(outs[x], set()).add(p)
            cases = []
            for (old, temp), phases in formulas.items():
                if temp[0] == "byte":
                    t = known[temp[1]]
                else:
                    t = sub[temp[1]] ^ rcon if temp[2] else sub[temp[1]]
                cases.append((phases, known[old] ^ t))
            known[x] = _select(phase, cases)
        all_phases = set(plans)

        def sbox_source(x, phases):
            # Byte `x` as the `phases` compute it. An S-box input may be a byte of the new
            # window (AES-192 at width 128: the RotWord word follows a new word in the same
            # step); `known[x]` would also carry the formulas of the other phases, some through
            # the S-box output, and the phase Mux would close a structural loop from `sbox_o`
            # to `sbox_i` (a false path, but a combinational cycle to RTLIL conversion and to
            # an architecture sharing the S-boxes). So rebuild such a byte from the formulas of
            # the phases that feed it to the S-box only: XORs of window bytes.
            if 0 <= x < geo.n or phases == all_phases:
                return known[x]
            formulas = {}
            for p in phases:
                formulas.setdefault(plans[p][0][x], set()).add(p)
            cases = []
            for (old, temp), ps in formulas.items():
                assert temp[0] == "byte", "an S-box input through the S-box in one step"
                cases.append((ps, sbox_source(old, ps) ^ sbox_source(temp[1], ps)))
            return _select(phase, cases)

        sbox_in = []
        for slot in range(self.sbox_count):
            srcs = {}
            for p, (_, sbox, _) in plans.items():
                if slot in sbox:
                    srcs.setdefault(sbox[slot], set()).add(p)
            sbox_in.append(_select(phase, [(ps, sbox_source(src, ps))
                                           for src, ps in srcs.items()])
                           if srcs else Const(0, 8))
        needs = [p for p, (_, sbox, _) in plans.items() if sbox]
        uses_rc = [p for p, (_, _, rc) in plans.items() if rc]
        lo = -step if reverse else step
        new_win = [known[x] for x in range(lo, lo + geo.n)]

        def any_of(phases):
            if len(phases) == len(plans):
                return Const(1, 1)
            cond = Const(0, 1)
            for p in sorted(phases):
                cond = cond | (phase == p)
            return cond
        return new_win, sbox_in, any_of(needs), any_of(uses_rc)

    def _build_step_logic(self, m, walk, sub):
        """The next window and its companions, for the key size and direction of the walk.

        One :meth:`_step_network` per key size and direction, chosen by ``size`` and ``rev``.
        Adds to ``walk``: ``new_win``, ``sbox_bytes`` (S-box inputs per slot), ``needs_sbox``,
        ``uses_rcon``, ``next_phase``, ``is_last`` (the window is the last group of the walk)
        and ``at_end`` (the window is the last group of the schedule).
        """
        step = self.width // 8
        win, size, pos, phase, rev = walk.win, walk.size, walk.pos, walk.phase, walk.rev
        new_win = Signal(data.ArrayLayout(8, walk.n_max))
        needs_sbox = Signal()
        uses_rcon = Signal()
        is_last = Signal()
        at_end = Signal()
        next_phase = Signal.like(phase)
        sbox_bytes = Signal(data.ArrayLayout(8, self.sbox_count))
        m.d.comb += new_win.eq(win)
        with m.Switch(size):
            for index, key_bits in enumerate(self.key_sizes):
                geo = self._geo[key_bits]
                with m.Case(index):
                    if not self.registered_control:
                        m.d.comb += [at_end.eq(pos == geo.end),
                                     is_last.eq(Mux(rev, pos == 0, pos == geo.end))]
                    for reverse in (False, True):
                        if reverse and not walk.has_rev:
                            continue
                        built = self._step_network(geo, reverse, walk, sub)
                        with m.If(rev if reverse else ~rev):
                            for x, value in enumerate(built[0]):
                                m.d.comb += new_win[x].eq(value)
                            for s, value in enumerate(built[1]):
                                m.d.comb += sbox_bytes[s].eq(value)
                            m.d.comb += [needs_sbox.eq(built[2]), uses_rcon.eq(built[3])]
                            if reverse:
                                m.d.comb += next_phase.eq(
                                    Mux(phase < step, phase + geo.n - step, phase - step))
                            else:
                                m.d.comb += next_phase.eq(
                                    Mux(phase + step >= geo.n, phase + step - geo.n, phase + step))
        if self.registered_control:
            is_last, at_end = walk.last_flag, walk.end_flag
        walk.new_win, walk.needs_sbox, walk.uses_rcon = new_win, needs_sbox, uses_rcon
        walk.is_last, walk.at_end, walk.next_phase = is_last, at_end, next_phase
        walk.sbox_bytes = sbox_bytes

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

    def _build_control(self, m, walk):
        """The register updates: ``load``, then ``start``, then a step (the priority of the
        class notes).

        One priority chain, so each window bit has one input mux (restart from the stored key,
        restart from the stored last group, step) rather than one per event. A ``load`` with a
        reverse direction first walks forward to the last group (the prepass), keeps it in
        ``last_copy`` and then starts the requested walk.
        """
        has_fwd, has_rev = walk.has_fwd, walk.has_rev
        prepass, running, loading = walk.prepass, walk.running, walk.loading
        reverse_in = self.reverse if (has_fwd and has_rev) else Const(int(has_rev), 1)
        start_ok = self.start & ~prepass & ~loading
        prepass_end = prepass & running & walk.at_end & walk.can_step
        restart_fwd = loading | (start_ok & ~reverse_in) | (prepass_end & ~walk.rev_after)
        restart_rev = start_ok & reverse_in

        # The prepass has reached the last group: keep it for later `start`s.
        if has_rev:
            with m.If(prepass_end):
                m.d.sync += walk.last_copy.eq(walk.win)

        with m.If(self.load):
            self._load(m, walk, reverse_in)
        if has_rev:
            with m.Elif(restart_rev):
                self._restart(m, walk, True)
        if has_fwd:
            with m.Elif(restart_fwd):
                self._restart(m, walk, False)
                m.d.sync += loading.eq(0)
                if has_rev:
                    m.d.sync += prepass.eq(loading)  # a load walks forward to the end first
        with m.Else():
            self._advance(m, walk, prepass_end)

    def _load(self, m, walk, reverse_in):
        """Take a new key (and its size); the walk restarts from it."""
        n_max = walk.n_max
        # With a forward direction the key goes to `key_copy` first and reaches the window
        # a cycle later through the restart path: one cycle of load latency buys a window
        # input mux with one source less (about one LUT4 per window bit).
        key_bytes = [self.key[len(self.key) - 8 * (x + 1):len(self.key) - 8 * x]
                     for x in range(len(self.key) // 8)]
        key_win = Signal(data.ArrayLayout(8, n_max))
        for x in range(n_max):
            m.d.comb += key_win[x].eq(key_bytes[x] if x < len(key_bytes) else 0)
        if len(self.key_sizes) > 1:
            m.d.sync += walk.size.eq(0)
            for index, key_bits in enumerate(self.key_sizes):
                with m.If(self.key_bits == key_bits):
                    m.d.sync += walk.size.eq(index)
        if walk.has_fwd:
            m.d.sync += [walk.key_copy.eq(key_win), walk.loading.eq(1), walk.running.eq(0),
                         walk.prepass.eq(0)]
            # The position stays, the key size changes.
            pos, rev = walk.pos, walk.rev
            self._write_flags(m, walk, lambda geo: (Mux(rev, pos == 0, pos == geo.end),
                                                    pos == geo.end), by_port=True)
        else:
            m.d.sync += [walk.win.eq(key_win), walk.pos.eq(0), walk.phase.eq(0),
                         walk.rcon.eq(gf.RCON[0]), walk.running.eq(1), walk.rev.eq(0),
                         walk.settle.eq(0), walk.prepass.eq(1)]
            self._write_flags(m, walk, lambda geo: (0, 0))   # position 0, forwards
        if walk.has_rev:
            m.d.sync += walk.rev_after.eq(reverse_in)

    def _restart(self, m, walk, reverse):
        """Position the walk at its first group: forward from the stored key, reverse from the
        stored last group."""
        m.d.sync += [walk.running.eq(1), walk.prepass.eq(0), walk.rev.eq(reverse),
                     walk.settle.eq(0)]
        if reverse:
            m.d.sync += walk.win.eq(walk.last_copy)
        else:
            m.d.sync += [walk.win.eq(walk.key_copy), walk.pos.eq(0), walk.phase.eq(0),
                         walk.rcon.eq(gf.RCON[0])]
        for index, key_bits in enumerate(self.key_sizes):
            geo = self._geo[key_bits]
            with m.If(walk.size == index):
                if reverse:
                    m.d.sync += [walk.pos.eq(geo.end), walk.phase.eq(geo.rev_phase),
                                 walk.rcon.eq(geo.rev_rcon)]
        # Reverse: at the schedule's last group, walking down; forward: at position 0. The
        # last group is never at position 0 (a schedule has at least 11 round keys).
        self._write_flags(m, walk, lambda geo: (0, int(reverse)))

    def _advance(self, m, walk, prepass_end):
        """A step of the walk (the window moves by one group), the end of a walk, and the turn
        from the prepass to a reverse walk."""
        step = self.width // 8
        rev, pos, rcon = walk.rev, walk.pos, walk.rcon
        with m.If(walk.do_step):
            m.d.sync += [walk.win.eq(walk.new_win), walk.phase.eq(walk.next_phase),
                         walk.settle.eq(0)]
            m.d.sync += pos.eq(Mux(rev, pos - step, pos + step))
            # The comparisons of the next position (8 bits, modulo 256), made on this one.
            self._write_flags(m, walk, lambda geo: (
                Mux(rev, pos == step, pos == geo.end - step),
                Mux(rev, pos == (geo.end + step) % 256, pos == geo.end - step)))
            with m.If(walk.uses_rcon):
                m.d.sync += rcon.eq(Mux(rev, inv_xtime_value(rcon), gf.xtime_value(rcon)))
        with m.If(walk.take & walk.is_last):
            m.d.sync += walk.running.eq(0)
        if walk.has_rev:
            # A reverse walk after the prepass begins right here: the window already is
            # the last group.
            with m.If(prepass_end & walk.rev_after):
                m.d.sync += [walk.prepass.eq(0), rev.eq(1), walk.settle.eq(0)]
                if self.registered_control:
                    m.d.sync += walk.last_flag.eq(pos == 0)   # same position, reverse
                for index, key_bits in enumerate(self.key_sizes):
                    geo = self._geo[key_bits]
                    with m.If(walk.size == index):
                        m.d.sync += [walk.phase.eq(geo.rev_phase), walk.rcon.eq(geo.rev_rcon)]


    def _write_flags(self, m, walk, values, by_port=False):
        """Registered control (class notes): write the flags ``is_last`` and ``at_end`` with
        ``values(geometry)``, their values after the current event for a key of that size.

        The size is the stored one, or with ``by_port`` (a ``load``) the one the ``key_bits``
        port selects (any other value selects ``key_sizes[0]``, as for the size register).
        Nothing is built without ``registered_control``.
        """
        if not self.registered_control:
            return

        def write(geo):
            is_last, at_end = values(geo)
            m.d.sync += [walk.last_flag.eq(is_last), walk.end_flag.eq(at_end)]
        write(self._geo[self.key_sizes[0]])
        for index, key_bits in enumerate(self.key_sizes):
            if index == 0:
                continue
            with m.If((self.key_bits == key_bits) if by_port else (walk.size == index)):
                write(self._geo[key_bits])
