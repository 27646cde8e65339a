"""The round of :class:`archs.multimode.Multimode`: its inputs, the encryption and decryption
round, the key control, a block's registers, the whitening and the CTR counter.
"""

from amaranth.hdl import Cat, Mux, Signal

from ..interface import bytes_value, value_bytes
from ..prims import gf
from ..prims.mixcolumns import (affine_mix_column_value, inv_affine_inv_mix_column_value,
                                inv_mix_column_value, mix_column_value)
from ..prims.sbox import SharedSBox
from .modes import COUNTER_SEGMENTS, Mode
from .values import bytewise, columns, low_ones_flags, shifted_rows

__all__ = ["Round"]


class Round:
    """The round, key control and block registers of :class:`archs.multimode.Multimode` (a
    part of it: the methods read the core's options and ports)."""

    def _round_inputs(self, m, lanes, slot, pair, follower=None):
        """What the round datapath works on: the state entering the S-boxes and its direction
        (stage 1), the direction, round key and last-round flag of the block in stage 2. One
        stream: all of the one block. Two streams: stage 1 holds the block of the stream whose
        turn is next, stage 2 the block whose turn it is; a slot lent to a CCM pair enciphers
        with the key and last-round flag its owner had the cycle before."""
        if slot is None:
            (reg,) = lanes
            return reg.state, reg.decrypt, reg.decrypt, reg.keys.round_key, reg.keys.last
        if follower is not None:
            # Pipelined round: the leader's turn is slot 0; the follower repeats the leader's
            # step a cycle later, with the round key and last-round flag the leader had then.
            # The two blocks share the state register: a block's stage 2 writes it and the same
            # block's stage 1 reads it in the next cycle (the other block is then in stage 2).
            # Stage 2 takes the key group and last-round flag from registers that copy the
            # expander's every cycle. That is what the follower needs (the leader's of the
            # cycle before), and also what the leader needs: the expander steps only in the
            # leader's turns, and a whitening waits a cycle after a restart of the walk
            # (`walk_ready`, _registered_restart), so in every turn of the leader in which it
            # whitens or steps the copy equals the expander's group.
            (reg,) = lanes
            m.d.sync += [follower.key.eq(reg.keys.round_key), follower.last.eq(reg.keys.last)]
            return reg.state, follower.decrypt, follower.decrypt, follower.key, follower.last
        state, sbox_decrypt = Signal(128, name="stage1_state"), Signal(name="stage1_decrypt")
        decrypt, rk, last = (Signal(name="stage2_decrypt"), Signal(128, name="stage2_key"),
                             Signal(name="stage2_last"))
        first, second = lanes
        own_key = Mux(slot, second.keys.round_key, first.keys.round_key)
        own_last = Mux(slot, second.keys.last, first.keys.last)
        stage2_lent = pair.active & (pair.owner != slot)
        m.d.comb += [
            state.eq(Mux(slot, first.state, second.state)),
            sbox_decrypt.eq(Mux(slot, first.decrypt, second.decrypt)
                            & ~(pair.active & (pair.owner == slot))),
            decrypt.eq(Mux(slot, second.decrypt, first.decrypt) & ~stage2_lent),
            rk.eq(Mux(stage2_lent, pair.key, own_key)),
            last.eq(Mux(stage2_lent, pair.last, own_last)),
        ]
        m.d.sync += [pair.key.eq(own_key), pair.last.eq(own_last)]
        return state, sbox_decrypt, decrypt, rk, last

    def _build_round(self, m, lanes, slot, pair, follower=None):
        """One round: shared S-boxes, (Inv)ShiftRows, then MixColumns before or InvMixColumns
        after AddRoundKey; the last round has neither. Two streams: a register after the
        inverters (003 section III.C) splits it into two stages, each holding one stream's
        block. Returns the round's (stage 2's) output."""
        state, sbox_decrypt, decrypt, rk, last = self._round_inputs(m, lanes, slot, pair,
                                                                    follower)
        sub = []
        if follower is not None:
            # (Inv)ShiftRows before the S-boxes (it commutes with the bytewise S-box), so that
            # stage 2 starts at the inverter register with the bytes in place. A block whitened
            # in the cycle before starts from the whitening's own register, shifted already
            # (_build_block_registers), so that stage 2 writes the state without a multiplexer.
            shifted_in = Signal(128, name="stage1_shifted")
            m.d.comb += shifted_in.eq(Mux(follower.from_white, follower.white,
                                          shifted_rows(value_bytes(state), sbox_decrypt)))
            state = shifted_in
        for n, byte in enumerate(value_bytes(state)):
            sb = SharedSBox(self.sbox, inverter_register=slot is not None,
                            affine=not self.affine_retimed, device_family=self.device_family)
            m.submodules[f"sbox{n}"] = sb
            m.d.comb += [sb.i.eq(byte), sb.decrypt.eq(sbox_decrypt)]
            sub.append(sb.o)
        shifted = Signal(128)
        if follower is not None:
            m.d.comb += shifted.eq(bytes_value(sub))
        else:
            m.d.comb += shifted.eq(shifted_rows(sub, decrypt))
        added = Signal(128)
        m.d.comb += added.eq(shifted ^ rk)
        round_out = Signal(128)
        dec_mix = (inv_affine_inv_mix_column_value if self.affine_retimed
                   else inv_mix_column_value)
        decrypted = columns(added, dec_mix)
        if follower is not None:
            # Pipelined round: the state takes the output of a middle round (it is not read
            # after the last one), the result registers that of the last round, each without
            # the other's multiplexer.
            encrypted = (columns(shifted, affine_mix_column_value) if self.affine_retimed
                         else columns(shifted, mix_column_value)) ^ rk
            final = (Mux(decrypt, shifted, bytewise(shifted, gf.affine)) if self.affine_retimed
                     else shifted) ^ rk
            follower.final_out = Signal(128, name="last_round_out")
            m.d.comb += [round_out.eq(Mux(decrypt, decrypted, encrypted)),
                         follower.final_out.eq(final)]
            return round_out
        if self.affine_retimed:
            # 003 section III.B, Fig. 8(b): the S-boxes are bare inverters. Encryption: the
            # affine map commutes with ShiftRows and merges with MixColumns; decryption keeps
            # the state in the inverse-affine domain (the inverse affine map moved out of the
            # round, to the whitening cycle) and merges it with InvMixColumns. The last round
            # has no MixColumns: the affine map alone (encryption), nothing (decryption).
            with m.If(last):
                m.d.comb += round_out.eq(Mux(decrypt, shifted, bytewise(shifted, gf.affine))
                                         ^ rk)
            with m.Elif(decrypt):
                m.d.comb += round_out.eq(decrypted)
            with m.Else():
                m.d.comb += round_out.eq(columns(shifted, affine_mix_column_value) ^ rk)
            return round_out
        with m.If(last):
            m.d.comb += round_out.eq(added)
        with m.Elif(decrypt):
            m.d.comb += round_out.eq(decrypted)
        with m.Else():
            m.d.comb += round_out.eq(columns(shifted, mix_column_value) ^ rk)
        return round_out

    def _build_chaining_input(self, m, reg):
        """The chaining input of the whitening cycle (SP 800-38A section 6, SP 800-38C 6.1).
        Returns the chain value this block uses (IV or kept chain), the block the cipher starts
        from, and the counter block the one incrementer steps (CTR's chain, CCM's counter)."""
        chain_in = Mux(reg.first, reg.iv, reg.chain)
        cipher_in = Signal(128)
        counter = Signal(128)
        m.d.comb += counter.eq(chain_in)
        with m.Switch(reg.mode):
            with m.Case(Mode.CBC):
                m.d.comb += cipher_in.eq(Mux(reg.decrypt, reg.data_in, reg.data_in ^ chain_in))
            with m.Case(Mode.CTR):
                m.d.comb += cipher_in.eq(chain_in)
            with m.Case(Mode.CCM):
                self._build_ccm_input(m, reg, cipher_in, counter)
            with m.Default():
                m.d.comb += cipher_in.eq(reg.data_in)
        return chain_in, cipher_in, counter

    def _build_key_control(self, m, keys, reg, accept, round_step, mac_start, follower=None):
        """Key expander: a load walks to the last round key (reverse=1 keeps it), each block
        restarts the walk in its direction, a CCM payload block's MAC pass forwards."""
        load = self.key.valid & self.key.ready
        if self.streams > 1:
            load = load & (self.key.payload.stream == reg.index)
        key, key_bits, taken = self.key.payload.key, None, load
        if len(self.key_sizes) > 1:
            key_bits = self.key.payload.key_bits
        if follower is not None:
            # Pipelined round: the key transfer goes to registers, and the expander loads from
            # them a cycle later, so that the handshake does not reach its clock enables.
            load = Signal(name="key_load")
            key = Signal(len(self.key.payload.key), name="key_in")
            m.d.sync += [load.eq(taken), key.eq(self.key.payload.key)]
            if key_bits is not None:
                key_bits = Signal(len(self.key.payload.key_bits), name="key_bits_in")
                m.d.sync += key_bits.eq(self.key.payload.key_bits)
            start, reverse = self._registered_restart(m, keys, reg, follower, accept, load)
        else:
            start, reverse = accept | mac_start, ~mac_start & self._block_decrypt()
        if key_bits is not None:
            m.d.comb += keys.key_bits.eq(key_bits)
        m.d.comb += [
            keys.key.eq(key),
            keys.load.eq(load),
            keys.start.eq(start),
            keys.reverse.eq(Mux(load, 1, reverse)),
            keys.next.eq(reg.whitening | round_step),
        ]
        loaded = reg.key_pending & keys.valid
        if follower is not None:
            loaded = loaded & ~load     # the walk's `valid` of the old key, before the load
        with m.If(taken):
            m.d.sync += reg.key_pending.eq(1)
        with m.Elif(loaded):
            m.d.sync += reg.key_pending.eq(0)

    def _registered_restart(self, m, keys, reg, follower, accept, load):
        """Pipelined round: the key walk restarts from registers (``start``, ``reverse``),
        decided a cycle ahead, so that no block handshake reaches the expander's window. A
        pass's last round restarts the walk in the pass's direction (a CCM payload block's
        CTR pass: forwards, for its MAC pass); a block taken then or later that goes the
        other way restarts it once more, a cycle after it is taken. The walk is ready for the
        waiting block (``walk_ready``) when it was restarted (or loaded, which ends reverse)
        in the block's direction a cycle ago at least and has not stepped since."""
        start, reverse = Signal(name="key_restart"), Signal(name="key_restart_reverse")
        fresh, walk_reverse = Signal(name="key_walk_fresh"), Signal(name="key_walk_reverse")
        last_turn = ~reg.turn & reg.busy & keys.last        # the pass ends in the next cycle
        mac_next = last_turn & reg.two_pass
        block_reverse = self._block_decrypt()
        fresh_after = start | fresh
        reverse_after = Mux(start, reverse, walk_reverse)
        again = accept & ~(fresh_after & (reverse_after == block_reverse))
        m.d.sync += [start.eq(last_turn | again),
                     reverse.eq(Mux(again, block_reverse, ~mac_next & follower.decrypt))]
        with m.If(load):
            m.d.sync += [fresh.eq(1), walk_reverse.eq(1)]
        with m.Elif(start):
            m.d.sync += [fresh.eq(1), walk_reverse.eq(reverse)]
        with m.Elif(reg.whitening):
            m.d.sync += fresh.eq(0)
        m.d.comb += follower.walk_ready.eq(fresh & (walk_reverse == reg.decrypt) & ~start)
        return start, reverse

    def _block_decrypt(self):
        """Direction of the offered block's cipher: CTR and CCM always encipher (003 Table
        I)."""
        mode = self.i.payload.mode
        return self.i.payload.decrypt & (mode != Mode.CTR) & (mode != Mode.CCM)

    def _build_block_registers(self, m, keys, reg, accept, round_step, round_out, chain_in,
                               cipher_in, counter, follower=None):
        """Accept a block, whiten it and form the chaining registers, step the rounds and
        write the result (and the CBC encryption chain) in the last round. Pipelined round:
        the block registers also take a follower, which whitens in the next cycle, with the
        round key the leader had (:meth:`_build_follower`)."""
        rk, whitening = keys.round_key, reg.whitening
        counter_next = ccm_counter_next = counter + 1
        chain_ones = None
        if follower is not None:
            counter_next, ccm_counter_next, chain_ones = self._pair_counters(m, reg, chain_in)
            # The leader whitens its registered cipher input, the follower (ECB, CTR or CBC
            # decryption) its data or counter, each with the round key of stage 2 (the
            # leader's whitening is in its turn, the follower's in the next cycle).
            m.d.sync += follower.cipher.eq(cipher_in)
            cipher_in = Mux(follower.whiten, Mux(reg.mode == Mode.CTR, chain_in, reg.data_in),
                            follower.cipher)
            rk, whitening = follower.key, reg.whitening | follower.whiten
        entering = cipher_in ^ rk
        if self.affine_retimed:
            # Decryption's state is kept in the inverse-affine domain (003 section III.B).
            entering = Mux(reg.decrypt, bytewise(entering, gf.inv_affine), entering)
        with m.If(whitening):
            self._build_whitening(m, reg, follower, entering, chain_in, counter, counter_next,
                                  ccm_counter_next, chain_ones)
        if follower is None:
            with m.If(round_step & ~keys.last):
                m.d.sync += reg.state.eq(round_out)
        else:
            # In a turn where the leader may whiten, its slot holds no block in the rounds,
            # so stage 1 may take `entering` even when the whitening waits for room.
            # Stage 1 reads `follower.white` in the cycle after a whitening (_build_round).
            m.d.sync += [reg.state.eq(round_out),
                         follower.white.eq(shifted_rows(value_bytes(entering), reg.decrypt)),
                         follower.from_white.eq(follower.whiten_turn | follower.whiten)]
            round_out = follower.final_out      # the last round's output (_build_round)
        ccm_pass, cbc_encrypt = reg.mode == Mode.CCM, (reg.mode == Mode.CBC) & ~reg.decrypt
        if follower is not None:
            # A leader that can be followed leaves its block registers to the next block
            # at its whitening: the last round reads its kind from registers of the pass.
            ccm_pass, cbc_encrypt = follower.pass_ccm, follower.pass_cbc_encrypt
        with m.If(round_step & keys.last):
            m.d.sync += reg.busy.eq(0)
            with m.If(ccm_pass):
                self._build_ccm_result(m, reg, round_out)
            with m.Else():
                m.d.sync += [reg.out_data.eq(round_out ^ reg.post), reg.out_valid.eq(1),
                             reg.out_tag_mismatch.eq(0)]
            with m.If(cbc_encrypt):
                m.d.sync += reg.chain.eq(round_out)

        taken = accept if follower is None else follower.may_take
        with m.If(taken):
            p = self.i.payload
            m.d.sync += [reg.data_in.eq(p.data), reg.iv.eq(p.iv), reg.first.eq(p.first),
                         reg.mode.eq(p.mode), reg.decrypt.eq(self._block_decrypt()),
                         reg.ccm_phase.eq(p.ccm_phase), reg.pad_bytes.eq(p.pad_bytes),
                         reg.ccm_decrypt.eq(p.decrypt)]
            if follower is None:
                m.d.sync += reg.whiten.eq(1)
            else:
                m.d.sync += reg.iv_ones.eq(low_ones_flags(p.iv))
        if follower is not None:
            with m.If(accept):
                m.d.sync += reg.whiten.eq(1)
            m.d.sync += follower.whiten.eq(follower.accept)

    def _pair_counters(self, m, reg, chain_in):
        """Pipelined round: the incrementers of the whitening, ``(CTR's next counter, CCM's
        next counter, the chain's carry flags)``.

        An incrementer each for CTR (the IV or the chain) and CCM (the running counter: a
        payload block never starts a message), so that neither has the other's input selection,
        nor CCM's counter-block formatting from B0, before its carry chain. The CTR one is four
        32-bit carry chains side by side: segment k adds a registered flag, "the bits below
        segment k are all ones", of the IV (written with it) or of the chain (recomputed from
        the register a cycle after it changed, which is soon enough but for a CTR follower: its
        leader's whitening writes the flags with the chain, decoded from the leader's counter,
        in :meth:`_build_whitening`; no other whitening is followed at once by one that
        counts)."""
        reg.iv_ones = Signal(COUNTER_SEGMENTS - 1, name="iv_low_ones")
        chain_ones = Signal(COUNTER_SEGMENTS - 1, name="chain_low_ones")
        m.d.sync += chain_ones.eq(low_ones_flags(reg.chain))
        carries = Cat(1, Mux(reg.first, reg.iv_ones, chain_ones))
        counter_next = Cat(*[(chain_in[32 * k:32 * k + 32] + carries[k])[:32]
                             for k in range(COUNTER_SEGMENTS)])
        return counter_next, reg.ccm_ctr + 1, chain_ones

    def _build_whitening(self, m, reg, follower, entering, chain_in, counter, counter_next,
                         ccm_counter_next, chain_ones):
        """The whitening cycle's register updates (inside its condition): the state (one
        stream), the XOR-in of the result (``post``), the chain and CCM's registers."""
        post = reg.post
        if follower is not None:
            with m.If(follower.whiten):
                m.d.sync += [follower.whiten.eq(0), follower.busy.eq(1)]
            with m.Else():
                m.d.sync += [reg.whiten.eq(0), reg.busy.eq(1),
                             follower.decrypt.eq(reg.decrypt),
                             follower.pass_ccm.eq(reg.mode == Mode.CCM),
                             follower.pass_cbc_encrypt.eq((reg.mode == Mode.CBC)
                                                          & ~reg.decrypt)]
            post = Signal(128, name="whitening_post")
            with m.If(follower.whiten):
                m.d.sync += follower.post.eq(post)
            with m.Else():
                m.d.sync += reg.post.eq(post)
            m.d.comb += post.eq(0)
            post_domain = m.d.comb
        else:
            m.d.sync += [reg.state.eq(entering), reg.whiten.eq(0), reg.busy.eq(1)]
            post_domain = m.d.sync
        with m.Switch(reg.mode):
            with m.Case(Mode.CBC):
                post_domain += post.eq(Mux(reg.decrypt, chain_in, 0))
                with m.If(reg.decrypt):
                    m.d.sync += reg.chain.eq(reg.data_in)
            with m.Case(Mode.CTR):
                post_domain += post.eq(reg.data_in)
                m.d.sync += reg.chain.eq(counter_next)
                if follower is not None:
                    m.d.sync += chain_ones.eq(low_ones_flags(chain_in, after_increment=True))
            with m.Case(Mode.CCM):
                self._build_ccm_whitening(m, reg, counter, ccm_counter_next)
            with m.Default():
                post_domain += post.eq(0)

    def _build_follower(self, m, reg, follower, round_out):
        """Pipelined round: the follower steps a cycle after each step of the leader (``reg``),
        with the round key and last-round flag the leader had (:meth:`_round_inputs`), and
        writes its result a cycle after the leader's (the pass whitened with room for both in
        the result queue)."""
        m.d.sync += follower.step.eq(reg.round_step)
        with m.If(follower.step & follower.busy & follower.last):
            m.d.sync += [follower.out_data.eq(round_out ^ follower.post),
                         follower.out_valid.eq(1), follower.busy.eq(0)]
