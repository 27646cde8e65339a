"""AES key expansion (FIPS-197 section 5.2): reference model and on-the-fly hardware steps.

The S-boxes of the key schedule are not created here: an architecture passes the SubWord outputs in,
so it can share S-boxes between key schedule and datapath or give the schedule its own (house style
rule 4, after secworks/aes ``aes_key_mem.v``'s narrow ``sboxw`` port).
"""

from . import gf

__all__ = ["ROUNDS", "expand_key", "round_keys", "rot_word_bytes", "next_round_key_128_value"]

#: Number of rounds per key size in bits (FIPS-197 Figure 4).
ROUNDS = {128: 10, 192: 12, 256: 14}


def expand_key(key: bytes) -> list[int]:
    """Expand a 16-, 24- or 32-byte key into the 4 x (Nr + 1) words of FIPS-197 section 5.2.

    Words are 32-bit integers with byte 0 most significant.
    """
    nk = len(key) // 4
    if len(key) not in (16, 24, 32):
        raise ValueError(f"Key must be 16, 24 or 32 bytes long, not {len(key)}")
    rounds = ROUNDS[8 * len(key)]
    words = [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(nk)]
    for i in range(nk, 4 * (rounds + 1)):
        temp = words[i - 1]
        if i % nk == 0:
            temp = _sub_word(_rot_word(temp)) ^ (gf.RCON[i // nk - 1] << 24)
        elif nk > 6 and i % nk == 4:
            temp = _sub_word(temp)
        words.append(words[i - nk] ^ temp)
    return words


def round_keys(key: bytes) -> list[int]:
    """The Nr + 1 round keys of ``key`` as 128-bit integers (round 0 first)."""
    words = expand_key(key)
    return [(words[4 * r] << 96) | (words[4 * r + 1] << 64) | (words[4 * r + 2] << 32)
            | words[4 * r + 3] for r in range(len(words) // 4)]


def _rot_word(w: int) -> int:
    return ((w << 8) | (w >> 24)) & 0xFFFFFFFF


def _sub_word(w: int) -> int:
    return int.from_bytes(bytes(gf.SBOX[b] for b in w.to_bytes(4, "big")), "big")


# --- Hardware -------------------------------------------------------------------------------


def rot_word_bytes(word_bytes):
    """RotWord on a word given as four bytes (byte 0 first): the S-box inputs of SubWord(RotWord)."""
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
    from amaranth.hdl import Cat
    temp = Cat(*reversed(sub_rot_bytes))
    temp = temp ^ (rcon.as_unsigned() << 24)[:32]
    out = []
    prev = temp
    for w in words:
        prev = w ^ prev
        out.append(prev)
    return out
