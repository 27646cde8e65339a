"""Each device-family driver renders the Yosys script and the nextpnr arguments it rendered
before the drivers were split out (edalize-style reference files in ``tests/data/families/``).

The scripts and arguments are captured where the flow hands them to the tool runner
(:func:`aesdse.flow.tools.run_tool`), through the public :func:`aesdse.flow.yosys.synthesize`
and :func:`aesdse.flow.nextpnr.place_and_route`, so the test holds whatever builds them. Set
``AESDSE_WRITE_REFERENCES=1`` to rewrite the files (only on purpose: a changed file is a changed
flow).
"""

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from aesdse.flow.tools import ToolRun
from aesdse.flow import nextpnr, yosys
from aesdse.flow.nextpnr import flow_args
from aesdse.flow.yosys import SynthOptions
from aesdse.spec.schema import FlowOptions, Target

REFERENCES = Path(__file__).parent / "data" / "families"

#: The synthesis options rendered for every family (the ones a family does not take are
#: ignored by it, which the reference shows).
OPTIONS = {
    "default": SynthOptions(),
    "nowidelut": SynthOptions(nowidelut=True),
    "abc9-dff": SynthOptions(abc9=True, dff=True),
    "abc_area": SynthOptions(abc_area=True),
    "all": SynthOptions(True, True, True, True),
}

#: One target per part of every real family (first package, first speed grade), and some more.
TARGETS = {
    "ecp5": [Target("LFE5U-85F", "CABGA381", 8), Target("LFE5U-12F", "CABGA256", 6),
             Target("LFE5UM5G-45F", "CABGA554", 8)],
    "ice40": [Target("iCE40HX8K", "ct256", None), Target("iCE40UP5K", "sg48", None)],
    "machxo2": [Target("LCMXO2-1200HC", "TG144", 6), Target("LCMXO2-1200HC", "SG32", 4)],
    "machxo3": [Target("LCMXO3LF-6900C", "BG256", 6)],
    "nexus": [Target("LIFCL-40", "BG400", 9), Target("LIFCL-40", "BG400", 7)],
    "gowin": [Target("GW1NR-LV9", "QN88P", 6), Target("GW2A-LV18", "PG256", 8)],
    "gatemate": [Target("CCGM1A1", "FBGA324", None)],
}

#: Placer and router choices rendered for every target (nextpnr's defaults add nothing).
FLOW_ARGS = {"default": flow_args(), "sa-router2": flow_args("sa", "router2")}

#: The top module of the netlist given to nextpnr: its ports are what constraints place.
NETLIST = {"modules": {"harness": {"attributes": {"top": "00000000000000000000000000000001"},
                                   "ports": {"clk": {"bits": [2]}, "sin": {"bits": [3]},
                                             "fold": {"bits": [4, 5]}}}}}


class _Captured(Exception):
    pass


def _capture(monkeypatch, module, calls):
    def run_tool(tool, args, workdir, log, timeout_s):
        calls.append(list(args))
        # A failed run (aesdse.flow.tools.ToolRun's fields that are read); its log is never
        # written, which reads as empty.
        return ToolRun(returncode=1, seconds=0.0, log_path=Path(workdir) / log,
                       timed_out=False)
    monkeypatch.setattr(module, "run_tool", run_tool)
    monkeypatch.setattr(module, "find_tool", lambda name: SimpleNamespace(version=name))


def _render(family: str, monkeypatch, tmp_path) -> dict:
    calls = []
    _capture(monkeypatch, yosys, calls)
    _capture(monkeypatch, nextpnr, calls)
    synth = {}
    for name, options in OPTIONS.items():
        calls.clear()
        yosys.synthesize("design.il", "top", tmp_path, options, family=family)
        synth[name] = calls[-1][-1]
    pnr = {}
    for target in TARGETS[family]:
        for flow_name, extra in FLOW_ARGS.items():
            work = tmp_path / f"{target.label}-{flow_name}"
            work.mkdir()
            (work / "netlist.json").write_text(json.dumps(NETLIST))
            calls.clear()
            nextpnr.place_and_route("netlist.json", work, target, 100.0, seed=3,
                                    extra_args=tuple(extra))
            files = {p.name: p.read_text() for p in sorted(work.iterdir())
                     if p.name != "netlist.json"}
            pnr[f"{target.label} {flow_name}"] = {"args": calls[-1], "files": files}
    return {"synth": synth, "nextpnr": pnr}


@pytest.mark.parametrize("family", sorted(TARGETS))
def test_family_renders_its_reference_script_and_arguments(family, monkeypatch, tmp_path):
    rendered = _render(family, monkeypatch, tmp_path)
    path = REFERENCES / f"{family}.json"
    if os.environ.get("AESDSE_WRITE_REFERENCES"):
        path.write_text(json.dumps(rendered, indent=1) + "\n")
    assert rendered == json.loads(path.read_text())


def test_asic_reference_script(monkeypatch, tmp_path):
    # The asic estimate has no nextpnr; its Yosys script is aesdse.flow.asic's.
    from aesdse.flow import asic
    calls = []
    _capture(monkeypatch, asic, calls)
    asic.estimate("design.il", "top", tmp_path)
    path = REFERENCES / "asic.json"
    if os.environ.get("AESDSE_WRITE_REFERENCES"):
        path.write_text(json.dumps({"synth": calls}, indent=1) + "\n")
    assert {"synth": calls} == json.loads(path.read_text())


def test_stage_key_identities_per_family(monkeypatch):
    # What the synthesis and place-and-route cache keys hash (command, arguments, pin tables)
    # is unchanged, so cached stages stay valid.
    from aesdse.engine import keys as stage_keys
    from aesdse.experiment import make_point
    monkeypatch.setattr(stage_keys, "stage_key", lambda stage, identity: {stage: identity})
    monkeypatch.setattr(stage_keys, "find_tool", lambda name: SimpleNamespace(version=name))
    keys = {}
    for family, targets in sorted(TARGETS.items()):
        for target in targets:
            p = make_point("sbox", target=target, flow=FlowOptions(nowidelut=True, dff=True))
            keys[target.label] = [stage_keys.synth_key(p, "r" * 64, "top"),
                                  stage_keys.pnr_key(p, "n" * 64, 50.0, 2)]
    path = REFERENCES / "stage_keys.json"
    if os.environ.get("AESDSE_WRITE_REFERENCES"):
        path.write_text(json.dumps(keys, indent=1) + "\n")
    assert json.loads(json.dumps(keys)) == json.loads(path.read_text())


def test_synthesis_options_are_declared_once():
    # The flow options, Yosys's options and what each driver accepts are the same names.
    from dataclasses import fields
    from aesdse.flow.families import FAMILIES, SYNTH_OPTIONS
    assert tuple(f.name for f in fields(SynthOptions)) == SYNTH_OPTIONS
    assert set(SYNTH_OPTIONS) <= {f.name for f in fields(FlowOptions)}
    for driver in FAMILIES.values():
        assert set(driver.synth_options) <= set(SYNTH_OPTIONS), driver.name
