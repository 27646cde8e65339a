"""Masking gadgets: the shared AND of a masked AES, and an exact probing check of it.

A bit ``x`` masked at order ``d`` is ``d + 1`` shares with ``x = x_0 ^ ... ^ x_d``, any ``d`` of
them uniform and independent of ``x``. XOR and NOT act share by share (NOT on share 0 only); an
AND needs a *gadget* that combines shares of different domains (``a_i & b_j``, i != j) only
after fresh randomness has been added and registered, so that no glitch joins them before. Two
gadgets, written from the papers' descriptions (no code taken from any implementation):

* **DOM-indep** (Gross, Mangard and Korak, "Domain-Oriented Masking: Compact Masked Hardware
  Implementations with Arbitrary Protection Order", TIS@CCS 2016, section 4): the inner-domain
  terms ``a_i b_i`` and the cross-domain terms ``a_i b_j ^ r_ij`` are registered, one random
  bit per pair of domains (``r_ij = r_ji``), and share ``i`` of the result is the XOR of the
  registers of domain ``i``. One cycle; ``d (d + 1) / 2`` random bits. Secure when ``a`` and
  ``b`` are independently shared.
* **HPC2** (Cassiers, Gregoire, Levi and Standaert, "Hardware Private Circuits: From Trivial
  Composition to Full Verification", IEEE Transactions on Computers 2021, section 5): PINI, so
  gadgets compose without refreshing. ``b_j ^ r_ij`` and ``r_ij`` are registered first; in the
  second cycle ``a_i`` selects between them (``~a_i & reg(r_ij)`` and ``a_i & reg(b_j ^
  r_ij)``, each registered), so that ``r_ij`` cancels between the domains. Two cycles; the same
  ``d (d + 1) / 2`` random bits.

Each gadget is one function over ``^``, ``&``, ``~`` and a register function ``reg``. With
Amaranth values and a ``reg`` that adds a flip-flop it builds :class:`MaskedAnd`; with
:class:`ProbeValue` bits and a recording ``reg`` it runs the model that :func:`probe_leaks`
checks: a *glitch-extended probe* on a register or an output share observes every register and
input in its combinational input cone (the robust probing model), and a gadget is first-order
secure when, for every probe, the distribution of what it observes over uniform masks and
randomness is the same for every unmasked input. The check enumerates every mask and random
bit, so it is exact, for first order only (pairs of probes are not checked here).
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from dataclasses import dataclass

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["GADGETS", "Gadget", "dom_indep_and", "hpc2_and", "pairs", "random_bits",
           "MaskedAnd", "ProbeValue", "probe_leaks", "circuit_leaks"]


def pairs(order: int) -> list[tuple[int, int]]:
    """The pairs of domains ``(i, j)``, ``i < j``, that share a random bit, in the order of
    the gadget's ``r`` list."""
    return list(itertools.combinations(range(order + 1), 2))


def random_bits(order: int) -> int:
    """Fresh random bits one AND gadget of ``order`` takes per bit and cycle."""
    return len(pairs(order))


def _pair_bits(r, order: int) -> dict:
    bits = dict(zip(pairs(order), r))
    return {**bits, **{(j, i): bit for (i, j), bit in bits.items()}}


def dom_indep_and(a, b, r, reg, product=operator.and_) -> list:
    """DOM-indep AND of the shares ``a`` and ``b`` with the random bits ``r`` (one per
    :func:`pairs` entry); the result's shares, one register after the inputs. ``product``:
    another bilinear product of the shares' type (a field multiplication, with field elements
    as ``r``: DOM-indep over GF(2^n), section 4 of the paper)."""
    order = len(a) - 1
    rij = _pair_bits(r, order)
    out = []
    for i in range(order + 1):
        terms = [reg(product(a[i], b[i]), f"inner{i}")]
        terms += [reg(product(a[i], b[j]) ^ rij[i, j], f"cross{i}{j}")
                  for j in range(order + 1) if j != i]
        out.append(_xor_all(terms))
    return out


def hpc2_and(a, b, r, reg) -> list:
    """HPC2 AND of the shares ``a`` and ``b`` with the random bits ``r``; the result's shares,
    two registers after the inputs."""
    order = len(a) - 1
    rij = _pair_bits(r, order)
    out = []
    for i in range(order + 1):
        a_late = reg(a[i], f"a{i}")
        terms = [reg(reg(a[i] & b[i], f"inner{i}"), f"inner{i}_late")]
        for j in range(order + 1):
            if j == i:
                continue
            masked_b = reg(b[j] ^ rij[i, j], f"b{j}r{i}{j}")
            random = reg(rij[i, j], f"r{i}{j}_{i}")
            terms += [reg(~a_late & random, f"u{i}{j}"), reg(a_late & masked_b, f"v{i}{j}")]
        out.append(_xor_all(terms))
    return out


def _xor_all(terms):
    value = terms[0]
    for term in terms[1:]:
        value = value ^ term
    return value


@dataclass(frozen=True)
class Gadget:
    """An AND gadget: its function and its latency in cycles."""
    function: object
    latency: int


