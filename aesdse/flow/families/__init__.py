"""Device families: one driver module per family, found here and registered.

Everything aesdse knows and does for a device family lives in its driver module beside this one
(:mod:`~aesdse.flow.families.ecp5`, :mod:`~aesdse.flow.families.ice40`,
:mod:`~aesdse.flow.families.machxo2` (MachXO2 and MachXO3), :mod:`~aesdse.flow.families.nexus`,
:mod:`~aesdse.flow.families.gowin`, :mod:`~aesdse.flow.families.gatemate`,
:mod:`~aesdse.flow.families.asic`): its parts, data-sheet speed limits, Yosys script and the
synthesis options it takes, nextpnr tool (registered with :mod:`aesdse.flow.tools`), arguments
and pin constraints, its netlist cell models, its block-RAM sites for a floorplan, the cell names
of its resource columns, its slice convention and area unit, whether it is measured out of
context or in the harness, its pip extra and its table note
(:class:`~aesdse.flow.families.base.FamilyDriver`).
A module declares its drivers in ``DRIVERS``; :func:`discover` imports every module of this
package and builds the registry, so adding a family is adding one file.

This module holds the registry (:data:`FAMILIES`, :data:`DEVICES`, :data:`SLICE_CONVENTIONS`),
the look-ups by part (:func:`driver_of`, :func:`family_of`, :func:`part_of`, :func:`fits`,
:func:`speed_limits`) and the generic area conversions shared by the metrics stage, the
published-vs-measured comparison and the plots (:func:`area`, :func:`slices`,
:func:`slice_equivalents`); :func:`cap_fmax` is in :mod:`~aesdse.flow.families.base`.
"""

import importlib
import math
import pkgutil

from ..tools import register_tools
from .base import (FamilyDriver, Part, PUBLISHED_CONVENTIONS, SLICES_PER_BRAM_KBIT, SYNTH_OPTIONS,
                   SliceConvention, SpeedLimits, cap_fmax)

__all__ = [
    "FamilyDriver", "Part", "SpeedLimits", "SliceConvention", "SYNTH_OPTIONS", "discover",
    "FAMILIES", "DEVICES", "PACKAGES", "SPEEDS", "SLICE_CONVENTIONS", "SLICES_PER_BRAM_KBIT",
    "AREA_MEASURES", "family_info", "driver_of", "family_of", "part_of", "fits", "speed_limits",
    "nextpnr_device", "cap_fmax", "bram_slice_equivalents", "slice_equivalents", "slices", "area",
    "row_area", "lut_count_of",
]

#: Modules of this package that are not drivers.
_NOT_DRIVERS = ("base",)

#: Device families by name (a :class:`FamilyDriver` each), in the drivers' ``rank`` order.
FAMILIES: dict[str, FamilyDriver] = {}
#: Every part aesdse can target, by name.
DEVICES: dict[str, Part] = {}
#: Slice conventions by device family: the drivers' and those of the families of published
#: tables (:data:`aesdse.flow.families.base.PUBLISHED_CONVENTIONS`).
SLICE_CONVENTIONS: dict[str, SliceConvention] = {}
#: Every package of some part, and every speed grade (which part takes which: :class:`Part`).
PACKAGES: tuple = ()
SPEEDS: tuple = ()


