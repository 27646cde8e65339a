"""The round datapath of :class:`archs.compact.Compact`: SubBytes, MixColumns, AddRoundKey and
the write-back of one step (000 Table I).

One S-box per datapath byte reads the state memory (:mod:`archs.compact.state_memory`); ``L``
cycles later the load step takes the block bytes instead, round 10 skips MixColumns, and the
result is written back into the state memory, or in round 10 handed out.

The 8-bit MixColumns buffer (000 Fig. 14) is a three-byte shift register: S-box bytes enter
every cycle; when the fourth byte of a column arrives, MixColumns of the three buffered bytes and
that byte gives the output byte 0 at once and reloads the buffer with output bytes 1-3, which
leave one per cycle while the next column enters behind them. Every byte therefore comes out
exactly three cycles after it went in, with or without MixColumns. The serial MixColumns keeps
that timing with one output byte per cycle (package notes, "Serial MixColumns").
"""

from amaranth.hdl import Cat, Mux, Signal

from ..interface import bytes_value, value_bytes
from ..prims.gf import xtime_value
from ..prims.mixcolumns import MixColumn
from ..prims.sbox import make_sbox
from .timing import AES128_ROUNDS

__all__ = ["Datapath"]


class Datapath:
    """The round datapath and the write-back of :class:`archs.compact.Compact` (a part of it).

    Builds on the core's parameters (``datapath_width``, ``steps_per_round``, ``mode``,
    ``port_width``, ``mixcolumns``, ``key_sbox``, ``sbox``, ``sbox_stages``,
    ``device_family``) and ports (``i``, ``o``). Records in ``_built`` what
    :attr:`archs.compact.Compact.resources` reads of the built datapath.
    """

    def _build_round_datapath(self, m, wires, read_data):
        """The round datapath: SubBytes, MixColumns and AddRoundKey of one step (000 Table I).

        One S-box per datapath byte reads the state memory; ``L`` cycles later, at the S-box
        output stage, the load step takes the block bytes instead (``block ^ key``), round 10
        skips MixColumns, and the other rounds go through the MixColumns units
        (:meth:`_build_mixcolumns_buffer` at 8 bits, :meth:`_build_mixcolumns` otherwise).
        Returns the AddRoundKey result of the write-back stage, ``width`` bits.
        """
        width = self.datapath_width
        nbytes = width // 8
        src_block = wires.counter if self.mode == "ctr" else self.i.payload.data
        sub = []
        for q in range(nbytes):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, device_family=self.device_family)
            m.submodules[f"sbox{q}"] = sb
            if self.key_sbox == "shared":
                # The key schedule's lookups fall in the wait before a round-step, when no
                # step reads the S-box (package notes, "One S-box").
                kx = wires.kx
                m.d.comb += [sb.i.eq(Mux(kx.lookup, kx.sbox_i, read_data[q])),
                             kx.sbox_o.eq(sb.o)]
            else:
                m.d.comb += sb.i.eq(read_data[q])
            sub.append(sb.o)
        # Block bytes of the load step, in natural order, at the S-box output stage (the step
        # count is a power of two, so ~step is the word index counted from the right).
        if self.port_width == 8:
            block_bytes = [self.i.payload.data]     # taken at issue (S-box latency 0)
        else:
            block_bytes = value_bytes(src_block.word_select(~wires.ss, width), nbytes)

        pre_ark = [Signal(8, name=f"pre_ark{q}") for q in range(nbytes)]
        if nbytes == 1 and self.mixcolumns == "serial":
            buffer_bits = self._build_mixcolumns_serial(m, wires, sub[0], block_bytes[0],
                                                        pre_ark[0])
        elif nbytes == 1:
            buffer_bits = self._build_mixcolumns_buffer(m, wires, sub[0], block_bytes[0],
                                                        pre_ark[0])
        else:
            buffer_bits = self._build_mixcolumns(m, wires, sub, block_bytes, pre_ark)

        ark = Signal(width)
        m.d.comb += ark.eq(bytes_value(pre_ark) ^ bytes_value(wires.key_bytes))
        self._built = {"buffer_bits": buffer_bits, "addroundkey_width": len(ark)}
        return ark

    def _build_mixcolumns_buffer(self, m, wires, sub, block_byte, pre_ark):
        """The byte-serial MixColumns buffer of the 8-bit datapath (000 Fig. 14).

        A three-byte shift register (module notes): every byte leaves it exactly three cycles
        after it entered, mixed or not, so the pipeline keeps its fixed depth. Drives
        ``pre_ark`` (the byte before AddRoundKey); returns the buffer's size in bits.
        """
        sr, ss = wires.sr, wires.ss
        buf = [Signal(8, name=f"buf{n}") for n in range(3)]
        x = Signal(8)
        m.d.comb += x.eq(Mux(sr == 0, block_byte, sub))
        m.submodules.mix0 = mix = MixColumn()
        m.d.comb += [mix.i[n].eq(buf[n]) for n in range(3)] + [mix.i[3].eq(x)]
        mixing = wires.sv & (sr != 0) & (sr != AES128_ROUNDS) & (ss[0:2] == 3)
        with m.If(mixing):
            m.d.comb += pre_ark.eq(mix.o[0])
            m.d.sync += [buf[n].eq(mix.o[n + 1]) for n in range(3)]
        with m.Else():
            m.d.comb += pre_ark.eq(buf[0])
            m.d.sync += [buf[0].eq(buf[1]), buf[1].eq(buf[2]), buf[2].eq(x)]
        return 24

    def _build_mixcolumns_serial(self, m, wires, sub, block_byte, pre_ark):
        """Byte-serial MixColumns, one output byte per cycle (package notes, "Serial MixColumns").

        A six-byte delay line behind the entering byte ``d0``: output byte ``k`` of a column
        leaves three cycles after input byte ``k`` entered, as with the parallel buffer, and is
        ``a_k ^ t ^ xtime(a_k ^ a_(k+1))``: ``a_k`` is ``d3``, ``a_(k+1)`` is ``d2`` (``d6``,
        i.e. ``a_0``, for ``k = 3``), and the column sum ``t`` is formed when ``k = 0`` and held
        for the other three bytes. Drives ``pre_ark``; returns the register bits (delay line and
        held sum).
        """
        sr, wr, ws = wires.sr, wires.wr, wires.ws
        d = [Signal(8, name="mc_in")] + [Signal(8, name=f"mc_d{n}") for n in range(1, 7)]
        m.d.comb += d[0].eq(Mux(sr == 0, block_byte, sub))
        m.d.sync += [d[n].eq(d[n - 1]) for n in range(1, 7)]
        k = ws[0:2]
        held = Signal(8, name="mc_sum")
        total = Signal(8, name="mc_total")
        m.d.comb += total.eq(Mux(k == 0, d[0] ^ d[1] ^ d[2] ^ d[3], held))
        m.d.sync += held.eq(total)
        pair = Signal(8, name="mc_pair")      # a_k ^ a_(k+1)
        m.d.comb += pair.eq(d[3] ^ Mux(k == 3, d[6], d[2]))
        mixed = d[3] ^ total ^ xtime_value(pair)
        m.d.comb += pre_ark.eq(Mux((wr != 0) & (wr != AES128_ROUNDS), mixed, d[3]))
        return 6 * 8 + 8

    def _build_mixcolumns(self, m, wires, sub, block_bytes, pre_ark):
        """MixColumns units of the 32- and 64-bit datapaths: one per column of the step.

        Drives ``pre_ark`` per byte: the block byte in the load step, the S-box output in round
        10 (no MixColumns), the mixed column otherwise. Returns 0 (no buffer bits).
        """
        nbytes = self.datapath_width // 8
        sr = wires.sr
        mixed = []
        for c in range(nbytes // 4):
            mix = MixColumn()
            m.submodules[f"mix{c}"] = mix
            m.d.comb += [mix.i[n].eq(sub[4 * c + n]) for n in range(4)]
            mixed += [mix.o[n] for n in range(4)]
        for q in range(nbytes):
            with m.If(sr == 0):
                m.d.comb += pre_ark[q].eq(block_bytes[q])
            with m.Elif(sr == AES128_ROUNDS):
                m.d.comb += pre_ark[q].eq(sub[q])
            with m.Else():
                m.d.comb += pre_ark[q].eq(mixed[q])
        return 0

    def _build_write_back(self, m, wires, mems, write_route, ark):
        """Write-back of a step: the state memory in round-steps 0-9, the output in round 10.

        Round 10 shifts its bytes into the 128-bit output register (in CTR mode XORed with the
        plaintext, which is held on the input until its transfer completes with the last byte),
        which becomes valid with the last step of the round.
        """
        width = self.datapath_width
        nbytes = width // 8
        steps = self.steps_per_round
        wv, wr, ws = wires.wv, wires.wr, wires.ws
        out_data, out_valid = wires.out_data, wires.out_valid
        w_lane, w_par = write_route
        ark_bytes = value_bytes(ark, nbytes)

        # Write-back: the state memory in round-steps 0-9, the output register in round 10.
        we = wv & (wr != AES128_ROUNDS)
        for lane, (_, wport) in enumerate(mems):
            if w_par is None:
                wdata = ark_bytes[w_lane.index(lane)]
            else:
                row, p = lane // 2, lane % 2
                wdata = Mux(w_par[row] == p, ark_bytes[row], ark_bytes[row + 4])
            m.d.comb += [wport.data.eq(wdata), wport.en.eq(we)]

        if self.port_width == 8:
            # Round 10 bytes leave as they are computed; one not taken stalls the core.
            m.d.comb += [self.o.valid.eq(wv & (wr == AES128_ROUNDS)), self.o.payload.data.eq(ark),
                         wires.stall.eq(self.o.valid & ~self.o.ready)]
            return
        result = ark
        if self.mode == "ctr":
            # The plaintext is held on the input (its transfer completes with the last byte).
            result = ark ^ self.i.payload.data.word_select(~ws, width)
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(wv & (wr == AES128_ROUNDS)):
            m.d.sync += out_data.eq(Cat(result, out_data[:128 - width]))
            with m.If(ws == steps - 1):
                m.d.sync += out_valid.eq(1)
        m.d.comb += [self.o.valid.eq(out_valid), self.o.payload.data.eq(out_data)]
