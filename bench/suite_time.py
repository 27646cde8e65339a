"""Where the default test run's time goes: the suite under a sampling profiler, by kind of work.

The test run's goal is 8 minutes on 2 cores (README, "Running the tests"), and ``--durations``
names slow tests but not what they spend it on: a test that runs the real tools, converts a
core to RTLIL, builds a simulator and plays it looks the same. This script runs the README's
test command under py-spy (``pip install py-spy``; it samples every Python process the run
starts, the pytest workers and the yowasp tools, at ``--rate`` samples per second) and sorts
each sample into the first kind whose pattern its stack matches:

* ``real tools``: Yosys and nextpnr (yowasp, WebAssembly through wasmtime);
* ``RTLIL conversion``: ``amaranth.back.rtlil`` (the netlist builder and the RTLIL text);
* ``simulator build``: ``amaranth.sim.Simulator.__init__`` (elaboration, lowering, code
  generation);
* ``simulation run``: the rest of ``amaranth.sim`` (the generated code, the testbenches);
* ``collection and imports``; ``other``.

C++ compilers (the Verilator and CXXRTL models) are not Python and are not sampled: their share
is the run's CPU time (``time``) less the samples. It prints the kinds and the tests with the
most samples of each kind, and writes them as JSON with ``--json``.

Measured on 2026-12-04 at 98068c7 (2 cores, warm model caches, 20 samples per second, 18,794
samples): real tools 26.5%, RTLIL conversion 20.7%, simulation run 18.7%, other 15.9%,
simulator build 15.1%, collection and imports 3.3%. The same run without the profiler used 1.91
of its 2 cores (user + sys 1,084 s in 568 s): a third worker would have little to fill.

    python bench/suite_time.py                         # the whole default run
    python bench/suite_time.py -- tests/test_flow.py   # arguments after -- go to pytest
    python bench/suite_time.py --from-profile /tmp/spy.txt --json time.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

__all__ = ["KINDS", "kind_of", "owner_test", "summarize", "main"]

#: (kind, pattern of a sampled stack), first match wins: a tool run inside a simulator build is
#: the tool's.
KINDS = (
    ("real tools", re.compile(r"yowasp|wasmtime")),
    ("RTLIL conversion", re.compile(r"\(amaranth/back/rtlil\.py")),
    ("simulator build", re.compile(r"Simulator\.__init__ \(amaranth/sim/core\.py")),
    ("simulation run", re.compile(r"\(amaranth/sim/")),
    ("collection and imports", re.compile(r"_find_and_load|\(_pytest/python\.py.*collect")),
)
_TEST = re.compile(r";(\w+) \((test_\w+\.py):\d+\)")


def kind_of(stack: str) -> str:
    """The kind of work of one sampled stack (py-spy's raw format, frames joined by ``;``)."""
    for kind, pattern in KINDS:
        if pattern.search(stack):
            return kind
    return "other"


def owner_test(stack: str) -> str | None:
    """``file::function`` of the outermost test module frame of a stack (the test or its
    fixture), or None (a tool process: its stack does not show which test started it)."""
    found = _TEST.search(stack)
    return f"{found.group(2)}::{found.group(1)}" if found else None


def summarize(lines, top: int = 8) -> dict:
    """The samples of py-spy raw lines (``stack count``) by kind, and each kind's tests with the
    most samples."""
    kinds, tests = Counter(), {}
    pending = ""
    for line in lines:
        # A tool's command line may hold newlines (a Yosys script): its sample's line goes on
        # until one ends in the count.
        stack, _, count = (pending + line.rstrip("\n")).rpartition(" ")
        if not count.isdigit():
            pending += line
            continue
        pending = ""
        kind = kind_of(stack)
        kinds[kind] += int(count)
        test = owner_test(stack)
        if test is not None:
            tests.setdefault(kind, Counter())[test] += int(count)
    total = sum(kinds.values())
    return {"samples": total,
            "kinds": [{"kind": k, "samples": n, "share": n / total if total else 0.0,
                       "tests": [{"test": t, "samples": m}
                                 for t, m in tests.get(k, Counter()).most_common(top)]}
                      for k, n in kinds.most_common()]}


def _profile(pytest_args: list[str], rate: int, out: Path) -> None:
    command = ["py-spy", "record", "--subprocesses", "--nonblocking", "--rate", str(rate),
               "--format", "raw", "-o", str(out), "--",
               sys.executable, "-m", "pytest", "-q", *pytest_args]
    try:
        subprocess.run(command, check=False)
    except FileNotFoundError:
        sys.exit("py-spy not found: pip install py-spy")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=int, default=20, help="samples per second (default 20)")
    parser.add_argument("--from-profile", type=Path,
                        help="summarize this py-spy raw file instead of running the tests")
    parser.add_argument("--top", type=int, default=8, help="tests shown per kind (default 8)")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    profile = args.from_profile
    if profile is None:
        profile = Path(tempfile.mkdtemp(prefix="aesdse-test-time-")) / "profile.txt"
        _profile(args.pytest_args, args.rate, profile)
    with open(profile, errors="replace") as f:
        summary = summarize(f, args.top)
    print(f"{summary['samples']} samples ({profile})")
    for kind in summary["kinds"]:
        print(f"{kind['share']:6.1%} {kind['samples']:7d}  {kind['kind']}")
        for test in kind["tests"]:
            print(f"{'':16}{test['samples']:6d}  {test['test']}")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
