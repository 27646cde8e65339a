"""AES key expansion (FIPS-197 section 5.2) as a pure-integer model.

:func:`expand_key` is the FIPS-197 expansion and :func:`round_keys` its round keys;
:func:`extend_key` continues the same recurrence past the end of the schedule (the hardware windows
of :mod:`archs.prims.keyexpander` run over the end by up to Nk words), and :func:`unexpand_key`
runs it backwards, which is what the reverse (decryption) hardware does. :func:`key_step_plan`
says where the SubWord of one 128-bit expansion step falls, and :func:`word_kind` what any word
adds to its predecessor. Every key-schedule component (:mod:`archs.prims.keyexpander`,
:mod:`archs.prims.roundkeys`) is checked against these functions; the reference model of the
verification (:mod:`aesdse.verify.reference`) uses them too.
"""

from . import gf

__all__ = ["ROUNDS", "word_kind", "expand_key", "extend_key", "unexpand_key", "round_keys",
           "key_step_plan"]

#: Number of rounds per key size in bits (FIPS-197 Figure 4).
ROUNDS = {128: 10, 192: 12, 256: 14}


def word_kind(nk: int, i: int):
    """What word ``i`` of the schedule adds to ``w[i - nk]`` (FIPS-197 Figure 11).

    ``"rot"``: SubWord(RotWord(w[i-1])) ^ Rcon; ``"sub"``: SubWord(w[i-1]) (256-bit keys only);
    ``None``: w[i-1].
    """
    if i % nk == 0:
        return "rot"
    if nk > 6 and i % nk == 4:
        return "sub"
    return None


def extend_key(key: bytes, count: int) -> list[int]:
    """The first ``count`` words of the key expansion of ``key``, continued past the schedule end.

    ``count`` may exceed 4 x (Nr + 1): the recurrence of FIPS-197 section 5.2 is simply continued
    (with round constants ``x^(i/Nk - 1)``). Words are 32-bit integers with byte 0 most
    significant.

    Raises
    ------
    ValueError
        If ``key`` is not 16, 24 or 32 bytes long.
    """
    if len(key) not in (16, 24, 32):
        raise ValueError(f"Key must be 16, 24 or 32 bytes long, not {len(key)}")
    nk = len(key) // 4
    words = [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(nk)]
    rcon = 1
    for i in range(nk, count):
        temp = words[i - 1]
        kind = word_kind(nk, i)
        if kind == "rot":
            temp = _sub_word(_rot_word(temp)) ^ (rcon << 24)
            rcon = gf.xtime(rcon)
        elif kind == "sub":
            temp = _sub_word(temp)
        words.append(words[i - nk] ^ temp)
    return words[:count]


def expand_key(key: bytes) -> list[int]:
    """Expand a 16-, 24- or 32-byte key into the 4 x (Nr + 1) words of FIPS-197 section 5.2.

    Words are 32-bit integers with byte 0 most significant.
    """
    if len(key) not in (16, 24, 32):
        raise ValueError(f"Key must be 16, 24 or 32 bytes long, not {len(key)}")
    return extend_key(key, 4 * (ROUNDS[8 * len(key)] + 1))


def unexpand_key(words: list[int], start: int, nk: int) -> list[int]:
    """Run the key expansion backwards: from ``nk`` consecutive words recover all earlier ones.

    Parameters
    ----------
    words : list of int
        Words ``start .. start + nk - 1`` of the (possibly extended) expansion.
    start : int
        Index of ``words[0]`` in the expansion.
    nk : int
        Key length in words (4, 6 or 8).

    Returns
    -------
    list of int
        Words ``0 .. start + nk - 1``; the first ``nk`` are the cipher key.

    Implementation notes
    --------------------
    ``w[i - Nk] = w[i] ^ temp(w[i - 1])`` inverts ``w[i] = w[i - Nk] ^ temp(w[i - 1])``: the same
    S-box (not the inverse one) and the same round constant, so a decryption core with on-the-fly
    key generation (Lin & Huang, seed 003 section IV) needs nothing the forward walk does not.
    """
    if nk not in (4, 6, 8):
        raise ValueError(f"Key length must be 4, 6 or 8 words, not {nk!r}")
    if len(words) != nk:
        raise ValueError(f"Expected {nk} words, not {len(words)}")
    known = {start + n: w for n, w in enumerate(words)}
    for k in range(start - 1, -1, -1):
        i = k + nk
        temp = known[i - 1]
        kind = word_kind(nk, i)
        if kind == "rot":
            rcon = 1
            for _ in range(i // nk - 1):
                rcon = gf.xtime(rcon)
            temp = _sub_word(_rot_word(temp)) ^ (rcon << 24)
        elif kind == "sub":
            temp = _sub_word(temp)
        known[k] = known[i] ^ temp
    return [known[n] for n in range(start + nk)]


def round_keys(key: bytes) -> list[int]:
    """The Nr + 1 round keys of ``key`` as 128-bit integers (round 0 first)."""
    words = expand_key(key)
    return [(words[4 * r] << 96) | (words[4 * r + 1] << 64) | (words[4 * r + 2] << 32)
            | words[4 * r + 3] for r in range(len(words) // 4)]


def _rot_word(w: int) -> int:
    return ((w << 8) | (w >> 24)) & 0xFFFFFFFF


def _sub_word(w: int) -> int:
    return int.from_bytes(bytes(gf.SBOX[b] for b in w.to_bytes(4, "big")), "big")


def key_step_plan(key_bits: int, r: int):
    """Where the SubWord of expansion step ``r`` (window ``r - 1`` -> window ``r``) falls.

    The step computes words ``w[4r + Nk - 4 + p]`` for ``p`` in 0..3 (FIPS-197 section 5.2,
    ``KeyExpansion``): each is ``w[i - Nk] ^ temp`` with ``temp`` the previous word, passed
    through SubWord(RotWord()) and the round constant when ``i % Nk == 0``, or through SubWord
    alone when ``Nk > 6`` and ``i % Nk == 4``.

    Returns
    -------
    tuple or None
        ``(p, rotate, rcon)``: the position of the new word whose ``temp`` goes through SubWord,
        whether RotWord applies, and the round constant (0 when none); ``None`` when this step
        has no SubWord (AES-192, every third step).
    """
    nk = key_bits // 32
    for p in range(4):
        i = 4 * r + nk - 4 + p
        if i % nk == 0:
            return (p, True, gf.RCON[i // nk - 1])
        if nk > 6 and i % nk == 4:
            return (p, False, 0)
    return None
