"""Experiment YAML: grid expansion, stable keys, and errors that name file, line and choices."""

import re

import pytest

from aesdse.experiment import ExperimentError, load_experiment, make_point, parse_experiment
from aesdse.spec.schema import Target

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
     "grid.yaml:4: unknown key 'parms' in an architectures entry; allowed keys: arch, preset, params"),
    (GOOD.replace("arch: iterative", "arch: iterativ"),
     "grid.yaml:3: arch: 'iterativ' is not one of: "),
    (GOOD.replace("  seeds: 2", "  seed: 2"),
     "grid.yaml:8: unknown key 'seed' in flow; allowed keys: freq_mhz, seeds, nowidelut, "
     "abc9, dff, abc_area, placer, router, placer_timing_weight, floorplan, synth_timeout_s, "
     "pnr_timeout_s"),
    (GOOD + "targets:\n  - {device: LFE5U-99F}\n",
     "grid.yaml:10: device: 'LFE5U-99F' is not one of: LFE5U-12F, "),
    (GOOD.replace("freq_mhz: [100, 150]", "freq_mhz: [100, fast]"),
     "grid.yaml:7: freq_mhz: 'fast' must be a frequency in MHz, not a string"),
    (GOOD + "verify:\n  random_vectors: yes\n",
     "grid.yaml:10: random_vectors: True must be a number of vectors, not a boolean"),
    (GOOD + "verify:\n  backend: fast\n",
     "grid.yaml:10: backend: 'fast' is not one of: auto, verilator, cxxrtl, amaranth"),
    (GOOD.replace("name: grid\n", ""), "grid.yaml:1: missing key 'name'"),
    ("name: x\narchitectures: [\n", "grid.yaml:3: YAML syntax error"),
    (GOOD.replace("sbox: [lut]", "sbox_stages: [true]"),
     "grid.yaml:5: sbox_stages: True is not one of: 0"),
])
def test_errors_name_file_line_and_choices(text, message):
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "grid.yaml")
    assert str(info.value).startswith(message), str(info.value)


def test_verify_backend_is_parsed_and_not_part_of_the_key():
    versions = {"yosys": "y 1", "nextpnr-ecp5": "n 1"}
    default = parse_experiment(GOOD, "grid.yaml").points[0]
    chosen = parse_experiment(GOOD + "verify: {backend: amaranth}\n", "grid.yaml").points[0]
    assert default.verify.backend == "auto" and chosen.verify.backend == "amaranth"
    # The backends give identical results: the point and its key are the same.
    assert chosen.key(versions) == default.key(versions)


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


def test_long_top_names_fit_a_file_name(tmp_path, monkeypatch):
    # Issue 22's one-chip point with 14 parameters gave a 256-character top name, and Yosys
    # could not write <top>.v ("Filename too long"). Long names end in a hash of the whole:
    # distinct, stable, identifiers, and short enough for the point's files; short names stay.
    from aesdse.experiment import TOP_NAME_LIMIT
    params = {"round_units": 10, "sbox": "composite", "sbox_stages": 6, "bram_rounds": 4,
              "bram_read_ports": 2, "bram_fabric_registers": 1, "key_schedule": "on_the_fly",
              "lean_control": True, "parallel_lanes": 3, "lane_keys": "per_lane",
              "sbox_output_copies": 2}
    names = {make_point("unrolled", {**params, "registered_hand_out": flag}).top_name
             for flag in (False, True)}
    assert len(names) == 2
    for name in names:
        assert len(name) <= TOP_NAME_LIMIT and name.isidentifier()
        assert name.startswith("unrolled_bram_fabric_registers_1_bram_read_ports_2")
        (tmp_path / f"{name}.json").write_text("{}")
    # The 235-character name of the same point without the hand-out fits: it is unchanged, so
    # the rows and stage cache measured under it stay valid.
    fitting = make_point("unrolled", params)
    assert fitting.top_name == "_".join(["unrolled"] + [f"{k}_{v}".lower()
                                                        for k, v in fitting.params])
    assert 200 < len(fitting.top_name) <= TOP_NAME_LIMIT
    assert make_point("unrolled", {**params, "registered_hand_out": True}).top_name in names
    assert make_point("iterative", {"sbox": "lut"}).top_name == "iterative_sbox_lut_sbox_stages_0"
    # The design stage's cache key holds the name: a stage cached under the unshortened name
    # (whose Verilog could not be written) is not taken for the shortened one.
    from aesdse import experiment
    from aesdse.engine.point import design_key
    point = make_point("unrolled", {**params, "registered_hand_out": True})
    shortened = design_key(point)
    monkeypatch.setattr(experiment, "TOP_NAME_LIMIT", 1000)
    assert len(point.top_name) > 250 and design_key(point) != shortened


