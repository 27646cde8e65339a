"""The flow options are declared once (:mod:`aesdse.spec.flow_options`), and every key derived
from them is what it was before that table existed: the point keys of shipped rows, the config
keys, the plain ``flow`` data and the stage cache keys of a grid over every option."""

import glob
import hashlib
import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from aesdse.experiment import load_experiment, parse_experiment
from aesdse.spec.schema import VerifyOptions

ROOT = Path(__file__).parent.parent

#: A grid over every flow option with a choice, on ECP5 (every synthesis option taken, a
#: floorplan allowed), and one over the HeAP timing weight on three families.
GRIDS = ["""name: pins
architectures:
  - arch: unrolled
    params: {bram_rounds: 1}
flow:
  freq_mhz: [100, 250.5]
  seeds: [1, 3]
  nowidelut: [false, true]
  abc9: [false, true]
  dff: [false, true]
  abc_area: [false, true]
  placer: [heap, sa]
  router: [router1, router2]
  floorplan: [none, lane_rows]
  synth_timeout_s: 60
  pnr_timeout_s: 90
""", """name: weights
architectures:
  - arch: sbox
targets:
  - {device: LFE5U-85F}
  - {device: iCE40UP5K}
  - {device: LIFCL-40}
flow:
  seeds: 2
  dff: [false, true]
  placer_timing_weight: [10, 30]
  router: [router1, router2]
"""]
#: sha256 of the JSON of every point of :data:`GRIDS`, in order: its config key, plain flow
#: data and synthesis and place-and-route stage identities, computed before the table existed.
PINNED = {"pins": "ba9e4aacd36124e1b0a12154d9e7b4ccacedbcb6f68672f4b605459c8cccb369",
          "weights": "9a69bf3b2c85fa9a44f60b7a1337a935403983f6474b56e81b51759af70ab616"}


def _identities(text, monkeypatch):
    from aesdse.engine import keys as stage_keys
    monkeypatch.setattr(stage_keys, "stage_key", lambda stage, identity: identity)
    monkeypatch.setattr(stage_keys, "find_tool", lambda name: SimpleNamespace(version=name))
    experiment = parse_experiment(text)
    return experiment.name, [
        [p.config_key(), p.flow.as_dict(), stage_keys.synth_key(p, "r", "top"),
         stage_keys.pnr_key(p, "n", p.flow.freq_mhz, p.flow.seed)] for p in experiment.points]


@pytest.mark.parametrize("text", GRIDS)
def test_keys_of_every_flow_option_are_unchanged(text, monkeypatch):
    name, identities = _identities(text, monkeypatch)
    digest = hashlib.sha256(json.dumps(identities, sort_keys=True).encode()).hexdigest()
    assert digest == PINNED[name]


def test_shipped_rows_keep_their_point_keys():
    # Every point of a shipped experiment whose row in results/reference/ was measured by
    # today's generator has the row's key, checked with the row's verification options (the
    # test run's backend decides the defaults of a point's own): the flow data in the key is
    # what it was.
    from aesdse.fingerprint import generator_fingerprint
    rows = defaultdict(list)
    for path in glob.glob(str(ROOT / "results" / "reference" / "*.jsonl")):
        for line in Path(path).read_text().splitlines():
            row = json.loads(line)
            rows[row["experiment"], row["config_key"]].append(row)
    compared = 0
    for path in sorted(glob.glob(str(ROOT / "experiments" / "**" / "*.yaml"), recursive=True)):
        if "/published/" in path or "/explore/" in path:   # published tables; search spaces
            continue
        experiment = load_experiment(path)
        for point in experiment.points:
            for row in rows.get((experiment.name, point.config_key()), ()):
                verify = VerifyOptions(**row["verify"])
                if row["generator"] != generator_fingerprint(point.arch) \
                        or not verify.is_resolved:  # older rows: checks of another schema
                    continue
                measured = replace(point, verify=verify)
                assert measured.key(row["tool_versions"]) == row["key"], (path, point.label)
                compared += 1
    assert compared >= 200


def test_the_docs_table_is_the_table():
    from aesdse.spec.flow_options import markdown_table
    text = (ROOT / "docs" / "experiments.md").read_text()
    start = "<!-- flow-options table: aesdse.spec.flow_options.markdown_table() -->\n"
    table = text[text.index(start) + len(start):text.index("<!-- end of flow-options table -->")]
    assert table == markdown_table()
    assert "| `placer_timing_weight` | from 1, at most 1,000 | 10 | yes | nextpnr | " \
           "`--placer-heap-timingweight` |" in table


def test_everything_is_derived_from_the_table():
    from dataclasses import fields
    from aesdse.flow.families import SYNTH_OPTIONS
    from aesdse.flow.yosys import SynthOptions
    from aesdse.spec.flow_options import FLOW_OPTIONS, OPTIONS, stage_options
    from aesdse.spec.schema import CONFIG_IGNORED_FLOW, PNR_CHOICES, FlowOptions
    from aesdse.spec.sections import FLOW_KEYS
    assert [f.name for f in fields(FlowOptions)] == [o.name for o in FLOW_OPTIONS] + [
        "fmax_search"]
    assert FlowOptions().placer_timing_weight == OPTIONS["placer_timing_weight"].default == 10
    assert tuple(f.name for f in fields(SynthOptions)) == SYNTH_OPTIONS == (
        "nowidelut", "abc9", "dff", "abc_area")
    assert [o.name for o in stage_options("pnr")] == [
        "freq_mhz", "seed", "placer", "router", "placer_timing_weight", "floorplan"]
    assert FLOW_KEYS[:2] == ("freq_mhz", "seeds") and FLOW_KEYS[-1] == "fmax_search"
    assert PNR_CHOICES == ("placer", "router", "placer_timing_weight", "floorplan")
    assert CONFIG_IGNORED_FLOW == ("synth_timeout_s", "pnr_timeout_s")
    for o in FLOW_OPTIONS:
        assert not o.choices or o.default == o.choices[0], o.name
        assert o.type is bool or o.choices or o.bounds, o.name
        assert o.stage in ("synth", "pnr"), o.name
    # The CLI's --where help names every option, the sweep plot's --x those a point chooses.
    from click.testing import CliRunner
    from aesdse.cli import main
    help_text = " ".join(CliRunner().invoke(main, ["report", "--help"]).output.split())
    assert all(f"flow_{o.name}" in help_text.replace("- ", "-") for o in FLOW_OPTIONS)
    plot_help = " ".join(CliRunner().invoke(main, ["plot", "--help"]).output.split())
    assert "flow.OPTION: flow.nowidelut, flow.abc9, flow.dff, flow.abc_area, flow.placer, " \
           "flow.router, flow.placer_timing_weight, flow.floorplan)" in plot_help


def test_the_grid_expands_named_columns_with_the_seeds_fastest():
    points = parse_experiment(GRIDS[0]).points
    assert [(p.flow.freq_mhz, p.flow.floorplan, p.flow.seed) for p in points[:4]] == [
        (100.0, "none", 1), (100.0, "none", 3), (100.0, "lane_rows", 1), (100.0, "lane_rows", 3)]
    assert points[-1].flow.as_dict() == {
        "freq_mhz": 250.5, "seed": 3, "nowidelut": True, "abc9": True, "dff": True,
        "abc_area": True, "placer": "sa", "router": "router2", "floorplan": "lane_rows",
        "synth_timeout_s": 60.0, "pnr_timeout_s": 90.0}
