"""Round keys stored once per key: the alternative to on-the-fly expansion.

"Usually, the key is stored in a RAM and read out with the rounds" (Zhou & Gaj, seed 000 section
II.D; secworks/aes ``aes_key_mem.v``): a datapath that needs round keys out of order, in both
directions or all at once reads them from storage that a forward
:class:`archs.prims.keyexpander.KeyExpander` fills at key load.
"""

from amaranth.hdl import Cat, Module
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from .keyexpander import KeyExpander
from .keyschedule import ROUNDS

__all__ = ["RoundKeyMemory"]


class RoundKeyMemory(wiring.Component):
    """Round keys precomputed into a memory once per key, then read by round index.

    The alternative to on-the-fly expansion when a datapath needs round keys out of order or in
    both directions ("usually, the key is stored in a RAM and read out with the rounds", Zhou &
    Gaj, seed 000 section II.D; secworks/aes ``aes_key_mem.v``). A forward :class:`KeyExpander`
    of the same ``width`` writes one group per cycle (per ``1 + sbox_latency`` cycles when the
    step needs the S-box) into an :class:`amaranth.lib.memory.Memory` of
    ``(Nr_max + 1) x 128 / width`` words of ``width`` bits, which a synthesizer can put in block
    RAM (synchronous read) or LUT RAM.

    Parameters
    ----------
    width : int
        Bits per memory word and per read: 8, 32, 64 or 128.
    key_sizes : tuple of int
        As for :class:`KeyExpander`.
    sbox, sbox_stages, sbox_latency, target
        The S-boxes of the expander, as for :class:`KeyExpander`.
    read : str
        ``"sync"`` (read data one cycle after the address; block RAM) or ``"comb"``
        (asynchronous read; LUT RAM).

    Members
    -------
    key, key_bits, load
        As for :class:`KeyExpander`: ``load`` starts filling the memory with the schedule of
        ``key``.
    ready : Out(1)
        The memory holds the whole schedule of the last loaded key: low from the cycle after
        ``load`` until the last group is written, ``1 + groups + k x sbox_latency`` cycles after
        the ``load`` strobe (``groups`` as :meth:`KeyExpander.groups`, ``k`` the steps that use
        the S-box). Reads of rounds already written are correct before that.
    round : In(range(Nr_max + 1))
        Round index to read.
    part : In(range(128 // width))
        Part of the round key to read (part 0 holds byte 0).
    round_key : Out(width)
        The addressed group, one cycle after the address (``read="sync"``) or in the same cycle.
    sbox_i, sbox_o, sbox_req
        The expander's S-box ports (only with ``sbox=None``).
    """

    def __init__(self, width=128, *, key_sizes=(128,), sbox=None, sbox_stages=0,
                 sbox_latency=None, target="generic", read="sync"):
        if read not in ("sync", "comb"):
            raise ValueError(f"Read must be 'sync' or 'comb', not {read!r}")
        self.read = read
        self.expander = KeyExpander(width, key_sizes=key_sizes, sbox=sbox,
                                    sbox_stages=sbox_stages, sbox_latency=sbox_latency,
                                    target=target)
        self.width = width
        self.key_sizes = self.expander.key_sizes
        self.parts = self.expander.parts
        self.sbox = sbox
        self.sbox_count = self.expander.sbox_count
        self.sbox_latency = self.expander.sbox_latency
        ports = {
            "key": In(max(self.key_sizes)),
            "load": In(1),
            "ready": Out(1),
            "round": In(range(max(ROUNDS[k] for k in self.key_sizes) + 1)),
            "part": In(range(self.parts)),
            "round_key": Out(width),
        }
        if len(self.key_sizes) > 1:
            ports["key_bits"] = In(9)
        if sbox is None:
            ports.update(sbox_i=Out(8 * self.sbox_count), sbox_o=In(8 * self.sbox_count),
                         sbox_req=Out(1))
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        m.submodules.expander = exp = self.expander
        rounds = max(ROUNDS[k] for k in self.key_sizes) + 1
        m.submodules.mem = mem = memory.Memory(shape=self.width, depth=rounds * self.parts,
                                               init=[])

        # Address = round x parts + part; parts is a power of two, so a concatenation.
        def address(rnd, part):
            return Cat(part, rnd) if self.parts > 1 else rnd

        m.d.comb += [exp.key.eq(self.key), exp.load.eq(self.load), exp.next.eq(1)]
        if len(self.key_sizes) > 1:
            m.d.comb += exp.key_bits.eq(self.key_bits)
        if self.sbox is None:
            m.d.comb += [self.sbox_i.eq(exp.sbox_i), exp.sbox_o.eq(self.sbox_o),
                         self.sbox_req.eq(exp.sbox_req)]

        wr = mem.write_port()
        m.d.comb += [wr.addr.eq(address(exp.round, exp.part)), wr.data.eq(exp.round_key),
                     wr.en.eq(exp.valid)]
        rd = mem.read_port(domain=self.read)
        m.d.comb += [rd.addr.eq(address(self.round, self.part)), self.round_key.eq(rd.data)]

        with m.If(exp.valid & exp.last):
            m.d.sync += self.ready.eq(1)
        with m.If(self.load):
            m.d.sync += self.ready.eq(0)
        return m