def test_dff_flow_option_expands_and_keeps_old_keys_when_off():
    off = parse_experiment(GOOD, "grid.yaml").points[0]
    assert "dff" not in off.flow.as_dict()  # points without it keep their keys
    on = parse_experiment(GOOD.replace("  seeds: 2", "  seeds: 1\n  dff: [false, true]"),
                          "grid.yaml").points
    assert sorted(p.flow.dff for p in on) == [False, False, True, True]
    assert len({p.key() for p in on}) == 4


def test_abc_area_flow_option_expands_and_keeps_old_keys_when_off():
    off = parse_experiment(GOOD, "grid.yaml").points
    assert "abc_area" not in off[0].flow.as_dict()  # points without it keep their keys
    on = parse_experiment(GOOD.replace("  seeds: 2", "  seeds: 1\n  abc_area: [false, true]"),
                          "grid.yaml").points
    assert sorted(p.flow.abc_area for p in on) == [False, False, True, True]
    assert len({p.key() for p in on}) == 4
    assert {p.key() for p in on if not p.flow.abc_area} <= {p.key() for p in off}


def test_placer_router_flow_options_expand_validate_and_keep_old_keys():
    from aesdse.flow.nextpnr import PLACERS, ROUTERS, flow_args
    from aesdse.flow.floorplan import FLOORPLANS
    assert (PLACERS, ROUTERS, FLOORPLANS) == (("heap", "sa", "static"), ("router1", "router2"),
                                              ("none", "lane_rows"))
    off = parse_experiment(GOOD, "grid.yaml").points[0]
    flow = off.flow.as_dict()
    assert "placer" not in flow and "router" not in flow  # points without them keep their keys
    assert flow_args(off.flow.placer, off.flow.router) == []
    on = parse_experiment(GOOD.replace("  seeds: 2", "  seeds: 1\n  placer: [heap, sa]\n"
                                                     "  router: router2"), "grid.yaml").points
    assert sorted((p.flow.placer, p.flow.router) for p in on) == \
        [("heap", "router2")] * 2 + [("sa", "router2")] * 2
    assert len({p.key() for p in on}) == 4
    assert flow_args("sa", "router2") == ["--placer", "sa", "--router", "router2"]
    with pytest.raises(ExperimentError, match=r"grid.yaml:9: placer: 'annealing' is not one "
                                              r"of: heap, sa, static"):
        parse_experiment(GOOD + "  placer: annealing\n", "grid.yaml")
    with pytest.raises(ExperimentError, match=r"grid.yaml:9: router: empty list"):
        parse_experiment(GOOD + "  router: []\n", "grid.yaml")


