"""Expressions on the 128-bit state and on byte counts, shared by the parts of
:class:`archs.multimode.Multimode`.
"""

from amaranth.hdl import Cat, Const, Mux

from ..interface import bytes_value, value_bytes
from ..prims import gf
from ..prims.shiftrows import inv_shift_rows, shift_rows
from .modes import COUNTER_SEGMENTS

__all__ = ["shifted_rows", "columns", "bytewise", "low_ones_flags", "kept_bytes", "first_bytes",
           "byte_mismatch", "ccm_counter0"]


def shifted_rows(state_bytes, decrypt):
    """The state given as 16 bytes (byte 0 first) through InvShiftRows (``decrypt``) or
    ShiftRows, as a 128-bit value."""
    return Mux(decrypt, bytes_value(inv_shift_rows(state_bytes)),
               bytes_value(shift_rows(state_bytes)))


def columns(value, function):
    """``function`` (on four byte values, row 0 first) applied to each column of ``value``."""
    b = value_bytes(value)
    return bytes_value(x for c in range(4) for x in function(b[4 * c:4 * c + 4]))


def bytewise(value, function):
    """The GF(2)-affine byte map ``function`` (pure-int) applied to each byte of ``value``."""
    columns, const = gf.affine_parts(function, 8)
    return bytes_value(Cat(*gf.apply_affine([byte[k] for k in range(8)], columns, const))
                       for byte in value_bytes(value))


def low_ones_flags(value, *, after_increment=False):
    """Pipelined round's CTR incrementer: bit ``k - 1`` is set when the bits of ``value``
    below counter segment ``k`` (32 bits each) are all ones, for ``k`` = 1 .. 3; with
    ``after_increment``, when they are all ones in ``value + 1``, i.e. ``2^(32 k) - 2`` in
    ``value``."""
    return Cat(*[value[:32 * k] == (1 << 32 * k) - 1 - int(after_increment)
                 for k in range(1, COUNTER_SEGMENTS)])


def kept_bytes(value, keep):
    """``value`` (128 bits) with byte ``n`` kept where bit ``n`` of ``keep`` is set and zero
    elsewhere (byte 0 is the most significant)."""
    return bytes_value(Mux(keep[n], byte, 0) for n, byte in enumerate(value_bytes(value)))


def first_bytes(value, count):
    """``value`` (128 bits) with its first ``count`` bytes kept and the rest zero (byte 0 is
    the most significant)."""
    return bytes_value(Mux(n < count, byte, 0) for n, byte in enumerate(value_bytes(value)))


def byte_mismatch(computed, received, count):
    """16 flags, bit ``15 - n`` for byte ``n`` (byte 0 is the most significant): byte ``n`` of
    ``computed`` and ``received`` (128 bits each) differ and ``n < count``."""
    pairs = zip(value_bytes(computed), value_bytes(received))
    return Cat(*reversed([(n < count) & (a != b) for n, (a, b) in enumerate(pairs)]))


def ccm_counter0(block, q1):
    """Counter block 0 (SP 800-38C A.3) of the message whose B0 or counter block is ``block``:
    flags ``q - 1`` (``q1``), the nonce kept, the last ``q`` bytes (the counter) zero."""
    flags = Cat(q1, Const(0, 5))
    return bytes_value([flags] + [Mux(n < 15 - q1, byte, 0)
                                  for n, byte in enumerate(value_bytes(block)) if n > 0])
