"""A pseudo-random bit source for measuring a masked core on its own: NOT a security claim.

A masked core takes fresh random bits every cycle (:mod:`archs.prims.masking`). In a product they
come from a true random number generator or a cryptographic PRNG the core does not contain; to
place, route and verify a masked core without one, :class:`RandomBits` stands in for it: a bank
of xorshift64 generators (Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003: shifts 13, 7,
17), each stepping once per cycle. It is linear and predictable from 64 of its outputs; its area
(64 flip-flops and about 3 XORs per bit for every 64 bits per cycle) stands for the generator a
real system would have.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

__all__ = ["RandomBits", "xorshift64", "seeds"]

_MASK = (1 << 64) - 1


def xorshift64(x: int) -> int:
    """One step of xorshift64 (the model of one generator of :class:`RandomBits`)."""
    x ^= (x << 13) & _MASK
    x ^= x >> 7
    x ^= (x << 17) & _MASK
    return x


def seeds(count: int, seed: int = 0) -> list[int]:
    """The ``count`` non-zero initial states of the generators (splitmix64 of ``seed`` and the
    generator's index), distinct for distinct indices."""
    out = []
    for n in range(count):
        z = (seed * 0x9E3779B97F4A7C15 + (n + 1) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        out.append((z ^ (z >> 31)) or 1)
    return out


class RandomBits(wiring.Component):
    """``width`` pseudo-random bits every cycle (module documentation: for measurement only).

    Members
    -------
    bits : Out(width)
        The generators' states, generator ``n`` at bits ``[64n, 64n + 64)``; each steps every
        cycle (:func:`xorshift64`) from its initial state :func:`seeds` ``(count, seed)``.
    """

    def __init__(self, width: int, seed: int = 0):
        if width < 1:
            raise ValueError(f"width must be at least 1, not {width}")
        self.width, self.seed = width, seed
        self.count = -(-width // 64)
        super().__init__({"bits": Out(width)})

    def elaborate(self, platform):
        m = Module()
        states = [Signal(64, init=s, name=f"xorshift{n}")
                  for n, s in enumerate(seeds(self.count, self.seed))]
        for x in states:
            a = x ^ (x << 13)[:64]
            b = a ^ (a >> 7)
            m.d.sync += x.eq(b ^ (b << 17)[:64])
        m.d.comb += self.bits.eq(Cat(*states)[:self.width])
        return m