def test_placer_timing_weight():
    # nextpnr's HeAP timing weight: a grid column; at nextpnr's default (10) neither in the
    # point's flow data (old keys stay) nor in nextpnr's arguments; heap placer only.
    from aesdse.flow.nextpnr import flow_args
    from aesdse.spec.schema import flow_choices
    off = parse_experiment(GOOD, "grid.yaml").points[0]
    assert off.flow.placer_timing_weight == 10
    assert "placer_timing_weight" not in off.flow.as_dict()
    on = parse_experiment(GOOD.replace("  seeds: 2", "  seeds: 1\n  placer_timing_weight: "
                                                     "[10, 30]"), "grid.yaml").points
    assert sorted(p.flow.placer_timing_weight for p in on) == [10, 10, 30, 30]
    assert {p.key() for p in on if p.flow.placer_timing_weight == 10} <= \
        {p.key() for p in parse_experiment(GOOD.replace("  seeds: 2", "  seeds: 1"),
                                           "grid.yaml").points}
    heavy = next(p for p in on if p.flow.placer_timing_weight == 30)
    assert heavy.flow.as_dict()["placer_timing_weight"] == 30
    assert flow_choices(heavy.flow.as_dict()) == " (placer_timing_weight=30)"
    assert flow_args("heap", "router1", 30) == ["--placer-heap-timingweight", "30"]
    assert flow_args("heap", "router1", 10) == []
    with pytest.raises(ValueError, match=r"^A placer timing weight is an option of the heap "
                                         r"placer, not of 'sa'$"):
        flow_args("sa", "router1", 30)
    for text, message in [
            ("  placer_timing_weight: 0\n", r"grid.yaml:9: placer_timing_weight: 0 "),
            ("  placer_timing_weight: 2.5\n", r"grid.yaml:9: placer_timing_weight: 2.5 must "
                                              r"be a whole number"),
            ("  placer_timing_weight: []\n", r"grid.yaml:9: placer_timing_weight: empty list"),
            ("  placer: sa\n  placer_timing_weight: 30\n",
             r"grid.yaml:10: placer_timing_weight: an option of the heap placer")]:
        with pytest.raises(ExperimentError, match=message):
            parse_experiment(GOOD + text, "grid.yaml")


# --- malformed files: each a clear ExperimentError with file and line ----------------------------

_NESTED = "name: deep\ndescription: " + "[" * 1000 + "]" * 1000 + "\n"
_BOMB = "name: bomb\n" + "".join(
    f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}" if i else "lol"] * 9) + "]\n" for i in range(10))


@pytest.mark.parametrize("data, line, fragment", [
    (GOOD.encode().replace(b"grid", b"gr\xffid"), 1, "not UTF-8 text: byte 0xff"),
    (GOOD.replace("seeds: 2", "seeds: 2\x07"), 8, "character #x0007 is not allowed"),
    (GOOD.replace("sbox: [lut]", "? [a, b]: 1"), 5, "a key must be a plain value"),
    (GOOD.replace("sbox: [lut]", "{[iterative]: 1}"), 5, "a key must be a plain value"),
    (GOOD.replace("arch: iterative", "arch: [iterative]"), 3, "arch: ['iterative'] is not one of"),
    (_NESTED, 2, "nesting deeper than 50 levels"),
    (_BOMB, 2, "anchors (&l0) are not allowed"),
    (GOOD + "verify: {<<: {seed: 2}}\n", 9, "merge keys (<<) are not supported"),
    (GOOD.replace("seeds: 2", "seeds: 1000000000"), 8, "seeds: 1000000000 must be at least 1 "
                                                       "and at most 100"),
    (GOOD + "verify: {random_vectors: 1000000000000}\n", 9, "must be at least 0 and at most "
                                                             "100000"),
    (GOOD + "verify: {random_vectors: 1.0e+12}\n", 9, "must be a number of vectors"),
    (GOOD + "  synth_timeout_s: .nan\n", 9, "synth_timeout_s: .nan must be above 0"),
    (GOOD + "  pnr_timeout_s: .inf\n", 9, "pnr_timeout_s: .inf must be above 0"),
    (GOOD.replace("freq_mhz: [100, 150]", "freq_mhz: 2000"), 7, "at most 1000.0 MHz"),
    (GOOD.replace("  freq_mhz: [100, 150]\n  seeds: 2", "  fmax_search: {budget_s: 1.0e+9}"),
     7, "budget_s: 1000000000.0 must be above 0 and at most 604800"),
    (GOOD.replace("  freq_mhz: [100, 150]\n  seeds: 2", "  fmax_search: {low_mhz: .nan}"),
     7, "low_mhz: .nan must be above 0"),
    (GOOD.replace("freq_mhz: [100, 150]", "freq_mhz: [" + ", ".join(
        str(100 + n) for n in range(100)) + "]").replace("seeds: 2", "seeds: 100")
     .replace("sbox: [lut]", "sbox_stages: [0, 1, 2, 3, 4, 5, 6]\n      sbox: [composite]"),
     2, "expands to 70,000 design points; at most 10,000"),
    (GOOD.replace("name: grid", "name: {a: " + "x" * 5000 + "}"), 1, "name: {'a': 'xxxxxxx"),
])
def test_malformed_files_are_experiment_errors(tmp_path, data, line, fragment):
    path = tmp_path / "bad.yaml"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message, message
    assert len(message) < len(str(path)) + 300, message  # values are clipped, never repr'd whole


