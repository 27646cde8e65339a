"""Adding a device family is adding one file: a driver module that exists only for tests
(``tests/data/family_drivers/toyfpga.py``), put on the driver path of :mod:`aesdse.flow.families`,
registers its family and part; an experiment targeting the part loads, and the flow's Yosys
script, nextpnr arguments, pin file, resource columns, limits and area are its driver's. No
other module knows the family."""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from aesdse.flow.tools import ToolRun
from aesdse.flow import families

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


def _capture(monkeypatch, module, calls):
    def run_tool(tool, args, workdir, log, timeout_s):
        calls.append((tool.name, list(args)))
        # A failed run (aesdse.flow.tools.ToolRun's fields that are read); its log is never
        # written, which reads as empty.
        return ToolRun(returncode=1, seconds=0.0, log_path=Path(workdir) / log,
                       timed_out=False)
    monkeypatch.setattr(module, "run_tool", run_tool)
    monkeypatch.setattr(module, "find_tool", lambda name: SimpleNamespace(name=name, version=name))


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


def test_the_flow_runs_the_new_drivers_script_and_arguments(toyfpga, monkeypatch, tmp_path):
    from aesdse.flow import nextpnr, yosys
    from aesdse.flow.yosys import SynthOptions
    from aesdse.spec.schema import Target
    calls = []
    _capture(monkeypatch, yosys, calls)
    _capture(monkeypatch, nextpnr, calls)
    # Only the options the driver takes become flags (-abc9, -dff; not -nowidelut).
    yosys.synthesize("design.il", "top", tmp_path, SynthOptions(True, True, True, True),
                     family="toyfpga")
    assert calls[-1] == ("yosys", ["-p", "read_rtlil design.il; synth_toy -noflatten -top top "
                                         "-abc9 -dff -json netlist.json; tee -q -o stat.json "
                                         "stat -json"])
    netlist = {"modules": {"harness": {"attributes": {"top": "1"},
                                       "ports": {"sin": {"bits": [3]}, "clk": {"bits": [2]}}}}}
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    nextpnr.place_and_route("netlist.json", tmp_path, Target("TOY-1K", "QFN48", 3), 80.0)
    assert calls[-1] == ("nextpnr-toy", [
        "--device", "TOY-1K/QFN48/3", "--toy-mode", "fast", "--toy-pins", "pins.toy",
        "--freq", "80", "--seed", "1", "--timing-allow-fail", "--json", "netlist.json",
        "--report", "report.json"])
    assert (tmp_path / "pins.toy").read_text() == "pin clk P1\npin sin P2\n"


def test_stage_keys_resources_and_report_come_from_the_driver(toyfpga, monkeypatch):
    from aesdse.engine import keys as stage_keys
    from aesdse.experiment import make_point
    from aesdse.metrics import common_resources, synthesized_resources
    from aesdse.report.table import cross_family_label
    from aesdse.spec.schema import Target
    monkeypatch.setattr(stage_keys, "stage_key", lambda stage, identity: identity)
    monkeypatch.setattr(stage_keys, "find_tool", lambda name: SimpleNamespace(version=name))
    p = make_point("sbox", target=Target("TOY-1K", "QFN48", 3))
    assert stage_keys.synth_key(p, "r", "top")["command"] == "synth_toy -noflatten"
    key = stage_keys.pnr_key(p, "n", 50.0, 1)
    assert key["args"] == ["--device", "TOY-1K/QFN48/3", "--toy-mode", "fast"]
    assert key["pins"] == [None, ("P1", "P2", "P3", "P4", "P5")]
    assert key["nextpnr"] == "nextpnr-toy"
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
