"""LUT4, LUT depth and gate equivalents of every logic S-box family, synthesis only.

For each logic family (archs.prims.sbox.LOGIC_SBOX_KINDS) this synthesizes SubBytes,
InvSubBytes and the shared enc/dec S-box (:class:`archs.prims.sbox.SharedSBox`, which has no
standalone design point) alone, combinational, with ``synth_ecp5 -nowidelut`` (LUT4 count and
``ltp -noff`` depth in LUT levels) and with the asic gate-equivalent flow (aesdse/flow/asic.py).
No place and route: the standalone sweep (experiments/sbox_circuits.yaml) gives Fmax.

    python bench/sbox_circuits.py [--out results/sbox_circuits] [--families bp113,me_bidir]
"""

import argparse
import re
from pathlib import Path

from amaranth.back import rtlil

from aesdse.flow.asic import estimate
from aesdse.flow.tools import find_tool, run_tool
from archs.prims.sbox import LOGIC_SBOX_KINDS, SharedSBox, make_sbox

VARIANTS = {
    "SubBytes": lambda family: make_sbox(family),
    "InvSubBytes": lambda family: make_sbox(family, inverse=True),
    "shared": lambda family: SharedSBox(family),
}


def ecp5_luts(workdir: Path) -> tuple[int, int]:
    """LUT4 and LUT depth of ``workdir/top.il`` after ``synth_ecp5 -nowidelut``."""
    # The reports go to files of their own (tee): the log's tail is not reliably complete.
    script = ("read_rtlil top.il; synth_ecp5 -nowidelut -top top; "
              "tee -q -o ecp5_stat.txt stat; tee -q -o ecp5_ltp.txt ltp -noff")
    run = run_tool(find_tool("yosys"), ["-p", script], workdir, "ecp5.log", 600)
    if not run.ok:
        raise RuntimeError(f"yosys failed in {workdir}\n{run.log_tail()}")
    stat = (workdir / "ecp5_stat.txt").read_text()
    ltp = (workdir / "ecp5_ltp.txt").read_text()
    luts = int(re.findall(r"^\s+(\d+)\s+LUT4\s*$", stat, re.M)[-1])
    depth = int(re.findall(r"Longest topological path in \S+ \(length=(\d+)\)", ltp)[-1])
    return luts, depth


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/sbox_circuits")
    parser.add_argument("--families", default=",".join(LOGIC_SBOX_KINDS))
    parser.add_argument("--no-asic", action="store_true")
    args = parser.parse_args()
    print(f"{'family':12} {'variant':12} {'LUT4':>5} {'depth':>5} {'GE':>7} {'GE depth':>8}")
    for family in args.families.split(","):
        for variant, build in VARIANTS.items():
            workdir = Path(args.out) / f"{family}-{variant}"
            workdir.mkdir(parents=True, exist_ok=True)
            (workdir / "top.il").write_text(rtlil.convert(build(family), name="top"))
            luts, depth = ecp5_luts(workdir)
            ge, ge_depth = "", ""
            if not args.no_asic:
                asic = estimate("top.il", "top", workdir, timeout_s=600)
                ge, ge_depth = f"{asic.area_ge:.0f}", f"{asic.depth_nand2:.1f}"
            print(f"{family:12} {variant:12} {luts:5} {depth:5} {ge:>7} {ge_depth:>8}",
                  flush=True)


if __name__ == "__main__":
    main()
