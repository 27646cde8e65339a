"""Adding a device family is adding one file: a driver module that exists only for tests
(``tests/data/family_drivers/toyfpga.py``), put on the driver path of :mod:`aesdse.flow.families`,
registers its family, its part and its tool; an experiment targeting the part loads, the tool
is found and identified by aesdse's own lookup (:func:`aesdse.flow.tools.find_tool`: here a
stand-in executable named by ``NEXTPNR_TOY``, as a user names a build of their own), and the
flow's Yosys script, nextpnr arguments, pin file, cell models, block-RAM sites, resource
columns, limits and area are its driver's. No other module knows the family."""

import json
import sys
from pathlib import Path

import pytest

from aesdse.flow import families, tools

DRIVERS = Path(__file__).parent / "data" / "family_drivers"


@pytest.fixture
def toyfpga(monkeypatch):
    """The registry with the test family's driver module found beside the real ones."""
    monkeypatch.setattr(families, "__path__", [*families.__path__, str(DRIVERS)])
    families.discover()
    yield families.FAMILIES["toyfpga"]
    monkeypatch.undo()
    sys.modules.pop("aesdse.flow.families.toyfpga", None)
    families.discover()
    assert "toyfpga" not in families.FAMILIES and "TOY-1K" not in families.DEVICES
    assert "nextpnr-toy" not in tools.TOOLS


#: A stand-in for Yosys and for the toy family's nextpnr: says its version, appends its arguments
#: to ``argv.jsonl`` in its working directory and writes what the flow reads after it (Yosys:
#: the netlist and ``stat.json``; nextpnr: ``--report``).
FAKE_TOOL = """#!{python}
import json, sys
if sys.argv[1:] in (["-V"], ["--version"]):
    print("{version}")
    sys.exit(0)
with open("argv.jsonl", "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
if "--report" in sys.argv:
    report = {{"utilization": {{"TOY_LUT": {{"used": 7, "available": 1024}}}},
              "fmax": {{"clk": {{"achieved": 123.5, "constraint": 80.0}}}}}}
    with open(sys.argv[sys.argv.index("--report") + 1], "w") as f:
        json.dump(report, f)
else:
    with open("stat.json", "w") as f:
        json.dump({{"design": {{"num_cells_by_type": {{"TOY_LUT": 7, "TOY_FF": 3}}}}}}, f)
"""


