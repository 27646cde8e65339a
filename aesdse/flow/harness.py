"""The measurement harness: a core with hundreds of ports on a device's few pins.

nextpnr-ice40 (and other nextpnr variants) has no out-of-context mode: every port of the top
module becomes a pin, and an AES core has about 400 of them (docs/toolchain.md). The harness wraps
the core so that it fits the pins while every signal of the core stays alive (nothing of the core
can be optimized away), and its own cost is measured alone on the same device (with
:class:`HarnessStub` in place of the core) so that the report can subtract it.

Implementation notes
--------------------
The core's ports are taken from its signature (:meth:`wiring.Signature.flatten`), so one harness
fits every family:

* every **1-bit input** (stream ``valid`` and ``ready``) is a pin of its own, named after its path
  (``key__valid``): the handshake stays under the control of the outside world;
* every **wider input** (the key and block payloads) is a slice of one shift register, loaded
  serially from pin ``sin`` while ``shift`` is high: ``sin`` enters at bit 0 and moves up one
  bit per cycle, so a value is shifted in most significant bit first (:meth:`chain_value` builds
  the value of the whole chain from the ports' values);
* every **1-bit output** is a pin of its own;
* the **wider outputs** are XOR-folded to ``fold_width`` bits and registered to pin ``fold``: bit
  ``j`` is the XOR of every output bit ``k`` with ``k mod fold_width == j``. An XOR keeps every
  input bit observable, so synthesis cannot remove any logic of the core that drives an output.

The harness does not change the core's behaviour: the core sees its payload from the shift
register and its handshake from the pins, exactly as a testbench would drive them
(tests/test_archs_harness.py checks an AES core through it against the reference).
"""

from amaranth.hdl import Cat, Const, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["MeasurementHarness", "HarnessStub", "fold_value"]


def _ports(signature, obj):
    """``(name, flow, width, value)`` of every port of ``obj``, in flatten order."""
    return [("__".join(str(p) for p in path), member.flow, Value.cast(value).shape().width, value)
            for path, member, value in signature.flatten(obj)]


def fold_value(value: int, width: int, fold_width: int) -> int:
    """The XOR fold of a ``width``-bit integer to ``fold_width`` bits, as the harness computes
    it (bit ``k`` of ``value`` goes to bit ``k mod fold_width``)."""
    folded = 0
    for k in range(width):
        if value >> k & 1:
            folded ^= 1 << (k % fold_width)
    return folded