def _mutations(text: str, rng):
    """A few deterministic random edits of an experiment file, as bytes."""
    data = bytearray(text.encode())
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        what = rng.randrange(6)
        if what == 0 and data:      # flip a byte
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif what == 1 and lines:   # delete a line
            del lines[rng.randrange(len(lines))]
            data = bytearray("".join(lines).encode())
        elif what == 2 and lines:   # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            data = bytearray("".join(lines).encode())
        elif what == 3:             # insert a control character
            i = rng.randrange(len(data) + 1)
            data[i:i] = bytes([rng.choice([0, 7, 8, 27, 127])])
        elif what == 4 and len(lines) > 1:  # swap the values of two lines
            i, j = rng.sample(range(len(lines)), 2)
            vi, vj = lines[i].partition(":")[2], lines[j].partition(":")[2]
            lines[i] = lines[i].partition(":")[0] + ":" + vj if vj else lines[i]
            lines[j] = lines[j].partition(":")[0] + ":" + vi if vi else lines[j]
            data = bytearray("".join(lines).encode())
        else:                       # a value that is too big, odd or nested
            i = rng.randrange(len(lines)) if lines else 0
            value = rng.choice(["1000000000", ".nan", "-.inf", "[[[[x]]]]", "{a: [1, 2]}",
                                "&a [1]", "*a", "[" + ", ".join(map(str, range(200))) + "]"])
            key = lines[i].partition(":")[0] if lines else "x"
            lines[i:i + 1] = [f"{key}: {value}\n"]
            data = bytearray("".join(lines).encode())
        lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    return bytes(data)


def test_mutated_experiments_load_or_fail_with_experiment_error(tmp_path):
    # Every mutation either loads or is an ExperimentError naming the file and a line, never a
    # traceback of another kind; loading is bounded by node and point limits, not by a clock.
    import random
    from pathlib import Path
    rng = random.Random(13)
    sources = sorted(Path(__file__).parent.parent.glob("experiments/*.yaml"))
    outcomes = {"loaded": 0, "refused": 0}
    for n in range(300):
        source = sources[n % len(sources)]
        path = tmp_path / f"m{n}.yaml"
        path.write_bytes(_mutations(source.read_text(), rng))
        try:
            load_experiment(path)
            outcomes["loaded"] += 1
        except ExperimentError as e:
            assert str(e).startswith(f"{path}:"), str(e)
            line = str(e)[len(str(path)) + 1:].partition(":")[0]
            assert line.isdigit() and int(line) >= 1, str(e)
            assert len(str(e)) < len(str(path)) + 600, str(e)
            outcomes["refused"] += 1
    assert outcomes["loaded"] and outcomes["refused"], outcomes


# --- combinations a family cannot build fail at load time, at the arch line ----------------------