#: Gadget name -> :class:`Gadget`.
GADGETS = {"dom_indep": Gadget(dom_indep_and, 1), "hpc2": Gadget(hpc2_and, 2)}


class MaskedAnd(wiring.Component):
    """``width`` parallel AND gadgets on shares (``a`` and ``b``: ``order + 1`` shares of
    ``width`` bits each, share ``i`` at bits ``[i * width, (i + 1) * width)``); ``z`` holds the
    shares of ``a & b`` :attr:`latency` cycles after the inputs. ``rnd`` takes
    ``random_bits(order) * width`` fresh random bits every cycle (pair ``k`` of :func:`pairs` at
    bits ``[k * width, (k + 1) * width)``); the gadget is secure only if they are uniform and
    never reused."""

    def __init__(self, gadget: str = "dom_indep", order: int = 1, width: int = 1):
        if gadget not in GADGETS:
            raise ValueError(f"gadget must be one of {', '.join(GADGETS)}, not {gadget!r}")
        if order < 0:
            raise ValueError(f"masking order must be 0 or more, not {order}")
        self.gadget, self.order, self.width = gadget, order, width
        self.latency = GADGETS[gadget].latency
        shares = (order + 1) * width
        super().__init__({"a": In(shares), "b": In(shares),
                          "rnd": In(max(1, random_bits(order) * width)), "z": Out(shares)})

    def elaborate(self, platform):
        m = Module()
        w = self.width

        def reg(value, name):
            register = Signal(w, name=name)
            m.d.sync += register.eq(value)
            return register
        a = [self.a[i * w:(i + 1) * w] for i in range(self.order + 1)]
        b = [self.b[i * w:(i + 1) * w] for i in range(self.order + 1)]
        r = [self.rnd[k * w:(k + 1) * w] for k in range(random_bits(self.order))]
        z = GADGETS[self.gadget].function(a, b, r, reg)
        for i, share in enumerate(z):
            m.d.comb += self.z[i * w:(i + 1) * w].eq(share)
        return m


@dataclass(frozen=True)
class ProbeValue:
    """A bit of the model and its combinational cone: the inputs and registers (by name) whose
    values it is computed from since the last register."""
    value: int
    cone: frozenset

    def __xor__(self, other):
        return ProbeValue(self.value ^ other.value, self.cone | other.cone)

    def __and__(self, other):
        return ProbeValue(self.value & other.value, self.cone | other.cone)

    def __invert__(self):
        return ProbeValue(self.value ^ 1, self.cone)


def _observations(function, a_shares, b_shares, r) -> dict:
    """Probe name -> the values its glitch-extended probe observes, for one evaluation."""
    known = {}
    a = [ProbeValue(v, frozenset({f"in_a{i}"})) for i, v in enumerate(a_shares)]
    b = [ProbeValue(v, frozenset({f"in_b{i}"})) for i, v in enumerate(b_shares)]
    rnd = [ProbeValue(v, frozenset({f"in_r{k}"})) for k, v in enumerate(r)]
    for bit in a + b + rnd:
        (name,) = bit.cone
        known[name] = bit.value
    probes = {}

    def reg(value, name):
        label = f"reg_{name}_{len(probes)}"
        probes[label] = tuple(known[s] for s in sorted(value.cone))
        known[label] = value.value
        return ProbeValue(value.value, frozenset({label}))
    out = function(a, b, rnd, reg)
    for i, share in enumerate(out):
        probes[f"out{i}"] = tuple(known[s] for s in sorted(share.cone))
    return probes


def _sharings(bit: int, order: int):
    """Every sharing of ``bit``: the first ``order`` shares free, the last one fixed."""
    for free in itertools.product((0, 1), repeat=order):
        last = bit
        for share in free:
            last ^= share
        yield (*free, last)


def probe_leaks(gadget: str, order: int, *, randomness: bool = True) -> list[str]:
    """The probes (a register's or an output share's name) of ``gadget`` at ``order`` whose
    glitch-extended observation depends on the unmasked inputs: ``[]`` when the gadget is
    first-order secure. ``randomness=False`` ties every random bit to 0 (a broken generator),
    which must leak for a gadget that needs them."""
    return circuit_leaks(GADGETS[gadget].function, order, random_bits(order),
                         randomness=randomness)


def circuit_leaks(function, order: int, random_count: int, *,
                  randomness: bool = True) -> list[str]:
    """:func:`probe_leaks` of any circuit ``function(a, b, r, reg)`` of two shared bits with
    ``random_count`` random bits, for example gadgets composed into a small circuit."""
    per_secret = {}
    for a, b in itertools.product((0, 1), repeat=2):
        seen: dict = {}
        for a_shares in _sharings(a, order):
            for b_shares in _sharings(b, order):
                for r in itertools.product((0, 1), repeat=random_count):
                    r = r if randomness else tuple(0 for _ in r)
                    for probe, observed in _observations(function, a_shares, b_shares,
                                                         r).items():
                        seen.setdefault(probe, Counter())[observed] += 1
        per_secret[a, b] = seen
    first = per_secret[0, 0]
    return sorted(probe for probe in first
                  if any(seen[probe] != first[probe] for seen in per_secret.values()))
