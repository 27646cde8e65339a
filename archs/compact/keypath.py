"""The key path of :class:`archs.compact.Compact`: its on-the-fly key schedule and the S-boxes
of it.

The round keys come one group per write-back step, in the order the datapath consumes them
(package notes, "Key schedule"): from a :class:`archs.prims.keyexpander.KeyExpander` of
``key_width`` bits (000 section II.D, Fig. 7 at 32 bits, Fig. 10 at 64 bits, byte-serial at 8
bits), or with byte-wide ports from a :class:`archs.prims.bytekeyschedule.ByteKeySchedule`
(package notes, "Byte-wide ports" and "One S-box"). Its S-boxes belong to the core, named
``key_sbox<n>`` so that :attr:`archs.compact.Compact.resources` counts them apart.
"""

from amaranth.hdl import Const

from ..interface import value_bytes
from ..prims.bytekeyschedule import ByteKeySchedule
from ..prims.keyexpander import KeyExpander
from ..prims.sbox import make_sbox

__all__ = ["KeyPath"]


class KeyPath:
    """The key schedule of :class:`archs.compact.Compact` (a part of it).

    Builds on the core's parameters (``datapath_width``, ``key_width``, ``port_width``,
    ``key_sbox``, ``sbox``, ``sbox_stages``, ``sbox_latency``, ``device_family``).
    """

    def _build_key_schedule(self, m, wires):
        """The on-the-fly key schedule (000 section II.D, Fig. 7 and Fig. 10) and its S-boxes.

        A :class:`KeyExpander` of ``key_width`` bits with narrow S-box ports; the S-boxes are
        this core's (named ``key_sbox<n>``: :attr:`archs.compact.Compact.resources` counts them
        apart from the datapath's). Fills in the :class:`archs.compact.wires.CoreWires` fields
        ``kx`` (the expander), ``key_bytes`` (the round-key bytes of the write-back stage's
        step), ``group_end`` (that step uses the last bytes of the expander's group, so the
        next group is taken with it) and ``kx_at_start`` (the walk is at round key 0).
        """
        if self.port_width == 8:
            self._build_byte_key_schedule(m, wires)
            return
        nbytes = self.datapath_width // 8
        ws = wires.ws
        kw = self.key_width
        m.submodules.key_schedule = kx = KeyExpander(kw, sbox=None, sbox_latency=self.sbox_latency)
        for n in range(kx.sbox_count):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, device_family=self.device_family)
            m.submodules[f"key_sbox{n}"] = sb
            hi = 8 * (kx.sbox_count - n)
            m.d.comb += [sb.i.eq(kx.sbox_i[hi - 8:hi]), kx.sbox_o[hi - 8:hi].eq(sb.o)]
        # Round-key bytes of the write stage. A group of the schedule covers kw / width steps.
        group_steps = kw // self.datapath_width
        if group_steps == 1:
            key_bytes = value_bytes(kx.round_key, nbytes)
            group_end = Const(1, 1)
        else:
            key_bytes = [kx.round_key.word_select(~ws[0:2], 8)]
            group_end = ws[0:2] == group_steps - 1
        kx_at_start = kx.round == 0
        if kx.parts > 1:
            kx_at_start = kx_at_start & (kx.part == 0)
        wires.kx, wires.key_bytes, wires.group_end, wires.kx_at_start = \
            kx, key_bytes, group_end, kx_at_start

    def _build_byte_key_schedule(self, m, wires):
        """The key schedule of the byte-port core: a :class:`ByteKeySchedule` fed by the key
        stream, with one S-box of this core (``key_sbox0``).

        It steps with every write-back, cycles through round keys 0..10 and refills itself
        with the cipher key during round 10, so it needs no restart between blocks (package
        notes, "Byte-wide ports"). Adds to ``wires`` what :meth:`_build_key_schedule` adds.
        """
        if self.key_sbox == "shared":
            # The datapath's S-box serves the lookups too (Datapath._build_round_datapath).
            m.submodules.key_schedule = kx = ByteKeySchedule(prefetch=True)
        else:
            m.submodules.key_schedule = kx = ByteKeySchedule()
            m.submodules.key_sbox0 = sb = make_sbox(self.sbox, stages=self.sbox_stages,
                                                    device_family=self.device_family)
            m.d.comb += [sb.i.eq(kx.sbox_i), kx.sbox_o.eq(sb.o)]
        wires.kx, wires.key_bytes, wires.group_end = kx, [kx.round_key], Const(1, 1)
        wires.kx_at_start = (kx.round == 0) & (kx.index == 0)
