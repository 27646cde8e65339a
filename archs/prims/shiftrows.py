"""ShiftRows and InvShiftRows as byte permutations (FIPS-197 sections 5.1.2 and 5.3.1).

State byte ``n`` sits in row ``n % 4`` and column ``n // 4``. Row ``r`` rotates left by ``r``
columns. The permutation works on any sequence, so the same function serves the reference model
(integers), 128-bit datapaths (Amaranth values) and narrow datapaths, which apply it as an address
transformation (the read order 0, 5, 10, 15, 4, ... of Zhou & Gaj section II.E).
"""

__all__ = ["shift_rows_source", "shift_rows", "inv_shift_rows"]


def shift_rows_source(n: int, inverse: bool = False) -> int:
    """Index of the input byte that ShiftRows (or InvShiftRows) moves to output byte ``n``."""
    row, col = n % 4, n // 4
    shift = -row if inverse else row
    return row + 4 * ((col + shift) % 4)


def shift_rows(state):
    """ShiftRows of a 16-element sequence."""
    return [state[shift_rows_source(n)] for n in range(16)]


def inv_shift_rows(state):
    """InvShiftRows of a 16-element sequence."""
    return [state[shift_rows_source(n, inverse=True)] for n in range(16)]
