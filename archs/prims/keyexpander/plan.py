"""The static plan of :class:`archs.prims.keyexpander.KeyExpander`'s XOR network, derived from
the key expansion recurrence (FIPS-197 section 5.2) in plain Python.

:func:`window_step_plan` describes one step of the window by ``step`` bytes at one phase of the
walk (which byte comes from which, through the S-box or not); :class:`WalkGeometry` holds the
static facts of one key size at one step width (positions, phases, the round constants the
reverse walk starts with). :mod:`archs.prims.keyexpander.network` builds the hardware from them.
"""

from .. import gf
from ..keyschedule import ROUNDS, word_kind

__all__ = ["window_step_plan", "WalkGeometry"]


def window_step_plan(nk: int, step: int, reverse: bool, phase: int):
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


class WalkGeometry:
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
            seen[phase] = window_step_plan(self.nk, self.step, reverse, phase)
            phase = (phase - self.step if reverse else phase + self.step) % self.n
        return seen
