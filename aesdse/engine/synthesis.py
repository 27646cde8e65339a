"""Synthesis only: a design point generated, verified and synthesized, without place and route.

The cheap first look of ``aesdse explore`` (:mod:`aesdse.explore`): the same stages as
:func:`aesdse.engine.point.run_point` up to the capacity check after synthesis, through the same
stage cache with the same keys, so a point that the search later places and routes takes its
design and netlist from the cache. Nothing is stored in the database and no artifacts are kept:
the figures go back to the search, which decides whether place and route is worth running.
"""

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ..experiment import DesignPoint
from ..flow.families import family_info
from ..flow.logic_depth import logic_depth
from ..metrics import synthesized_resources
from .artifacts import tmp_name
from .cache import StageCache
from .point import design_checked, synthesis_checked
from .runner import PointRun, StageFailed

__all__ = ["SynthesisFigures", "synthesize_point"]


@dataclass(frozen=True)
class SynthesisFigures:
    """What synthesis (and the verify stage before it) tells of a point.

    Attributes
    ----------
    status : str
        ``"ok"``, a failed status of :data:`aesdse.store.database.STATUSES` (``does-not-fit``
        after synthesis, ``failed-verification``, ``failed-flow``, ...), or ``"no-synthesis"``
        for a device family whose flow is an estimate (nothing to learn cheaply).
    reason : str or None
    luts, ffs, brams : int or None
        The synthesized cells counted as the family's capacity columns.
    cycles_per_block, latency_cycles
        Measured by the verify stage.
    logic_depth : float or None
        LUT levels of the deepest register-to-register path of the netlist
        (:func:`aesdse.flow.logic_depth.logic_depth`).
    seconds : float
        Wall time of this evaluation (cache hits included).
    """
    status: str
    reason: str | None = None
    luts: int | None = None
    ffs: int | None = None
    brams: int | None = None
    cycles_per_block: float | None = None
    latency_cycles: int | None = None
    logic_depth: float | None = None
    seconds: float = 0.0

    def values(self) -> dict:
        """The known metrics by name (as :data:`aesdse.explore.settings.SYNTHESIS_METRICS`)."""
        return {"luts": self.luts, "ffs": self.ffs, "brams": self.brams,
                "cycles_per_block": self.cycles_per_block, "latency_cycles": self.latency_cycles}


def synthesize_point(point: DesignPoint, results_dir: str, key: str, on_stage=None, *,
                     cache_dir: str | None = None, use_cache: bool = True) -> SynthesisFigures:
    """Generate, verify and synthesize ``point`` (stage cache under ``results_dir/cache``);
    never raises for a bad design or a tool failure (the figures' status says it)."""
    start = time.perf_counter()
    work = Path(results_dir) / "runs" / tmp_name(f"synthesis-{key}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run = PointRun(work, StageCache(cache_dir or Path(results_dir) / "cache"), use_cache,
                   on_stage or (lambda name: None), netlist_verify=False)
    try:
        design, known = design_checked(point, run)
        verified = design["verification"]
        timing = dict(cycles_per_block=verified["cycles_per_block"],
                      latency_cycles=verified["latency_cycles"])
        if family_info(point.device_family).pnr_tool is None:
            return SynthesisFigures("no-synthesis", None, **timing,
                                    seconds=time.perf_counter() - start)
        synth, entry = synthesis_checked(point, run, design, design["top"], known)
        run.fetch(entry, "netlist.json", work / "netlist.json")
        depth = logic_depth(work / "netlist.json")
    except StageFailed as failed:
        return SynthesisFigures(failed.status, failed.reason,
                                seconds=time.perf_counter() - start)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    resources = synthesized_resources(point.device_family, synth["cells"]) or {}
    return SynthesisFigures("ok", None, luts=resources.get("luts"), ffs=resources.get("ffs"),
                            brams=resources.get("brams"), **timing, logic_depth=depth,
                            seconds=time.perf_counter() - start)
