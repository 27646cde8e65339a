"""Netlist-level verification: the netlist Yosys synthesized for a point, simulated with the
family's cell models, plays the same :mod:`aesdse.verify.script` script as the RTL (issue 26).

How a netlist becomes a model
-----------------------------
The synthesis stage writes ``netlist.json`` (:func:`aesdse.flow.yosys.synthesize`). One Yosys
run (:func:`netlist_rtlil`), in the directory that holds it and with relative paths (YoWASP
tools see only their working directory, docs/toolchain.md), reads the netlist back
(``read_json``), drops the black boxes synthesis left in it (the cell library it read with
``-lib``, and black-box copies of cells specialised by their parameters, which would otherwise
stand in for the real models), reads the family's cell simulation models shipped inside Yosys
(its driver's :attr:`~aesdse.flow.families.base.FamilyDriver.cell_models`; ``-overwrite``, since
a model may define a cell another model file defines too, e.g. ``FD1P3AX`` in the ECP5 files),
then the models aesdse ships for cells Yosys has only black boxes for (:data:`MODELS_DIR`,
copied into the run directory: the ECP5 DP16KD block RAM), then elaborates (``hierarchy``,
``proc``), flattens and writes RTLIL. Debug scopes (``$scopeinfo``) and internal names are
dropped: they do not change the logic, and the C++ compiles in about two thirds of the time
without them. The top module is renamed ``top``, as the RTL's is. That RTLIL goes through
:func:`aesdse.verify.verilator.compile_verilator_model` or
:func:`aesdse.verify.cxxrtl.compile_model` like an RTL design (the options passed choose;
:mod:`aesdse.engine.netlist_check` has the measurements behind its choice), so the model is
cached by its text (hence by the netlist and the models) like any other.

A cell type that is still not a Yosys internal cell after flattening has no simulation model:
:class:`NetlistUnsupported` names the types and the model files read. So does a family without
models, and a Yosys error while reading the models.

The top-level ports keep their names through synthesis (``key__valid``, ``i__payload``, ...,
``clk``, ``rst``), so the script of the RTL drives the netlist unchanged. The netlist must be
the core's own: a family whose flow wraps the core in the measurement harness
(:mod:`aesdse.flow.harness`, e.g. iCE40) synthesizes the core alone for this check, with the
same script (:func:`aesdse.flow.yosys.synthesize` on the core's RTLIL). A byte-stream core
(``port_width = 8``), which every script drives through its
:class:`archs.bytestream.ByteStreamAdapter`, is simulated inside the adapter's own RTLIL
(:func:`wrapper_rtlil`): the netlist takes the place of the adapter's core submodule, whose
ports have the names of the core's top-level ports.

What a mismatch reports
-----------------------
:func:`first_difference` compares the netlist's playback with the RTL's, edge for edge, and
names the first input or output transfer that differs (its index, its edge on both sides, the
payloads and the vector it comes from); a row records it with status :data:`NETLIST_MISMATCH`.
"""

import json
import re
import time
from pathlib import Path

import shutil

from ..flow.families import FAMILIES
from ..flow.families.base import CellModels
from ..flow.tools import exit_reason, find_tool, run_tool
from .cxxrtl import Compiler, ModelOptions, compile_model, play_compiled
from .script import Playback, Script
from .verilator import VerilatorOptions, compile_verilator_model

__all__ = ["NETLIST_MISMATCH", "MODELS_DIR", "CellModels", "NetlistUnsupported",
           "NetlistToolCrashed",
           "cell_models", "netlist_script", "netlist_rtlil", "wrapper_rtlil", "WRAPPED_CORE",
           "netlist_model", "play_netlist", "first_difference"]

#: Row status of a point whose netlist plays its script otherwise than its RTL.
NETLIST_MISMATCH = "netlist-mismatch"

#: Cell simulation models shipped with aesdse (package data), for cells Yosys's own model files
#: define only as black boxes.
MODELS_DIR = Path(__file__).with_name("models")


#: Module name, in a wrapper (:func:`wrapper_rtlil`), of the core the netlist stands for.
WRAPPED_CORE = "top.core"

#: File names, in the run directory, of the Yosys step.
_SCRIPT, _OUTPUT, _LOG = "netlist_sim.ys", "netlist_sim.il", "netlist_sim.log"
_WRAPPER = "wrapper.il"


class NetlistUnsupported(Exception):
    """The netlist cannot be simulated: the family has no cell models, Yosys could not read or
    elaborate them, or cells without a model remain (the message says which and where)."""


class NetlistToolCrashed(NetlistUnsupported):
    """Yosys died of an outside signal twice reading the netlist
    (:func:`aesdse.flow.tools.exit_reason`): not a verdict on the netlist; the next sweep
    checks it again."""


