"""TVLA on simulated traces: the fixed-vs-random Welch t-test of ISO 17825 (issue 49).

A *trace* here is, for one evaluation of a core, the Hamming distance of every register between
the value it held for the previous evaluation and the one it takes now (zero-delay: the value
changes of a fully pipelined datapath fed one input per cycle, one sample per register). The
evaluations are a random mix of two classes: a fixed secret input, and a random one, each with
fresh masks and fresh randomness. For every sample, Welch's t of the two classes; a first-order
leak is a sample whose |t| exceeds 4.5 (the threshold of Goodwill et al., NIST NIAT 2011, and
of ISO 17825).

Second order (``order=2``), univariate as in Schneider and Moradi, "Leakage Assessment
Methodology", CHES 2015, section 4: a sample is the sum of the Hamming distances of a *group*
of registers (a gadget, as one point of a power trace sums a region's activity), centered on
its class's mean and squared before the t-test. A core masked at order 1 leaks there; one masked
at order 2 must not. (On a single register's bit the square is the bit again: second order needs
the groups.)

Zero-delay traces show no glitches: the glitch-extended probing check of
:mod:`archs.prims.masking` covers those, gadget by gadget. A pass says that no leak of that
order shows with that many traces, no more.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["THRESHOLD", "TvlaResult", "welch_t", "fixed_vs_random"]

#: |t| above which a sample leaks (ISO 17825).
THRESHOLD = 4.5


@dataclass(frozen=True)
class TvlaResult:
    """The test's outcome: the largest |t|, the sample (and its name) where it is, the number
    of traces."""
    max_t: float
    sample: int
    name: str | None
    traces: int
    order: int = 1
    threshold: float = THRESHOLD

    @property
    def leaks(self) -> bool:
        return self.max_t > self.threshold


def welch_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Welch's t per column of the samples ``a`` and ``b`` (rows: traces); 0 where both
    classes have no variance and the same mean (a constant sample shows nothing)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    difference = a.mean(axis=0) - b.mean(axis=0)
    spread = np.sqrt(a.var(axis=0, ddof=1) / len(a) + b.var(axis=0, ddof=1) / len(b))
    t = np.zeros_like(difference)
    varies = spread > 0
    t[varies] = difference[varies] / spread[varies]
    # No variance in either class but different means: certainly not the same distribution.
    t[~varies & (difference != 0)] = np.inf
    return t


def fixed_vs_random(register_bits, fixed, random_secret, traces: int, rng, names=None, *,
                    groups: dict | None = None, order: int = 1) -> TvlaResult:
    """Run the test on ``traces`` evaluations (module documentation).

    ``register_bits(secret, rng)`` evaluates the core once on ``secret`` with fresh masks and
    randomness drawn from ``rng`` and returns every register's bit; ``random_secret(rng)``
    draws a secret of the random class; ``names`` name the registers for the result.
    ``groups`` (name -> register indices): the samples are the groups' summed Hamming
    distances, named by group; ``order`` 2 needs them."""
    if order not in (1, 2):
        raise ValueError(f"TVLA order must be 1 or 2, not {order}")
    if order == 2 and not groups:
        raise ValueError("second-order TVLA needs groups of registers (module documentation)")
    previous, rows, fixed_class = None, [], []
    for _ in range(traces + 1):
        is_fixed = rng.getrandbits(1) == 1
        values = np.array(register_bits(fixed if is_fixed else random_secret(rng), rng),
                          dtype=np.int8)
        if previous is not None:
            rows.append(values ^ previous)
            fixed_class.append(is_fixed)
        previous = values
    samples, fixed_class = np.array(rows, dtype=float), np.array(fixed_class)
    if groups:
        names = list(groups)
        samples = np.stack([samples[:, list(groups[g])].sum(axis=1) for g in names], axis=1)
    a, b = samples[fixed_class], samples[~fixed_class]
    if order == 2:
        a, b = (a - a.mean(axis=0)) ** 2, (b - b.mean(axis=0)) ** 2
    t = np.abs(welch_t(a, b))
    sample = int(np.argmax(t))
    return TvlaResult(float(t[sample]), sample, names[sample] if names else None, traces, order)
