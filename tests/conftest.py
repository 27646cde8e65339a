"""Shared fixtures: a small results database built with :class:`aesdse.store.database.Store` and
:class:`aesdse.store.database.Row` alone (no Yosys, no nextpnr), for the report, plot and CLI tests."""

import os

import pytest

from aesdse.store.database import Row, Store

# The netlist stage of the sweep (aesdse.engine.netlist_check) compiles a model of every
# synthesized netlist: tens of seconds per point. Off by default in the tests, whose sweeps
# check other things; tests/test_sweep_verification.py turns it on where it is tested (and
# tests/test_verify_netlist.py tests the models themselves).
os.environ.setdefault("AESDSE_NETLIST_VERIFY", "0")
# The verify stage's default backend, "auto", is Verilator: one model compiled per distinct
# core (seconds each), which for the hundreds of cores the architecture tests elaborate costs
# far more than their short scripts take in amaranth.sim. The tests run "auto" as amaranth.sim;
# the compiled backends are tested where they are named (tests/test_verify_equivalence.py plays
# two or more points of every family on both, tests/test_verify_compiled.py,
# tests/test_sweep_verification.py runs "auto" as a sweep does).
os.environ.setdefault("AESDSE_VERIFY_BACKEND", "amaranth")
# Compiled models (the verify stage's Verilator and CXXRTL models, the netlist stage's) in one
# cache per machine, as a user who sets AESDSE_MODEL_CACHE has it, instead of one per test's
# results directory: a model is keyed by its design digest, compiler and flags, so each test
# still plays its own design's model, but a core that several tests (or runs) sweep is compiled
# once. The tests of the cache itself name their own (tests/test_verify_compiled.py).
os.environ.setdefault("AESDSE_MODEL_CACHE",
                      os.path.join(os.path.expanduser("~"), ".cache", "aesdse", "models"))


# --- the order of the run (pytest-xdist: ``--dist worksteal`` in pyproject.toml) -------------
#
# The run ends when its last worker does: a minute-long flow test that starts last is a minute
# of idle cores. The real-tool tests (marked ``flow``) are collected first, the rest after, each
# part in the modules' own order (a module's tests stay together, so a module-scoped fixture is
# still built once per worker that runs them). Worksteal hands each worker a contiguous part
# of that order and lets a worker that runs out take half of what another has left: the run
# ends on short tests.


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("flow") is None)   # a stable sort


def _ok(key, arch, params, *, luts, ffs, fmax, cpb, brams=0, seed=1, latency=None,
        experiment="fixture", freq=100.0, capped=None):
    slices = max(-(-luts // 2), -(-ffs // 2))
    throughput = 128 * fmax / cpb
    return Row(key=key, experiment=experiment, arch=arch, params=params,
               target="LFE5U-85F-8CABGA381",
               flow={"freq_mhz": freq, "seed": seed, "nowidelut": False, "abc9": False,
                     "synth_timeout_s": 1800.0, "pnr_timeout_s": 3600.0},
               seed=seed, freq_mhz=freq, status="ok", luts=luts, ffs=ffs, brams=brams,
               carries=0, dsps=0, slices=slices, fmax_mhz=fmax, fmax_raw_mhz=fmax,
               fmax_capped=capped, latency_cycles=latency if latency is not None else int(cpb),
               cycles_per_block=cpb, throughput_mbps=throughput,
               mbps_per_lut=throughput / luts, mbps_per_slice=throughput / slices,
               tool_versions={"yosys": "0.70"}, created_at=None)


def _failed(key, arch, params, status, reason, seed=1, experiment="fixture"):
    return Row(key=key, experiment=experiment, arch=arch, params=params,
               target="LFE5U-85F-8CABGA381",
               flow={"freq_mhz": 100.0, "seed": seed, "nowidelut": False, "abc9": False,
                     "synth_timeout_s": 1800.0, "pnr_timeout_s": 3600.0},
               seed=seed, freq_mhz=100.0, status=status, reason=reason,
               artifacts=f"results/runs/{key}")


def fixture_rows() -> list[Row]:
    """The rows of the fixture database.

    * ``compact`` datapath_width=8, sbox=lut: three seeds, Fmax 130/140/150 MHz (median 140,
      min-max 130-150), 176 cycles per block: matches 000 Table III "table 8".
    * ``compact`` datapath_width=32, sbox=lut and sbox=composite: one seed each.
    * ``compact`` datapath_width=64, sbox=composite: failed verification.
    * ``unrolled`` round_units=2, schedule=split, sbox=lut: matches 004 "Design 1", whose
      published throughput the consistency check flags.
    * ``iterative`` sbox=lut: on no paper; dominated by nothing (largest throughput).

    Pareto (LUT4, Mbit/s), median Fmax: compact-8 (600, 101.8), compact-32/composite
    (700, 186.2), compact-32/lut (1400, 407.3), unrolled (2500, 2560), iterative (4500, 1164):
    every point but the iterative one is on the front.
    """
    c8 = {"datapath_width": 8, "sbox": "lut", "shared_memory": False}
    return [
        _ok("k-c8-1", "compact", c8, luts=600, ffs=420, fmax=130.0, cpb=176, seed=1),
        _ok("k-c8-2", "compact", c8, luts=600, ffs=420, fmax=150.0, cpb=176, seed=2),
        _ok("k-c8-3", "compact", c8, luts=600, ffs=420, fmax=140.0, cpb=176, seed=3),
        _ok("k-c32-lut", "compact", {"datapath_width": 32, "sbox": "lut", "shared_memory": False},
            luts=1400, ffs=500, fmax=140.0, cpb=44),
        _ok("k-c32-comp", "compact",
            {"datapath_width": 32, "sbox": "composite", "shared_memory": False},
            luts=700, ffs=500, fmax=64.0, cpb=44),
        _failed("k-c64-comp", "compact",
                {"datapath_width": 64, "sbox": "composite", "shared_memory": False},
                "failed-verification", "block 3 of FIPS-197: expected 69c4e0d8..., got 00000000"
                "\nsecond line of the reason"),
        _ok("k-unrolled", "unrolled", {"round_units": 2, "schedule": "split", "sbox": "lut"},
            luts=2500, ffs=900, fmax=100.0, cpb=5, brams=0),
        _ok("k-iter", "iterative", {"sbox": "lut", "sbox_stages": 0},
            luts=4500, ffs=700, fmax=100.0, cpb=11, latency=11),
    ]


@pytest.fixture
def rows():
    return fixture_rows()


@pytest.fixture
def fixture_db(tmp_path):
    """Path of a results database holding :func:`fixture_rows`."""
    path = tmp_path / "fixture.sqlite"
    with Store(path) as store:
        for row in fixture_rows():
            store.put(row)
    return path


def marked_processes(marker: str) -> list:
    """``(pid, command line)`` of the live processes, other than this one and pytest's own
    workers, whose environment holds ``marker``: the tools (and workers) a test started with it."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker.encode() in env and state != "Z" and "pytest" not in cmdline:
            found.append((int(entry), cmdline))
    return found
