"""Experiment YAML: grid expansion, stable keys, and errors that name file, line and choices."""

import pytest

from aesdse.experiment import ExperimentError, load_experiment, make_point, parse_experiment

GOOD = """\
name: grid
architectures:
  - arch: iterative
    params:
      sbox: [lut]
flow:
  freq_mhz: [100, 150]
  seeds: 2
"""


def test_grid_expansion():
    exp = parse_experiment(GOOD, "grid.yaml")
    assert exp.name == "grid"
    assert len(exp.points) == 4  # 2 frequencies x 2 seeds
    assert {(p.flow.freq_mhz, p.flow.seed) for p in exp.points} == {
        (100.0, 1), (100.0, 2), (150.0, 1), (150.0, 2)}
    assert all(p.params_dict == {"sbox": "lut", "sbox_stages": 0} for p in exp.points)
    assert exp.points[0].target.device == "LFE5U-85F"


def test_keys_are_stable_and_distinct():
    exp = parse_experiment(GOOD, "grid.yaml")
    versions = {"yosys": "y 1", "nextpnr-ecp5": "n 1"}
    keys = [p.key(versions) for p in exp.points]
    assert len(set(keys)) == 4
    assert keys == [p.key(versions) for p in parse_experiment(GOOD, "other.yaml").points]
    assert exp.points[0].key({"yosys": "y 2", "nextpnr-ecp5": "n 1"}) != keys[0]


@pytest.mark.parametrize("text, message", [
    (GOOD.replace("sbox: [lut]", "sbox: [lutt]"),
     "grid.yaml:5: sbox: 'lutt' is not one of: "),
    (GOOD.replace("    params:", "    parms:"),
     "grid.yaml:4: unknown key 'parms' in an architectures entry; allowed keys: arch, params"),
    (GOOD.replace("arch: iterative", "arch: iterativ"),
     "grid.yaml:3: arch: 'iterativ' is not one of: "),
    (GOOD.replace("  seeds: 2", "  seed: 2"),
     "grid.yaml:8: unknown key 'seed' in flow; allowed keys: freq_mhz, seeds, nowidelut, "
     "abc9, dff, synth_timeout_s, pnr_timeout_s"),
    (GOOD + "targets:\n  - {device: LFE5U-99F}\n",
     "grid.yaml:10: device: 'LFE5U-99F' is not one of: LFE5U-12F, "),
    (GOOD.replace("freq_mhz: [100, 150]", "freq_mhz: [100, fast]"),
     "grid.yaml:7: freq_mhz: 'fast' must be a frequency in MHz, not a string"),
    (GOOD + "verify:\n  random_vectors: yes\n",
     "grid.yaml:10: random_vectors: True must be a number of vectors, not a boolean"),
    (GOOD.replace("name: grid\n", ""), "grid.yaml:1: missing key 'name'"),
    ("name: x\narchitectures: [\n", "grid.yaml:3: YAML syntax error"),
    (GOOD.replace("sbox: [lut]", "sbox_stages: [true]"),
     "grid.yaml:5: sbox_stages: True is not one of: 0"),
])
def test_errors_name_file_line_and_choices(text, message):
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "grid.yaml")
    assert str(info.value).startswith(message), str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ExperimentError, match=r"nope.yaml: cannot read"):
        load_experiment(tmp_path / "nope.yaml")


def test_unsafe_yaml_is_refused():
    with pytest.raises(ExperimentError, match="YAML syntax error"):
        parse_experiment("name: !!python/object/apply:os.system ['true']\n", "evil.yaml")


def test_shipped_experiments_are_valid():
    from pathlib import Path
    for path in sorted(Path(__file__).parent.parent.glob("experiments/*.yaml")):
        exp = load_experiment(path)
        assert exp.points, path


def test_make_point():
    p = make_point("iterative", {"sbox": "lut"})
    assert p.top_name == "iterative_sbox_lut_sbox_stages_0"
    with pytest.raises(ExperimentError, match=r"^iterative has no parameter 'width'"):
        make_point("iterative", {"width": 8})


def test_dff_flow_option_expands_and_keeps_old_keys_when_off():
    off = parse_experiment(GOOD, "grid.yaml").points[0]
    assert "dff" not in off.flow.as_dict()  # points without it keep their keys
    on = parse_experiment(GOOD.replace("  seeds: 2", "  seeds: 1\n  dff: [false, true]"),
                          "grid.yaml").points
    assert sorted(p.flow.dff for p in on) == [False, False, True, True]
    assert len({p.key() for p in on}) == 4