def discover() -> None:
    """(Re)build the registry from the driver modules of this package (every module on its
    ``__path__`` but ``base``), each contributing its ``DRIVERS``. The tables are updated in
    place, so names imported from here stay valid.

    Raises
    ------
    ValueError
        When two drivers claim one family name or one part, or a part's ``family`` is not its
        driver's.
    """
    global PACKAGES, SPEEDS
    drivers = []
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name in _NOT_DRIVERS or module.name.startswith("_"):
            continue
        drivers += getattr(importlib.import_module(f"{__name__}.{module.name}"), "DRIVERS", ())
    drivers.sort(key=lambda d: d.rank)
    families, devices = {}, {}
    for driver in drivers:
        if driver.name in families:
            raise ValueError(f"Two drivers of device family {driver.name!r}")
        families[driver.name] = driver
        for name, part in driver.parts.items():
            if name in devices or part.family != driver.name:
                raise ValueError(f"Part {name!r} of {driver.name}: claimed twice or of "
                                 f"family {part.family!r}")
            devices[name] = part
    FAMILIES.clear()
    FAMILIES.update(families)
    DEVICES.clear()
    DEVICES.update(devices)
    SLICE_CONVENTIONS.clear()
    SLICE_CONVENTIONS.update({d.name: d.convention for d in drivers if d.convention})
    SLICE_CONVENTIONS.update({c.family: c for c in PUBLISHED_CONVENTIONS})
    PACKAGES = tuple(pkg for d in drivers for pkg in d.packages)
    SPEEDS = tuple(sorted({s for p in devices.values() for s in p.speeds}))
    register_tools(d.pnr_tool_spec for d in drivers if d.pnr_tool_spec)


def family_info(family: str) -> FamilyDriver:
    """The driver of device family ``family``."""
    try:
        return FAMILIES[family]
    except KeyError:
        raise ValueError(f"Device family must be one of {', '.join(FAMILIES)}, "
                         f"not {family!r}") from None


def family_of(device: str) -> str:
    """The device family of a part name (``"LFE5U-85F"`` -> ``"ecp5"``)."""
    try:
        return DEVICES[device].family
    except KeyError:
        raise ValueError(f"Device must be one of {', '.join(DEVICES)}, not {device!r}") from None


def driver_of(device: str) -> FamilyDriver:
    """The driver of a part's family (``"LFE5U-85F"`` -> the ECP5 driver)."""
    return FAMILIES[family_of(device)]


def part_of(target_label: str) -> Part | None:
    """The part of a stored target label (``"LFE5U-85F-8CABGA381"`` -> LFE5U-85F,
    ``"iCE40UP5K-sg48"`` -> iCE40UP5K, ``"asic"`` -> asic), or None."""
    matches = [p for name, p in DEVICES.items()
               if target_label.startswith(name + "-") or target_label == name]
    return max(matches, key=lambda p: len(p.name)) if matches else None


def nextpnr_device(device: str, package: str | None, speed: int | None) -> str:
    """The name nextpnr's ``--device`` takes for a part (:meth:`FamilyDriver.nextpnr_device`):
    ``LCMXO2-1200HC-6SG32C``, ``LIFCL-40-9BG400C``, ``GW1NR-LV9QN88PC6/I5``, ``CCGM1A1``."""
    return driver_of(device).nextpnr_device(device, package, speed)


def fits(device: str, *, luts: int = 0, ffs: int = 0, brams: int = 0) -> str | None:
    """None when ``luts``, ``ffs`` and ``brams`` fit ``device``; else why not, in words. A part
    without capacity (``asic``) fits everything. For iCE40 a logic cell holds one LUT4 and one
    flip-flop, so a design needs at least ``max(LUT4, FF)`` cells (a lower bound: a LUT and a
    flip-flop share a cell only when the flip-flop takes the LUT's output or nothing)."""
    part = DEVICES[device]
    if not part.luts:
        return None
    over = []
    if luts > part.luts:
        over.append(f"{luts} LUT4 > {part.luts}")
    if ffs > part.ffs:
        over.append(f"{ffs} FF > {part.ffs}")
    if brams > part.brams:
        over.append(f"{brams} block RAM > {part.brams}")
    return f"does not fit {device}: " + ", ".join(over) if over else None


def speed_limits(device: str, speed: int | None) -> SpeedLimits:
    """The data-sheet limits of ``device`` at speed grade ``speed`` (None for a family without
    speed grades)."""
    table = driver_of(device).speed_limits
    try:
        return table[speed]
    except KeyError:
        grades = [str(g) for g in table if g is not None] or ["none (the part has no grade)"]
        raise ValueError(f"Speed grade of {device} must be one of "
                         f"{', '.join(sorted(grades))}, not {speed!r}") from None


# --- area ---------------------------------------------------------------------------------------

