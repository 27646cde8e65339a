"""The XOR network of :class:`archs.prims.keyexpander.KeyExpander`: the next window of a step,
for every key size and direction the expander is built for.

Each byte of the new window is a Mux, chosen by the phase register, over the distinct formulas
the phases of the walk use (:func:`archs.prims.keyexpander.plan.window_step_plan`); the S-box
inputs are built from the formulas of the phases that feed the S-box only, so no path leads from
``sbox_o`` to ``sbox_i`` (the class notes of the expander, "Implementation notes").
"""

from amaranth.hdl import Const, Mux, Signal
from amaranth.lib import data

__all__ = ["StepNetwork"]


def _select(sel, cases):
    """``cases``: list of (phases, value); a Mux chain choosing by ``sel``, the most common
    value last as the default (its condition is never built)."""
    cases = sorted(cases, key=lambda c: len(c[0]))
    result = cases[-1][1]
    for phases, value in cases[-2::-1]:
        cond = 0
        for p in sorted(phases):
            cond = cond | (sel == p)
        result = Mux(cond, value, result)
    return result


class StepNetwork:
    """The step logic of :class:`archs.prims.keyexpander.KeyExpander` (a part of it).

    Builds on the expander's parameters (``width``, ``key_sizes``, ``sbox_count``,
    ``registered_control``) and its geometries (``_geo``, one
    :class:`archs.prims.keyexpander.plan.WalkGeometry` per key size).
    """

    def _step_network(self, geo, reverse, walk, sub):
        """The XOR network of one key size and direction, selected by the phase register.

        Derived from the recurrence by :meth:`WalkGeometry.phases` / :func:`window_step_plan`
        (:mod:`archs.prims.keyexpander.plan`): each byte of the new window is a Mux over the
        distinct formulas the phases use. Returns
        ``(new_win, sbox_in, needs_sbox, uses_rcon)``: the next window's bytes, the S-box input
        of each slot, and whether the step at the current phase uses the S-box / the round
        constant.
        """
        step = self.width // 8
        win, phase, rcon = walk.win, walk.phase, walk.rcon
        plans = geo.phases(reverse)
        known = {x: win[x] for x in range(geo.n)}
        # Bytes of the new window, each a Mux over the distinct formulas the phases use.
        order = list(plans[next(iter(plans))][0])
        for x in order:
            formulas = {}
            for p, (outs, _, _) in plans.items():
                formulas.setdefault(outs[x], set()).add(p)
            cases = []
            for (old, temp), phases in formulas.items():
                if temp[0] == "byte":
                    t = known[temp[1]]
                else:
                    t = sub[temp[1]] ^ rcon if temp[2] else sub[temp[1]]
                cases.append((phases, known[old] ^ t))
            known[x] = _select(phase, cases)
        all_phases = set(plans)

        def sbox_source(x, phases):
            # Byte `x` as the `phases` compute it. An S-box input may be a byte of the new
            # window (AES-192 at width 128: the RotWord word follows a new word in the same
            # step); `known[x]` would also carry the formulas of the other phases, some through
            # the S-box output, and the phase Mux would close a structural loop from `sbox_o`
            # to `sbox_i` (a false path, but a combinational cycle to RTLIL conversion and to
            # an architecture sharing the S-boxes). So rebuild such a byte from the formulas of
            # the phases that feed it to the S-box only: XORs of window bytes.
            if 0 <= x < geo.n or phases == all_phases:
                return known[x]
            formulas = {}
            for p in phases:
                formulas.setdefault(plans[p][0][x], set()).add(p)
            cases = []
            for (old, temp), ps in formulas.items():
                assert temp[0] == "byte", "an S-box input through the S-box in one step"
                cases.append((ps, sbox_source(old, ps) ^ sbox_source(temp[1], ps)))
            return _select(phase, cases)

        sbox_in = []
        for slot in range(self.sbox_count):
            srcs = {}
            for p, (_, sbox, _) in plans.items():
                if slot in sbox:
                    srcs.setdefault(sbox[slot], set()).add(p)
            sbox_in.append(_select(phase, [(ps, sbox_source(src, ps))
                                           for src, ps in srcs.items()])
                           if srcs else Const(0, 8))
        needs = [p for p, (_, sbox, _) in plans.items() if sbox]
        uses_rc = [p for p, (_, _, rc) in plans.items() if rc]
        lo = -step if reverse else step
        new_win = [known[x] for x in range(lo, lo + geo.n)]

        def any_of(phases):
            if len(phases) == len(plans):
                return Const(1, 1)
            cond = Const(0, 1)
            for p in sorted(phases):
                cond = cond | (phase == p)
            return cond
        return new_win, sbox_in, any_of(needs), any_of(uses_rc)

    def _build_step_logic(self, m, walk, sub):
        """The next window and its companions, for the key size and direction of the walk.

        One :meth:`_step_network` per key size and direction, chosen by ``size`` and ``rev``.
        Adds to ``walk``: ``new_win``, ``sbox_bytes`` (S-box inputs per slot), ``needs_sbox``,
        ``uses_rcon``, ``next_phase``, ``is_last`` (the window is the last group of the walk)
        and ``at_end`` (the window is the last group of the schedule).
        """
        step = self.width // 8
        win, size, pos, phase, rev = walk.win, walk.size, walk.pos, walk.phase, walk.rev
        new_win = Signal(data.ArrayLayout(8, walk.n_max))
        needs_sbox = Signal()
        uses_rcon = Signal()
        is_last = Signal()
        at_end = Signal()
        next_phase = Signal.like(phase)
        sbox_bytes = Signal(data.ArrayLayout(8, self.sbox_count))
        m.d.comb += new_win.eq(win)
        with m.Switch(size):
            for index, key_bits in enumerate(self.key_sizes):
                geo = self._geo[key_bits]
                with m.Case(index):
                    if not self.registered_control:
                        m.d.comb += [at_end.eq(pos == geo.end),
                                     is_last.eq(Mux(rev, pos == 0, pos == geo.end))]
                    for reverse in (False, True):
                        if reverse and not walk.has_rev:
                            continue
                        built = self._step_network(geo, reverse, walk, sub)
                        with m.If(rev if reverse else ~rev):
                            for x, value in enumerate(built[0]):
                                m.d.comb += new_win[x].eq(value)
                            for s, value in enumerate(built[1]):
                                m.d.comb += sbox_bytes[s].eq(value)
                            m.d.comb += [needs_sbox.eq(built[2]), uses_rcon.eq(built[3])]
                            if reverse:
                                m.d.comb += next_phase.eq(
                                    Mux(phase < step, phase + geo.n - step, phase - step))
                            else:
                                m.d.comb += next_phase.eq(
                                    Mux(phase + step >= geo.n, phase + step - geo.n, phase + step))
        if self.registered_control:
            is_last, at_end = walk.last_flag, walk.end_flag
        walk.new_win, walk.needs_sbox, walk.uses_rcon = new_win, needs_sbox, uses_rcon
        walk.is_last, walk.at_end, walk.next_phase = is_last, at_end, next_phase
        walk.sbox_bytes = sbox_bytes
