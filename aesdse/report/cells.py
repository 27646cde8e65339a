"""How a stored row reads in a table: parameter values, labels, numbers, device families.

Every report kind formats its cells with these, so one number reads the same in every table and
every format (``1,234`` LUT4, ``117.2`` MHz, ``true`` for a YAML boolean).
"""

from dataclasses import fields

from ..flow.families import FAMILIES as DEVICE_FAMILIES, part_of
from ..store.database import Row

__all__ = ["family_of_row", "cell_value", "RANDOM_BITS_COLUMN", "random_bits_per_block", "area_of_row", "family_rank", "family_heading",
           "param_value", "column_header", "show_value", "label", "number"]


class _NoPart:
    family = None


_NO_PART = _NoPart()


def family_of_row(row: Row) -> str | None:
    """The device family of a row's target (``"ecp5"``, ``"ice40"``, ``"asic"``), or None."""
    return (part_of(row.target or "") or _NO_PART).family



#: The attributes of a stored row (every other column key is a number of an estimate's details).
_ROW_FIELDS = frozenset(f.name for f in fields(Row))


#: The column of a table with masked rows: the fresh random bits a block takes
#: (``details["randomness"]["per_block"]``, :func:`aesdse.engine.point.random_bits_details`).
RANDOM_BITS_COLUMN = ("random_bits_per_block", "Random bits/block", "int")


def random_bits_per_block(row: Row):
    """The fresh random bits one block of ``row`` takes (a masked core's), or None."""
    randomness = (row.details or {}).get("randomness")
    return randomness.get("per_block") if isinstance(randomness, dict) else None


def cell_value(row: Row, key: str):
    """The value of a table column of ``row``: a :class:`Row` attribute, the random bits per
    block of a masked row (:data:`RANDOM_BITS_COLUMN`), or one of an estimate's numbers kept in
    ``details[details_key]`` of its family's driver (the asic estimate's ``details["asic"]``)."""
    if key in _ROW_FIELDS:
        return getattr(row, key)
    if key == RANDOM_BITS_COLUMN[0]:
        return random_bits_per_block(row)
    driver = DEVICE_FAMILIES.get(family_of_row(row))
    if driver is None or driver.details_key is None:
        return None
    return ((row.details or {}).get(driver.details_key) or {}).get(key)


def area_of_row(row: Row) -> tuple[float | None, str | None]:
    """``(area, unit header)`` of a row in its own family's unit (ECP5 slices, iCE40 logic
    cells, asic GE); ``(None, None)`` for a target of no known family."""
    family = DEVICE_FAMILIES.get(family_of_row(row))
    if family is None:
        return None, None
    key, header = family.area_column
    return cell_value(row, key), header



def family_rank(family: str | None) -> int:
    """Sort key of a device family: the order of :data:`aesdse.flow.families.FAMILIES`, unknown
    last."""
    order = list(DEVICE_FAMILIES)
    return order.index(family) if family in order else len(order)


def family_heading(family: str | None) -> str:
    """The heading of a family's table: its title and area unit."""
    info = DEVICE_FAMILIES.get(family)
    if info is None:
        return "Other targets (device family unknown)"
    return f"{info.title} (area unit: {info.unit})"



def param_value(row: Row, name: str):
    """The value of column ``name`` of a row: a parameter, ``arch``/``seed``/``freq_mhz`` or
    ``flow.OPTION``."""
    if name in ("arch", "seed", "freq_mhz"):
        return getattr(row, name)
    if name == "flow.fmax_search":
        return "yes" if (row.flow or {}).get("fmax_search") else "no"
    if name.startswith("flow."):
        return (row.flow or {}).get(name[5:], "")
    return row.params.get(name, "")


def column_header(name: str) -> str:
    """The header of a parameter column."""
    return {"freq_mhz": "Target freq. (MHz)", "arch": "Arch"}.get(name, name.removeprefix("flow."))


def show_value(value) -> str:
    """A parameter value as a table shows it (booleans in lower case, as in YAML)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def label(row: Row, names: list[str] | None = None) -> str:
    """A readable name of a row: the architecture and its parameters (only ``names`` if
    given), e.g. ``iterative (sbox=lut)``."""
    keys = sorted(row.params) if names is None else [
        n for n in names if n in row.params or n.startswith("flow.") or n in ("seed", "freq_mhz")]
    params = ", ".join(f"{k.removeprefix('flow.')}={show_value(param_value(row, k))}" for k in keys)
    return f"{row.arch} ({params})" if params else row.arch


def number(value, style: str) -> str:
    """Format a table cell: ``int`` (thousands separators), ``fmax`` (0.1 MHz), ``g``,
    ``sig3`` (three significant digits, never in exponent form), ``text``; ``-`` for ``None``."""
    if value is None:
        return "-"
    if style == "text":
        return str(value)
    if style == "int":
        return f"{value:,.0f}"
    if style == "fmax":
        return f"{value:.1f}"
    if style == "g":
        return f"{value:g}"
    if style == "sig3":
        magnitude = abs(value)
        if magnitude >= 100:
            return f"{value:,.0f}"
        for limit, digits in ((10, 1), (1, 2), (0.1, 3)):
            if magnitude >= limit:
                return f"{value:.{digits}f}"
        return f"{value:.2g}"
    raise ValueError(f"Unknown number style {style!r}")