def _convention(device_family: str) -> SliceConvention:
    try:
        return SLICE_CONVENTIONS[device_family]
    except KeyError:
        raise ValueError(f"Device family must be one of {', '.join(sorted(SLICE_CONVENTIONS))}, "
                         f"not {device_family!r}") from None


def _rate(rate):
    rate = SLICES_PER_BRAM_KBIT if rate is None else rate
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1e6 \
            or math.isnan(rate):
        raise ValueError(f"Slices per block RAM Kbit must be a number from 0 to 1e6, not {rate!r}")
    return float(rate)


def bram_slice_equivalents(brams: float, *, device_family: str, bram_kbits: float | None = None,
                           rate: float | None = None) -> float:
    """Slice equivalents of ``brams`` block RAMs: ``brams x Kbit per block x rate``
    (:data:`SLICES_PER_BRAM_KBIT` unless ``rate`` is given); ``bram_kbits`` overrides the
    family's block size (e.g. when a paper prints its own)."""
    convention = _convention(device_family)
    kbits = convention.bram_kbits if bram_kbits is None else bram_kbits
    if brams < 0 or kbits <= 0:
        raise ValueError(f"Block RAM count must be non-negative and size positive, not "
                         f"{brams!r} x {kbits!r} Kbit")
    return brams * kbits * _rate(rate)


def slices(luts: float | None, ffs: float | None, *, device_family: str = "ecp5") -> int:
    """Slices needed for ``luts`` and ``ffs`` with perfect packing:
    ``max(ceil(LUTs / LUTs per slice), ceil(FFs / FFs per slice))`` (a lower bound on what a
    placer uses). ECP5: 2 LUT4 + 2 FF per slice."""
    convention = _convention(device_family)
    return max(math.ceil((luts or 0) / convention.luts_per_slice),
               math.ceil((ffs or 0) / convention.ffs_per_slice))


def slice_equivalents(luts: int | None = None, ffs: int | None = None,
                      slices: float | None = None, brams: float | None = None, *,
                      device_family: str, bram_kbits: float | None = None,
                      rate: float | None = None) -> float:
    """Area in slice equivalents under the explicit conventions of :data:`SLICE_CONVENTIONS`.

    Logic counts ``slices`` when given (the tool's own count); otherwise
    ``max(ceil(luts / LUTs per slice), ceil(ffs / FFs per slice))`` for the family (perfect
    packing, a lower bound). Block RAM adds :func:`bram_slice_equivalents`.

    Parameters
    ----------
    luts : int, optional
        LUTs of the family's own size (LUT4 for ECP5 and Spartan-3, LUT6 for Virtex-5).
    ffs : int, optional
        Flip-flops.
    slices : float, optional
        Slices as reported; takes precedence over ``luts`` and ``ffs``.
    brams : float, optional
        Block RAMs of the family's primitive (e.g. DP16KD, RAMB36).
    device_family : str
        Key of :data:`SLICE_CONVENTIONS`; required, so no conversion is ever implicit.
    bram_kbits : float, optional
        Block RAM size in Kbit, overriding the family's.
    rate : float, optional
        Slice-equivalents per block RAM Kbit (default :data:`SLICES_PER_BRAM_KBIT`).

    Raises
    ------
    ValueError
        For an unknown family, negative counts, or no area at all.

    Examples
    --------
    >>> slice_equivalents(luts=301, ffs=120, device_family="ecp5")
    151.0
    >>> slice_equivalents(slices=193, brams=4, device_family="virtex7")  # 001, Virtex-7 row
    705.0
    """
    convention = _convention(device_family)
    counts = {"luts": luts, "ffs": ffs, "slices": slices, "brams": brams}
    for name, count in counts.items():
        if count is not None and (isinstance(count, bool) or count < 0):
            raise ValueError(f"{name} must be a non-negative number, not {count!r}")
    if all(count is None for count in counts.values()):
        raise ValueError("Give at least one of luts, ffs, slices, brams")
    if slices is not None:
        logic = float(slices)
    else:
        logic = float(max(math.ceil((luts or 0) / convention.luts_per_slice),
                          math.ceil((ffs or 0) / convention.ffs_per_slice)))
    memory = 0.0 if brams is None else bram_slice_equivalents(
        brams, device_family=device_family, bram_kbits=bram_kbits, rate=rate)
    return logic + memory