class MeasurementHarness(wiring.Component):
    """A core behind a serial loader and an XOR fold, for devices without out-of-context place
    and route (see the module documentation).

    Parameters
    ----------
    core : wiring.Component
        The core to wrap (or a :class:`HarnessStub` to measure the harness alone).
    fold_width : int
        Output pins of the fold (1 to 32).

    Members
    -------
    sin : In(1)
        Serial data into the input shift register.
    shift : In(1)
        Shift ``sin`` in at this clock edge.
    <path> : In(1) / Out(1)
        One pin per 1-bit port of the core (``key__valid``, ``o__ready``, ...).
    fold : Out(fold_width)
        Registered XOR fold of the core's wide outputs.

    Attributes
    ----------
    chain : list of (str, int)
        The wide inputs in the shift chain, from bit 0 up: name and width.
    chain_bits : int
        Length of the shift chain.
    folded : list of (str, int)
        The wide outputs in the fold, from bit 0 up: name and width.
    folded_bits : int
    pins : int
        Pins the harness needs besides the clock and reset.

    Raises
    ------
    ValueError
        If ``fold_width`` is out of range, or the core has no wide input or output.
    """

    def __init__(self, core, *, fold_width=8):
        if isinstance(fold_width, bool) or not isinstance(fold_width, int) \
                or not 1 <= fold_width <= 32:
            raise ValueError(f"Fold width must be an integer from 1 to 32, not {fold_width!r}")
        self.core = core
        self.fold_width = fold_width
        ports = _ports(core.signature, core)
        self.chain = [(n, w) for n, f, w, _ in ports if f == In and w > 1]
        self.folded = [(n, w) for n, f, w, _ in ports if f == Out and w > 1]
        if not self.chain or not self.folded:
            raise ValueError("The core must have at least one input and one output wider than "
                             "one bit")
        self.chain_bits = sum(w for _, w in self.chain)
        self.folded_bits = sum(w for _, w in self.folded)
        members = {"sin": In(1), "shift": In(1)}
        for name, flow, width, _ in ports:
            if width == 1:
                members[name] = In(1) if flow == In else Out(1)
        members["fold"] = Out(fold_width)
        self.pins = len(members) - 1 + fold_width
        super().__init__(members)

    def chain_value(self, values: dict) -> int:
        """The shift chain's content that gives each wide input port its value (``values``:
        port name -> int; absent ports are 0)."""
        unknown = set(values) - {n for n, _ in self.chain}
        if unknown:
            raise ValueError(f"Not wide inputs of the core: {', '.join(sorted(unknown))}")
        total, offset = 0, 0
        for name, width in self.chain:
            total |= (values.get(name, 0) & ((1 << width) - 1)) << offset
            offset += width
        return total

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        chain = Signal(self.chain_bits)
        fold = Signal(self.fold_width)

        # Load the wide inputs serially, most significant bit first.
        with m.If(self.shift):
            m.d.sync += chain.eq(Cat(self.sin, chain[:-1]))

        wide_out, offset = [], 0
        for name, flow, width, value in _ports(core.signature, core):
            if width == 1:
                pin = getattr(self, name)
                m.d.comb += (Value.cast(value).eq(pin) if flow == In
                             else pin.eq(Value.cast(value)))
            elif flow == In:
                m.d.comb += Value.cast(value).eq(chain[offset:offset + width])
                offset += width
            else:
                wide_out.append(Value.cast(value))

        # Fold the wide outputs; registered so that the core's output paths end in a flip-flop.
        outputs = Cat(*wide_out)
        bits = [Const(0, 1)] * self.fold_width
        for k in range(len(outputs)):
            bits[k % self.fold_width] = bits[k % self.fold_width] ^ outputs[k]
        m.d.sync += fold.eq(Cat(*bits))
        m.d.comb += self.fold.eq(fold)
        return m


class HarnessStub(wiring.Component):
    """A core of no logic with another core's signature: the harness measured alone.

    Every bit of the wide inputs (all concatenated, ``n_in`` bits) reaches the wide outputs (all
    concatenated, ``n_out`` bits): output bit ``k`` is the XOR of the input bits ``j`` with
    ``j mod n_out == k`` (input bit ``k mod n_in`` when there are fewer input than output bits),
    and every 1-bit output is a 1-bit input (round-robin; 0 when there is none). So no bit of the
    harness's shift register can be optimized away (each one reaches a fold pin), its fold and
    pins all stay alive, and harness area = area of ``MeasurementHarness(HarnessStub(sig))``.
    The stub's own XORs merge with the fold's (an AES core's 256 input bits fold into 8 pins
    through 32-input XOR trees instead of the real design's 16-input ones): the harness alone is
    over-counted by a few LUT4 per fold pin (about 48 LUT4 for an AES core on iCE40), so the
    core's LUT4 count is under-counted by as many; flip-flops are exact.

    Parameters
    ----------
    signature : wiring.Signature
        The signature of the core the harness will wrap.
    """

    def __init__(self, signature):
        super().__init__(signature)

    def elaborate(self, platform):
        m = Module()
        ports = _ports(self.signature, self)
        wide_in = Cat(*[Value.cast(v) for _, f, w, v in ports if f == In and w > 1])
        narrow_in = [Value.cast(v) for _, f, w, v in ports if f == In and w == 1]
        n_out = sum(w for _, f, w, _ in ports if f == Out and w > 1)
        k_wide = k_narrow = 0
        for _, flow, width, value in ports:
            if flow != Out:
                continue
            if width == 1:
                source = narrow_in[k_narrow % len(narrow_in)] if narrow_in else Const(0, 1)
                k_narrow += 1
                m.d.comb += Value.cast(value).eq(source)
            else:
                m.d.comb += Value.cast(value).eq(
                    Cat(*[self._output_bit(wide_in, n_out, k_wide + b) for b in range(width)]))
                k_wide += width
        return m

    @staticmethod
    def _output_bit(wide_in, n_out, k):
        if len(wide_in) <= n_out:
            return wide_in[k % len(wide_in)]
        bit = wide_in[k]
        for j in range(k + n_out, len(wide_in), n_out):
            bit = bit ^ wide_in[j]
        return bit