def cell_models(family: str) -> CellModels:
    """The cell models of ``family``: its driver's
    (:attr:`aesdse.flow.families.base.FamilyDriver.cell_models`).

    Raises
    ------
    NetlistUnsupported
        For a family without checked models.
    """
    driver = FAMILIES.get(family)
    if driver is None or driver.cell_models is None:
        having = sorted(name for name, d in FAMILIES.items() if d.cell_models is not None)
        raise NetlistUnsupported(
            f"no cell simulation models for device family {family!r}: aesdse simulates "
            f"netlists of {', '.join(having)} only (the cell_models of a device-family "
            f"driver, aesdse.flow.families)")
    return driver.cell_models


def netlist_script(netlist_file: str, top: str, family: str, wrapper: str | None = None) -> str:
    """The Yosys script that turns ``netlist_file`` (JSON, relative path) into flat RTLIL with
    the family's cell models (module documentation), written to ``netlist_sim.il``; its top
    module is renamed ``top``, the name both compiled backends build.

    ``wrapper``: an RTLIL file (relative path) whose module ``top`` instantiates the core as
    module ``top.core`` (:func:`wrapper_rtlil`: a byte-stream core's
    :class:`archs.bytestream.ByteStreamAdapter`); the netlist's top module is renamed so, and
    the wrapper is the top."""
    models = cell_models(family)
    defines = "".join(f" -D{name}" for name in models.defines)
    reads = "".join(f"read_verilog{defines} -overwrite {path}\n" for path in models.files)
    reads += "".join(f"read_verilog -overwrite {name}\n" for name in models.shipped)
    if wrapper:
        reads += f"rename {top} {WRAPPED_CORE}\nread_rtlil {wrapper}\n"
        top = "top"
    return (f"read_json {netlist_file}\n"
            f"delete =A:blackbox\n"
            f"{reads}"
            f"hierarchy -check -top {top}\n"
            f"proc\n"
            f"flatten\n"
            f"hierarchy -top {top}\n"
            + (f"rename {top} top\n" if top != "top" else "") +
            f"delete t:$scopeinfo\n"
            f"opt_clean -purge\n"
            f"write_rtlil {_OUTPUT}\n")


def wrapper_rtlil(wrapper) -> str:
    """RTLIL of the module ``top`` of ``wrapper`` (an Amaranth component whose submodule
    ``core`` is the core the netlist was synthesized from, e.g. a
    :class:`archs.bytestream.ByteStreamAdapter`), without the core's own modules: the netlist
    takes their place as module :data:`WRAPPED_CORE` (:func:`netlist_script`)."""
    from amaranth.back import rtlil
    text = rtlil.convert(wrapper, name="top", emit_src=False)
    chunks, chunk = [], []
    for line in text.splitlines(keepends=True):   # a module with the attributes before it
        chunk.append(line)
        if line.rstrip("\n") == "end":
            chunks.append(chunk)
            chunk = []
    return "".join(line for chunk in chunks if "module \\top\n" in chunk for line in chunk)


#: Yosys's ``hierarchy -check`` error for a cell whose type no model file defines.
_MISSING_MODULE = re.compile(r"Module `\\?([^']+)' referenced in module .* is not part of "
                             r"the design")


