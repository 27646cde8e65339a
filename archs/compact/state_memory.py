"""The state memory of :class:`archs.compact.Compact`, with ShiftRows done by its addressing.

ShiftRows is an address transformation (000 section II.E,
:func:`archs.prims.shiftrows.shift_rows_source`): round output byte ``j`` is computed from input
byte ``src(j)``. The state memory is split into lanes so that one step reads its bytes in one
cycle: one lane at 8 bits, one lane per row at 32 bits (row ``r`` of the step reading column
``(n + r) mod 4``, 000 Fig. 16's "four small rows"), and one lane per row and column parity at
64 bits (a step reads two adjacent columns per row, one even and one odd). With separate
memories (``shared_memory=False``) each lane has two banks, the input and output memories of
000, swapped every round-step. With one shared memory (``shared_memory=True``) a round writes its
output byte ``j`` into the slot it read ``src(j)`` from, which is free by then; the position of
state byte ``j`` in memory after ``r`` round-steps is therefore ``src^r(j)`` and returns to ``j``
after four (000 Fig. 16).
"""

from amaranth.hdl import Cat, Const, Mux
from amaranth.lib import memory

__all__ = ["StateMemory"]


class StateMemory:
    """The state memory and its addressing, of :class:`archs.compact.Compact` (a part of it).

    Builds on the core's parameters (``datapath_width``, ``shared_memory``).
    """

    @staticmethod
    def _times_mod4(k, row):
        """``(k * row) mod 4`` for a 2-bit ``k`` and a row (int or 2-bit Value), as AND/XOR
        terms: Yosys would map a ``*`` of two signals to a DSP multiplier."""
        if isinstance(row, int):
            row = Const(row, 2)
        return Cat(k[0] & row[0], (k[1] & row[0]) ^ (k[0] & row[1]))

    def _slot(self, n, q, k):
        """Where position ``q`` of step ``n`` lives after ``k`` ShiftRows of addressing.

        Position ``j = bytes * n + q`` of the state (row ``j % 4``, column ``j // 4``) is stored
        in row ``j % 4``, column ``(j // 4 + k * row) % 4`` (that is ``src^k(j)``). Returns
        ``(lane, address)``: ``lane`` an int, or for 64 bits a 1-bit column-parity Value (the
        lane is then ``2 * row + parity``).
        """
        nbytes = self.datapath_width // 8
        if nbytes == 1:
            row, col = n[0:2], n[2:4]
            pcol = (col + self._times_mod4(k, row))[0:2]
            return 0, Cat(row, pcol)
        row, x = q % 4, q // 4
        col = Cat(Const(x, 1), n) if nbytes == 8 else n
        pcol = (col + self._times_mod4(k, row))[0:2]
        if nbytes == 4:
            return row, pcol
        return pcol[0], pcol[1]

    def _build_state_memory(self, m, wires):
        """The state memory, with ShiftRows done by its addressing (000 section II.E, Fig. 16).

        One memory per lane (module notes: one lane at 8 bits, one per row at 32 bits, one per
        row and column parity at 64 bits); with separate memories each lane has two banks, the
        input and output memories of 000, swapped every round-step. The read side is addressed
        by the issue stage, the write side by the write-back stage.

        Returns ``(mems, read_data, write_route)``: the (read port, write port) of every lane,
        the bytes read for the issued step (position 0 first) and the write stage's
        ``(lane_of, parity)`` route (see :meth:`_route`) for the write-back
        (:meth:`archs.compact.datapath.Datapath._build_write_back`).
        """
        nbytes = self.datapath_width // 8
        shared = self.shared_memory
        rnd, step, wr, ws = wires.rnd, wires.step, wires.wr, wires.ws
        lanes = nbytes
        lane_depth = 16 // nbytes
        banks = 1 if shared else 2
        mems = []
        for lane in range(lanes):
            mem = memory.Memory(shape=8, depth=lane_depth * banks, init=[])
            m.submodules[f"state{lane}"] = mem
            mems.append((mem.read_port(domain="comb"), mem.write_port()))

        # Read side (issue stage, rounds 1-10): separate memories read the bank the previous
        # round-step wrote with ShiftRows addressing (k = 1); the shared memory reads where the
        # previous round-steps left the bytes (k = r mod 4).
        k_read = rnd[0:2] if shared else Const(1, 2)
        k_write = wr[0:2] if shared else Const(0, 2)
        read_bank = ~rnd[0]
        write_bank = wr[0]

        r_lane, r_addr, r_par = self._route(step, k_read)
        w_lane, w_addr, w_par = self._route(ws, k_write)

        read_data = []
        for q in range(nbytes):
            if r_par is None:
                port = mems[r_lane[q]][0]
                read_data.append(port.data)
            else:
                row = q % 4
                even, odd = mems[2 * row][0], mems[2 * row + 1][0]
                read_data.append(Mux(r_par[q], odd.data, even.data))
        for lane, (rport, wport) in enumerate(mems):
            raddr = self._lane_address(lane, r_lane, r_addr, r_par)
            waddr = self._lane_address(lane, w_lane, w_addr, w_par)
            if not shared:
                raddr = Cat(raddr, read_bank)
                waddr = Cat(waddr, write_bank)
            m.d.comb += [rport.addr.eq(raddr), wport.addr.eq(waddr)]
        return mems, read_data, (w_lane, w_par)

    def _route(self, n, k):
        """Where the positions of step ``n`` live after ``k`` ShiftRows of addressing.

        Returns ``(lane_of, addr, parity)``: per position ``q``, its lane and its address in the
        lane, and ``parity`` None; at 64 bits ``parity`` holds the column parity of each
        position (a 1-bit Value): positions ``q`` and ``q + 4``, of the same row, go to the two
        parity lanes of that row, so the lane of a position is only known in hardware.
        """
        nbytes = self.datapath_width // 8
        pos = [self._slot(n, q, k) for q in range(nbytes)]
        if nbytes != 8:
            return [p[0] for p in pos], [p[1] for p in pos], None
        # 64 bits: positions q and q + 4 (same row) go to the two parity lanes of the row.
        lane_of = [2 * (q % 4) + p for q, (p, _) in enumerate(pos)]
        parity = [p for p, _ in pos]
        return lane_of, [a for _, a in pos], parity

    @staticmethod
    def _lane_address(lane, lane_of, addr, parity):
        """The address of ``lane`` for a route of :meth:`_route`."""
        if parity is None:
            return addr[lane_of.index(lane)]
        row, p = lane // 2, lane % 2
        # Position `row` (column x = 0) or `row + 4` (x = 1), whichever has this parity.
        return Mux(parity[row] == p, addr[row], addr[row + 4])
