"""Round keys stored once per key: the alternative to on-the-fly expansion.

"Usually, the key is stored in a RAM and read out with the rounds" (Zhou & Gaj, seed 000 section
II.D; secworks/aes ``aes_key_mem.v``): a datapath that needs round keys out of order, in both
directions or all at once reads them from storage that a forward
:class:`archs.prims.keyexpander.KeyExpander` fills at key load. :class:`RoundKeyStore` is that
storage for every architecture that has it: a memory read by round index
(:class:`archs.tbox.TBox`, with the decryption keys of the equivalent inverse cipher beside the
encryption keys) or one register per round key, all read at once (the precomputed keys of
:class:`archs.unrolled.Unrolled`). :class:`RoundKeyChain` keeps the same registers, filled by a
walk of fixed period through a register chain, for a fully pipelined core whose round key
registers are spread over the whole chip.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from .keyexpander import KeyExpander, key_step, key_step_sub_input, window_words
from .keyschedule import ROUNDS, key_step_plan
from .mixcolumns import inv_mix_column_linear_value
from .sbox import make_sbox, sbox_latency

__all__ = ["STORAGES", "RoundKeyStore", "RoundKeyChain"]

#: Where :class:`RoundKeyStore` keeps the round keys.
STORAGES = ("memory", "registers")


def _inv_mix_columns(value):
    """InvMixColumns of a 128-bit round key (column 0 in bits 127..96, byte 0 of a column on
    top), as the equivalent inverse cipher applies it to round keys 1..Nr-1."""
    columns = [value[128 - 32 * (c + 1):128 - 32 * c] for c in range(4)]
    column_bytes = [[w[32 - 8 * (n + 1):32 - 8 * n] for n in range(4)] for w in columns]
    return Cat(*reversed([b for col in column_bytes for b in inv_mix_column_linear_value(col)]))


class RoundKeyStore(wiring.Component):
    """Round keys expanded once per key and stored: read by round index, or all at once.

    A forward :class:`archs.prims.keyexpander.KeyExpander` of the same ``width`` writes one
    group per cycle (per ``1 + sbox_latency`` cycles when the step needs the S-box) after each
    ``load``. ``storage="memory"`` keeps the groups in an :class:`amaranth.lib.memory.Memory` of
    ``(rounds + 1) x 128 / width`` words of ``width`` bits, which a synthesizer can put in block
    RAM (``read="sync"``) or LUT RAM (``read="comb"``); ``storage="registers"`` in one register
    per group, every one an output.

    Parameters
    ----------
    width : int
        Bits per group (memory word, register): 8, 32, 64 or 128.
    key_sizes : tuple of int
        As for :class:`archs.prims.keyexpander.KeyExpander`.
    rounds : int or None
        Keep round keys ``0 .. rounds`` only and stop the expansion there (a reduced-round test
        core; one key size only). Default: all ``Nr + 1`` of the largest key size.
    storage : str
        ``"memory"`` or ``"registers"`` (see above).
    read : str
        Memory only: ``"sync"`` (read data one cycle after the address) or ``"comb"``.
    inverse_keys : bool
        Memory only, width 128 and AES-128 only: a second memory with the decryption round keys
        of the equivalent inverse cipher (FIPS-197 section 5.3.5) in use order: ``w[10]``,
        InvMixColumns of round keys 9 .. 1, ``w[0]``.
    inverse_write_register : bool
        With ``inverse_keys``: the InvMixColumns result goes through a register before it is
        written (a cycle later), so the path from the expander through InvMixColumns into LUT RAM
        is cut (in :class:`archs.tbox.TBox` with interleaved blocks it is otherwise the
        longest). The last inverse key (address 0, ``w[10]``) is then written a cycle after
        ``ready`` rises: a reader that starts with :attr:`first_inverse_key` never reads it.
    sbox, sbox_stages, sbox_latency, device_family
        The S-boxes of the expander, as for :class:`archs.prims.keyexpander.KeyExpander`.
    registered_control : bool
        The expander's ``registered_control`` (same behaviour, its last-group flag in a
        register).

    Members
    -------
    key, key_bits, load
        As for :class:`archs.prims.keyexpander.KeyExpander`: ``load`` starts storing the
        schedule of ``key`` (``key_bits`` only with several key sizes).
    busy : Out(1)
        Expanding: high from the cycle after ``load`` until the last group is stored.
    ready : Out(1)
        The store holds the whole schedule of the last loaded key: low at reset and from the
        cycle after ``load`` until the last group is written, ``1 + groups + k x sbox_latency``
        cycles after the ``load`` strobe (``groups`` as
        :meth:`archs.prims.keyexpander.KeyExpander.groups`, ``k`` the steps that use the
        S-box). Reads of rounds already written are correct before that.
    round : In(range(rounds + 1))
        Memory: round index to read.
    part : In(range(128 // width))
        Memory: part of the round key to read (part 0 holds byte 0).
    round_key : Out(width)
        Memory: the addressed group, one cycle after the address (``read="sync"``) or in the same
        cycle.
    inverse_round_key : Out(128)
        With ``inverse_keys``: decryption round key ``round``, read like ``round_key``.
    first_key, first_inverse_key : Out(128)
        Memory, width 128: round key 0 of encryption (and of decryption, ``w[Nr]``, with
        ``inverse_keys``) in a register, for the initial AddRoundKey of a block that starts in
        the cycle another one reads its last round key (cheaper than a second read port).
    round_keys : Out(ArrayLayout(width, (rounds + 1) x 128 / width))
        Registers: every group, ``round x 128 / width + part``.
    sbox_i, sbox_o, sbox_req
        The expander's S-box ports (only with ``sbox=None``).
    """

    def __init__(self, width=128, *, key_sizes=(128,), rounds=None, storage="memory",
                 read="sync", inverse_keys=False, inverse_write_register=False, sbox=None,
                 sbox_stages=0, sbox_latency=None, device_family="generic",
                 registered_control=False):
        if storage not in STORAGES:
            raise ValueError(f"Storage must be 'memory' or 'registers', not {storage!r}")
        if read not in ("sync", "comb"):
            raise ValueError(f"Read must be 'sync' or 'comb', not {read!r}")
        key_sizes = tuple(key_sizes)
        # Checked before the expander exists (which checks the rest), so a bad store leaves no
        # unused elaboratable behind.
        full = max((ROUNDS.get(k, 0) for k in key_sizes), default=0)
        if rounds is not None and (len(key_sizes) > 1 or not isinstance(rounds, int)
                                   or not 1 <= rounds <= full):
            raise ValueError(f"Rounds must be an integer from 1 to {full} with one key size, "
                             f"not {rounds!r}")
        if inverse_keys and (storage != "memory" or width != 128 or key_sizes != (128,)
                             or rounds not in (None, full)):
            raise ValueError("Inverse keys need memory storage, width 128 and AES-128")
        self.expander = KeyExpander(width, key_sizes=key_sizes, sbox=sbox,
                                    sbox_stages=sbox_stages, sbox_latency=sbox_latency,
                                    device_family=device_family,
                                    registered_control=registered_control)
        self.key_sizes = self.expander.key_sizes
        self.width = width
        self.rounds = full if rounds is None else rounds
        self.storage = storage
        self.read = read
        self.inverse_keys = bool(inverse_keys)
        self.inverse_write_register = bool(inverse_write_register)
        self.parts = self.expander.parts
        self.sbox = sbox
        self.sbox_count = self.expander.sbox_count
        self.sbox_latency = self.expander.sbox_latency
        super().__init__(self._ports())

    def _ports(self):
        ports = {"key": In(max(self.key_sizes)), "load": In(1), "busy": Out(1), "ready": Out(1)}
        if len(self.key_sizes) > 1:
            ports["key_bits"] = In(9)
        if self.storage == "registers":
            ports["round_keys"] = Out(data.ArrayLayout(self.width,
                                                       (self.rounds + 1) * self.parts))
        else:
            ports.update(round=In(range(self.rounds + 1)), part=In(range(self.parts)),
                         round_key=Out(self.width))
            if self.width == 128:
                ports["first_key"] = Out(128)
            if self.inverse_keys:
                ports.update(inverse_round_key=Out(128), first_inverse_key=Out(128))
        if self.sbox is None:
            ports.update(sbox_i=Out(8 * self.sbox_count), sbox_o=In(8 * self.sbox_count),
                         sbox_req=Out(1))
        return ports

    def _address(self, rnd, part):
        # Address = round x parts + part; parts is a power of two, so a concatenation.
        return Cat(part, rnd) if self.parts > 1 else rnd

    def elaborate(self, platform):
        m = Module()
        m.submodules.expander = exp = self.expander
        m.d.comb += [exp.key.eq(self.key), exp.load.eq(self.load)]
        if len(self.key_sizes) > 1:
            m.d.comb += exp.key_bits.eq(self.key_bits)
        if self.sbox is None:
            m.d.comb += [self.sbox_i.eq(exp.sbox_i), exp.sbox_o.eq(self.sbox_o),
                         self.sbox_req.eq(exp.sbox_req)]
        if self.rounds == max(ROUNDS[k] for k in self.key_sizes):
            # The expander presents groups only from the cycle after `load` until the last one
            # is taken, which is when `busy` is high: every group is taken, no gate needed.
            m.d.comb += exp.next.eq(1)
            write = exp.valid
            done = write & exp.last
        else:
            # A reduced schedule stops the walk (`next` low) with groups still to come.
            m.d.comb += exp.next.eq(self.busy)
            write = exp.valid & self.busy
            done = write & (exp.round == self.rounds) & (exp.part == self.parts - 1)
        with m.If(self.load):
            m.d.sync += [self.busy.eq(1), self.ready.eq(0)]
        with m.Elif(done):
            m.d.sync += [self.busy.eq(0), self.ready.eq(1)]
        if self.storage == "registers":
            with m.If(write):
                with m.Switch(self._address(exp.round, exp.part)):
                    for n in range(len(self.round_keys)):
                        with m.Case(n):
                            m.d.sync += self.round_keys[n].eq(exp.round_key)
        else:
            self._build_memories(m, exp, write)
        return m

    def _build_memories(self, m, exp, write):
        """The memory of the round keys (and of the inverse ones), written as the expander
        walks, and the first-key registers."""
        depth = (self.rounds + 1) * self.parts
        m.submodules.keys = keys = memory.Memory(shape=self.width, depth=depth, init=[])
        wr = keys.write_port()
        rd = keys.read_port(domain=self.read)
        m.d.comb += [wr.addr.eq(self._address(exp.round, exp.part)), wr.data.eq(exp.round_key),
                     wr.en.eq(write), rd.addr.eq(self._address(self.round, self.part)),
                     self.round_key.eq(rd.data)]
        if self.width == 128:
            with m.If(write & (exp.round == 0)):
                m.d.sync += self.first_key.eq(exp.round_key)
        if not self.inverse_keys:
            return
        m.submodules.inverse_keys = inverse = memory.Memory(shape=128, depth=self.rounds + 1,
                                                            init=[])
        inv_wr = inverse.write_port()
        inv_rd = inverse.read_port(domain=self.read)
        addr = self.rounds - exp.round
        first_or_last = (exp.round == 0) | (exp.round == self.rounds)
        value = Mux(first_or_last, exp.round_key, _inv_mix_columns(exp.round_key))
        en = write
        if self.inverse_write_register:
            registered = (Signal.like(inv_wr.addr, name="inverse_key_addr"),
                          Signal(128, name="inverse_key_data"), Signal(name="inverse_key_en"))
            m.d.sync += [r.eq(v) for r, v in zip(registered, (addr, value, en))]
            addr, value, en = registered
        m.d.comb += [inv_wr.addr.eq(addr), inv_wr.data.eq(value), inv_wr.en.eq(en),
                     inv_rd.addr.eq(self.round), self.inverse_round_key.eq(inv_rd.data)]
        with m.If(write & (exp.round == self.rounds)):
            m.d.sync += self.first_inverse_key.eq(exp.round_key)


class RoundKeyChain(wiring.Component):
    """Round keys expanded once per key into one register per round key, delivered through a
    register chain: the precomputed keys of a fully pipelined core.

    :class:`RoundKeyStore` with ``storage="registers"`` writes every round key register straight
    from its expander, through a decoder of the expander's position; in a fully pipelined core
    those registers sit beside their round units all over the chip, so that decoder drives
    1,408 clock enables and one group drives 11 far registers, and the general expander's own
    control is a step enable of fanout 143 after four LUT4. Here every clock enable is a
    flip-flop:

    * The walk has a fixed period of ``2 + sbox_latency`` cycles, counted by a one-hot ring, so
      its step enable is a flip-flop of the ring; a ``load`` moves the ring to that bit and the
      step takes the key instead of the next window, so the step enable is the walk's only
      clock enable (with ``load`` beside it: ring bit -> LUT4 -> clock enable).
      The window holds ``Nk`` words (:func:`archs.prims.keyexpander.key_step` computes the
      next one, the step that the on-the-fly units of :class:`archs.unrolled.Unrolled` make,
      with four S-boxes of its own) and takes it from a register, a cycle after the S-boxes'
      outputs arrived, and the round constant from a register too: the window's input is a
      two-way multiplexer (key or next window), where the step's XORs and the round-constant
      decode would add three LUT4 levels.
    * Each round key enters stage 0 of the chain with a one-hot tag of its register, in the
      first cycle of its window; every stage passes value and tag on to the next each cycle,
      and register ``n`` loads from stage ``n`` when the tag says so: its clock enable is a
      flip-flop of its own stage, its data a neighbour's output.

    A walk without any clock enable (the window going round a loop of pipeline registers) is
    the alternative; it measured slower.

    Parameters
    ----------
    key_bits : int
        128, 192 or 256.
    rounds : int or None
        Keep round keys ``0 .. rounds`` (a reduced-round test core). Default: all ``Nr + 1``.
    sbox, sbox_stages, device_family
        The walk's S-boxes, as for :func:`archs.prims.sbox.make_sbox`.

    Members
    -------
    key : In(key_bits)
        The cipher key, byte 0 most significant.
    load : In(1)
        Start storing the schedule of ``key`` (a ``load`` during a walk starts over); ``key``
        is taken with it, into a register.
    busy : Out(1)
        High from the cycle after ``load`` until the last round key is in its register,
        :attr:`busy_cycles` cycles.
    ready : Out(1)
        The registers hold the whole schedule of the last loaded key (low at reset).
    done : Out(1)
        The last round key loads in this cycle (``busy`` falls after it): a consumer can keep
        its own copy of ``busy`` in a register.
    round_keys : Out(ArrayLayout(128, rounds + 1))
        Round key ``n`` in element ``n``.
    """

    def __init__(self, *, key_bits=128, rounds=None, sbox="composite", sbox_stages=0,
                 device_family="generic"):
        if key_bits not in ROUNDS:
            raise ValueError(f"Key size must be 128, 192 or 256 bits, not {key_bits!r}")
        full = ROUNDS[key_bits]
        if rounds is not None and (not isinstance(rounds, int) or not 1 <= rounds <= full):
            raise ValueError(f"Rounds must be an integer from 1 to {full}, not {rounds!r}")
        self.key_bits = key_bits
        self.rounds = full if rounds is None else rounds
        self.sbox = sbox
        self.sbox_stages = sbox_stages
        self.sbox_latency = sbox_latency(sbox, stages=sbox_stages)
        self.device_family = device_family
        super().__init__({"key": In(key_bits), "load": In(1), "busy": Out(1), "ready": Out(1),
                          "done": Out(1),
                          "round_keys": Out(data.ArrayLayout(128, self.rounds + 1))})

    @property
    def busy_cycles(self):
        """Cycles ``busy`` stays high after a ``load`` (the key is in the window a cycle after
        ``load``, the last window ``rounds`` periods after that, which then passes ``rounds +
        1`` chain stages)."""
        return self.rounds * (2 + self.sbox_latency) + self.rounds + 3

    def elaborate(self, platform):
        m = Module()
        count = self.rounds + 1
        steps = range(1, self.rounds + 1)
        period = 2 + self.sbox_latency
        window = Signal(self.key_bits, name="window")   # words w[4n .. 4n + Nk - 1]
        words = window_words(window)
        # Step number n + 1; past the walk it counts on (and wraps) where no step matches.
        next_step = Signal(range(self.rounds + 2))
        emit = Signal(count, name="emit")               # one-hot n; 0 when the walk is over
        ring = Signal(period, name="ring", init=1)      # one-hot cycle of the period

        # The round constant of step next_step, and of the step after it (for the update).
        constants = {r: (key_step_plan(self.key_bits, r) or (0, 0, 0))[2] for r in steps}
        rcon = Signal(8, name="rcon")
        rcon_after = Signal(8, name="rcon_after")
        # (Decoded from next_step itself, the cases one lower: `next_step + 1` would put a
        # carry chain of 2-3 CCU2C before the decode.)
        with m.Switch(next_step):
            for r, value in constants.items():
                with m.Case(r - 1):
                    m.d.comb += rcon_after.eq(value)

        sub_in = key_step_sub_input(m, "walk", self.key_bits, words, next_step, steps)
        sub_out = None
        if sub_in is not None:
            sub_out = []
            for n, byte in enumerate(sub_in):
                sb = make_sbox(self.sbox, stages=self.sbox_stages,
                               device_family=self.device_family)
                m.submodules[f"sbox{n}"] = sb
                m.d.comb += sb.i.eq(byte)
                sub_out.append(sb.o)
        new_window = Signal(self.key_bits, name="new_window")
        m.d.sync += new_window.eq(Cat(*reversed(key_step(
            m, "walk", self.key_bits, words, sub_out, next_step, steps, rcon=rcon))))

        # The window is fresh in the ring's first cycle; the S-box outputs for it are there
        # ``sbox_latency`` cycles later, the next window a cycle after them, in the ring's last
        # cycle, when the window steps. Nothing stops the walk: past the last round key it
        # steps on through windows nobody stores (the one-hot ``emit`` has shifted out), so no
        # "running" flag enters a clock enable, which is ``load`` or the ring's last bit alone.
        # A load does not write the walk's registers itself: it sets ``loading`` and moves the
        # ring to its last bit, and the next step takes the key instead of the next window,
        # so every clock enable of the walk is that ring bit alone, a flip-flop.
        first, step = ring[0], ring[period - 1]
        loading = Signal(name="loading")
        key = Signal(self.key_bits, name="key_held")
        with m.If(self.load):
            m.d.sync += [ring.eq(1 << (period - 1)), loading.eq(1), key.eq(self.key)]
        with m.Else():
            m.d.sync += ring.eq(ring.rotate_left(1))
            with m.If(step):
                m.d.sync += loading.eq(0)
        with m.If(step):
            m.d.sync += [window.eq(Mux(loading, key, new_window)),
                         next_step.eq(Mux(loading, 1, next_step + 1)),
                         emit.eq(Mux(loading, 1, emit.shift_left(1))),
                         rcon.eq(Mux(loading, constants[1], rcon_after))]

        tag = Signal(count, name="chain_tag_in")
        m.d.comb += tag.eq(Mux(first, emit, 0))
        value = window[self.key_bits - 128:]            # round key n: the first four words
        for n in range(count):
            # Stage n keeps only the tag bits of registers n and later: the others have passed.
            stage_value = Signal(128, name=f"chain{n}_value")
            stage_tag = Signal(count - n, name=f"chain{n}_tag")
            m.d.sync += [stage_value.eq(value), stage_tag.eq(tag)]
            with m.If(stage_tag[0]):
                m.d.sync += self.round_keys[n].eq(stage_value)
            value, tag = stage_value, stage_tag[1:]
        m.d.comb += self.done.eq(stage_tag[0])          # the last register loads
        with m.If(self.load):
            m.d.sync += [self.busy.eq(1), self.ready.eq(0)]
        with m.Elif(self.done):
            m.d.sync += [self.busy.eq(0), self.ready.eq(1)]
        return m
