"""The netlist stage of one point (:func:`aesdse.engine.point.run_point`): its script, made
with the design, and its verdict, from the stage cache or run, recorded in the row.

What the stage checks and how is :mod:`aesdse.engine.netlist_check`; this module is its place in
a point's flow: whether the family keeps a netlist to check (:func:`keeps_netlist`), the core
synthesized alone where the flow's netlist holds the measurement harness (:func:`core_alone`),
and the verdict that fails a point on a mismatch (:func:`verify_netlist`).
"""

import hashlib
import shutil
from pathlib import Path

from ..experiment import DesignPoint
from ..flow.families import family_info
from ..flow.yosys import synthesize
from ..generate import build_component, convert_deterministic
from ..verify.cxxrtl import CompileError, PlayError, find_compiler
from ..verify.netlist import NETLIST_MISMATCH
from .cache import CacheEntry
from .keys import synth_key, synth_options
from .netlist_check import (CHECK_FILE, NETLIST_DIR, NETLIST_FILES, OLD_ESTIMATE_REASON,
                            SCRIPT_FILE, TURNED_OFF, VERIFICATION_KEY, check_netlist,
                            estimate_unchecked_reason, model_cache_dir, netlist_backend,
                            netlist_key, netlist_summary, rtl_script, unchecked)
from .runner import PointRun, StageFailed, synthesis_metadata

__all__ = ["CORE_FILE", "verify_netlist", "netlist_verdict", "keeps_netlist", "core_alone",
           "netlist_script"]

#: File, in the design stage's outputs of a family whose flow wraps the core in the measurement
#: harness, with the core's RTLIL alone (synthesized alone for the netlist stage).
CORE_FILE = "core.il"


def verify_netlist(point: DesignPoint, run: PointRun, design: dict, synth: dict, synth_entry,
                    known: dict) -> None:
    """The netlist stage (:mod:`aesdse.engine.netlist_check`): records its verdict in the row's
    verification record; raises :class:`StageFailed` on a mismatch (status
    ``netlist-mismatch``, the first differing transfer as reason) or a compiler or model crash
    (``failed-verification``)."""
    verdict = netlist_verdict(point, run, design, synth, synth_entry, known)
    known["details"][VERIFICATION_KEY].update(netlist_verified=netlist_summary(verdict),
                                              netlist=verdict)
    if verdict["verdict"] == "mismatch":
        raise StageFailed(NETLIST_MISMATCH, f"the synthesized netlist, simulated with the "
                                            f"{point.device_family} cell models, differs from the "
                                            f"RTL: {verdict['reason']}", **known)


def keeps_netlist(family: str) -> bool:
    """Whether the family's synthesis stage keeps the netlist for the netlist stage: every
    placed-and-routed family, and an estimate whose driver lists ``netlist.json`` in its
    :attr:`~aesdse.flow.families.base.FamilyDriver.estimate_files` (the Xilinx fabrics; not
    ``asic``, whose cells have no simulation models)."""
    driver = family_info(family)
    return driver.pnr_tool is not None or "netlist.json" in driver.estimate_files


