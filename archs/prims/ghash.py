"""GHASH: multiplication in GF(2^128) as GCM uses it, its reference model and its multipliers.

The architectures and the GCM oracle import every GHASH name from here; the parts, bottom up:

:mod:`.ghash_model`
    The field and its bit order (NIST SP 800-38D section 6.3), and the pure-Python reference:
    :func:`gf128_mul` (Algorithm 1), :func:`ghash` (section 6.4 over a GCM message) and the
    n-block aggregation :func:`ghash_aggregated`.
:mod:`.ghash_multipliers`
    The GF(2^128) multipliers in hardware (``ghash``: ``bit_serial``, ``digit_serial``,
    ``parallel``, ``karatsuba``), their latencies and pipeline cut points, and
    :func:`make_multiplier`.
:mod:`.ghash_accumulators`
    GHASH over a stream of blocks: :class:`GHASHAccumulator` (``ghash_aggregation`` lanes
    through one multiplier) and :class:`SerialGHASHAccumulator` (a digit-serial multiply folded
    into the running hash).
"""

from .ghash_accumulators import (
    BLOCK, GHASHAccumulator, SerialGHASHAccumulator, serial_accumulation,
)
from .ghash_model import (
    GHASH_AGGREGATION, ONE, R, check_choice, gf128_mul, gf128_pow, ghash, ghash_aggregated,
    ghash_blocks, ghash_powers, message_blocks,
)
from .ghash_multipliers import (
    GHASH_DIGITS, GHASH_KINDS, GHASH_STAGES, KARATSUBA_LEVELS, MULTIPLIER_CUTS, OPERANDS,
    PARTIAL_GROUP, POLY_LOW, DigitSerialMultiplier, GF128Multiplier, ParallelMultiplier,
    clmul_value, comb_wire, karatsuba_value, make_multiplier, reduce_value, reflect, xor_tree,
)

__all__ = [
    "R", "ONE", "POLY_LOW", "GHASH_KINDS", "GHASH_DIGITS", "GHASH_STAGES", "KARATSUBA_LEVELS",
    "GHASH_AGGREGATION", "MULTIPLIER_CUTS", "PARTIAL_GROUP",
    "gf128_mul", "gf128_pow", "ghash_blocks", "message_blocks", "ghash", "ghash_powers",
    "ghash_aggregated", "reflect", "xor_tree", "clmul_value", "karatsuba_value", "reduce_value",
    "comb_wire",
    "OPERANDS", "GF128Multiplier", "DigitSerialMultiplier", "ParallelMultiplier",
    "check_choice", "make_multiplier", "BLOCK", "GHASHAccumulator", "SerialGHASHAccumulator",
    "serial_accumulation",
]
