"""From stored rows to table lines: rows that differ only by placer seed become one line.

nextpnr's Fmax is a sample, not a property of the design: the placer seed alone moves it by 3-11%
on this flow (docs/toolchain.md). Rows that differ only by seed (same architecture, parameters,
target, target frequency and other flow options) are therefore aggregated into one
:class:`TableLine` by :func:`aggregate`: ``median`` (the default), ``best`` (highest Fmax) or
``min``; ``all`` keeps one line per seed. Throughput and throughput per area follow the chosen
Fmax (they are ``bits x Fmax / cycles``, so they scale with it); the area of a design does not
depend on the placer seed. Every report kind that shows one line per configuration builds on
this.
"""

import json
import statistics
from dataclasses import dataclass, replace

from ..spec.flow_options import FLOW_OPTIONS
from ..store.database import Row
from . import stats
from .cells import show_value
from .kinds import FMAX_STATS

__all__ = ["RUN_FLOW_KEYS", "TableLine", "aggregate", "scaled", "row_order", "varying_params"]


#: Flow keys that differ from run to run of one design, not design-space axes: those passed
#: at every value (seed, target frequency) and those that measure nothing (the tools' time
#: limits). Never shown as varying parameters.
RUN_FLOW_KEYS = tuple(o.name for o in FLOW_OPTIONS if o.always_passed or not o.measured)


@dataclass(frozen=True)
class TableLine:
    """One line of a table: a design configuration, over one or more placer seeds.

    Attributes
    ----------
    row : Row
        The representative row with the aggregated Fmax and the numbers that follow from it.
    members : tuple of Row
        Every verified row aggregated into this line (one per seed).
    fmax_stat : str
        One of :data:`FMAX_STATS`.
    """
    row: Row
    members: tuple
    fmax_stat: str = "median"

    @property
    def seeds(self) -> list:
        return [r.seed for r in self.members]

    @property
    def keys(self) -> list:
        return [r.key for r in self.members]

    @property
    def fmax_range(self) -> tuple | None:
        """(min, max) Fmax over the seeds, or ``None`` for a single seed."""
        values = [r.fmax_mhz for r in self.members if r.fmax_mhz is not None]
        if len(values) < 2:
            return None
        return min(values), max(values)

    @property
    def spread(self) -> "stats.SeedSpread | None":
        """Median, min-max and (from 5 seeds) the median interval of Fmax over the seeds."""
        if len(self.members) < 2:
            return None
        return stats.seed_spread([r.fmax_mhz for r in self.members])

    @property
    def spread_percent(self) -> float | None:
        """Half the min-max range of Fmax, in percent of the shown Fmax."""
        span = self.fmax_range
        if span is None or not self.row.fmax_mhz:
            return None
        return (span[1] - span[0]) / 2 / self.row.fmax_mhz * 100


def _group_key(row: Row):
    flow = {k: v for k, v in (row.flow or {}).items() if k not in RUN_FLOW_KEYS}
    return (row.arch, json.dumps(row.params, sort_keys=True), row.target, row.freq_mhz,
            json.dumps(flow, sort_keys=True))


def scaled(rep: Row, fmax: float) -> Row:
    """``rep`` with Fmax ``fmax`` and the throughput numbers that follow from it (what a row
    would be at another seed's Fmax: the area does not depend on the seed)."""
    if rep.fmax_mhz == fmax:
        return rep
    factor = fmax / rep.fmax_mhz
    throughput = rep.throughput_mbps * factor if rep.throughput_mbps is not None else None
    return replace(
        rep, fmax_mhz=fmax,
        fmax_raw_mhz=rep.fmax_raw_mhz * factor if rep.fmax_raw_mhz is not None else None,
        throughput_mbps=throughput,
        mbps_per_lut=throughput / rep.luts if throughput is not None and rep.luts else None,
        mbps_per_slice=throughput / rep.slices if throughput is not None and rep.slices
        else None)


def aggregate(rows: list[Row], fmax: str = "median") -> tuple[list[TableLine], list[Row]]:
    """Group verified rows that differ only by placer seed; return ``(entries, failures)``.

    Parameters
    ----------
    rows : list of Row
        Oldest first: when two rows share a configuration and a seed (made by different code or
        tools), only the newest counts; it is one sample, not two placer seeds.
    fmax : str
        ``median``, ``best`` (highest Fmax), ``min`` (lowest) or ``all`` (no aggregation).

    Returns
    -------
    entries : list of TableLine
        Sorted by architecture, then parameters (numbers numerically), target, target
        frequency, flow options and seed: the order of a paper's table.
    failures : list of Row
        Every row that is not ``ok``, in input order.
    """
    if fmax not in FMAX_STATS:
        raise ValueError(f"Fmax statistic must be one of {', '.join(FMAX_STATS)}, not {fmax!r}")
    ok = [r for r in rows if r.status == "ok"]
    failures = [r for r in rows if r.status != "ok"]
    if fmax == "all":
        return sorted((TableLine(r, (r,), fmax) for r in ok), key=lambda e: row_order(e.row)), failures
    groups: dict = {}
    for r in ok:
        groups.setdefault(_group_key(r), {})[r.seed] = r  # rows come oldest first
    groups = {k: list(by_seed.values()) for k, by_seed in groups.items()}
    entries = []
    for members in groups.values():
        by_fmax = sorted(members, key=lambda r: (r.fmax_mhz or 0.0, r.seed))
        if fmax == "best":
            row = by_fmax[-1]
        elif fmax == "min":
            row = by_fmax[0]
        else:
            # The lower middle row is the representative; an even count takes the mean of the two
            # middle Fmax values (statistics.median) and scales the throughput numbers to it.
            rep = by_fmax[(len(by_fmax) - 1) // 2]
            values = [r.fmax_mhz for r in by_fmax if r.fmax_mhz is not None]
            row = scaled(rep, statistics.median(values)) if values else rep
        entries.append(TableLine(row, tuple(members), fmax))
    return sorted(entries, key=lambda e: row_order(e.row)), failures


def _rank(value):
    # Numbers before text, numbers by value: datapath 8 before 32, "lut" after both.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, show_value(value))


def row_order(row: Row):
    """Sort key of a row in a table: architecture, parameters, target, frequency, flow, seed."""
    flow = {k: v for k, v in (row.flow or {}).items() if k not in RUN_FLOW_KEYS}
    return (row.arch, tuple((k, _rank(v)) for k, v in sorted(row.params.items())), row.target,
            row.freq_mhz, tuple((k, _rank(v)) for k, v in sorted(flow.items())), row.seed)


def varying_params(rows: list[Row], *, with_seed: bool = True) -> list[str]:
    """Names of the parameters (and the architecture, seed, target frequency and flow options)
    that differ between rows: the leading columns of a table. Flow options are named
    ``flow.<option>``."""
    names = []
    if len({r.arch for r in rows}) > 1:
        names.append("arch")
    for n in sorted({k for r in rows for k in r.params}):
        if len({repr(r.params.get(n)) for r in rows}) > 1:
            names.append(n)
    for n in sorted({k for r in rows for k in (r.flow or {}) if k not in RUN_FLOW_KEYS}):
        if len({repr((r.flow or {}).get(n)) for r in rows}) > 1:
            names.append(f"flow.{n}")
    # A searched point's seed and frequency are those of its best run, not a design axis.
    plain = [r for r in rows if not (r.flow or {}).get("fmax_search")]
    for n in ("seed", "freq_mhz") if with_seed else ("freq_mhz",):
        if len({getattr(r, n) for r in plain}) > 1:
            names.append(n)
    return names


