"""The S-box kinds by name: what each is, the pipeline stages it takes, its latency.

The names and parameter values every ``sbox`` and ``sbox_stages`` parameter accepts, checked
before any component exists (a component whose constructor raises is never elaborated, and
Amaranth warns about it when it is collected). The components are in :mod:`.table_sbox`,
:mod:`.field_sbox`, :mod:`.circuit_sbox` and :mod:`.shared_sbox`; :func:`archs.prims.sbox.make_sbox`
builds one by name.
"""

from .circuits import CIRCUITS

__all__ = [
    "DEVICE_FAMILIES", "check_device_family", "PIPELINE_CUTS", "STAGES_TEXT", "SBOX_KINDS",
    "LOGIC_SBOX_KINDS", "SBOX_STAGES", "sbox_latency", "check_shared_stages",
]

#: Device families a netlist can be built for.
DEVICE_FAMILIES = ("generic", "ecp5")


def check_device_family(device_family):
    """Raise ``ValueError`` unless ``device_family`` is one of :data:`DEVICE_FAMILIES`."""
    if device_family not in DEVICE_FAMILIES:
        raise ValueError(f"Device family must be one of "
                         f"{', '.join(map(repr, DEVICE_FAMILIES))}, not {device_family!r}")


#: Number of pipeline registers -> the cut points of the logic S-boxes that get one (see
#: :mod:`archs.prims.field_sbox` for where each cut point is).
PIPELINE_CUTS = {
    0: (),
    1: (4,),
    2: (3, 5),
    3: (2, 4, 5),
    4: (1, 2, 4, 5),
    5: (1, 2, 3, 4, 5),
    6: (1, 2, 3, 4, 5, 6),
    # Both GF(2^4) multiplier stages cut inside (split_multipliers of subfield_inversion).
    7: (1, "2m", 3, 4, "5m", 5, 6),
}

#: The ``stages`` values of the logic S-boxes, as error messages name them.
STAGES_TEXT = f"0..{max(PIPELINE_CUTS)}"

#: S-box kind name -> one-line description (the allowed values of every ``sbox`` parameter).
SBOX_KINDS = {
    "lut": "256x8 table as combinational logic (LUTs)",
    "bram": "256x8 table in a synchronous ROM with output register (DP16KD on ECP5), 2 cycles",
    "composite": "GF((2^4)^2) inversion + affine in logic, 0..7 pipeline stages (seed 002)",
    "tower": "Canright GF(((2^2)^2)^2) normal-basis inversion + affine, 0..7 pipeline stages",
    "bp113": "Boyar-Peralta 113-gate circuit (SEA 2010); inverse between inverse affine maps",
    "bp_depth16": "Boyar-Peralta depth-16 circuits, 128 gates forward, 127 inverse (SEC 2012)",
    "me_bidir": "Maximov-Ekdahl fast bidirectional circuit (TCHES 2019), direction tied off",
    "rm_combined": "Reyhani-Masoleh-Taha-Ashmawy combined S-box/inverse (ARITH 2018), tied off",
    "rm_new_area": "Reyhani-Masoleh-Taha-Ashmawy 'new area' 110-gate circuit (TCHES 2018)",
}

#: The kinds built from logic gates (not a table), so at least
#: :data:`aesdse.engine.point.SBOX_LUT4_LOWER_BOUND` LUT4 each.
LOGIC_SBOX_KINDS = ("composite", "tower", *CIRCUITS)

#: S-box kind name -> the ``stages`` values it accepts.
SBOX_STAGES = {
    "lut": (0,),
    "bram": (0,),
    "composite": tuple(PIPELINE_CUTS),
    "tower": tuple(PIPELINE_CUTS),
    # The published circuits: registers after evenly spaced gate depths (CircuitSBox).
    **{name: tuple(PIPELINE_CUTS) for name in CIRCUITS},
}


def sbox_latency(kind: str, *, stages: int = 0) -> int:
    """Cycles from input to output of :func:`archs.prims.sbox.make_sbox` ``(kind,
    stages=stages)``, without building it (so a constructor can validate its parameters
    eagerly).

    Raises
    ------
    ValueError
        If ``kind`` is unknown or does not support ``stages``.
    """
    if kind not in SBOX_KINDS:
        raise ValueError(f"S-box family must be one of {', '.join(SBOX_KINDS)}, "
                         f"not {kind!r}")
    if stages not in SBOX_STAGES[kind] or isinstance(stages, bool):
        if SBOX_STAGES[kind] == (0,):
            raise ValueError(f"S-box family {kind!r} has no pipeline stages, not {stages!r}")
        raise ValueError(f"S-box family {kind!r} takes {STAGES_TEXT} pipeline stages, "
                         f"not {stages!r}")
    if kind == "bram":
        return 2
    return stages


def check_shared_stages(kind, stages):
    """Raise ``ValueError`` if a :class:`archs.prims.shared_sbox.SharedSBox` of ``kind`` cannot
    have ``stages``: a circuit is pipelined in one direction only (its output selection would
    need the direction delayed through the program's registers)."""
    if kind in CIRCUITS and stages:
        raise ValueError(f"S-box family {kind!r} is pipelined in one direction only "
                         f"(SubBytes or InvSubBytes), not {stages} stages in a shared S-box")