def netlist_verdict(point: DesignPoint, run: PointRun, design: dict, synth: dict, synth_entry,
                     known: dict) -> dict:
    """The netlist stage's verdict, from the cache or run (``"cached"`` says which)."""
    script = design.get("netlist_script")
    if not run.netlist_verify:
        return unchecked(TURNED_OFF)
    if script is None or script.get("unsupported") == OLD_ESTIMATE_REASON.format(
            family=point.device_family):
        # A design stage made while the netlist stage was off (or by an older aesdse, e.g. of
        # a Xilinx estimate before it kept its netlist): the script is made now, elaborating
        # the core again.
        script = netlist_script(point, run, bool(design.get("harness_digest")))
        design = {**design, "netlist_script": script}
    if "unsupported" in script:
        return unchecked(script["unsupported"])
    try:
        compiler = find_compiler()
    except CompileError as e:
        return unchecked(str(e))
    directory = run.work / NETLIST_DIR
    directory.mkdir(parents=True, exist_ok=True)
    netlist_digest, entry = synth["netlist"], synth_entry
    if design.get("harness_digest"):
        try:
            netlist_digest, entry = core_alone(point, run, design, directory, known)
        except StageFailed as failed:
            return unchecked(failed.reason)
    top, family = design["top"], point.device_family
    backend = netlist_backend()

    def produce():
        run.fetch(entry, "netlist.json", directory / "netlist.json")
        try:
            return check_netlist(directory, "netlist.json", top, family,
                                 (run.work / SCRIPT_FILE).read_text(),
                                 model_cache=model_cache_dir(run.cache), compiler=compiler,
                                 backend=backend)
        except (CompileError, PlayError) as e:
            (directory / CHECK_FILE).write_text(f"{type(e).__name__}: {e}\n")
            raise StageFailed("failed-verification", f"netlist simulation: {e}",
                              **known) from None
        finally:
            (directory / "netlist.json").unlink(missing_ok=True)

    def produce_kept():
        verdict = produce()
        if verdict.get("transient"):
            raise _NotKept(verdict)  # a tool crash is no verdict: not cached
        return verdict

    try:
        verdict, _, hit = run.stage("netlist", netlist_key(netlist_digest, family, top,
                                                           script["digest"], compiler, backend),
                                    NETLIST_FILES, produce_kept, label="verify netlist",
                                    directory=directory)
    except _NotKept as not_kept:
        verdict, hit = not_kept.verdict, False
    return {**verdict, "cached": hit}


class _NotKept(Exception):
    """A netlist stage's outcome that must not go in the stage cache (a tool crash)."""

    def __init__(self, verdict: dict):
        super().__init__(verdict.get("reason"))
        self.verdict = verdict


def core_alone(point: DesignPoint, run: PointRun, design: dict, directory: Path,
                known: dict) -> tuple[str, CacheEntry | None]:
    """The core synthesized alone (:data:`CORE_FILE`, without the measurement harness its
    flow's netlist holds) in ``directory``, cached like any synthesis: ``(netlist digest, cache
    entry)``."""
    top = design["top"]
    shutil.copyfile(run.work / CORE_FILE, directory / CORE_FILE)

    def produce():
        synth = synthesize(CORE_FILE, top, directory, synth_options(point),
                           point.flow.synth_timeout_s, family=point.device_family)
        if not synth.ok:
            raise StageFailed("failed-flow", f"the core alone did not synthesize: "
                                             f"{synth.reason}", **known)
        return synthesis_metadata(synth, directory)

    synth, entry, _ = run.stage(
        "synth", synth_key(point, design["netlist_script"]["core_digest"], top),
        ("netlist.json", "stat.json", "yosys.log"), produce,
        label="synthesize (core alone, for the netlist stage)", directory=directory,
        restore=("yosys.log",))
    return synth["netlist"], entry


def netlist_script(point: DesignPoint, run: PointRun, harnessed: bool) -> dict:
    """The netlist stage's script and the RTL's playback of it (:data:`SCRIPT_FILE`), and for a
    family whose flow wraps the core in the measurement harness (``harnessed``) the core's RTLIL
    alone (:data:`CORE_FILE`). Returns the metadata of
    :func:`aesdse.engine.netlist_check.rtl_script`."""
    if not keeps_netlist(point.device_family):
        return {"unsupported": estimate_unchecked_reason(point.device_family)}
    try:
        meta, text = rtl_script(lambda: build_component(point), point,
                                model_cache=model_cache_dir(run.cache))
    except Exception as e:  # the check is lost, not the point: its verify stage passed
        return {"unsupported": f"making the script failed: {type(e).__name__}: {e}"}
    if text is None:
        return meta
    (run.work / SCRIPT_FILE).write_text(text)
    if harnessed:
        core = convert_deterministic(build_component(point, point.device_family),
                                     point.top_name)
        (run.work / CORE_FILE).write_text(core)
        meta["core_digest"] = hashlib.sha256(core.encode()).hexdigest()
    return meta