#: Area measures of :func:`area`, with their axis labels.
AREA_MEASURES = {
    "luts": "LUT4",
    "slices": "slices (logic only)",
    "slice-eq": "slice-equivalents (block RAM included)",
}


def area(measure: str, *, device_family: str | None, luts=None, ffs=None, slices=None,
         brams=None, bram_kbits=None, rate: float | None = None) -> float | None:
    """The area of one design (measured or published) in ``measure``, or None when the counts
    given do not express it for that family. The one area function of aesdse: the metrics stage,
    the comparison with published tables and the plots all call it.

    ``luts``
        The LUT count, only for a LUT4 family (LUT4 and LUT6 are never converted).
    ``slices``
        Logic slices: the tool's count if given, else the perfect-packing estimate from LUTs and
        flip-flops; block RAM is not included (say so wherever designs with block RAM are
        compared in slices). None without a logic count.
    ``slice-eq``
        Logic slices plus block RAM at ``rate`` slice-equivalents per Kbit (:func:`slice_equivalents`);
        None without a logic count (a block RAM count alone would understate the area).
    """
    if measure not in AREA_MEASURES:
        raise ValueError(f"Area measure must be one of {', '.join(AREA_MEASURES)}, "
                         f"not {measure!r}")
    if device_family not in SLICE_CONVENTIONS:
        return None
    convention = SLICE_CONVENTIONS[device_family]
    has_logic = slices is not None or luts is not None or ffs is not None
    if measure == "luts":
        return float(luts) if luts is not None and convention.lut_inputs == 4 else None
    if not has_logic:
        return None
    logic = slice_equivalents(luts=luts, ffs=ffs, slices=slices, device_family=device_family)
    if measure == "slices":
        return logic
    if not brams:
        return logic
    return logic + bram_slice_equivalents(brams, device_family=device_family,
                                          bram_kbits=bram_kbits, rate=rate)


def row_area(row, measure: str, rate: float | None = None) -> float | None:
    """:func:`area` of a measured, stored row (:class:`aesdse.store.database.Row`), its device family
    taken from its target; for an estimate without place and route, from its slice estimate and
    the block RAM Kbit of its details."""
    part = part_of(row.target or "")
    driver = FAMILIES.get(part.family) if part else None
    if driver is not None and driver.pnr_tool is None and row.slices is not None:
        # An estimate without place and route (the Xilinx targets): its slice estimate is the
        # logic (a LUT6 count is never in the LUT4 column), its block RAM the Kbit it counted.
        kbits = ((row.details or {}).get(driver.details_key) or {}).get("bram_kbits") or 0
        return area(measure, device_family=part.family, slices=row.slices,
                    brams=1 if kbits else 0, bram_kbits=kbits or None, rate=rate)
    if row.luts is None and row.ffs is None:
        return None
    return area(measure, device_family=part.family if part else None, luts=row.luts,
                ffs=row.ffs, brams=row.brams or 0, rate=rate)


def lut_count_of(row) -> tuple[int, int] | None:
    """``(LUT count, LUT inputs)`` of a stored row (:class:`aesdse.store.database.Row`), in its
    fabric's own LUT size, or None for a row without one (an asic estimate, a failed run).

    The ``luts`` column holds LUT4 only: a LUT6 fabric's count (the Xilinx Virtex-5 and later
    estimates) is in ``details[details_key]["lut_count"]``, never in that column, and is given
    here with its 6 inputs, so a reader gets every row's LUTs without mixing the two sizes."""
    part = part_of(row.target or "")
    driver = FAMILIES.get(part.family) if part else None
    convention = driver.convention if driver is not None else None
    if convention is None:
        return None
    if convention.lut_inputs == 4 and row.luts is not None:
        return int(row.luts), 4
    details = ((row.details or {}).get(driver.details_key) or {}) if driver.details_key else {}
    count = details.get("lut_count")
    return (int(count), convention.lut_inputs) if count is not None else None


discover()