@pytest.mark.parametrize("entry, fragment", [
    ("arch: unrolled\n    params: {round_units: 3, key_bits: 128}",
     "unrolled with bram_rounds=0, key_bits=128, key_schedule=on_the_fly, round_units=3, "
     "sbox=lut, sbox_stages=0, schedule=split: Round units must divide the 10 rounds"),
    ("arch: unrolled\n    params: {round_units: [2, 10], bram_rounds: 5, sbox: bram}",
     "BRAM rounds need a fully pipelined core (round units 10), not round units 2"),
    ("arch: iterative\n    params: {sbox: [composite, lut], sbox_stages: 3}",
     "S-box family 'lut' has no pipeline stages, not 3"),
    ("arch: compact\n    params: {sbox: lut, sbox_stages: [0, 2]}",
     "S-box family 'lut' has no pipeline stages, not 2"),
    ("arch: sbox\n    params: {sbox: bram, sbox_stages: 1}",
     "S-box family 'bram' has no pipeline stages, not 1"),
])
def test_impossible_combinations_fail_at_load_time(entry, fragment):
    text = f"name: x\narchitectures:\n  - {{arch: iterative}}\n  - {entry}\n"
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "x.yaml")
    assert str(info.value).startswith("x.yaml:4: "), str(info.value)
    assert fragment in str(info.value), str(info.value)


def _combinations_near_default(params, changed):
    """Every combination of ``params``' choices with at most ``changed`` of them off default."""
    import itertools
    for names in itertools.combinations(range(len(params)), changed):
        others = [[p.default] if n not in names else list(p.choices)
                  for n, p in enumerate(params)]
        yield from itertools.product(*others)


def test_every_combination_the_check_refuses_cannot_be_built():
    # The family checks say no more than the builders: every refused combination raises in
    # its builder too (which validates before constructing, so nothing is elaborated).
    # Every combination with at most three parameters off their defaults: the checks refuse
    # pairs and triples (the whole grid has grown past a million combinations).
    import itertools
    import archs
    refused = 0
    for fam in archs.FAMILIES.values():
        for combo in _combinations_near_default(fam.params, 3):
            params = {p.name: v for p, v in zip(fam.params, combo)}
            problem = fam.check_params(params)
            if problem is not None:
                refused += 1
                with pytest.raises(ValueError, match=re.escape(problem)):
                    fam.build(**params)
    assert refused > 100


def test_make_point_checks_types_and_combinations():
    with pytest.raises(ExperimentError, match=r"^shared_memory: 1 is not one of: false, true"):
        make_point("compact", {"shared_memory": 1})
    with pytest.raises(ExperimentError, match=r"^sbox_stages: 1.0 is not one of"):
        make_point("iterative", {"sbox_stages": 1.0})
    with pytest.raises(ExperimentError, match=r"^unrolled: Round units must divide the 10"):
        make_point("unrolled", {"round_units": 3})


def test_targets_of_other_families_take_their_own_packages_and_no_speed(tmp_path):
    # Issue 14: an iCE40 part has no speed grade; its packages are its own; asic has neither.
    path = tmp_path / "t.yaml"
    path.write_text("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                    "  - {device: iCE40UP5K}\n  - {device: iCE40HX8K, package: cb132}\n"
                    "  - {device: asic}\n  - {device: LFE5U-25F}\n")
    exp = load_experiment(path)
    labels = [p.target.label for p in exp.points]
    assert labels == ["iCE40UP5K-sg48", "iCE40HX8K-cb132", "asic", "LFE5U-25F-8CABGA381"]
    assert [p.device_family for p in exp.points] == ["ice40", "ice40", "asic", "ecp5"]
    for bad, message in [("{device: iCE40UP5K, speed: 8}", "speed: iCE40UP5K has no speed"),
                         ("{device: iCE40UP5K, package: ct256}",
                          "package: 'ct256' is not one of: sg48, uwg30"),
                         ("{device: LFE5U-85F, package: CABGA256}",
                          "package: 'CABGA256' is not one of")]:
        path.write_text(f"name: t\narchitectures:\n  - arch: sbox\ntargets:\n  - {bad}\n")
        with pytest.raises(ExperimentError, match=message):
            load_experiment(path)