def _read_log(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _cell_types(netlist_path: Path) -> set:
    """Cell types used by the modules of a JSON netlist that are not black boxes."""
    modules = json.loads(netlist_path.read_text()).get("modules", {})
    return {cell["type"] for module in modules.values()
            if not module.get("attributes", {}).get("blackbox")
            for cell in module.get("cells", {}).values()}


def _unmodelled(rtlil_text: str) -> dict:
    """Cell type -> count of the cells that are not Yosys internal cells."""
    counts = {}
    for kind in re.findall(r"^\s*cell\s+(\S+)\s", rtlil_text, flags=re.MULTILINE):
        if not kind.startswith("$"):
            name = kind.lstrip("\\")
            counts[name] = counts.get(name, 0) + 1
    return counts


def netlist_rtlil(netlist_file: str, top: str, family: str, workdir: Path,
                  timeout_s: float = 600, wrapper: str | None = None) -> str:
    """Flat RTLIL of ``workdir/netlist_file`` with the family's cell models (module
    documentation). Writes ``netlist_sim.ys``, ``netlist_sim.il`` and ``netlist_sim.log`` in
    ``workdir``, and copies the family's shipped models (:attr:`CellModels.shipped`) there.
    ``wrapper``: RTLIL text of a wrapper (:func:`wrapper_rtlil`), written to ``wrapper.il``.

    Raises
    ------
    NetlistUnsupported
        No models for the family, Yosys failed on the netlist or the models, or cells without
        a model remain.
    """
    workdir = Path(workdir)
    models = cell_models(family)
    where = f"models {', '.join(models.names()) or '(none)'} of family {family}"
    left_out = _cell_types(workdir / netlist_file) & set(models.left_out)
    if left_out:
        raise NetlistUnsupported(f"cells without a simulation model in the {where}: " + "; ".join(
            f"{kind}: {models.left_out[kind]}" for kind in sorted(left_out)))
    for name in models.shipped:
        shutil.copyfile(MODELS_DIR / name, workdir / name)
    if wrapper is not None:
        (workdir / _WRAPPER).write_text(wrapper)
    (workdir / _SCRIPT).write_text(netlist_script(netlist_file, top, family,
                                                  _WRAPPER if wrapper is not None else None))
    run = run_tool(find_tool("yosys"), ["-q", "-s", _SCRIPT], workdir, _LOG, timeout_s)
    if run.timed_out:
        raise NetlistUnsupported(f"yosys ran past {timeout_s:g} s reading the netlist with the "
                                 f"{where}")
    if run.died_of:
        raise NetlistToolCrashed(f"{exit_reason('yosys', run)} (reading the netlist with the "
                                 f"{where}):\n{run.log_tail()}")
    if not run.ok:
        missing = _MISSING_MODULE.findall(_read_log(workdir / _LOG))
        if missing:
            raise NetlistUnsupported(
                f"cells without a simulation model in the {where}: "
                + ", ".join(sorted(set(missing))) + " (Yosys ships no model of "
                f"{'them' if len(set(missing)) > 1 else 'it'}, at most a black box)")
        raise NetlistUnsupported(f"yosys failed (exit status {run.returncode}) reading the "
                                 f"netlist with the {where}:\n{run.log_tail()}")
    text = (workdir / _OUTPUT).read_text()
    missing = _unmodelled(text)
    if missing:
        listed = ", ".join(f"{kind} ({count})" for kind, count in sorted(missing.items()))
        raise NetlistUnsupported(f"cells without a simulation model in the {where}: {listed}")
    return text


def netlist_model(netlist_file: str, top: str, family: str, workdir: Path, *,
                  cache_dir: Path | None = None,
                  options: ModelOptions | VerilatorOptions = ModelOptions(),
                  compiler: Compiler | None = None, timings: dict | None = None,
                  wrapper: str | None = None) -> Path:
    """The compiled model of a synthesized netlist (inside ``wrapper``, RTLIL text of
    :func:`wrapper_rtlil`, when given) (:func:`netlist_rtlil`, then
    :func:`aesdse.verify.cxxrtl.compile_model`, or with
    :class:`aesdse.verify.verilator.VerilatorOptions` as ``options``
    :func:`aesdse.verify.verilator.compile_verilator_model`; cached by the flat RTLIL's text).

    ``timings``, when given, also receives ``yosys_s``, the Yosys step's seconds.

    Raises
    ------
    NetlistUnsupported
        As :func:`netlist_rtlil`.
    aesdse.verify.cxxrtl.CompileError
        No compiler, or the compiler failed or timed out.
    """
    timings = {} if timings is None else timings
    start = time.perf_counter()
    text = netlist_rtlil(netlist_file, top, family, workdir, options.compile_timeout_s, wrapper)
    timings["yosys_s"] = time.perf_counter() - start
    if isinstance(options, VerilatorOptions):
        return compile_verilator_model(text, cache_dir=cache_dir, options=options,
                                       compiler=compiler, timings=timings)
    return compile_model(text, cache_dir=cache_dir, options=options, compiler=compiler,
                         timings=timings)


def play_netlist(model: Path, script: Script, *, timeout: float = 600.0) -> Playback:
    """Play ``script`` on a netlist model of either backend
    (:func:`aesdse.verify.cxxrtl.play_compiled`)."""
    return play_compiled(model, script, timeout=timeout)


def _payload(value) -> str:
    return f"{value:x}" if isinstance(value, int) else str(value)


def first_difference(script: Script, rtl: Playback, netlist: Playback) -> str | None:
    """The first transfer at which the netlist's playback differs from the RTL's, in words;
    None when they are equal edge for edge.

    Output transfers are compared before input ones: a wrong result is what the user wants to
    see first, and an input accepted at another edge usually follows from an earlier output
    held back or handed out early.
    """
    if rtl == netlist:
        return None
    for n, (stream, want, got) in enumerate(zip(script.outputs, rtl.produced, netlist.produced)):
        for k in range(max(len(want), len(got))):
            a = want[k] if k < len(want) else ("none", "none")
            b = got[k] if k < len(got) else ("none", "none")
            if a != b:
                note = stream.notes[k] if k < len(stream.notes) else ""
                return (f"stream {stream.name} transfer {k} ({note}): RTL at edge {a[0]} "
                        f"payload {_payload(a[1])}, netlist at edge {b[0]} payload "
                        f"{_payload(b[1])}")
    for k in range(max(len(rtl.accepted), len(netlist.accepted))):
        a = rtl.accepted[k] if k < len(rtl.accepted) else "none"
        b = netlist.accepted[k] if k < len(netlist.accepted) else "none"
        if a != b:
            item = script.items[k]
            return (f"input {item.stream} transfer {k} ({item.note}): RTL accepted it at edge "
                    f"{a}, netlist at edge {b}")
    return f"the RTL {'hung' if rtl.hung else 'finished'}, the netlist " \
           f"{'hung' if netlist.hung else 'finished'}"
