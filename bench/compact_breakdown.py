"""Where the LUT4 of a compact core go: hierarchical synthesis, LUT4 per submodule.

Synthesizes one ``compact`` design point with ``synth_ecp5 -noflatten`` (the sweep's flow
flattens; here every submodule keeps its boundary, so logic that would be shared or optimized
across boundaries is counted where it is written: the total is a little above the flattened
one) and prints the LUT4 (``LUT4`` cells, after ``-nowidelut``: one per TRELLIS_COMB) and
LUT-RAM cells of each module, children included.

    python bench/compact_breakdown.py datapath_width=8 sbox=composite shared_memory=true \\
        port_width=8

Parameters are YAML scalars, as ``aesdse generate --param``. Flags: ``--widelut`` (default is
``-nowidelut``, as experiments/compact_port8.yaml's first rows).
"""

import json
import sys
import tempfile
from pathlib import Path

import yaml
from amaranth.back import rtlil

import archs
from aesdse.flow.tools import find_tool, run_tool


def breakdown(params: dict, nowidelut: bool = True) -> dict:
    """``{module path: {"LUT4": n, "RAM": n}}`` of the hierarchical synthesis, children
    included, plus the top's own share under ``"(top itself)"``."""
    core = archs.family("compact").build(device_family="ecp5", **params)
    text = rtlil.convert(core, name="top", emit_src=False)
    with tempfile.TemporaryDirectory(dir=".") as work:
        work = Path(work)
        (work / "design.il").write_text(text)
        flags = " -nowidelut" if nowidelut else ""
        script = (f"read_rtlil design.il; synth_ecp5 -noflatten -dff -top top{flags}; "
                  f"tee -q -o stat.json stat -json")
        run = run_tool(find_tool("yosys"), ["-p", script], work, "yosys.log", 1800)
        if not run.ok:
            raise SystemExit(f"yosys failed:\n{run.log_tail()}")
        stat = json.loads((work / "stat.json").read_text())
    modules = {name.lstrip("\\"): info for name, info in stat["modules"].items()}

    def own(name):
        cells = modules[name].get("num_cells_by_type", {})
        return {"LUT4": cells.get("LUT4", 0), "RAM": cells.get("TRELLIS_DPR16X4", 0)}

    def total(name):
        counts = own(name)
        for cell, n in modules[name].get("num_cells_by_type", {}).items():
            if cell.lstrip("\\") in modules:
                sub = total(cell.lstrip("\\"))
                counts = {k: counts[k] + n * sub[k] for k in counts}
        return counts

    result = {"(whole core)": total("top"), "(top itself)": own("top")}
    for name in modules:
        if name != "top":
            result[f"{name} (with children; itself {own(name)['LUT4']})"] = total(name)
    return result


def main(argv):
    nowidelut = "--widelut" not in argv
    params = dict(arg.split("=", 1) for arg in argv if not arg.startswith("--"))
    params = {k: yaml.safe_load(v) for k, v in params.items()}
    for name, counts in breakdown(params, nowidelut).items():
        print(f"{counts['LUT4']:6d} LUT4 {counts['RAM']:3d} DPR16X4  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
