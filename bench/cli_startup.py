"""How long the command line takes to start, against another revision, side by side.

Times two commands as whole processes: ``aesdse --help`` and a re-run of the quickstart sweep
whose one point is already stored (the sweep loads the experiment, computes the point's key and
finds the row). Each is run for this checkout (A) and for ``--base`` (B, a git revision checked
out into a temporary worktree), A and B alternating, so that a drift of the machine's speed
affects both; the medians and the median of the pairwise ratios A/B are printed. Issue 46's
targets on 2 cores: ``--help`` <= 0.3 s, the cached re-run <= 0.5 s.

Not part of the test suite (tests/test_cli_startup.py holds the property: building the command
line imports no architecture, tool or renderer).

    python bench/cli_startup.py                    # against HEAD~1
    python bench/cli_startup.py --base 9b2a5e4 -n 15
    python bench/cli_startup.py --no-bytecode      # as with PYTHONDONTWRITEBYTECODE=1
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = "experiments/quickstart.yaml"


#: Whether the commands run with Python's bytecode cache (``--no-bytecode`` turns it off).
BYTECODE = {"on": True}


def _env(checkout: Path) -> dict:
    """The environment of a timed command: ``checkout`` first on the path, and Python's
    bytecode cache as an installed Python has it. Some machines set PYTHONDONTWRITEBYTECODE
    (this project's CI sandbox does); then every process compiles every module of aesdse,
    archs and Amaranth it imports from source, which more than doubles a cached re-run
    (docs/toolchain.md, "Start-up")."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    if BYTECODE["on"]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        # No cache read either: bytecode is looked up only under an empty prefix, so every
        # module, the installed packages' too, is compiled from source (the worst case).
        env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=str(BYTECODE["empty"]))
    return env


def _run(checkout: Path, args: list, cwd: Path) -> float:
    """Wall seconds of ``python -m aesdse ARGS`` with ``checkout`` first on the path."""
    env = _env(checkout)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "aesdse", *args], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(a: Path, b: Path, runs: int, scratch: Path) -> dict:
    """Per command: the A and B times of each alternating pair."""
    db = scratch / "startup.sqlite"
    # The repository's results directory: its stage cache usually holds the quickstart's
    # stages, so storing the point first takes seconds, not a place and route.
    sweep = ["sweep", str(ROOT / QUICKSTART), "--db", str(db),
             "--results-dir", str(ROOT / "results"), "-q"]
    # The point once, so that both re-runs find it stored (keys of A and B may differ: each
    # checkout stores its own row once, then finds it).
    for checkout in (a, b):
        subprocess.run([sys.executable, "-m", "aesdse", *sweep], cwd=scratch, check=False,
                       env=_env(checkout),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    commands = {"aesdse --help": ["--help"], "cached quickstart re-run": sweep}
    out = {}
    for name, args in commands.items():
        _run(a, args, scratch), _run(b, args, scratch)  # warm-up: file caches, bytecode
        pairs = [(_run(a, args, scratch), _run(b, args, scratch)) for _ in range(runs)]
        out[name] = pairs
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD~1", help="git revision to compare with")
    parser.add_argument("-n", "--runs", type=int, default=9, help="pairs per command")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="no bytecode cache, neither written nor read: every module "
                             "compiled from source in every process")
    args = parser.parse_args(argv)
    BYTECODE["on"] = not args.no_bytecode
    with tempfile.TemporaryDirectory(prefix="aesdse-startup-") as tmp:
        scratch = Path(tmp)
        BYTECODE["empty"] = scratch / "no-bytecode"
        base = scratch / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base),
                        args.base], check=True)
        try:
            results = measure(ROOT, base, args.runs, scratch)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                           check=False)
            shutil.rmtree(base, ignore_errors=True)
    print(f"| command | this checkout (s) | {args.base} (s) | ratio (median of pairs) |")
    print("|---|---:|---:|---:|")
    for name, pairs in results.items():
        a = statistics.median(p[0] for p in pairs)
        b = statistics.median(p[1] for p in pairs)
        ratio = statistics.median(p[0] / p[1] for p in pairs)
        print(f"| {name} | {a:.3f} | {b:.3f} | {ratio:.2f} |")
    print(f"({args.runs} alternating pairs each, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}, bytecode cache {'on' if BYTECODE['on'] else 'off'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
