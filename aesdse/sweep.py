"""Sweep: run every stage for the pending design points of an experiment and store the results.

:func:`run_point` is the whole per-point pipeline (generate -> verify -> synthesize -> place and
route -> metrics) as one plain function of picklable inputs returning a :class:`~aesdse.store.Row`,
so it runs the same in this process, in a worker process or on a remote worker. Only the caller
writes the database.

Failure isolation: a point whose generation, verification or tool run fails becomes a failed row
with its reason and log; the sweep goes on. Artifacts are written to a temporary directory and
renamed into place when the point is finished, and the row is committed after that, so a killed
sweep leaves nothing that looks finished but is not; re-running it skips finished keys only.
"""

import json
import os
import shutil
import socket
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

import archs

from .experiment import DesignPoint, Experiment
from .flow.nextpnr import place_and_route
from .flow.tools import tool_versions
from .flow.yosys import SynthOptions, synthesize
from .generate import GenerateError, build_component, generate
from .metrics import compute_metrics
from .store import Row, Store
from .verify import verify_component

__all__ = ["run_point", "sweep", "SweepSummary", "Progress"]


def _base_row(point: DesignPoint, experiment: str, key: str, versions: dict) -> dict:
    return dict(key=key, experiment=experiment, arch=point.arch, params=point.params_dict,
                target=point.target.label, flow=asdict(point.flow), seed=point.flow.seed,
                freq_mhz=point.flow.freq_mhz, tool_versions=versions,
                host=socket.gethostname())


def run_point(point: DesignPoint, experiment: str, results_dir: str, versions: dict,
              key: str | None = None, on_stage=None) -> Row:
    """Run all stages for one design point; never raises for a bad design or a tool failure.

    Parameters
    ----------
    point : DesignPoint
    experiment : str
        Experiment name recorded with the row.
    results_dir : str
        Root of the artifacts; this point's go to ``results_dir/runs/<key>/``.
    versions : dict
        Tool versions (part of the key, recorded with the row).
    on_stage : callable, optional
        Called with the stage name as each stage starts (progress display).
    """
    key = key or point.key(versions)
    stage = on_stage or (lambda name: None)
    base = _base_row(point, experiment, key, versions)
    runs = Path(results_dir) / "runs"
    final = runs / key
    work = runs / f".tmp-{key}-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    def finish(**fields) -> Row:
        if final.exists():
            shutil.rmtree(final)
        work.rename(final)
        return Row(**base, artifacts=str(final), **fields)

    stage("generate")
    try:
        design = generate(point)
    except GenerateError as e:
        (work / "error.txt").write_text(str(e) + "\n")
        return finish(status="failed-generate", reason=str(e))
    (work / "design.il").write_text(design.rtlil)
    (work / "manifest.json").write_text(json.dumps(design.manifest, indent=2) + "\n")

    stage("verify")
    fam = archs.family(point.arch)
    try:
        verification = verify_component(lambda: build_component(point), fam.kind, point.verify,
                                        key_sizes=fam.key_sizes)
    except Exception as e:  # a simulator crash is this point's failure, not the sweep's
        verification = None
        reason = f"simulation crashed: {type(e).__name__}: {e}"
        (work / "verify.txt").write_text(reason + "\n" + traceback.format_exc())
    else:
        reason = verification.reason
        (work / "verify.txt").write_text(
            f"ok={verification.ok} vectors={verification.vectors_checked} "
            f"latency={verification.latency_cycles} cycles_per_block="
            f"{verification.cycles_per_block}\n{reason or ''}\n")
    if verification is None or not verification.ok:
        return finish(status="failed-verification", reason=reason, rtlil_digest=design.digest,
                      manifest=design.manifest,
                      sim_seconds=verification.sim_seconds if verification else None)

    common = dict(rtlil_digest=design.digest, manifest=design.manifest,
                  sim_seconds=verification.sim_seconds)
    stage("synthesize")
    synth = synthesize("design.il", design.top, work,
                       SynthOptions(point.flow.nowidelut, point.flow.abc9),
                       point.flow.synth_timeout_s, verilog_file=f"{design.top}.v")
    if not synth.ok:
        return finish(status="failed-flow", reason=f"yosys: {synth.reason}",
                      synth_seconds=synth.seconds, **common)

    stage("place-and-route")
    pnr = place_and_route(synth.netlist, work, point.target, point.flow.freq_mhz,
                          point.flow.seed, point.flow.pnr_timeout_s)
    if not pnr.ok:
        return finish(status="failed-flow", reason=f"nextpnr: {pnr.reason}",
                      synth_seconds=synth.seconds, pnr_seconds=pnr.seconds, **common)
    # The synthesized netlist is large and re-creatable from design.il; keep logs and reports.
    (work / synth.netlist).unlink(missing_ok=True)

    stage("metrics")
    m = compute_metrics(pnr.utilization, pnr.fmax_mhz, verification.cycles_per_block,
                        verification.latency_cycles, carries=synth.cells.get("CCU2C", 0))
    return finish(status="ok", synth_seconds=synth.seconds, pnr_seconds=pnr.seconds,
                  **asdict(m), **common)


