"""The control of :class:`archs.prims.keyexpander.KeyExpander`: the register updates of the walk
on ``load``, ``start`` and a step (the priority of the class notes: ``load`` over ``start`` over
``next``), and the registered ``last`` / end-of-schedule flags of ``registered_control``.
"""

from amaranth.hdl import Const, Mux, Signal
from amaranth.lib import data

from .. import gf
from .steps import inv_xtime_value

__all__ = ["WalkControl"]


class WalkControl:
    """The register updates of :class:`archs.prims.keyexpander.KeyExpander` (a part of it).

    Builds on the expander's parameters (``width``, ``key_sizes``, ``registered_control``), its
    ports (``key``, ``key_bits``, ``load``, ``start``, ``reverse``) and its geometries
    (``_geo``).
    """

    def _build_control(self, m, walk):
        """The register updates: ``load``, then ``start``, then a step (the priority of the
        class notes).

        One priority chain, so each window bit has one input mux (restart from the stored key,
        restart from the stored last group, step) rather than one per event. A ``load`` with a
        reverse direction first walks forward to the last group (the prepass), keeps it in
        ``last_copy`` and then starts the requested walk.
        """
        has_fwd, has_rev = walk.has_fwd, walk.has_rev
        prepass, running, loading = walk.prepass, walk.running, walk.loading
        reverse_in = self.reverse if (has_fwd and has_rev) else Const(int(has_rev), 1)
        start_ok = self.start & ~prepass & ~loading
        prepass_end = prepass & running & walk.at_end & walk.can_step
        restart_fwd = loading | (start_ok & ~reverse_in) | (prepass_end & ~walk.rev_after)
        restart_rev = start_ok & reverse_in

        # The prepass has reached the last group: keep it for later `start`s.
        if has_rev:
            with m.If(prepass_end):
                m.d.sync += walk.last_copy.eq(walk.win)

        with m.If(self.load):
            self._load(m, walk, reverse_in)
        if has_rev:
            with m.Elif(restart_rev):
                self._restart(m, walk, True)
        if has_fwd:
            with m.Elif(restart_fwd):
                self._restart(m, walk, False)
                m.d.sync += loading.eq(0)
                if has_rev:
                    m.d.sync += prepass.eq(loading)  # a load walks forward to the end first
        with m.Else():
            self._advance(m, walk, prepass_end)

    def _load(self, m, walk, reverse_in):
        """Take a new key (and its size); the walk restarts from it."""
        n_max = walk.n_max
        # With a forward direction the key goes to `key_copy` first and reaches the window
        # a cycle later through the restart path: one cycle of load latency buys a window
        # input mux with one source less (about one LUT4 per window bit).
        key_bytes = [self.key[len(self.key) - 8 * (x + 1):len(self.key) - 8 * x]
                     for x in range(len(self.key) // 8)]
        key_win = Signal(data.ArrayLayout(8, n_max))
        for x in range(n_max):
            m.d.comb += key_win[x].eq(key_bytes[x] if x < len(key_bytes) else 0)
        if len(self.key_sizes) > 1:
            m.d.sync += walk.size.eq(0)
            for index, key_bits in enumerate(self.key_sizes):
                with m.If(self.key_bits == key_bits):
                    m.d.sync += walk.size.eq(index)
        if walk.has_fwd:
            m.d.sync += [walk.key_copy.eq(key_win), walk.loading.eq(1), walk.running.eq(0),
                         walk.prepass.eq(0)]
            # The position stays, the key size changes.
            pos, rev = walk.pos, walk.rev
            self._write_flags(m, walk, lambda geo: (Mux(rev, pos == 0, pos == geo.end),
                                                    pos == geo.end), by_port=True)
        else:
            m.d.sync += [walk.win.eq(key_win), walk.pos.eq(0), walk.phase.eq(0),
                         walk.rcon.eq(gf.RCON[0]), walk.running.eq(1), walk.rev.eq(0),
                         walk.settle.eq(0), walk.prepass.eq(1)]
            self._write_flags(m, walk, lambda geo: (0, 0))   # position 0, forwards
        if walk.has_rev:
            m.d.sync += walk.rev_after.eq(reverse_in)

    def _restart(self, m, walk, reverse):
        """Position the walk at its first group: forward from the stored key, reverse from the
        stored last group."""
        m.d.sync += [walk.running.eq(1), walk.prepass.eq(0), walk.rev.eq(reverse),
                     walk.settle.eq(0)]
        if reverse:
            m.d.sync += walk.win.eq(walk.last_copy)
        else:
            m.d.sync += [walk.win.eq(walk.key_copy), walk.pos.eq(0), walk.phase.eq(0),
                         walk.rcon.eq(gf.RCON[0])]
        for index, key_bits in enumerate(self.key_sizes):
            geo = self._geo[key_bits]
            with m.If(walk.size == index):
                if reverse:
                    m.d.sync += [walk.pos.eq(geo.end), walk.phase.eq(geo.rev_phase),
                                 walk.rcon.eq(geo.rev_rcon)]
        # Reverse: at the schedule's last group, walking down; forward: at position 0. The
        # last group is never at position 0 (a schedule has at least 11 round keys).
        self._write_flags(m, walk, lambda geo: (0, int(reverse)))

    def _advance(self, m, walk, prepass_end):
        """A step of the walk (the window moves by one group), the end of a walk, and the turn
        from the prepass to a reverse walk."""
        step = self.width // 8
        rev, pos, rcon = walk.rev, walk.pos, walk.rcon
        with m.If(walk.do_step):
            m.d.sync += [walk.win.eq(walk.new_win), walk.phase.eq(walk.next_phase),
                         walk.settle.eq(0)]
            m.d.sync += pos.eq(Mux(rev, pos - step, pos + step))
            # The comparisons of the next position (8 bits, modulo 256), made on this one.
            self._write_flags(m, walk, lambda geo: (
                Mux(rev, pos == step, pos == geo.end - step),
                Mux(rev, pos == (geo.end + step) % 256, pos == geo.end - step)))
            with m.If(walk.uses_rcon):
                m.d.sync += rcon.eq(Mux(rev, inv_xtime_value(rcon), gf.xtime_value(rcon)))
        with m.If(walk.take & walk.is_last):
            m.d.sync += walk.running.eq(0)
        if walk.has_rev:
            # A reverse walk after the prepass begins right here: the window already is
            # the last group.
            with m.If(prepass_end & walk.rev_after):
                m.d.sync += [walk.prepass.eq(0), rev.eq(1), walk.settle.eq(0)]
                if self.registered_control:
                    m.d.sync += walk.last_flag.eq(pos == 0)   # same position, reverse
                for index, key_bits in enumerate(self.key_sizes):
                    geo = self._geo[key_bits]
                    with m.If(walk.size == index):
                        m.d.sync += [walk.phase.eq(geo.rev_phase), walk.rcon.eq(geo.rev_rcon)]
    def _write_flags(self, m, walk, values, by_port=False):
        """Registered control (class notes): write the flags ``is_last`` and ``at_end`` with
        ``values(geometry)``, their values after the current event for a key of that size.

        The size is the stored one, or with ``by_port`` (a ``load``) the one the ``key_bits``
        port selects (any other value selects ``key_sizes[0]``, as for the size register).
        Nothing is built without ``registered_control``.
        """
        if not self.registered_control:
            return

        def write(geo):
            is_last, at_end = values(geo)
            m.d.sync += [walk.last_flag.eq(is_last), walk.end_flag.eq(at_end)]
        write(self._geo[self.key_sizes[0]])
        for index, key_bits in enumerate(self.key_sizes):
            if index == 0:
                continue
            with m.If((self.key_bits == key_bits) if by_port else (walk.size == index)):
                write(self._geo[key_bits])
