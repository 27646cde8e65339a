"""Time the verify backends side by side: amaranth.sim and compiled CXXRTL models play one script.

For each point, one script (:func:`aesdse.verify.script.block_script`: the standard vectors and
``--blocks`` random blocks per key size, in each direction the core supports, with the default
random stalls on both sides) is played by amaranth.sim and by a CXXRTL model built with each
requested ``write_cxxrtl -O`` level and set of compiler flags, from an empty model cache (cold:
Yosys, the compiler and the link included) and again from the cache (cached: the play alone).
Every compiled playback must equal amaranth.sim's, edge for edge. Printed per configuration: the
seconds of each step (wall; the compiler's CPU seconds in brackets, as the machine may be
shared), and the ratios amaranth.sim / compiled, cold and cached. Targets (issue 26): at least
10x cold and 100x cached with 2,000 random blocks on a ``tbox`` and a ``multimode`` point.

Not part of the test suite (a cold tbox model takes minutes of g++).

    python bench/verify_speed.py                                # tbox and compact-8, -O1
    python bench/verify_speed.py --points compact8 --blocks 2000
    python bench/verify_speed.py --points tbox --flags=-O0 --flags=-O1 --cxxrtl-opt 6 3
    python bench/verify_speed.py --point 'iterative:{"sbox": "composite"}' --noflatten
"""

import argparse
import json
import resource
import shlex
import tempfile
import time

import archs
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.cxxrtl import (ModelOptions, compile_model, design_rtlil, find_compiler,
                                  play_compiled)
from aesdse.verify.script import block_script, check_playback, common_interface, play_amaranth

POINTS = {"tbox": ("tbox", {}), "compact8": ("compact", {"datapath_width": 8})}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench_point(arch, params, *, blocks, configs, amaranth=True):
    fam = archs.family(arch)

    def build():
        return common_interface(fam.build(device_family="generic", **{**fam.defaults(), **params}))
    dut = build()
    script = block_script(dut, VerifyOptions(random_vectors=blocks), key_sizes=fam.key_sizes,
                          directions=fam.directions)
    transfers = len(script.outputs[0].expected)
    print(f"\n{arch} {json.dumps(params)}: {transfers} blocks, {len(script.items)} input "
          f"transfers")
    reference = None
    python_s = None
    if amaranth:
        start = time.perf_counter()
        reference = play_amaranth(dut, script)
        python_s = time.perf_counter() - start
        check_playback(script, reference)
        last = max(edge for edge, _ in reference.produced[0])
        print(f"  amaranth.sim: {python_s:8.2f} s  ({last} cycles, "
              f"{last / python_s:,.0f} cycles/s)")
    else:
        design_rtlil(dut)           # elaborated (Amaranth warns about a core that never is)
    text = design_rtlil(build())
    print(f"  RTLIL: {len(text) / 1e6:.2f} MB")
    for options in configs:
        with tempfile.TemporaryDirectory() as cache:
            timings = {}
            cpu = children_cpu()
            start = time.perf_counter()
            model = compile_model(text, cache_dir=cache, options=options, timings=timings)
            build_s = time.perf_counter() - start
            build_cpu = children_cpu() - cpu
            start = time.perf_counter()
            playback = play_compiled(model, script)
            play_s = time.perf_counter() - start
            start = time.perf_counter()
            playback = play_compiled(compile_model(text, cache_dir=cache, options=options),
                                     script)
            cached_s = time.perf_counter() - start
        check_playback(script, playback)
        same = "identical" if reference is None or playback == reference else "DIFFERENT"
        steps = "  ".join(f"{k[:-2]} {v:.2f}" for k, v in timings.items())
        label = (f"cxxrtl -O{options.cxxrtl_opt}{'' if options.flatten else ' -noflatten'} "
                 f"{' '.join(options.cxx_flags)}")
        line = (f"  {label:40} "
                f"build {build_s:7.2f} s [{build_cpu:6.1f} CPU-s] ({steps})  play "
                f"{play_s:6.3f} s  cached {cached_s:6.3f} s  {same}")
        if python_s:
            line += (f"  ratio cold {python_s / (build_s + play_s):6.1f}x  cached "
                     f"{python_s / cached_s:7.1f}x")
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", nargs="*", default=list(POINTS), choices=list(POINTS))
    parser.add_argument("--point", action="append", default=[],
                        help="ARCH:JSON-PARAMS, e.g. 'tbox:{\"datapath_width\": 64}'")
    parser.add_argument("--blocks", type=int, default=100,
                        help="random blocks per key size (plus the standard vectors)")
    parser.add_argument("--flags", action="append", default=None,
                        help="compiler flags of one configuration (repeatable); default -O1")
    parser.add_argument("--cxxrtl-opt", type=int, nargs="*", default=[6])
    parser.add_argument("--compile-timeout", type=float, default=3600.0,
                        help="seconds allowed to Yosys and each compiler run (g++ -O1 of the "
                             "default tbox core takes about 260 CPU-s)")
    parser.add_argument("--noflatten", action="store_true",
                        help="also each configuration with write_cxxrtl -noflatten")
    parser.add_argument("--no-amaranth", action="store_true",
                        help="compiled backend only (no ratios)")
    args = parser.parse_args()
    print(f"compiler: {find_compiler().identity}")
    configs = [ModelOptions(cxxrtl_opt=level, cxx_flags=tuple(shlex.split(flags)),
                            flatten=flatten, compile_timeout_s=args.compile_timeout)
               for flatten in ((True, False) if args.noflatten else (True,))
               for level in args.cxxrtl_opt for flags in (args.flags or ["-O1"])]
    points = [POINTS[name] for name in args.points]
    for spec in args.point:
        arch, _, params = spec.partition(":")
        points.append((arch, json.loads(params or "{}")))
    for arch, params in points:
        bench_point(arch, params, blocks=args.blocks, configs=configs,
                    amaranth=not args.no_amaranth)


if __name__ == "__main__":
    main()
