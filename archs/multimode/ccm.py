"""CCM in :class:`archs.multimode.Multimode`: the counter blocks, the CBC-MAC input, the result
and the tag check (see "CCM" in the package documentation).
"""

from amaranth.hdl import Cat, Mux, Signal

from ..interface import value_bytes
from .modes import CCMPhase, Mode
from .values import byte_mismatch, ccm_counter0, first_bytes, kept_bytes

__all__ = ["CCM"]


class CCM:
    """CCM of :class:`archs.multimode.Multimode` (a part of it: the methods read the core's
    options and ports)."""

    def _build_ccm_input(self, m, reg, cipher_in, counter):
        """A CCM block's cipher input: B0 or an associated-data block XOR the CBC-MAC (none
        for B0); a payload block's counter (CTR pass), then its plaintext XOR the CBC-MAC (MAC
        pass: the block's own data when encrypting, the plaintext the CTR pass recovered when
        decrypting, SP 800-38C 6.2 step 9); the tag block's Ctr0. ``counter`` is the counter
        block B0 starts (Ctr0, taken from B0 itself) or the running one."""
        with m.Switch(reg.ccm_phase):
            with m.Case(CCMPhase.HEADER):
                m.d.comb += cipher_in.eq(reg.data_in ^ Mux(reg.first, 0, reg.mac))
            with m.Case(CCMPhase.PAYLOAD):
                if reg.ccm_ks is None:
                    plaintext = Mux(reg.ccm_decrypt, reg.out_data,
                                    first_bytes(reg.data_in, 16 - reg.pad_bytes))
                else:
                    opened = Mux(reg.mac_pass, reg.out_data, reg.data_in ^ reg.ccm_ks)
                    plaintext = first_bytes(Mux(reg.ccm_decrypt, opened, reg.data_in),
                                             16 - reg.pad_bytes)
                m.d.comb += cipher_in.eq(Mux(reg.mac_pass | reg.ks_valid, reg.mac ^ plaintext,
                                             reg.ccm_ctr))
            with m.Default():
                m.d.comb += cipher_in.eq(ccm_counter0(reg.ccm_ctr, reg.ccm_q1))
        # Ctr1 is Ctr0 with its counter field (zero) set to 1.
        m.d.comb += counter.eq(Mux(reg.first,
                                   ccm_counter0(reg.data_in, reg.data_in[120:123]) | 1,
                                   reg.ccm_ctr))

    def _build_ccm_whitening(self, m, reg, counter, counter_next):
        """The CCM registers a pass sets up: B0 keeps q and t from its flags (SP 800-38C A.2.1)
        and starts the counter at Ctr1; a CTR pass takes the next counter and XORs the block's
        data into its result; the tag block XORs the CBC-MAC into E(Ctr0)."""
        payload = reg.ccm_phase == CCMPhase.PAYLOAD
        with m.If(reg.first & (reg.ccm_phase == CCMPhase.HEADER)):
            m.d.sync += [reg.ccm_q1.eq(reg.data_in[120:123]), reg.ccm_t2.eq(reg.data_in[123:126])]
        ctr_pass = payload & ~reg.mac_pass & ~reg.ks_valid
        with m.If(ctr_pass | reg.pair_start):
            m.d.sync += reg.ccm_ctr.eq(counter_next)
        with m.Elif(reg.first):
            m.d.sync += reg.ccm_ctr.eq(counter)
        post = Mux(ctr_pass, reg.data_in, Mux(reg.ccm_phase == CCMPhase.TAG, reg.mac, 0))
        if reg.ccm_ks is not None:
            # The keystream computed ahead: the block's result is known now, and its one pass
            # is the CBC-MAC.
            with_ks = payload & reg.ks_valid
            post = Mux(with_ks, first_bytes(reg.data_in ^ reg.ccm_ks, 16 - reg.pad_bytes), post)
            m.d.sync += reg.ks_used.eq(with_ks)
            with m.If(reg.first | with_ks):
                m.d.sync += reg.ks_valid.eq(0)
        m.d.sync += reg.post.eq(post)

    def _build_ccm_result(self, m, reg, round_out):
        """The last round of a CCM pass. Header block: the CBC-MAC, also handed out. Payload
        block, CTR pass: the ciphertext or plaintext (zero past the message) is handed out and
        the MAC pass starts (restart of the key walk in :meth:`_build_key_control`); MAC pass:
        the CBC-MAC, nothing handed out (the block's one result left after the CTR pass). Tag
        block: the tag (encryption) or 0 and ``auth_fail`` (decryption: the received tag in
        ``data`` differs from the computed one in its first t bytes, SP 800-38C 6.2 step 10).
        The tag is compared byte by byte into ``out_tag_mismatch`` (one flag per byte, an
        8-bit compare each); the 16 flags are ORed after the register, on the way to the result
        port, so the wide reduction is not in the last round's cycle (it was the core's critical
        path: state -> S-box -> last round -> 128-bit compare -> ``auth_fail``)."""
        result = round_out ^ reg.post
        t = 2 * reg.ccm_t2 + 2
        tag = first_bytes(result, t)
        payload_result = first_bytes(result, 16 - reg.pad_bytes)
        if self.pipelined_round:
            tag = kept_bytes(result, reg.tag_keep)
            payload_result = kept_bytes(result, reg.pad_keep)
        with m.Switch(reg.ccm_phase):
            with m.Case(CCMPhase.HEADER):
                m.d.sync += [reg.mac.eq(round_out), reg.out_data.eq(round_out),
                             reg.out_valid.eq(1), reg.out_tag_mismatch.eq(0)]
            with m.Case(CCMPhase.PAYLOAD):
                with m.If(reg.mac_pass):
                    m.d.sync += [reg.mac.eq(round_out), reg.mac_pass.eq(0)]
                with m.Elif(reg.ks_used):
                    m.d.sync += [reg.mac.eq(round_out), reg.out_data.eq(reg.post),
                                 reg.out_valid.eq(1), reg.out_tag_mismatch.eq(0)]
                with m.Else():
                    m.d.sync += [reg.out_data.eq(payload_result),
                                 reg.out_valid.eq(1), reg.out_tag_mismatch.eq(0),
                                 reg.mac_pass.eq(1), reg.whiten.eq(1)]
            with m.Default():
                if self.pipelined_round:
                    # Opening: the byte compare follows in the next cycle (_build_tag_check),
                    # and the result with it.
                    m.d.sync += [reg.out_data.eq(Mux(reg.ccm_decrypt, 0, tag)),
                                 reg.out_valid.eq(~reg.ccm_decrypt), reg.out_tag_mismatch.eq(0),
                                 reg.tag_diff.eq(result ^ reg.data_in),
                                 reg.tag_check.eq(reg.ccm_decrypt)]
                else:
                    mismatch = byte_mismatch(result, reg.data_in, t)
                    m.d.sync += [reg.out_data.eq(Mux(reg.ccm_decrypt, 0, tag)),
                                 reg.out_valid.eq(1),
                                 reg.out_tag_mismatch.eq(Mux(reg.ccm_decrypt, mismatch, 0))]

    def _build_tag_check(self, m, reg):
        """Pipelined round: the registers that take CCM's byte-count decodes and the tag
        compare out of the last round's cycle. ``pad_keep`` and ``tag_keep`` are the byte masks
        of a payload block and of the tag (their counts do not change during a pass);
        ``tag_diff``, the computed tag XOR the received one, is written in the tag block's last
        round when opening, and its per-byte flags in the next cycle, with the result."""
        reg.tag_keep, reg.pad_keep = Signal(16, name="tag_keep"), Signal(16, name="pad_keep")
        reg.tag_diff, reg.tag_check = Signal(128, name="tag_diff"), Signal(name="tag_check")
        t = 2 * reg.ccm_t2 + 2
        m.d.sync += [reg.tag_keep.eq(Cat(*[n < t for n in range(16)])),
                     reg.pad_keep.eq(Cat(*[n < 16 - reg.pad_bytes for n in range(16)]))]
        differs = [byte.any() for byte in value_bytes(reg.tag_diff)]
        with m.If(reg.tag_check):
            m.d.sync += [reg.out_tag_mismatch.eq(Cat(*reversed(
                             [reg.tag_keep[n] & differs[n] for n in range(16)]))),
                         reg.out_valid.eq(1), reg.tag_check.eq(0)]

    def _build_ccm_pair(self, m, lanes, pair, round_out):
        """CCM pairs (two streams, module documentation): a CCM pass that is a CBC-MAC pass
        starts, while the other stream is idle, the keystream pass E(Ctr_i) of the next payload
        block in the other stream's slot (its state register: idle, it holds nothing). The
        pass steps one cycle after each step of its owner, with the owner's round key of that
        step (``pair.key``), and writes the keystream to the owner's ``ccm_ks``."""
        m.d.sync += pair.step.eq(pair.active & (lanes[0].round_step | lanes[1].round_step))
        for n, reg in enumerate(lanes):
            other = lanes[1 - n]
            payload = reg.ccm_phase == CCMPhase.PAYLOAD
            ctr_pass = payload & ~reg.mac_pass & ~reg.ks_valid
            m.d.comb += reg.pair_start.eq(
                reg.whitening & (reg.mode == Mode.CCM) & (reg.ccm_phase != CCMPhase.TAG)
                & ~ctr_pass & (reg.first | ~reg.ks_valid | payload) & ~other.busy & ~other.whiten)
            with m.If(reg.pair_start):
                m.d.sync += [other.state.eq(reg.counter ^ reg.keys.round_key),
                             pair.active.eq(1), pair.owner.eq(n)]
            with m.If(pair.step & (pair.owner == n)):
                with m.If(pair.last):
                    m.d.sync += [reg.ccm_ks.eq(round_out), reg.ks_valid.eq(1), pair.active.eq(0)]
                with m.Else():
                    m.d.sync += other.state.eq(round_out)
