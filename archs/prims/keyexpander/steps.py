"""Key-step expression builders: AES key expansion steps as Amaranth expressions, for the
architectures that carry a key window beside their data (FIPS-197 section 5.2).

:func:`rot_word_bytes` and :func:`next_round_key_128_value` are the one-round-per-cycle AES-128
step used inside :mod:`archs.iterative`. :func:`key_step_sub_input`, :func:`key_step` and
:func:`lead_key_step` are one 128-bit step of a key window of any key size, as the round units
of :mod:`archs.unrolled` carry it beside every block (seed 004 section III.C).
:func:`inv_xtime_value` steps the round constant backwards
(:class:`archs.prims.keyexpander.KeyExpander`'s reverse walk). All are re-exported by
:mod:`archs.prims.keyexpander`.
"""

from amaranth.hdl import Cat, Const, Signal

from .. import gf
from ..keyschedule import key_step_plan

__all__ = ["rot_word_bytes", "next_round_key_128_value", "inv_xtime_value", "window_words",
           "key_step_sub_input", "key_step", "lead_key_step"]


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
