"""T-box / T^-1-box AES-128 in block RAM, encryption and decryption in one core (seed 001).

Kundi & Aziz (seed 001, section 3) compute a round of AES as sixteen 32-bit table lookups XORed per
column with the round key, keep one joint T-box/T^-1-box table per block-RAM port (the direction
bit as the top address bit), and clock the block RAM at twice the system clock so that each port
serves two lookups per system cycle: 8 block RAMs for 16 lookups become 4.

Architecture
------------
One round per round-step, the direction chosen per block (``decrypt`` field of the block input).
Decryption is FIPS-197's *equivalent inverse cipher* (section 5.3.5): the rounds are
InvSubBytes, InvShiftRows, InvMixColumns, AddRoundKey with InvMixColumns applied to the round
keys, so both directions are the same table-lookup-and-XOR network; only which state byte feeds
which lookup differs (ShiftRows vs InvShiftRows: a 2:1 byte mux on rows 1 and 3, 001's
multiplexers M1-M4).

The tables (:data:`archs.prims.tbox.ROUND_TABLE`, one per memory,
:class:`archs.prims.tbox.TBoxBank`) hold ``TE0`` and ``TD0``; the lookups of rows 1-3 rotate the
word (``Ti`` is ``T0`` rotated by ``8 i`` bits), which is wiring. The last round has no
(Inv)MixColumns. Encryption could take the S-box byte out of ``TE0`` (``TE0[x] = (2S, S, S, 3S)``),
but ``TD0[x] = (14 S', 9 S', 13 S', 11 S')`` holds no lane equal to ``S' = InvS[x]``. A DP16KD port
is 1024 x 18 in true-dual-port mode, so a 512 x 32 table in two x18 halves leaves half of each block
RAM empty: the upper half (address bit 9, "last round") holds ``(S[x], 0, 0, 0)`` and ``(InvS[x], 0,
0, 0)``. The last round then reads those entries through the same row rotations and XOR network,
with no extra logic, and fills the block RAM to 32 of its 36 bits x 1024.

The block RAM's address register is the state register: the XOR network's output goes straight
to the next round's read addresses, and the read data of round ``r`` is there one cycle after its
addresses (001's "latency of one clock cycle").

``datapath_width``
    128: 16 lookups per cycle, one round per cycle, 10 cycles per block. 64 (001's half
    datapath, which it replicates for 128 bits): 8 lookups per cycle, two output columns, two
    cycles per round, 20 cycles per block; a 128-bit state register keeps the round input for
    the second half and a 64-bit register the first half's output columns.
``interleaved_blocks``
    1: one block in the round loop, as above. 2: the DP16KD output register on
    (``REGMODE="OUTREG"``, instantiated on ECP5: Yosys never enables it), so a table read takes
    two cycles and a round two; two independent blocks (ECB: no dependency between them) take
    turns, one addressing the tables while the other's words are in the output register, which
    keeps the round loop full: 10 cycles per block, results in bursts of two every 20 cycles
    (001 section 4: "it takes 20 clock cycles to process two 128-bit data block"; seed 003
    section III.C's two streams). 3: also a register after the XOR network (three cycles a
    round, three blocks). 4: also registers between the block RAMs and the XOR network (four
    cycles a round, four blocks); with ``bram_pumping=2`` too (the block RAMs' output registers
    on the ``bram`` clock, 001's Clk2x with registered block RAMs). The block RAM's 4-6 ns
    clock-to-output leaves the loop: what
    remains in one cycle is the routes to and from the block RAMs with the XOR network and the
    address multiplexer between them (2), the route from the block RAMs and the XOR network (3),
    or one route and little logic (4). A block is taken a cycle before its slot's turn, into a
    register of its first-round addresses. The slots' control state is a ring rotating every cycle; round keys are read
    a cycle ahead into a register. Blocks of both directions mix freely; a new key waits until
    every slot has finished. 128-bit datapath only.
``bram_pumping``
    1: the tables on the system clock; ``lookups / 2`` memories. 2: on a ``bram`` clock domain
    at twice the system frequency (top-level port ``bram_clk``), two reads per port per system
    cycle; ``lookups / 4`` memories. Same cycle behaviour on the system clock.

Block RAM count on ECP5
-----------------------
A DP16KD in true-dual-port mode is at most x18 per port (512 x 36 only as the pseudo-dual-port
PDPW16KD, one read port; Lattice FPGA-DS-02012). A 32-bit table read on two ports therefore takes
two DP16KD (two x18 halves), i.e. one DP16KD gives about 36 read bits per clock where a 36 Kbit
Virtex-5/6/7 block RAM gives 64. The 16 lookups of a round need 16 DP16KD at ``bram_pumping=1``
and 8 at ``bram_pumping=2`` (001: 8 and 4 Virtex block RAMs); the half datapath 8 and 4.

``tbox_entry``
    ``"word"``: as above. ``"compressed"``: a T-box word is not 32 independent bits: an
    encryption word is ``(2s, s, s, 3s)``, so 16 bits (``s``, ``2s``) determine it, and a
    decryption word ``(14t, 9t, 13t, 11t)`` is formed from (``9t``, ``2t``) with xtime logic
    (:data:`archs.prims.tbox.COMPRESSED_TABLE`, where the split is explained). An entry is two
    bytes plus its two mode bits, 18 bits: one x18 DP16KD port returns a whole lookup, and
    the 128-bit core takes 8 DP16KD at ``bram_pumping=1`` and 4 at ``bram_pumping=2`` (001's
    4 block RAMs), the half datapath 4 and 2. The word is formed between the read data (or
    the output / capture register) and the XOR network, in the round loop.

Round keys
----------
Precomputed at key load (:class:`archs.prims.roundkeys.RoundKeyStore`) into two 11 x 128
memories with asynchronous reads (LUT RAM, so they do not take block RAM): the encryption keys
``w[0..10]`` and the decryption keys in use order, ``w[10], IMC(w[9]), ..., IMC(w[1]), w[0]``. Its
forward :class:`archs.prims.keyexpander.KeyExpander` makes one round key per step; the SubWord
S-boxes are the tables themselves (the last-round
encryption entries hold ``S[x]`` in row 0), read through the first four lookup slots while the
core is loading a key and has no block in flight, so the core has no S-box besides the block
RAMs. Blocks are held off until the memories are full: the first block is taken 23 cycles
after the key transfer.

Output
------
A two-entry output FIFO: a block is accepted only when its result will find a free entry, so the
table reads (whose data is not held by anything but the block RAM) never have to stall. Back to
back with the output always ready, the next block starts in the cycle the previous one finishes;
a result comes out 12 (128-bit) or 22 (64-bit) cycles after its block went in, two of them in
the FIFO.

Two clocks on ECP5 (``bram_pumping=2``)
-----------------------------------------
The ``bram`` domain must be edge-aligned with ``sync`` at exactly twice its frequency: one
EHXPLLL with both outputs from the same VCO, e.g. CLKOP = 2 f (the block RAMs) and CLKOS = f
(``CLKOS_DIV = 2 x CLKOP_DIV``, zero phase), with CLKOP as the feedback so the two are
phase-aligned (001 does the same with a Virtex DCM's CLK0 and CLK2X). The core finds which half
of the system cycle the block RAMs are in from a ``sync`` toggle sampled in the ``bram`` domain,
so no particular reset phase is needed. Paths between the two domains are launched and captured
on coincident edges or half a system cycle apart.

nextpnr times each clock on its own and reports an Fmax per clock. It checks a path between two
clocks only when it finds them related (one common driver; it then assumes one frequency and
a phase difference, nextpnr PR #1019); otherwise it prints the cross-domain path's delay ("Max
delay posedge bram_clk -> posedge clk") and the path in its critical-path report, and checks
nothing. This flow is out of context with ``clk`` and ``bram_clk`` as two independent ports and
one ``--freq``: nextpnr does not know they are related, constrains both to the same frequency and
leaves the cross-domain paths (the toggle sample, the registered *b* addresses, the ``sync``
registers feeding the *a* addresses, the ``bram`` data feeding the ``sync`` registers) unchecked;
a 2:1 frequency relation it would not model even for a PLL it places. The usable system clock is
computed by the metrics stage as ``min(Fmax(clk), Fmax(bram_clk) / 2)`` (``clock_multipliers``),
which covers the round loop (block-RAM output -> XOR network -> next read address, within one
``bram`` period). The cross-domain paths must fit in one ``bram`` period too: read the "Max delay"
lines of nextpnr's log (``experiments/tbox.yaml`` records them with the measured rows).

Yosys infers 16 / 8 DP16KD at pumping 1 / 2 for the 128-bit core and 8 / 4 for the 64-bit
one. An inferred DP16KD read has the block RAM's slow clock-to-output (Yosys leaves the output
register off), so the one-cycle round loop is that read plus the XOR network, on the system
clock or on the ``bram`` clock: double-pumped, the system clock is half the ``bram`` clock, and
on ECP5 double pumping halves both the block RAMs and the throughput. Using the output register
would take two cycles per round, i.e. two blocks interleaved to keep 10 cycles per block, as 001
does ("it takes 20 clock cycles to process two 128-bit data block of AES in pipelined", section
4). The measured frequencies are in ``docs/records.md``.
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import fifo, wiring

from .interface import AESSignature, column_words, value_bytes
from .params import Param, bind
from .prims.keyschedule import ROUNDS
from .prims.roundkeys import RoundKeyStore
from .prims.tbox import TABLE_ENTRIES, TBoxBank

__all__ = ["TBox"]


class TBox(wiring.Component):
    """AES-128 encryption and decryption with joint T-box/T^-1-box tables in block RAM.

    Parameters
    ----------
    bram_pumping : int
        1 or 2: block-RAM reads per port per system cycle (2: the ``bram`` domain at twice the
        system clock).
    datapath_width : int
        128 (16 lookups, one round per cycle) or 64 (8 lookups, two cycles per round).
    interleaved_blocks : int
        1: one block, the table read in one cycle. 2: the block RAM's output register on (a
        round takes two cycles) and two independent blocks in turn. 3: also a register after
        the XOR network (three cycles a round), three blocks. 4: also registers between the
        block RAMs and the XOR network, four blocks. 128-bit datapath; double-pumped, the
        output register is the block RAM's in the ``bram`` domain
        (:class:`archs.prims.tbox.TBoxBank`).
    tbox_entry : str
        ``"word"``: the tables hold 32-bit words (two DP16KD per table memory on ECP5).
        ``"compressed"``: 18-bit entries, the word formed in logic after the read data
        (:data:`archs.prims.tbox.COMPRESSED_TABLE`): one DP16KD per table memory, so 4 DP16KD
        for the double-pumped 128-bit core (001's 4 block RAMs).
    device_family : str
        Device family of the netlist: ``"ecp5"`` instantiates DP16KD with their output
        registers when ``interleaved_blocks`` > 1; otherwise the tables are inferred memories.

    Members
    -------
    key, i, o
        The common AES interface (:class:`archs.interface.AESSignature`), AES-128; the block
        input has a ``decrypt`` field (0: encrypt, the default; 1: decrypt), per block.

    Attributes
    ----------
    rounds : int
        Rounds per block (10).
    lookups : int
        Table lookups per system cycle.
    table_memories : int
        1024-entry two-read-port table memories (two DP16KD each on ECP5, one compressed).
    table_dp16kd : int
        DP16KD the table memories take on ECP5.
    clock_multipliers : dict
        ``{"bram": 2}`` when double-pumped (:mod:`archs.interface`).
    blocks_in_flight : int
        ``interleaved_blocks`` (:mod:`archs.interface`).
    fifo_depth : int
        Results the output FIFO holds.
    """

    rounds = ROUNDS[128]

    #: The design-space parameters (:mod:`archs.params`).
    PARAMS = (
        Param("bram_pumping", (1, 2), 1,
              "block-RAM reads per port per system cycle (2: block RAM on a 2x clock)",
              error="Block-RAM pumping must be 1 or 2"),
        Param("datapath_width", (64, 128), 128,
              "128: 16 lookups, a round per cycle; 64: 8 lookups, two cycles per round",
              error="Datapath width must be 64 or 128"),
        Param("interleaved_blocks", (1, 2, 3, 4), 1,
              "independent blocks in turn through the round loop: 2 = block-RAM output "
              "register on (two cycles a round), 3 = also a register after the XOR network "
              "(three), 4 = also one before it (four); 128-bit datapath only",
              omitted_at_default=True, error="Interleaved blocks must be 1, 2, 3 or 4"),
        Param("registered_key_control", (False, True), False,
              "True: the key expander's last-group and schedule-end flags in registers "
              "(archs.prims.keyexpander, registered_control; same behaviour and cycles)",
              omitted_at_default=True, error="Registered key control must be False or True"),
        Param("tbox_entry", TABLE_ENTRIES, "word",
              "word: 32-bit T-box words in block RAM (two DP16KD per table); compressed: 18-bit "
              "entries (two bytes and the mode), the word formed in logic (one DP16KD)",
              omitted_at_default=True, error="T-box entry must be 'word' or 'compressed'"),
    )

    @classmethod
    def check(cls, *, device_family="generic", **params):
        """Raise ``ValueError`` for parameters the core cannot build (the rule in words)."""
        p = bind(cls.PARAMS, params, cls.__name__)
        if p.interleaved_blocks > 1 and p.datapath_width != 128:
            raise ValueError(f"Interleaved blocks need datapath width 128, not "
                             f"{p.datapath_width!r}")

    def __init__(self, *, device_family="generic", **params):
        self.check(**params)
        p = bind(self.PARAMS, params, type(self).__name__)
        bram_pumping, datapath_width = p.bram_pumping, p.datapath_width
        interleaved_blocks = p.interleaved_blocks
        self.registered_key_control = p.registered_key_control
        self.interleaved_blocks = self.blocks_in_flight = interleaved_blocks
        # Room for every block in flight and the results still leaving the FIFO (two, as in
        # the single-block core, plus one per further slot).
        self.fifo_depth = 2 * interleaved_blocks
        self.bram_pumping = bram_pumping
        self.datapath_width = datapath_width
        self.device_family = device_family
        self.tbox_entry = p.tbox_entry
        self.lookups = datapath_width // 8
        self.parts = 128 // datapath_width
        self.table_memories = self.lookups // (2 * bram_pumping)
        self.table_dp16kd = self.table_memories * (1 if p.tbox_entry == "compressed" else 2)
        self.clock_multipliers = {"bram": 2} if bram_pumping == 2 else {}
        self.resources = {"table_lookups_per_cycle": self.lookups,
                          "table_memories": self.table_memories}
        super().__init__(AESSignature(key_sizes=(128,), block_fields={"decrypt": 1},
                                      blocks_in_flight=self.blocks_in_flight,
                                      clock_multipliers=self.clock_multipliers))

    def _addresses(self, state, columns, decrypt, last):
        """Read addresses of the lookups that compute output ``columns`` from 128-bit ``state``:
        row ``i`` of output column ``c`` reads state byte (``i``, ``c + i``) when encrypting
        (ShiftRows) and (``i``, ``c - i``) when decrypting (InvShiftRows)."""
        state_bytes = value_bytes(state)
        addresses = []
        for c in columns:
            for row in range(4):
                enc = state_bytes[4 * ((c + row) % 4) + row]
                dec = state_bytes[4 * ((c - row) % 4) + row]
                byte = enc if enc is dec else Mux(decrypt, dec, enc)
                addresses.append(Cat(byte, decrypt, last))
        return addresses

    def elaborate(self, platform):
        m = Module()
        m.submodules.tables = bank = TBoxBank(self.lookups, pumping=self.bram_pumping,
                                              output_register=self.interleaved_blocks > 1,
                                              device_family=self.device_family,
                                              entry=self.tbox_entry)
        # The decryption keys one cycle late through a register when the round loop is
        # pipelined (interleaved blocks): the expander's output through InvMixColumns into the
        # LUT RAM is otherwise the longest path of the pipelined loop.
        m.submodules.round_keys = keys = RoundKeyStore(
            128, storage="memory", read="comb", inverse_keys=True,
            inverse_write_register=self.interleaved_blocks > 1, sbox_latency=bank.latency,
            registered_control=self.registered_key_control)
        m.submodules.out_fifo = out_fifo = fifo.SyncFIFOBuffered(width=128,
                                                                 depth=self.fifo_depth)
        if self.interleaved_blocks > 1:
            self._build_interleaved(m, bank, keys, out_fifo)
            return m
        ctl = SimpleNamespace(keys_ready=Signal(name="keys_ready"), busy=Signal(name="busy"),
                              decrypt=Signal(name="decrypt"),
                              round_index=Signal(range(self.rounds + 1), name="round_index"),
                              part=Signal(range(self.parts), name="part"),
                              start=Signal(name="start"))
        first_keys, step_key = self._build_round_keys(m, keys, ctl)
        step_value = self._build_xor_network(bank.data, step_key)
        final = ctl.busy & (ctl.round_index == self.rounds) & (ctl.part == self.parts - 1)
        self._build_handshakes(m, out_fifo, ctl, final)
        result = self._build_table_addresses(m, bank, ctl, first_keys, step_value)
        self._build_key_load_lookups(m, bank, keys, ctl)
        self._build_control(m, out_fifo, ctl, final, result)
        return m

    def _build_interleaved(self, m, bank, keys, out_fifo):
        """``interleaved_blocks`` slots in turn through the round loop (001 section 4: two
        blocks in 20 cycles). The slots' control state is a ring that rotates every cycle:
        ``slots[0]`` is the slot whose lookups are addressed now (a block may start or end in
        it), ``slots[x]`` the one whose lookups are XORed now (x = 0, or 1 with the register
        after the XOR network: ``interleaved_blocks`` 3 and 4)."""
        k = self.interleaved_blocks
        slots = [SimpleNamespace(busy=Signal(name=f"slot{n}_busy"),
                                 decrypt=Signal(name=f"slot{n}_decrypt"),
                                 round_index=Signal(range(self.rounds + 1),
                                                    name=f"slot{n}_round"))
                 for n in range(k)]
        x = 0 if k == 2 else 1
        # Round keys one cycle ahead, from the slot that will be XORed next (slots[x + 1]),
        # into a register: the LUT-RAM read leaves the round loop.
        ctl = SimpleNamespace(keys_ready=Signal(name="keys_ready"), busy=Signal(name="busy"),
                              decrypt=slots[x + 1].decrypt,
                              round_index=slots[x + 1].round_index, part=0,
                              start=Signal(name="start"))
        first_keys, prefetch_key = self._build_round_keys(m, keys, ctl)
        step_key = [Signal(32, name=f"step_key{c}") for c in range(4)]
        m.d.sync += [r.eq(w) for r, w in zip(step_key, prefetch_key)]
        words = bank.data
        if k == 4:
            # The table words into fabric registers first: the route from the block RAMs to
            # the XOR network (a third of the loop's cycle at two slots) gets a cycle.
            words = [Signal(32, name=f"table_word{n}") for n in range(self.lookups)]
            m.d.sync += [w.eq(d) for w, d in zip(words, bank.data)]
        step_value = self._build_xor_network(words, step_key)
        xored = slots[x]
        m.d.comb += [out_fifo.w_data.eq(step_value),
                     out_fifo.w_en.eq(xored.busy & (xored.round_index == self.rounds))]
        # The next round's addresses of the XORed slot: straight to the block RAM (x = 0) or
        # through a register (x = 1), which the slot reads at its next addressing step.
        step_addresses = self._addresses(step_value, range(4), xored.decrypt,
                                         xored.round_index + 1 == self.rounds)
        if x:
            registered = [Signal(10, name=f"step_addr{n}") for n in range(self.lookups)]
            m.d.sync += [r.eq(a) for r, a in zip(registered, step_addresses)]
            step_addresses = registered
        self._build_slot_ring(m, out_fifo, ctl, slots, first_keys, bank, step_addresses)
        self._build_key_load_lookups(m, bank, keys, ctl)

    def _build_slot_ring(self, m, out_fifo, ctl, slots, first_keys, bank, step_addresses):
        """Handshakes, the addressing step of ``slots[0]`` and the ring's rotation.

        A block is taken a cycle before its slot's addressing step: when ``slots[1]`` (the next
        ``slots[0]``) is free or finishing and a place is left for its result (``credits``: the
        output FIFO's entries neither holding a result nor reserved by a block in flight). Its
        first-round addresses (block XOR round key 0) go into a register, so what selects the
        160 table address bits in the addressing step is a register (``starting``), not the
        handshake logic, and the multiplexer in front of the block RAM has registers on both
        inputs (with ``interleaved_blocks`` 3)."""
        head, tail, after = slots[0], slots[-1], slots[1]
        final = head.busy & (head.round_index == self.rounds)
        in_decrypt = self.i.payload.decrypt
        first_state = self.i.payload.data ^ Mux(in_decrypt, first_keys[1], first_keys[0])
        credits = Signal(range(self.fifo_depth + 1), init=self.fifo_depth, name="credits")
        starting = Signal(name="starting")
        starting_decrypt = Signal(name="starting_decrypt")
        first_addresses = [Signal(10, name=f"first_addr{n}") for n in range(self.lookups)]
        m.d.comb += [
            # A key waits for the blocks in flight and for a block taken but not started.
            ctl.busy.eq(Cat(*(s.busy for s in slots), starting).any()),
            self.key.ready.eq(~ctl.busy),
            self.i.ready.eq(ctl.keys_ready & ~self.key.valid & (credits != 0)
                            & (~after.busy | (after.round_index == self.rounds))),
            ctl.start.eq(self.i.valid & self.i.ready),
            self.o.valid.eq(out_fifo.r_rdy),
            self.o.payload.data.eq(out_fifo.r_data),
            out_fifo.r_en.eq(self.o.ready),
        ]
        m.d.sync += [
            credits.eq(credits - ctl.start + (out_fifo.r_rdy & self.o.ready)),
            starting.eq(ctl.start), starting_decrypt.eq(in_decrypt),
        ]
        m.d.sync += [r.eq(a) for r, a in
                     zip(first_addresses, self._addresses(first_state, range(4), in_decrypt, 0))]
        with m.If(starting):
            m.d.comb += [a.eq(v) for a, v in zip(bank.addr, first_addresses)]
        with m.Else():
            m.d.comb += [a.eq(v) for a, v in zip(bank.addr, step_addresses)]
        for here, nxt in zip(slots, slots[1:]):
            m.d.sync += [here.busy.eq(nxt.busy), here.decrypt.eq(nxt.decrypt),
                         here.round_index.eq(nxt.round_index)]
        m.d.sync += [tail.busy.eq(head.busy), tail.decrypt.eq(head.decrypt),
                     tail.round_index.eq(head.round_index + head.busy)]
        with m.If(starting):
            m.d.sync += [tail.busy.eq(1), tail.decrypt.eq(starting_decrypt),
                         tail.round_index.eq(1)]
        with m.Elif(final):
            m.d.sync += tail.busy.eq(0)

    def _build_round_keys(self, m, keys, ctl):
        """The round-key store (:class:`archs.prims.roundkeys.RoundKeyStore`), filled at key
        load: encryption keys in order and decryption keys of the equivalent inverse cipher
        (InvMixColumns of rounds 1..9, FIPS-197 section 5.3.5) last round first, both read by
        ``ctl.round_index``. Returns the round-0 keys of both directions (in registers) and this
        step's key columns."""
        m.d.comb += [
            keys.key.eq(self.key.payload.key),
            keys.load.eq(self.key.valid & self.key.ready),
            keys.round.eq(ctl.round_index),
            ctl.keys_ready.eq(keys.ready),
        ]
        # Round keys: the current round's from the memories, and round 0's for a block starting
        # now from registers (the two are needed in the same cycle when a block finishes and the
        # next one starts).
        first_keys = {0: keys.first_key, 1: keys.first_inverse_key}
        round_key = Mux(ctl.decrypt, keys.inverse_round_key, keys.round_key)
        step_key = column_words(round_key)
        if self.parts > 1:
            step_key = [Mux(ctl.part, step_key[2 + c], step_key[c]) for c in range(2)]
        return first_keys, step_key

    def _build_xor_network(self, words, step_key):
        """The XOR network (001 section 3): this cycle's table words, rotated into their rows,
        XORed per output column with the round key. Returns the step's output columns."""
        step_out = []
        for c in range(4 // self.parts):
            acc = step_key[c]
            for row in range(4):
                w = words[4 * c + row]
                acc = acc ^ (w.rotate_right(8 * row) if row else w)
            step_out.append(acc)
        return Cat(*reversed(step_out))

    def _build_handshakes(self, m, out_fifo, ctl, final):
        """Key, block and result streams. A block is accepted only when its result will find
        room in the output FIFO, so table reads never stall."""
        m.d.comb += [
            self.key.ready.eq(~ctl.busy),
            self.i.ready.eq(ctl.keys_ready & ~self.key.valid & (~ctl.busy | final)
                            & (out_fifo.w_level + final <= 1)),
            ctl.start.eq(self.i.valid & self.i.ready),
            self.o.valid.eq(out_fifo.r_rdy),
            self.o.payload.data.eq(out_fifo.r_data),
            out_fifo.r_en.eq(self.o.ready),
        ]

    def _build_table_addresses(self, m, bank, ctl, first_keys, step_value):
        """The next lookups' addresses: from the incoming block XOR round key 0 when a block
        starts, else from this step's output. Returns the round's 128-bit result."""
        in_decrypt = self.i.payload.decrypt
        first_state = self.i.payload.data ^ Mux(in_decrypt, first_keys[1], first_keys[0])
        next_last = ctl.round_index + 1 == self.rounds

        def read(state, columns, decrypt, last):
            return [a.eq(v) for a, v in zip(bank.addr,
                                             self._addresses(state, columns, decrypt, last))]
        if self.parts == 1:
            with m.If(ctl.start):
                m.d.comb += read(first_state, range(4), in_decrypt, 0)
            with m.Else():
                m.d.comb += read(step_value, range(4), ctl.decrypt, next_last)
            return step_value
        # Half datapath (001's 64-bit half): the round input stays in `state` for the second
        # half's lookups; the first half's output columns wait in `hold`.
        state = Signal(128)
        hold = Signal(64)
        result = Cat(step_value, hold)
        with m.If(ctl.start):
            m.d.comb += read(first_state, (0, 1), in_decrypt, 0)
            m.d.sync += state.eq(first_state)
        with m.Elif(ctl.part == 0):
            m.d.comb += read(state, (2, 3), ctl.decrypt, ctl.round_index == self.rounds)
            m.d.sync += hold.eq(step_value)
        with m.Else():
            m.d.comb += read(result, (0, 1), ctl.decrypt, next_last)
            m.d.sync += state.eq(result)
        return result

    def _build_key_load_lookups(self, m, bank, keys, ctl):
        """Key loading: the key expander's SubWord through the first four lookups (last-round
        encryption entries: S[x] in row 0), one cycle of latency; the core has no other
        S-box."""
        with m.If(~ctl.keys_ready):
            for n, b in enumerate(value_bytes(keys.sbox_i, 4)):
                m.d.comb += bank.addr[n].eq(Cat(b, 0, 1))
        m.d.comb += keys.sbox_o.eq(Cat(*reversed([bank.data[n][24:32] for n in range(4)])))

    def _build_control(self, m, out_fifo, ctl, final, result):
        """Round and half-round counters; the result goes to the output FIFO in the last
        step."""
        m.d.comb += [out_fifo.w_data.eq(result), out_fifo.w_en.eq(final)]
        with m.If(ctl.busy):
            if self.parts > 1:
                m.d.sync += ctl.part.eq(ctl.part + 1)
            with m.If(ctl.part == self.parts - 1):
                m.d.sync += ctl.round_index.eq(ctl.round_index + 1)
            with m.If(final):
                m.d.sync += ctl.busy.eq(0)
        with m.If(ctl.start):
            m.d.sync += [ctl.busy.eq(1), ctl.decrypt.eq(self.i.payload.decrypt),
                         ctl.round_index.eq(1), ctl.part.eq(0)]