def test_point_keys_hold_only_the_tools_the_point_runs():
    # An optional family's tool (installed or not) does not change the keys of ECP5 points.
    ecp5 = make_point("sbox", {})
    versions = {"yosys": "y", "nextpnr-ecp5": "e"}
    assert ecp5.key(versions) == ecp5.key({**versions, "nextpnr-ice40": "i"})
    ice40 = make_point("sbox", {}, target=Target("iCE40UP5K", "sg48", None))
    assert ice40.key(versions) != ice40.key({**versions, "nextpnr-ice40": "i"})


def test_machxo2_targets_take_their_packages_and_speed_grades(tmp_path):
    # Issue 14: MachXO2 / MachXO3 parts; a missing speed is the fastest grade (listed first).
    path = tmp_path / "t.yaml"
    path.write_text("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                    "  - {device: LCMXO2-1200HC}\n  - {device: LCMXO2-1200HC, package: TG144, "
                    "speed: 4}\n  - {device: LCMXO3LF-6900C, package: BG400}\n")
    exp = load_experiment(path)
    assert [p.target.label for p in exp.points] == [
        "LCMXO2-1200HC-6SG32", "LCMXO2-1200HC-4TG144", "LCMXO3LF-6900C-6BG400"]
    assert [p.device_family for p in exp.points] == ["machxo2", "machxo2", "machxo3"]
    for bad, message in [("{device: LCMXO3LF-6900C, speed: 4}",
                          r"t.yaml:5: speed: 4 is not one of: 6, 5$"),
                         ("{device: LCMXO2-1200HC, package: BG256}",
                          r"t.yaml:5: package: 'BG256' is not one of: SG32, TG100, MG132, TG144$"),
                         ("{device: LCMXO2-7000HC}", r"t.yaml:5: device: 'LCMXO2-7000HC' is not "
                                                     r"one of: .*LCMXO2-1200HC, LCMXO3LF-6900C")]:
        path.write_text(f"name: t\narchitectures:\n  - arch: sbox\ntargets:\n  - {bad}\n")
        with pytest.raises(ExperimentError, match=message):
            load_experiment(path)


def test_nexus_target_has_one_package_and_three_speed_grades(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                    "  - {device: LIFCL-40}\n  - {device: LIFCL-40, speed: 7}\n")
    exp = load_experiment(path)
    assert [p.target.label for p in exp.points] == ["LIFCL-40-9BG400", "LIFCL-40-7BG400"]
    path.write_text("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                    "  - {device: LIFCL-40, package: MG289}\n")
    with pytest.raises(ExperimentError, match=r"t.yaml:5: package: 'MG289' is not one of: "
                                              r"BG400$"):
        load_experiment(path)


def test_gowin_and_gatemate_targets_take_the_parts_own_packages_and_grades(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                    "  - {device: GW1NR-LV9}\n  - {device: GW1NR-LV9, speed: 6}\n"
                    "  - {device: GW2A-LV18, package: PG256, speed: 8}\n"
                    "  - {device: CCGM1A1}\n")
    exp = load_experiment(path)
    assert [p.target.label for p in exp.points] == [
        "GW1NR-LV9-7QN88P", "GW1NR-LV9-6QN88P", "GW2A-LV18-8PG256", "CCGM1A1-FBGA324"]
    for target, message in (
            ("{device: GW1NR-LV9, speed: 5}", r"speed: 5 is not one of: 7, 6$"),
            ("{device: GW2A-LV18, package: QN88P}", r"package: 'QN88P' is not one of: PG256$"),
            ("{device: CCGM1A1, speed: 1}", r"speed: CCGM1A1 has no speed; leave it out$")):
        path.write_text(f"name: t\narchitectures:\n  - arch: sbox\ntargets:\n  - {target}\n")
        with pytest.raises(ExperimentError, match=r"t.yaml:5: " + message):
            load_experiment(path)
