"""What one stored design point is: the columns of the ``points`` table (:class:`Row`) and of
the ``pnr_runs`` table (:class:`PnrRun`), and the statuses a point can end in.

The table definitions themselves, and how an older file is brought up to them, are in
:mod:`aesdse.store.migrations`; the database that reads and writes these records is
:class:`aesdse.store.database.Store`.
"""

from dataclasses import asdict, dataclass, field

from ..spec.schema import config_key

__all__ = ["STATUSES", "Row", "PnrRun", "JSON_COLUMNS"]

#: Point statuses. Only ``ok`` rows carry area and speed numbers. ``does-not-fit``: the design
#: needs more of a resource than the device has, decided before place and route (the reason
#: says which resource and whether any tool ran). ``netlist-mismatch``: the synthesized netlist,
#: simulated with the family's cell models, plays the verify script otherwise than the RTL
#: (:mod:`aesdse.verify.netlist`; the reason names the first differing transfer).
STATUSES = ("ok", "failed-generate", "failed-verification", "failed-flow", "does-not-fit",
            "netlist-mismatch")


#: Columns that a point which is not ``ok`` leaves empty.
_NUMBERS = ("luts", "ffs", "brams", "slices", "fmax_mhz", "throughput_mbps")
#: Columns stored as JSON text.
JSON_COLUMNS = ("params", "flow", "tool_versions", "manifest", "verify", "fmax_by_clock",
                "details")


@dataclass
class Row:
    """One stored design point (the columns of the ``points`` table)."""
    key: str
    experiment: str
    arch: str
    params: dict
    target: str
    flow: dict
    seed: int
    freq_mhz: float
    status: str
    reason: str | None = None
    luts: int | None = None
    ffs: int | None = None
    brams: int | None = None
    carries: int | None = None
    dsps: int | None = None
    slices: int | None = None
    fmax_mhz: float | None = None
    fmax_raw_mhz: float | None = None
    fmax_capped: str | None = None
    latency_cycles: int | None = None
    cycles_per_block: float | None = None
    throughput_mbps: float | None = None
    mbps_per_lut: float | None = None
    mbps_per_slice: float | None = None
    rtlil_digest: str | None = None
    tool_versions: dict = field(default_factory=dict)
    host: str | None = None
    sim_seconds: float | None = None
    synth_seconds: float | None = None
    pnr_seconds: float | None = None
    artifacts: str | None = None
    manifest: dict | None = None
    created_at: str | None = None
    cache_hits: str | None = None
    wall_seconds: float | None = None
    config_key: str | None = None
    generator: str | None = None
    verify: dict | None = None
    fmax_by_clock: dict | None = None
    details: dict | None = None

    def __post_init__(self):
        if self.config_key is None:
            self.config_key = config_key(self.arch, self.params, self.target, self.flow)
        if self.status not in STATUSES:
            raise ValueError(f"Status must be one of {', '.join(STATUSES)}, not {self.status!r}")
        if self.status != "ok" and any(getattr(self, n) is not None for n in _NUMBERS):
            raise ValueError(f"A {self.status} point carries no numbers")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PnrRun:
    """One nextpnr run of an Fmax search (the columns of the ``pnr_runs`` table)."""
    point_key: str
    batch: int
    target_mhz: float
    seed: int
    achieved_mhz: float | None
    ok: bool
    seconds: float | None = None
    report_path: str | None = None
    reason: str | None = None
