"""T-box and T^-1-box tables: SubBytes and (Inv)MixColumns combined, as table data for block RAM.

A round of AES on one output column is the XOR of four table lookups (Daemen & Rijmen's T-table
formulation; seed 001, Kundi & Aziz, section 3, keeps the T-box and T^-1-box tables in dual-port
block RAM)::

    MixColumns(SubBytes(a0, a1, a2, a3)) = T0[a0] ^ T1[a1] ^ T2[a2] ^ T3[a3]

``T0[x]`` is the MixColumns image of the column ``(S[x], 0, 0, 0)``; ``Ti`` puts ``S[x]`` in row
``i``, which rotates the word right by ``8 i`` bits. The inverse tables use the inverse S-box and
InvMixColumns. Words are 32-bit columns with row 0 in bits 31..24, the byte order of
:func:`archs.interface.column_words`. Every entry is computed from :mod:`.gf` and
:mod:`.mixcolumns`; nothing is typed in.
"""

from . import gf
from .mixcolumns import inv_mix_column, mix_column

__all__ = ["column_word", "TE", "TD", "te", "td", "joint_table"]


def column_word(column) -> int:
    """Four bytes (row 0 first) as a 32-bit word, row 0 in the most significant byte."""
    return int.from_bytes(bytes(column), "big")


def _tables(sbox, mix):
    tables = []
    for row in range(4):
        table = []
        for x in range(256):
            column = [0, 0, 0, 0]
            column[row] = sbox[x]
            table.append(column_word(mix(column)))
        tables.append(tuple(table))
    return tuple(tables)


#: The four encryption T-boxes, ``TE[i][x]`` (SubBytes then MixColumns of byte ``x`` in row ``i``).
TE = _tables(gf.SBOX, mix_column)
#: The four decryption T^-1-boxes, ``TD[i][x]`` (InvSubBytes then InvMixColumns).
TD = _tables(gf.INV_SBOX, inv_mix_column)


def te(row: int, x: int) -> int:
    """Encryption T-box entry for input byte ``x`` in row ``row``."""
    return TE[row][x]


def td(row: int, x: int) -> int:
    """Decryption T^-1-box entry for input byte ``x`` in row ``row``."""
    return TD[row][x]


def joint_table(row: int = 0) -> tuple[int, ...]:
    """512 x 32 contents of one joint T-box/T^-1-box block RAM (seed 001 section 3).

    Address bit 8 selects the direction (0: ``TE[row]``, 1: ``TD[row]``), bits 7..0 the byte.

    Raises
    ------
    ValueError
        If ``row`` is not 0..3.
    """
    if row not in range(4):
        raise ValueError(f"Row must be an integer in 0..3, not {row!r}")
    return TE[row] + TD[row]
