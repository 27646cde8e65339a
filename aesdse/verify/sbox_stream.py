"""A standalone S-box as a stream core, for the netlist stage (issue 26).

A standalone S-box (:class:`archs.sbox_standalone.StandaloneSBox`, family ``sbox``) has plain
ports: a byte ``i`` in every cycle, its substitute ``o`` ``latency`` cycles later, and with
``direction="shared"`` a ``decrypt`` input taken with the byte. Its verify stage checks the RTL
on all 256 inputs in amaranth.sim (:mod:`aesdse.verify.verify`). The netlist stage plays
:mod:`aesdse.verify.script` scripts on stream interfaces, so the S-box is played inside
:class:`SBoxStreamAdapter`: a block input stream of one byte (and ``decrypt``), a result output
stream of one byte, and a shift register of ``latency`` valid bits beside the S-box, so that
``o.valid`` marks the cycle in which the byte that went in ``latency`` edges earlier comes out.
The netlist is the S-box alone; it is simulated inside the adapter's RTLIL, as a byte-stream
core inside its :class:`archs.bytestream.ByteStreamAdapter`
(:func:`aesdse.verify.netlist.wrapper_rtlil`). That RTLIL is made by
:meth:`SBoxStreamAdapter.around_netlist`: the adapter with an instance of the netlist's module
(:data:`aesdse.verify.netlist.WRAPPED_CORE`) in place of the S-box, connected by the S-box's
port names (``i``, ``o``, ``decrypt``, ``clk``, ``rst``). An Amaranth submodule would not do:
Amaranth names a submodule's ports after the signals behind them (the S-box's ``o`` is its
output register ``out_reg``, its ``i`` and ``decrypt`` one port of the adapter's payload), while
the synthesized netlist keeps the top-level names.

The script (:func:`sbox_script`) sends every byte 0..255 in each direction the S-box has
(SubBytes, InvSubBytes, or both for the shared S-box: ``decrypt`` 0, then 1), 256 or 512
transfers, with the input gaps of the verify stage's stalls (from the point's seed). An S-box
has no way to hold its result, so the adapter's input is always ready and its output is never
stalled (the script's ready pattern is ``"1"``). The expected bytes are FIPS-197's S-box and
inverse S-box tables (:data:`archs.prims.gf.SBOX`, :data:`archs.prims.gf.INV_SBOX`); a netlist
is checked on all 256 inputs of each direction whatever ``netlist_blocks`` says: the script is
short (the netlist budget is a count of 128-bit blocks of a cipher core).
"""

from amaranth.hdl import ClockSignal, Instance, Module, ResetSignal, Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from archs.interface import CoreSignature
from archs.prims import gf

from ..spec.schema import VerifyOptions
from .netlist import WRAPPED_CORE
from .script import InputTransfer, OutputStream, Script, script_clocks, stalls

__all__ = ["SBoxStreamAdapter", "sbox_script", "SCRIPT_SLACK_CYCLES"]

#: Edges a script allows beyond its transfers, its gaps and the S-box's latency before it counts
#: as a hang.
SCRIPT_SLACK_CYCLES = 64


class SBoxStreamAdapter(wiring.Component):
    """A standalone S-box behind a block input stream and a result output stream (module
    documentation).

    Parameters
    ----------
    core : wiring.Component or None
        The S-box: ports ``i`` (8 bits in), ``o`` (8 bits out), with ``decrypt`` (1 bit in) for
        a shared S-box; attributes ``latency`` and ``table``
        (:class:`archs.sbox_standalone.StandaloneSBox`). None: an instance of the netlist's
        module (:meth:`around_netlist`).
    latency, shared, table
        Without ``core``: the facts of the S-box the netlist was synthesized from.

    Members
    -------
    i : In(stream.Signature({"data": 8}))
        One byte per transfer, with a ``decrypt`` field for a shared S-box; always ready.
    o : Out(stream.Signature({"data": 8}))
        The substitute, ``latency`` edges after the byte was taken; ``o.ready`` is ignored.

    Attributes
    ----------
    core : wiring.Component
        The S-box, submodule ``core`` (the netlist stage's :data:`aesdse.verify.netlist.
        WRAPPED_CORE`).
    latency, table
        The S-box's.
    shared : bool
        The S-box has a ``decrypt`` input.
    """

    def __init__(self, core=None, *, latency=None, shared=None, table=None):
        self.core = core
        if core is not None:
            latency, table = core.latency, core.table
            shared = "decrypt" in core.signature.members
        self.latency, self.table, self.shared = latency, table, shared
        fields = {"data": unsigned(8)}
        if self.shared:
            fields["decrypt"] = unsigned(1)
        super().__init__(CoreSignature({
            "i": In(stream.Signature(data.StructLayout(fields))),
            "o": Out(stream.Signature(data.StructLayout({"data": unsigned(8)})))}))

    @classmethod
    def around_netlist(cls, adapter: "SBoxStreamAdapter") -> "SBoxStreamAdapter":
        """The adapter of ``adapter``'s S-box with an instance of the netlist's module
        :data:`aesdse.verify.netlist.WRAPPED_CORE` in place of the S-box (module
        documentation), for :func:`aesdse.verify.netlist.wrapper_rtlil`."""
        return cls(latency=adapter.latency, shared=adapter.shared, table=adapter.table)

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.i.ready.eq(1)
        if self.core is not None:
            m.submodules.core = core = self.core
            m.d.comb += [core.i.eq(self.i.payload.data), self.o.payload.data.eq(core.o)]
            if self.shared:
                m.d.comb += core.decrypt.eq(self.i.payload.decrypt)
        else:
            ports = {"i_i": self.i.payload.data, "o_o": self.o.payload.data,
                     "i_clk": ClockSignal(), "i_rst": ResetSignal()}
            if self.shared:
                ports["i_decrypt"] = self.i.payload.decrypt
            m.submodules.core = Instance(WRAPPED_CORE, **ports)
        valid = self.i.valid
        for stage in range(self.latency):
            registered = Signal(name=f"valid_{stage}")
            m.d.sync += registered.eq(valid)
            valid = registered
        m.d.comb += self.o.valid.eq(valid)
        return m


def sbox_script(dut: SBoxStreamAdapter, options: VerifyOptions = VerifyOptions()) -> Script:
    """The script of all 256 inputs in each direction of the S-box in ``dut`` (module
    documentation), with the input gaps of ``options``'s stalls."""
    gap, _ = stalls(options)
    if dut.shared:
        directions = ((0, gf.SBOX, "S-box"), (1, gf.INV_SBOX, "inverse S-box"))
    else:
        directions = ((None, dut.table, "inverse S-box" if dut.table == gf.INV_SBOX
                       else "S-box"),)
    items, expected, notes = [], [], []
    layout_in, layout_out = dut.i.payload.shape(), dut.o.payload.shape()
    for decrypt, table, name in directions:
        for byte in range(256):
            fields = {"data": byte} if decrypt is None else {"data": byte, "decrypt": decrypt}
            note = f"{name} of {byte:02x}"
            items.append(InputTransfer("i", gap(), layout_in.const(fields).as_bits(), note))
            expected.append(layout_out.const({"data": table[byte]}).as_bits())
            notes.append(note)
    output = OutputStream("o", tuple(expected), "1", tuple(notes), fields=(("data", 0, 8),))
    max_cycles = (sum(item.gap for item in items) + len(items) + dut.latency
                  + SCRIPT_SLACK_CYCLES)
    return Script(inputs=("i",), items=tuple(items), outputs=(output,),
                  clocks=script_clocks(dut), max_cycles=max_cycles)