@dataclass
class SweepSummary:
    """What a sweep did."""
    total: int = 0
    cached: int = 0
    done: int = 0
    failed: list = field(default_factory=list)
    seconds: float = 0.0
    keys: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


class Progress:
    """Progress lines for a sweep; ``echo`` is a ``print``-like callable (None: silent)."""

    def __init__(self, total: int, echo=print):
        self.total, self.echo = total, echo
        self.start = time.perf_counter()
        self.finished = 0

    def point_done(self, row: Row, cached: bool = False):
        self.finished += 1
        if self.echo is None:
            return
        elapsed = time.perf_counter() - self.start
        what = "cached" if cached else row.status
        detail = ""
        if row.status == "ok":
            detail = (f" {row.luts} LUT4, {row.ffs} FF, {row.fmax_mhz:.1f} MHz, "
                      f"{row.cycles_per_block:g} cycles/block, {row.throughput_mbps:.0f} Mbit/s")
        elif row.reason:
            detail = " " + row.reason.splitlines()[0][:120]
        self.echo(f"[{self.finished}/{self.total} {elapsed:6.1f}s] {what:<19} "
                  f"{_label(row)}{detail}")


def _label(row: Row) -> str:
    return row.arch + "".join(f" {k}={v}" for k, v in sorted(row.params.items()))


def sweep(experiment: Experiment, store: Store, results_dir, *, force: bool = False,
          jobs: int = 1, echo=print) -> SweepSummary:
    """Run the pending points of ``experiment`` and store a row for each.

    Points whose key is already stored are skipped unless ``force``. With ``jobs > 1`` points
    run in that many worker processes; only this process writes the database.
    """
    start = time.perf_counter()
    versions = tool_versions()
    keyed = [(point, point.key(versions)) for point in experiment.points]
    summary = SweepSummary(total=len(keyed), keys=[k for _, k in keyed])
    stored = store.keys()
    progress = Progress(len(keyed), echo)
    pending = []
    for point, key in keyed:
        if key in stored and not force:
            summary.cached += 1
            row = store.get(key)
            if row.status != "ok":
                summary.failed.append(row)
            progress.point_done(row, cached=True)
        else:
            pending.append((point, key))

    def record(row: Row):
        store.put(row)
        summary.done += 1
        if row.status != "ok":
            summary.failed.append(row)
        progress.point_done(row)

    if jobs <= 1 or len(pending) <= 1:
        for point, key in pending:
            record(run_point(point, experiment.name, str(results_dir), versions, key))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_point, point, experiment.name, str(results_dir),
                                   versions, key) for point, key in pending]
            try:
                for future in as_completed(futures):
                    record(future.result())
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    summary.seconds = time.perf_counter() - start
    return summary
