"""The streams of :class:`archs.multimode.Multimode`: each stream's registers and events, the
follower of the two-stage round, and the key, block and result handshakes.
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Mux, Signal
from amaranth.lib.fifo import SyncFIFO

from ..prims.keyexpander import KeyExpander
from ..prims.sbox import make_sbox
from .modes import CCMPhase, Mode, RESULT_QUEUE_DEPTH

__all__ = ["Streams"]


class Streams:
    """The stream registers and handshakes of :class:`archs.multimode.Multimode` (a part of it:
    the methods read the core's options and ports)."""

    def _lane_events(self, m, reg, n, select, follower):
        """The events of stream ``n``'s block, as attributes of ``reg``: its whitening, a round
        step, the last round (``finishing``), the end of the block (``block_done``), the restart
        for a CCM payload block's CBC-MAC pass (``mac_start``), a block taken (``accept``)."""
        keys = reg.keys
        # A CCM payload block's CTR pass is followed by its CBC-MAC pass, unless its
        # keystream was computed ahead (two streams, "CCM pairs").
        ccm_payload = (reg.mode == Mode.CCM) & (reg.ccm_phase == CCMPhase.PAYLOAD)
        if follower is not None:
            # The block registers may hold the next block already (_build_pair_handshakes).
            ccm_payload = follower.pass_ccm & (reg.ccm_phase == CCMPhase.PAYLOAD)
        reg.two_pass = ccm_payload & ~reg.mac_pass & ~reg.ks_used
        if follower is None:
            drain = self.o.ready if select is None else self.o.ready & (select == n)
            # Whitening waits while the stream's slot is lent to the other stream's CCM pair.
            reg.whitening = self._on_turn(reg, reg.whiten & keys.valid & ~reg.lent)
            reg.round_step = (self._on_turn(reg, reg.busy & keys.valid)
                              & (~keys.last | ~reg.out_valid | drain))
            reg.accept = self.i.valid & self.i.ready
            if select is not None:
                reg.accept = reg.accept & (self.i.payload.stream == n)
        else:
            self._pair_events(m, reg, follower)
        reg.finishing = reg.round_step & keys.last
        if follower is None:
            reg.block_done = reg.finishing & ~reg.two_pass
            reg.mac_start = reg.finishing & reg.two_pass
        reg.result_written = reg.finishing & ~(ccm_payload & reg.mac_pass)

    def _pair_events(self, m, reg, follower):
        """Pipelined round: the leader's events (:meth:`_lane_events`) decided a cycle ahead,
        in the follower's turn, into registers.

        The pair's two blocks share the state register, written every cycle, so a pass never
        waits once whitened: the key group is valid in every turn of the leader (the expander
        settles in one cycle), and the pass starts only with room for both results in the
        result queue (:meth:`_build_pair_handshakes`) and with the key walk restarted for it
        (:meth:`_registered_restart`). A block waiting in the follower's turn has been taken a
        cycle ago at least, so its cipher input is registered by the leader's turn; ``busy``
        changes only in the leader's turns. The end of a block and the CBC-MAC restart lead to
        the key expander's restart (its window's clock enable); the key group's last-round flag
        does not change in the follower's turns of a pass, nor does ``two_pass`` (a follower's
        block, taken in the leader's whitening, is never CCM, nor is its leader)."""
        keys = reg.keys
        follower.whiten_turn = Signal(name="leader_whiten_turn")
        step_turn = Signal(name="leader_step_turn")
        m.d.sync += [follower.whiten_turn.eq(~reg.turn & reg.whiten & follower.walk_ready),
                     step_turn.eq(~reg.turn & reg.busy)]
        reg.whitening = follower.whiten_turn & follower.room
        reg.round_step = step_turn
        last_turn = ~reg.turn & reg.busy & keys.last
        reg.block_done = Signal(name="leader_done_turn")
        reg.mac_start = Signal(name="leader_mac_turn")
        m.d.sync += [reg.block_done.eq(last_turn & ~reg.two_pass),
                     reg.mac_start.eq(last_turn & reg.two_pass)]
        reg.accept = self.i.valid & follower.leader_ready
        follower.accept = self.i.valid & follower.ready

    def _on_turn(self, reg, condition):
        """``condition``, in the stream's turn only (two streams: stage 2 holds its block)."""
        return condition if reg.turn is None else condition & reg.turn

    def _stream_registers(self, m, n, slot):
        """The key expander and the registers of stream ``n``, in a namespace (with one stream
        the names of the single-stream core, so its netlist is unchanged)."""
        prefix = "" if self.streams == 1 else f"s{n}_"
        # Registered control: the expander's `last` comes from a register, so the loop from it
        # through the block handshake (a block is accepted in the previous one's last round)
        # into the expander's window enable has no key-size decode (issue 22).
        if self.pipelined_round:
            # The leader takes a round key every other cycle, so the key step may take two: a
            # register after the expander's S-boxes (latency 1) halves its path.
            keys = KeyExpander(
                128, key_sizes=self.key_sizes, directions=("forward", "reverse"), sbox=None,
                sbox_latency=1, device_family=self.device_family, registered_control=True)
            for k in range(keys.sbox_count):
                sb = make_sbox(self.sbox, device_family=self.device_family)
                m.submodules[f"key_sbox{k}"] = sb
                m.d.comb += sb.i.eq(keys.sbox_i[8 * k:8 * k + 8])
                m.d.sync += keys.sbox_o[8 * k:8 * k + 8].eq(sb.o)
        else:
            keys = KeyExpander(
                128, key_sizes=self.key_sizes, directions=("forward", "reverse"),
                sbox=self.sbox, device_family=self.device_family, registered_control=True)
        m.submodules["keys" if self.streams == 1 else f"keys{n}"] = keys

        def reg(name, shape=1):
            return Signal(shape, name=prefix + name)
        turn = None
        if slot is not None:
            turn = reg("turn")
            m.d.comb += turn.eq(slot == n)
        return SimpleNamespace(
            keys=keys, turn=turn, index=n,
            # Block registers: taken at accept, used in the whitening cycle.
            data_in=reg("data_in", 128), iv=reg("iv", 128), first=reg("first"),
            mode=reg("mode", Mode),
            decrypt=reg("decrypt"),             # direction of the cipher (CTR: encryption)
            # Running registers.
            state=reg("state", 128),
            chain=reg("chain", 128),            # CBC: previous ciphertext; CTR: next counter
            post=reg("post", 128),              # XORed into the result (CBC dec: chain; CTR: data)
            key_pending=reg("key_pending"),     # a key load walks to the last round key
            whiten=reg("whiten"),               # the block's next turn is the whitening cycle
            busy=reg("busy"),                   # a block is in the rounds
            out_data=reg("out_data", 128), out_valid=reg("out_valid"),
            # CCM opening, tag block: which of the tag's bytes differ from the received ones
            # (0 for every other result); the result's auth_fail is their OR.
            out_tag_mismatch=reg("out_tag_mismatch", 16),
            # CCM: block registers, then the message's running registers (kept apart from
            # `chain`, so that a CCM message and a CBC/CTR message may interleave).
            ccm_phase=reg("ccm_phase", CCMPhase), pad_bytes=reg("pad_bytes", 4),
            ccm_decrypt=reg("ccm_decrypt"),     # direction of the CCM message
            mac_pass=reg("mac_pass"),           # a CCM payload block is in its CBC-MAC pass
            mac=reg("mac", 128),                # CBC-MAC so far (SP 800-38C 6.1 step 4: Y_i)
            ccm_ctr=reg("ccm_ctr", 128),        # next counter block Ctr_i
            ccm_q1=reg("ccm_q1", 3),            # q - 1, from B0's flags
            ccm_t2=reg("ccm_t2", 3),            # (t - 2) / 2, from B0's flags
            # Two streams, CCM pairs: the keystream E(Ctr_i) of the next payload block,
            # computed ahead in the other stream's slot.
            **({"ccm_ks": reg("ccm_ks", 128),
                "ks_valid": reg("ks_valid"),    # ccm_ks holds the next payload block's keystream
                "ks_used": reg("ks_used"),      # this payload block uses it: one pass
                "lent": reg("lent")}            # this stream's slot runs the other's CCM pair
               if self.streams > 1 else
               {"ccm_ks": None, "ks_valid": Const(0), "ks_used": Const(0), "lent": Const(0),
                "pair_start": Const(0)}))

    def _follower_registers(self):
        """Pipelined round: the registers of a pair's follower (module documentation,
        "Pipelined round") and the pair's control. The follower shares the block registers,
        the chain and the key expander with the leader (stream 0's registers)."""
        def reg(name, shape=1):
            return Signal(shape, name="follower_" + name)
        return SimpleNamespace(
            post=reg("post", 128),
            whiten=reg("whiten"),               # accepted: the next cycle is its whitening
            busy=reg("busy"),                   # in the rounds
            out_data=reg("out_data", 128), out_valid=reg("out_valid"),
            # The leader's round key, last-round flag and step of the cycle before.
            key=reg("key", 128), last=reg("last"), step=reg("step"),
            ready=reg("ready"),                 # the offered block can follow the leader
            leader_ready=Signal(name="leader_ready"),
            decrypt=Signal(name="pair_decrypt"),    # direction of the pair in the rounds
            # The leader's cipher input, registered in the cycle before its whitening.
            cipher=Signal(128, name="leader_cipher_in"),
            whiten_turn=None,                   # the leader may whiten now (elaborate)
            room=Signal(name="results_room", init=1),   # _build_pair_handshakes
            final_out=None,                     # the last round's output (_build_round)
            # A whitened state, (Inv)ShiftRows applied, and "stage 1 reads it now".
            white=Signal(128, name="whitened_state"), from_white=Signal(name="stage1_whitened"),
            walk_ready=Signal(name="key_walk_ready"),   # _registered_restart
            may_take=Signal(name="block_registers_load"),
            # What the pass of the leader is, for its last round.
            pass_ccm=Signal(name="pass_ccm"), pass_cbc_encrypt=Signal(name="pass_cbc_encrypt"))

    def _pair_registers(self, m, lanes):
        """The CCM pair (two streams): which stream's keystream pass runs in the other
        stream's slot, and the round key, last-round flag and step of the owner's previous
        turn, which the pass repeats one cycle later (module documentation, "CCM pairs")."""
        pair = SimpleNamespace(
            active=Signal(name="pair_active"), owner=Signal(name="pair_owner"),
            key=Signal(128, name="pair_key"), last=Signal(name="pair_last"),
            step=Signal(name="pair_step"))
        for n, reg in enumerate(lanes):
            reg.pair_start = Signal(name=f"s{n}_pair_start")
            m.d.comb += reg.lent.eq(pair.active & (pair.owner != n))
        return pair

    def _build_handshakes(self, m, lanes, select, follower=None):
        """Key, block and result streams. A pending key write takes priority over a new block
        (of its stream), so the order of key and block transfers is the order the user issued
        them in."""
        if follower is not None:
            self._build_pair_handshakes(m, lanes[0], follower)
            return
        if select is None:
            (reg,) = lanes
            m.d.comb += [
                self.key.ready.eq(~reg.busy & ~reg.whiten),
                self.i.ready.eq((~(reg.busy | reg.whiten) | reg.block_done) & ~reg.key_pending
                                & ~self.key.valid),
                self.o.valid.eq(reg.out_valid),
                self.o.payload.data.eq(reg.out_data),
                self.o.payload.auth_fail.eq(reg.out_tag_mismatch.any()),
            ]
            with m.If(self.o.valid & self.o.ready):
                m.d.sync += reg.out_valid.eq(0)
            return
        # Two streams: the key and the block go to the stream their `stream` field names; the
        # result port hands out the older of the two waiting results.
        key_for, block_for = self.key.payload.stream, self.i.payload.stream
        key_ready = [~reg.busy & ~reg.whiten for reg in lanes]
        block_ready = [(~(reg.busy | reg.whiten) | reg.block_done) & ~reg.key_pending
                       & ~(self.key.valid & (key_for == n)) for n, reg in enumerate(lanes)]
        older = Signal(name="older_result")
        first, second = lanes
        m.d.comb += [
            self.key.ready.eq(Mux(key_for, key_ready[1], key_ready[0])),
            self.i.ready.eq(Mux(block_for, block_ready[1], block_ready[0])),
            select.eq(Mux(first.out_valid & second.out_valid, older, second.out_valid)),
            self.o.valid.eq(first.out_valid | second.out_valid),
            self.o.payload.data.eq(Mux(select, second.out_data, first.out_data)),
            self.o.payload.auth_fail.eq(Mux(select, second.out_tag_mismatch.any(),
                                            first.out_tag_mismatch.any())),
            self.o.payload.stream.eq(select),
        ]
        taken = [self.o.valid & self.o.ready & (select == n) for n in range(2)]
        for n, reg in enumerate(lanes):
            with m.If(taken[n]):
                m.d.sync += reg.out_valid.eq(0)
            # A result written while the other stream's still waits is the younger one.
            with m.If(reg.result_written):
                m.d.sync += older.eq(Mux(lanes[1 - n].out_valid & ~taken[1 - n], 1 - n, n))

    def _build_pair_handshakes(self, m, reg, follower):
        """Pipelined round: a block is taken as a leader when the core is free (as with one
        stream), or as the follower of the leader whitening now, when neither depends on the
        other's result (both ECB, CTR or CBC decryption) and both go the same direction.

        Results: the leader's and the follower's result registers (written in the last
        rounds, a cycle apart) are moved into a first-in first-out queue in the next cycle, and
        the result port is the queue's head. A pass whitens only with room in the queue for
        its results (``follower.room``, a register): the queue's entries plus the results of
        the passes under way, counted from each whitening (a CBC-MAC pass has none) to the
        result's transfer, leave two entries free."""
        def independent(mode, decrypt):
            return (mode == Mode.ECB) | (mode == Mode.CTR) | ((mode == Mode.CBC) & decrypt)
        p = self.i.payload
        may_lead = (~(reg.busy | reg.whiten) | reg.block_done) & ~reg.key_pending
        may_follow = reg.whitening & independent(reg.mode, reg.decrypt)
        m.d.comb += [
            # The follower ends a cycle after the leader, with its key group in a register.
            self.key.ready.eq(~reg.busy & ~reg.whiten),
            follower.leader_ready.eq(may_lead & ~self.key.valid),
            follower.ready.eq(may_follow & independent(p.mode, p.decrypt)
                              & (self._block_decrypt() == reg.decrypt) & ~self.key.valid),
            self.i.ready.eq(follower.leader_ready | follower.ready),
            # The block registers load whenever a block could be taken, offered or not (the
            # flags `whiten` say whether one was): then nothing of the handshake's payload
            # decode reaches their clock enable.
            follower.may_take.eq(may_lead | may_follow),
        ]
        results = m.submodules.results = SyncFIFO(width=129, depth=RESULT_QUEUE_DEPTH)
        m.d.comb += [
            results.w_en.eq(reg.out_valid | follower.out_valid),
            results.w_data.eq(Mux(reg.out_valid, Cat(reg.out_data, reg.out_tag_mismatch.any()),
                                  Cat(follower.out_data, 0))),
            self.o.valid.eq(results.r_rdy),
            self.o.payload.data.eq(results.r_data[:128]),
            self.o.payload.auth_fail.eq(results.r_data[128]),
            results.r_en.eq(self.o.ready),
        ]
        # The result registers hold a result for one cycle (the writes below win).
        m.d.sync += [reg.out_valid.eq(0), follower.out_valid.eq(0)]
        entries = Signal(range(RESULT_QUEUE_DEPTH + 1), name="results_claimed")
        claimed = (entries + (reg.whitening & ~reg.mac_pass) + follower.whiten
                   - (self.o.valid & self.o.ready))
        m.d.sync += [entries.eq(claimed), follower.room.eq(claimed <= RESULT_QUEUE_DEPTH - 2)]