@pytest.fixture
def toy_tools(tmp_path, monkeypatch):
    """Yosys and nextpnr-toy as stand-in executables named by their environment variables."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, variable, version in (("yosys", "YOSYS", "Yosys 0.0 (toy stand-in)"),
                                    ("nextpnr-toy", "NEXTPNR_TOY", "nextpnr-toy 1.0")):
        path = bin_dir / name
        path.write_text(FAKE_TOOL.format(python=sys.executable, version=version))
        path.chmod(0o755)
        monkeypatch.setenv(variable, str(path))
    work = tmp_path / "work"
    work.mkdir()
    return work


def _runs(work):
    return [json.loads(line) for line in (work / "argv.jsonl").read_text().splitlines()]


def test_one_file_registers_a_family_and_its_part(toyfpga):
    assert families.family_of("TOY-1K") == "toyfpga"
    assert families.part_of("TOY-1K-3QFN48").name == "TOY-1K"
    assert list(families.FAMILIES).index("toyfpga") == list(families.FAMILIES).index("asic") - 1
    assert "BGA64" in families.PACKAGES and toyfpga.tools == ("yosys", "nextpnr-toy")
    assert families.nextpnr_device("TOY-1K", "QFN48", 3) == "TOY-1K/QFN48/3"
    assert families.speed_limits("TOY-1K", 2).clock_mhz == 150
    with pytest.raises(ValueError, match=r"^Speed grade of TOY-1K must be one of 2, 3, not 1$"):
        families.speed_limits("TOY-1K", 1)
    assert families.fits("TOY-1K", luts=1025) == "does not fit TOY-1K: 1025 LUT4 > 1024"
    # Its slice convention: 4 LUT4 + 4 FF per tile, 8 Kbit block RAM at 4 per Kbit.
    assert families.area("slice-eq", device_family="toyfpga", luts=9, ffs=4, brams=1) == 3 + 32


def test_an_experiment_targets_the_new_part(toyfpga):
    from aesdse.experiment import parse_experiment
    exp = parse_experiment("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                           "  - {device: TOY-1K}\n  - {device: TOY-1K, package: BGA64, "
                           "speed: 2}\n")
    first, second = exp.points
    assert (first.target.package, first.target.speed) == ("QFN48", 3)  # the part's first ones
    assert second.target.label == "TOY-1K-2BGA64"
    assert first.device_family == "toyfpga"
    assert first.provenance({"nextpnr-toy": "1.0", "nextpnr-ecp5": "x"})["tools"] == {
        "nextpnr-toy": "1.0"}
    # Not out of context: the netlist is generated with the measurement harness beside it.
    from aesdse.generate import generate
    assert generate(first).harness_rtlil is not None


def test_the_tool_lookup_knows_the_new_tool(toyfpga, monkeypatch, tmp_path):
    # The driver's tool is registered with it: without its variable, aesdse looks for the
    # driver's package and says how to install it.
    assert tools.TOOLS["nextpnr-toy"] == tools.ToolSpec(
        "nextpnr-toy", "NEXTPNR_TOY", "yowasp-nextpnr-toy", "--version", "toyfpga")
    monkeypatch.delenv("NEXTPNR_TOY", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    with pytest.raises(tools.ToolNotFound, match=r'^nextpnr-toy not found: install it with pip '
                                                 r'install "aesdse\[toyfpga\]" \(or pip install '
                                                 r'yowasp-nextpnr-toy\), or set NEXTPNR_TOY to an '
                                                 r'executable$'):
        tools.find_tool("nextpnr-toy")


def test_the_flow_runs_the_new_drivers_script_and_arguments(toyfpga, toy_tools):
    from aesdse.flow import nextpnr, yosys
    from aesdse.flow.yosys import SynthOptions
    from aesdse.spec.schema import Target
    # Only the options the driver takes become flags (-abc9, -dff; not -nowidelut).
    synth = yosys.synthesize("design.il", "top", toy_tools, SynthOptions(True, True, True, True),
                             family="toyfpga")
    assert synth.ok and synth.tool_version == "Yosys 0.0 (toy stand-in)"
    assert synth.cells == {"TOY_LUT": 7, "TOY_FF": 3}
    assert _runs(toy_tools)[-1] == ["-p", "read_rtlil design.il; synth_toy -noflatten -top top "
                                          "-abc9 -dff -json netlist.json; tee -q -o stat.json "
                                          "stat -json"]
    netlist = {"modules": {"harness": {"attributes": {"top": "1"},
                                       "ports": {"sin": {"bits": [3]}, "clk": {"bits": [2]}}}}}
    (toy_tools / "netlist.json").write_text(json.dumps(netlist))
    routed = nextpnr.place_and_route("netlist.json", toy_tools, Target("TOY-1K", "QFN48", 3),
                                     80.0)
    assert routed.ok and routed.tool_version == "nextpnr-toy 1.0"
    assert routed.fmax_mhz == {"clk": 123.5} and routed.utilization == {"TOY_LUT": 7}
    assert _runs(toy_tools)[-1] == [
        "--device", "TOY-1K/QFN48/3", "--toy-mode", "fast", "--toy-pins", "pins.toy",
        "--freq", "80", "--seed", "1", "--timing-allow-fail", "--json", "netlist.json",
        "--report", "report.json"]
    assert (toy_tools / "pins.toy").read_text() == "pin clk P1\npin sin P2\n"


def test_cell_models_and_block_ram_sites_come_from_the_driver(toyfpga):
    from aesdse.flow.floorplan import block_ram_sites, floorplan_devices
    from aesdse.verify.netlist import cell_models, netlist_script
    assert cell_models("toyfpga").files == ("+/toy/cells_sim.v",)
    assert "read_verilog -DTOY_SIM -overwrite +/toy/cells_sim.v\n" in netlist_script(
        "netlist.json", "top", "toyfpga")
    assert floorplan_devices() == ("LFE5U-85F", "TOY-1K")
    assert block_ram_sites("TOY-1K") == [["R1C3", "R1C4"], ["R2C3", "R2C4"]]


def test_stage_keys_resources_and_report_come_from_the_driver(toyfpga, toy_tools,
                                                              monkeypatch):
    from aesdse.engine import keys as stage_keys
    from aesdse.experiment import make_point
    from aesdse.metrics import common_resources, synthesized_resources
    from aesdse.report.table import cross_family_label
    from aesdse.spec.schema import Target
    monkeypatch.setattr(stage_keys, "stage_key", lambda stage, identity: identity)
    p = make_point("sbox", target=Target("TOY-1K", "QFN48", 3))
    assert stage_keys.synth_key(p, "r", "top")["command"] == "synth_toy -noflatten"
    key = stage_keys.pnr_key(p, "n", 50.0, 1)
    assert key["args"] == ["--device", "TOY-1K/QFN48/3", "--toy-mode", "fast"]
    assert key["pins"] == [None, ("P1", "P2", "P3", "P4", "P5")]
    assert key["nextpnr"] == "nextpnr-toy 1.0"
    assert stage_keys.synth_key(p, "r", "top")["yosys"] == "Yosys 0.0 (toy stand-in)"
    assert common_resources("toyfpga", {"TOY_LUT": 7, "TOY_FF": 3}, {"TOY_CARRY": 2}) == {
        "luts": 7, "ffs": 3, "brams": 0, "dsps": 0, "carries": 2}
    assert synthesized_resources("toyfpga", {"TOY_LUT": 5}) == {"luts": 5, "ffs": 0, "brams": 0}
    # Reports order it by its rank (after GateMate, before asic) and name its area column.
    assert cross_family_label({"asic", "toyfpga", "ecp5"}).startswith(
        "Cross-family comparison: 3 device families (ECP5, ToyFPGA, asic), each area in its own "
        "family's unit (ECP5: Slices; ToyFPGA: Tiles; asic: GE).")


def test_a_driver_cannot_claim_a_part_of_another_family(toyfpga, monkeypatch):
    from aesdse.flow.families.ecp5 import PARTS
    monkeypatch.setattr(toyfpga, "parts", {"LFE5U-85F": PARTS["LFE5U-85F"]})
    with pytest.raises(ValueError, match="LFE5U-85F"):
        families.discover()
