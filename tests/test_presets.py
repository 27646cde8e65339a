"""Parameter groups, presets and sampling of the architecture families (issue 46): a group is
only a way of writing parameters, a preset a named starting point, and a family can enumerate or
sample points it can build."""

import json
import random

import pytest
from click.testing import CliRunner

import archs
from aesdse.cli import main
from aesdse.experiment import ExperimentError, make_point, parse_experiment
from aesdse.store.exchange import open_reference

ENTRY = """name: t
architectures:
  - arch: unrolled
{entry}
"""


def _points(entry: str):
    return parse_experiment(ENTRY.format(entry=entry), "t.yaml").points


def test_groups_name_parameters_of_their_family_and_never_a_parameter():
    for fam in archs.FAMILIES.values():
        names = {p.name for p in fam.params}
        grouped = [m for members in fam.groups.values() for m in members]
        assert set(grouped) <= names and len(grouped) == len(set(grouped)), fam.name
        assert not set(fam.groups) & names, fam.name


def test_a_group_is_the_same_point_as_its_flat_names():
    flat = _points("    params: {round_units: 1, key_schedule: precomputed, lean_control: true}")
    grouped = _points("    params: {rounds: {round_units: 1}, keys: {key_schedule: precomputed},"
                      " control: {lean_control: true}}")
    assert [p.config_key() for p in flat] == [p.config_key() for p in grouped]
    # lists inside a group expand the grid as flat lists do
    grid = _points("    params: {round_units: 1, control: {lean_control: [false, true]}}")
    assert sorted(dict(p.params).get("lean_control", False) for p in grid) == [False, True]


@pytest.mark.parametrize("entry, message", [
    ("    params: {keys: {sbox: lut}}", "t.yaml:4: unknown key 'sbox' in the keys group of "
                                        "unrolled; allowed keys: key_schedule"),
    ("    params: {keys: precomputed}", "t.yaml:4: keys: a group of unrolled's parameters, "
                                        "given as a mapping of key_schedule"),
    ("    params: {lean_control: true, control: {lean_control: false}}",
     "t.yaml:4: lean_control: given twice (a parameter is given once, by its name or in its "
     "group control)"),
    ("    preset: fastest", "t.yaml:4: preset: 'fastest' is not one of: record_iterative_bram"),
    ("    params: {nonsense: 1}", "allowed keys: round_units, schedule"),
])
def test_bad_groups_and_presets_name_the_line_and_the_allowed_values(entry, message):
    with pytest.raises(ExperimentError) as e:
        _points(entry)
    assert message in str(e.value)


def test_a_family_without_presets_says_so():
    text = "name: t\narchitectures:\n  - arch: gcm_iterative\n  - arch: iterative\n" \
           "    preset: record_sbox\n"
    with pytest.raises(ExperimentError, match=r"t.yaml:5: preset: iterative has no presets"):
        parse_experiment(text, "t.yaml")


def test_params_override_the_preset():
    (point,) = _points("    preset: record_iterative_logic\n    params: {lean_control: false,"
                       " initial_add_round_key: entry, key_into_feedback: false}")
    params = dict(point.params)  # parameters at their default may be left out of a point
    assert params.get("lean_control", False) is False and params["sbox"] == "tower"
    assert "key_into_feedback" not in params or params["key_into_feedback"] is False
    assert params["sbox_stages"] == 7 and params["round_units"] == 1


def test_every_preset_builds_and_each_records_preset_is_a_shipped_records_point():
    # A preset is checked like any point, and is the very configuration the records table
    # shows: the shipped rows hold a verified row of it on LFE5U-85F.
    with open_reference([archs.__path__[0] + "/../results/reference"]) as ref:
        shipped = {(r.arch, json.dumps(r.params, sort_keys=True)) for r in ref.rows()
                   if r.status == "ok" and r.target.startswith("LFE5U-85F")}
    for fam in archs.FAMILIES.values():
        for name in fam.presets:
            point = make_point(fam.name, preset=name)
            assert (fam.name, json.dumps(dict(point.params), sort_keys=True)) in shipped, \
                (fam.name, name)


def test_sample_gives_valid_and_varied_points():
    fam = archs.FAMILIES["unrolled"]
    rng = random.Random(7)
    points = [fam.sample(rng) for _ in range(25)]
    assert all(fam.check_params(p) is None for p in points)
    assert len({json.dumps(p, sort_keys=True) for p in points}) == 25
    for name in ("round_units", "sbox", "key_schedule", "parallel_lanes"):
        assert len({p[name] for p in points}) > 1, name
    # the same seed, the same points
    assert [fam.sample(random.Random(7)) for _ in range(1)] == points[:1]
    with pytest.raises(ValueError, match="not valid"):
        fam.sample(rng, start={**fam.defaults(), "merged_linear_layer": True})


def test_valid_points_enumerates_a_small_space_and_refuses_a_large_one():
    fam = archs.FAMILIES["sbox"]
    points = fam.valid_points()
    assert all(fam.check_params(p) is None for p in points)
    grid = 1
    for p in fam.params:
        grid *= len(p.choices)
    assert 0 < len(points) < grid  # some combinations are refused (stages of a LUT S-box)
    assert {"sbox": "lut", "sbox_stages": 0, "direction": "encrypt"} in points
    assert {"sbox": "lut", "sbox_stages": 3, "direction": "encrypt"} not in points
    with pytest.raises(ValueError, match="sample them"):
        archs.FAMILIES["unrolled"].valid_points()


def test_list_archs_shows_groups_and_presets():
    out = CliRunner().invoke(main, ["list", "archs"]).output
    assert "  keys:\n    key_schedule" in out and "preset record_pipelined:" in out
    data = json.loads(CliRunner().invoke(main, ["list", "archs", "--json"]).output)
    unrolled = data["unrolled"]
    assert unrolled["params"]["key_lead"]["group"] == "keys"
    assert unrolled["presets"]["record_one_chip"]["params"]["parallel_lanes"] == 3


def test_generate_takes_a_preset(tmp_path):
    result = CliRunner().invoke(main, ["generate", "sbox", "--preset", "record_sbox",
                                       "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    manifest = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert manifest["params"]["sbox"] == "rm_combined"
    bad = CliRunner().invoke(main, ["generate", "sbox", "--preset", "fast", "-o", str(tmp_path)])
    assert bad.exit_code == 1 and "sbox has no preset 'fast'; presets: record_sbox" in bad.output
