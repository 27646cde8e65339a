"""The control of :class:`archs.compact.Compact`: the sequencer, its pipeline of delayed copies
and the block handshakes.

All cycles of a block are issued by one sequencer (round, step) and flow through a fixed
pipeline: at issue the state memory is read (rounds 1-10), ``L`` cycles later the S-box outputs
are there (and, in the load step, the block input bytes are taken instead), then MixColumns (not
in the load step or round 10) and AddRoundKey, and the result is written back (or, in round 10,
shifted into the output register). The write happens ``D = L`` cycles after the issue (``L + 3``
at 8 bits). Nothing in the pipeline ever stalls; the sequencer only waits at the start of a
round-step, and the control of every later stage is the issue control delayed by the stage depth.

A block waits for the outside at two points only, before its load step and before its last
round; in CTR mode the keystream block is computed ahead of its plaintext (000 section II.B,
Fig. 4). The package notes, "Counter mode" and "Key schedule", give the rules of the handshakes.
"""

from amaranth.hdl import Const, Mux, Signal

from .timing import AES128_ROUNDS
from .wires import CoreWires

__all__ = ["Control"]


class Control:
    """The sequencer and the block handshakes of :class:`archs.compact.Compact` (a part of it).

    Builds on the core's parameters (``steps_per_round``, ``sbox_latency``, ``_timing``,
    ``mode``, ``port_width``) and ports (``key``, ``i``, ``o``).
    """

    def _build_control_pipeline(self, m):
        """The sequencer's registers and their copies delayed stage by stage.

        The sequencer issues every cycle of a block at (``rnd``, ``step``) with ``issue`` high;
        ``wait`` counts the cycles it waits before a round-step. Nothing after the issue stage
        ever stalls, so the control of every later stage is the issue control delayed by the
        stage depth: stage ``k`` holds the (valid, round, step) issued ``k`` cycles ago. Stage
        ``L`` (S-box latency) is the S-box output stage (``sv``, ``sr``, ``ss``), stage ``D``
        the write-back stage (``wv``, ``wr``, ``ws``); ``drained`` is high when no step is in
        flight. Returns the :class:`CoreWires` with these.
        """
        steps = self.steps_per_round
        latency = self.sbox_latency
        delay = self._timing["delay"]
        gap = self._timing["gap"]

        rnd = Signal(range(AES128_ROUNDS + 1))
        step = Signal(range(steps))
        wait = Signal(range(gap + 1))
        issue = Signal()

        # Stage k holds the (valid, round, step) that issued k cycles ago.
        stages = [(issue, rnd, step)]
        for k in range(1, delay + 1):
            v = Signal(name=f"s{k}_valid")
            r = Signal.like(rnd, name=f"s{k}_round")
            s = Signal.like(step, name=f"s{k}_step")
            pv, pr, ps = stages[-1]
            m.d.sync += [v.eq(pv), r.eq(pr), s.eq(ps)]
            stages.append((v, r, s))
        sv, sr, ss = stages[latency]          # S-box outputs / block bytes stage
        wv, wr, ws = stages[delay]            # write-back stage
        drained = Const(1, 1)
        for v, _, _ in stages[1:]:
            drained = drained & ~v
        return CoreWires(rnd=rnd, step=step, wait=wait, issue=issue, sv=sv, sr=sr, ss=ss,
                         wv=wv, wr=wr, ws=ws, drained=drained, stall=Signal())

    def _build_sequencer(self, m, wires):
        """The issue stage: when the sequencer issues a step and how it advances.

        Within a round-step it issues every cycle; before each round-step it waits ``gap``
        cycles (:func:`archs.compact.schedule`). A block waits for the outside at two points
        only: before its load step (round 0, step 0) and before its last round (round 10, step
        0), see :meth:`_issue_conditions`. In CTR mode the keystream block is computed ahead of its
        plaintext (000 section II.B, Fig. 4), and a key or IV transfer that arrives while the
        block waits before its last round aborts it. Also creates the registers of the block
        handshakes that those conditions read (added to ``wires``; updated by
        :meth:`_build_block_control` and
        :meth:`archs.compact.datapath.Datapath._build_write_back`).
        """
        steps = self.steps_per_round
        gap = self._timing["gap"]
        rnd, step, wait, issue = wires.rnd, wires.step, wires.wait, wires.issue

        out_data = Signal(128)
        out_valid = Signal()
        restart_pending = Signal()   # round 10 fully issued, its last write not yet done
        walk_ready = Signal()        # the key walk has been valid at round key 0 since the last
                                     # key load or discarded block
        counter = Signal(128)
        counter_loaded = Signal()
        wires.out_data, wires.out_valid, wires.restart_pending, wires.walk_ready = \
            out_data, out_valid, restart_pending, walk_ready
        wires.counter, wires.counter_loaded = counter, counter_loaded
        wires.at_start = at_start = (rnd == 0) & (step == 0)
        start_ok, final_ok, abort = self._issue_conditions(wires)

        with m.If(wait != 0):
            m.d.comb += issue.eq(0)
        with m.Elif(at_start):
            m.d.comb += issue.eq(start_ok)
        with m.Elif((rnd == AES128_ROUNDS) & (step == 0)):
            m.d.comb += issue.eq(final_ok)
        with m.Elif((rnd == 0) & (self.port_width == 8)):
            m.d.comb += issue.eq(self.i.valid)      # each load step waits for its block byte
        with m.Else():
            m.d.comb += issue.eq(1)

        if gap:
            with m.If(wait != 0):
                m.d.sync += wait.eq(wait - 1)
        with m.If(issue):
            with m.If(step == steps - 1):
                m.d.sync += [step.eq(0), rnd.eq(Mux(rnd == AES128_ROUNDS, 0, rnd + 1))]
                if gap:
                    m.d.sync += wait.eq(gap)
            with m.Else():
                m.d.sync += step.eq(step + 1)
        with m.If(abort):
            m.d.sync += [rnd.eq(0), step.eq(0)]
        wires.abort = abort

    def _issue_conditions(self, wires):
        """The conditions under which a block passes its two waiting points.

        Returns ``(start_ok, final_ok, abort)``: the load step may issue (ECB: a block is
        offered; CTR: a counter block is loaded) and the key walk is ready; the last round may
        issue (the output register is free; CTR: the plaintext is offered); and in CTR mode, the
        block waiting before its last round is discarded (a key or IV transfer is offered). Adds
        ``wires.iv_pending`` (CTR: an IV transfer is offered).
        """
        rnd, step, wait = wires.rnd, wires.step, wires.wait
        ctr = self.mode == "ctr"
        # The walk must be at round key 0: presented (valid) after a key load or a restart from
        # idle, or about to be restarted by the block finishing now (then the round-step gap
        # lets its S-box settle before the first write).
        key_ok = wires.walk_ready | wires.restart_pending
        out_free = ~wires.out_valid | self.o.ready
        iv_pending = (self.i.valid & self.i.payload.iv) if ctr else Const(0, 1)
        pt_pending = (self.i.valid & ~self.i.payload.iv) if ctr else Const(0, 1)
        if ctr:
            start_ok = wires.counter_loaded & ~self.key.valid & ~iv_pending & key_ok
            final_ok = out_free & pt_pending & ~self.key.valid
            abort = ((rnd == AES128_ROUNDS) & (step == 0) & (wait == 0)
                     & (self.key.valid | iv_pending))
        elif self.port_width == 8:
            # The key schedule steps with the blocks and refills itself, so it is at round
            # key 0 whenever no key is half loaded; the result needs no free register.
            key_ok = wires.kx_at_start | wires.restart_pending
            start_ok = self.i.valid & ~self.key.valid & key_ok
            final_ok = Const(1, 1)
            abort = Const(0, 1)
        else:
            start_ok = self.i.valid & ~self.key.valid & key_ok
            final_ok = out_free
            abort = Const(0, 1)
        wires.iv_pending = iv_pending
        return start_ok, final_ok, abort

    def _build_block_control(self, m, wires):
        """Block boundaries: the key and block input handshakes and the key walk's restarts.

        The key is taken only while the core is idle; the expander keeps it and restarts its
        walk from it for every block (package notes, "Key schedule"). In ECB mode the block
        input transfer completes when the load step has taken its last bytes; in CTR mode an
        IV transfer loads the counter block while idle and a plaintext transfer completes with
        the last ciphertext byte, when the counter is incremented (SP 800-38A B.1, m = 32).
        """
        steps = self.steps_per_round
        kx = wires.kx
        wv, wr, ws = wires.wv, wires.wr, wires.ws
        restart_pending, walk_ready = wires.restart_pending, wires.walk_ready

        last_issue = wires.issue & (wires.rnd == AES128_ROUNDS) & (wires.step == steps - 1)
        last_write = wv & (wr == AES128_ROUNDS) & (ws == steps - 1)
        with m.If(last_issue):
            m.d.sync += restart_pending.eq(1)
        with m.If(last_write):
            m.d.sync += restart_pending.eq(0)

        idle = wires.at_start & ~wires.issue & wires.drained & ~restart_pending
        key_take = self.key.valid & self.key.ready
        if self.port_width == 8:
            m.d.comb += [
                self.key.ready.eq(idle),
                kx.key.eq(self.key.payload.key),
                kx.load.eq(key_take),
                kx.next.eq(wv),
                self.i.ready.eq(wires.issue & (wires.rnd == 0) & ~wires.stall),
            ]
            return
        with m.If(kx.valid & wires.kx_at_start):
            m.d.sync += walk_ready.eq(1)
        with m.If(key_take | wires.abort):
            m.d.sync += walk_ready.eq(0)
        m.d.comb += [
            self.key.ready.eq(idle),
            kx.key.eq(self.key.payload.key),
            kx.load.eq(key_take),
            # Restart the walk from the stored key after the last round key of a block (the
            # next block's load step needs round key 0), and whenever the core is idle with
            # the walk elsewhere (after a discarded CTR block).
            kx.start.eq(last_write | (idle & ~wires.kx_at_start)),
            kx.next.eq(wv & wires.group_end),
        ]

        # Block input transfers.
        if self.mode == "ctr":
            iv_take = idle & wires.iv_pending
            m.d.comb += self.i.ready.eq(last_write | iv_take)
            with m.If(iv_take):
                m.d.sync += [wires.counter.eq(self.i.payload.data), wires.counter_loaded.eq(1)]
            with m.If(last_write):
                # SP 800-38A B.1 with m = 32 (RFC 3686): the low 32 bits wrap, the rest stays.
                m.d.sync += wires.counter[:32].eq(wires.counter[:32] + 1)
        else:
            m.d.comb += self.i.ready.eq(wires.sv & (wires.sr == 0) & (wires.ss == steps - 1))
