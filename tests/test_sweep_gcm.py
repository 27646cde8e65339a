# amaranth: UnusedElaboratable=no
"""The GCM families (issue 24) in the tool: registered with their parameters, listed and stated
in the manifest, refused at load time with file:line for what cannot be built, verified by the
verify stage on GCM scripts (McGrew-Viega, a NIST sample with FAIL entries, random messages, a
wrong tag) and measured in bytes per cycle; a core with a wrong tag or a missing ``auth_fail``
fails; one real flow run of the smallest GCM point."""

import json
import re
from pathlib import Path

import pytest
from amaranth.hdl import Fragment, Module
from amaranth.lib import fifo, wiring
from click.testing import CliRunner

import archs
from aesdse.cli import main
from aesdse.experiment import ExperimentError, load_experiment, make_point, parse_experiment
from aesdse.generate import generate
from aesdse.spec.schema import FlowOptions, Target, VerifyOptions
from aesdse.verify.blocks import checking_blocks, gcm_cavp_vectors
from aesdse.verify.verify import verify_component
from archs.gcm import GCMPhase

GCM_FAMILIES = ("gcm_iterative", "gcm_unrolled", "gcm_compact")
GHASH_NAMES = ("ghash", "ghash_digit", "ghash_stages", "ghash_karatsuba_levels",
               "ghash_aggregation")
ROOT = Path(__file__).parent.parent

#: Small checks: two random messages and the wrong tag, the McGrew-Viega cases, the NIST
#: sample, in amaranth.sim (a test run must not compile a Verilator model per core).
SMALL = VerifyOptions(random_vectors=4, measure_blocks=4, backend="amaranth")


def verify(name, params, options=SMALL, wrap=None):
    fam = archs.family(name)

    def build():
        core = fam.build(**params)
        return wrap(core) if wrap else core
    return verify_component(build, fam.kind, options, key_sizes=fam.key_sizes,
                            directions=fam.directions)


# --- registry, listing, manifest -----------------------------------------------------------------


def test_the_gcm_families_are_registered_and_listed():
    data = json.loads(CliRunner().invoke(main, ["list", "archs", "--json"]).output)
    for name in GCM_FAMILIES:
        entry = data[name]
        assert list(entry["params"])[-5:] == list(GHASH_NAMES)
        assert entry["modes"] == ["gcm"] and entry["directions"] == ["encrypt", "decrypt"]
        assert entry["params"]["ghash"]["choices"] == ["bit_serial", "digit_serial", "parallel",
                                                      "karatsuba"]
        assert entry["params"]["ghash_aggregation"]["choices"] == [1, 2, 4, 8]
    assert data["gcm_unrolled"]["key_sizes"] == [128, 192, 256]
    assert "round_units" not in data["gcm_unrolled"]["params"]      # fully pipelined, fixed
    assert "port_width" not in data["gcm_compact"]["params"]        # a 128-bit port
    # The cipher's defaults are unchanged.
    assert data["gcm_compact"]["params"]["datapath_width"]["default"] == 32
    text = CliRunner().invoke(main, ["list", "archs"]).output
    assert all(f"{name}: AES-GCM" in text for name in GCM_FAMILIES)


def test_the_manifest_states_the_gcm_configuration():
    point = make_point("gcm_iterative", {"ghash": "digit_serial", "ghash_digit": 16})
    manifest = generate(point).manifest
    assert manifest["kind"] == "cipher" and manifest["modes"] == ["gcm"]
    assert manifest["params"]["ghash"] == "digit_serial" and manifest["params"]["ghash_digit"] == 16
    assert manifest["directions"] == ["encrypt", "decrypt"]


def test_the_lean_wrapper_is_a_parameter_omitted_at_its_default():
    """``gcm_wrapper`` (added after GCM rows were stored): the full wrapper's points keep their
    configuration keys; the lean one is recorded, and a serial multiplier without aggregation
    gets the serial accumulator."""
    for name in GCM_FAMILIES:
        param = archs.family(name).param("gcm_wrapper")
        assert param.default == "full" and param.omitted_at_default
    ghash = {"ghash": "digit_serial", "ghash_digit": 16}
    full = make_point("gcm_iterative", ghash)
    assert make_point("gcm_iterative", {**ghash, "gcm_wrapper": "full"}).config_key() \
        == full.config_key()
    assert "gcm_wrapper" not in full.params_dict
    lean = make_point("gcm_iterative", {**ghash, "gcm_wrapper": "lean"})
    assert lean.params_dict["gcm_wrapper"] == "lean" and lean.config_key() != full.config_key()
    core = archs.family("gcm_iterative").build(**ghash, gcm_wrapper="lean")
    aggregated = archs.family("gcm_iterative").build(gcm_wrapper="lean", ghash_aggregation=2)
    for built in (core, aggregated):
        Fragment.get(built, None)               # elaborated (never simulated here)
    assert type(core.ghash).__name__ == "SerialGHASHAccumulator" and len(core.counter) == 32
    assert type(aggregated.ghash).__name__ == "GHASHAccumulator"


BAD = [
    ("gcm_iterative", "{gcm_wrapper: tiny}", r"^g\.yaml:4: gcm_wrapper: 'tiny' is not one of"),
    ("gcm_unrolled", "{round_units: 5}",
     r"^g\.yaml:4: unknown key 'round_units' in params of gcm_unrolled"),
    ("gcm_compact", "{port_width: 8}", r"^g\.yaml:4: unknown key 'port_width' in params"),
    ("gcm_iterative", "{ghash: fast}", r"^g\.yaml:4: ghash: 'fast' is not one of: bit_serial"),
    ("gcm_iterative", "{ghash_aggregation: 3}", r"^g\.yaml:4: ghash_aggregation: 3 is not one"),
    ("gcm_iterative", "{ghash: digit_serial, ghash_digit: 128}",
     r"^g\.yaml:4: ghash_digit: 128 is not one of"),
    ("gcm_compact", "{mixcolumns: serial}",
     r"^g\.yaml:3: gcm_compact with .*Serial MixColumns needs the 8-bit datapath"),
    ("gcm_multimode", "{}", r"^g\.yaml:3: arch: 'gcm_multimode' is not one of"),
]


@pytest.mark.parametrize("arch, params, message", BAD)
def test_what_cannot_be_built_is_refused_at_load_time(arch, params, message):
    text = f"name: g\narchitectures:\n  - arch: {arch}\n    params: {params}\n"
    with pytest.raises(ExperimentError, match=message):
        parse_experiment(text, "g.yaml")


def test_the_family_check_refuses_what_the_pairing_cannot_take():
    """Outside an experiment file (the family's own check, as make_point uses it)."""
    problem = archs.family("gcm_unrolled").check_params({"round_units": 5})
    assert "gcm_unrolled takes no parameter 'round_units'" in problem
    assert archs.family("gcm_iterative").check_params({"ghash": "digit_serial",
                                                       "ghash_digit": 3}).startswith(
        "GHASH digit must be one of")


def test_the_gcm_experiments_load():
    grid = load_experiment(ROOT / "experiments" / "gcm.yaml")
    assert 10 <= len(grid.points) <= 20
    assert {p.arch for p in grid.points} == set(GCM_FAMILIES)
    assert {dict(p.params)["ghash"] for p in grid.points} == {
        "bit_serial", "digit_serial", "parallel", "karatsuba"}
    assert {p.target.device for p in grid.points} == {"LFE5U-85F"}
    records = {}
    for name, arch in (("9_gcm_pipelined", {"gcm_unrolled"}),
                       ("10_gcm_compact", {"gcm_iterative"}),
                       ("11_gcm_balanced", {"gcm_compact", "gcm_iterative"})):
        exp = records[name] = load_experiment(ROOT / "experiments" / "records" / f"{name}.yaml")
        assert {p.arch for p in exp.points} == arch
        assert sorted({p.flow.seed for p in exp.points}) == [1, 2, 3]
    # The compact class: the lean wrapper, block-RAM S-boxes (the class limits LUT4 only).
    assert {(p.params_dict["gcm_wrapper"], p.params_dict["sbox"])
            for p in records["10_gcm_compact"].points} == {("lean", "bram")}
    # The balanced class: each compact datapath with the smallest digit that keeps up with it
    # (128 / d + 1 cycles against 44 at 32 bits, 22 at 64).
    assert {(p.params_dict["datapath_width"], p.params_dict["ghash_digit"])
            for p in records["11_gcm_balanced"].points if p.arch == "gcm_compact"} \
        == {(32, 4), (64, 8)}


# --- the verify stage ------------------------------------------------------------------------


SOURCES = {"gcm-mcgrew-viega", "gcm-cavp gcmEncryptExtIV128.rsp", "gcm-cavp gcmDecrypt128.rsp",
           "gcm-random", "gcm-auth-fail", "measure"}


@pytest.mark.parametrize("name, params, cycles_per_block, sources", [
    ("gcm_iterative", {"ghash": "parallel", "ghash_aggregation": 2, "ghash_stages": 1}, 10,
     SOURCES),
    ("gcm_compact", {"ghash": "digit_serial", "ghash_digit": 8}, 44, SOURCES),
    # The lean wrapper: the serial accumulator (9 cycles a block) keeps up with the cipher.
    ("gcm_iterative", {"gcm_wrapper": "lean", "ghash": "digit_serial", "ghash_digit": 16}, 10,
     SOURCES),
    # AES-256: the 256-bit NIST files (no McGrew-Viega case has a 256-bit key).
    ("gcm_unrolled", {"key_bits": 256, "ghash": "karatsuba", "ghash_stages": 2,
                      "ghash_aggregation": 4}, 1,
     {"gcm-cavp gcmEncryptExtIV256.rsp", "gcm-cavp gcmDecrypt256.rsp", "gcm-random",
      "gcm-auth-fail", "measure"}),
])
def test_each_gcm_family_verifies_and_is_measured(name, params, cycles_per_block, sources):
    v = verify(name, params)
    assert v.ok, v.reason
    assert set(v.checks) == sources and sum(v.checks.values()) == v.vectors_checked
    assert v.cycles_per_block == cycles_per_block
    gcm = v.details["gcm"]
    assert set(gcm) == {"aad_bytes_per_cycle", "payload_bytes_per_cycle"}
    assert gcm["payload_bytes_per_cycle"] == pytest.approx(16 / cycles_per_block)
    # AAD does not go through the cipher: as fast as the multiplier takes it.
    assert gcm["aad_bytes_per_cycle"] >= gcm["payload_bytes_per_cycle"]
    assert v.latency_cycles >= 1


def test_the_nist_sample_is_stated_and_covers_fail_entries_and_other_iv_lengths():
    import random
    chosen = gcm_cavp_vectors(VerifyOptions(), (128,), ("encrypt", "decrypt"),
                              random.Random(1))
    decrypt = [v for v, d, _ in chosen if d]
    assert any(v.plaintext is None for v in decrypt)
    assert {len(v.iv) for v, _, _ in chosen} >= {1, 12, 128}
    assert len(chosen) == 2 * (3 + 2)
    every = gcm_cavp_vectors(VerifyOptions(cavp="all"), (128,), ("encrypt",), random.Random(1))
    assert len(every) == 7875


class Tampered(wiring.Component):
    """A GCM core behind a wrapper that breaks its results: ``flip_tag`` flips the first bit of
    every TAG result (a wrong tag on encryption, a nonzero result on decryption);
    ``no_auth_fail`` forces ``auth_fail`` low (a wrong tag passes)."""

    def __init__(self, core, *, flip_tag=False, no_auth_fail=False):
        self.core, self.flip_tag, self.no_auth_fail = core, flip_tag, no_auth_fail
        super().__init__(core.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        # The phases of the blocks in the core, in order (results come out in input order).
        m.submodules.phases = phases = fifo.SyncFIFO(width=1, depth=64)
        wiring.connect(m, wiring.flipped(self.key), core.key)
        m.d.comb += [
            core.i.payload.eq(self.i.payload), core.i.valid.eq(self.i.valid & phases.w_rdy),
            self.i.ready.eq(core.i.ready & phases.w_rdy),
            phases.w_en.eq(self.i.valid & self.i.ready),
            phases.w_data.eq(self.i.payload.phase == GCMPhase.TAG),
            self.o.valid.eq(core.o.valid), core.o.ready.eq(self.o.ready),
            phases.r_en.eq(core.o.valid & self.o.ready),
            self.o.payload.data.eq(core.o.payload.data
                                   ^ ((phases.r_data & self.flip_tag) << 127)),
            self.o.payload.auth_fail.eq(core.o.payload.auth_fail & ~self.no_auth_fail),
        ]
        return m


#: The GCM core the tampered checks wrap: the one whose checks simulate fastest in
#: amaranth.sim (the lean wrapper's serial accumulator, 9 cycles a block, keeps up with the
#: iterative cipher's 10: about a third of the time of the parallel multiplier's 128 x 128
#: products). The checks are the verify stage's, whatever the core.
TAMPERED_CORE = {"gcm_wrapper": "lean", "ghash": "digit_serial", "ghash_digit": 16}


@pytest.mark.parametrize("tamper, message", [
    ({}, None),                                 # the wrapper alone changes nothing
    ({"flip_tag": True}, r"tag block .*expected [0-9a-f]{32}, got"),
    ({"no_auth_fail": True}, r"expected auth_fail=1, got 0"),
])
def test_a_core_with_a_wrong_tag_or_no_auth_fail_fails(tamper, message):
    v = verify("gcm_iterative", TAMPERED_CORE, wrap=lambda core: Tampered(core, **tamper))
    if message is None:
        assert v.ok, v.reason
    else:
        assert not v.ok and re.search(message, v.reason), v.reason


def test_the_checks_have_a_wrong_tag_message_that_expects_auth_fail():
    dut = archs.family("gcm_iterative").build()
    blocks = checking_blocks(dut, SMALL, (128,), ("encrypt", "decrypt"))
    Fragment.get(dut, None)                     # used (built in archs, never simulated here)
    flagged = [b for b in blocks if dict(b.result_fields)["auth_fail"]]
    assert {b.categories for b in flagged} == {("gcm-auth-fail",), ("gcm-cavp gcmDecrypt128.rsp",)}
    assert all(b.decrypt and "tag block" in b.source for b in flagged)


# --- one real flow run -----------------------------------------------------------------------


@pytest.mark.flow
def test_the_smallest_gcm_point_through_the_whole_point_pipeline(tmp_path):
    """gcm_compact (8-bit datapath, the lean wrapper) with a 4-bit digit-serial GHASH,
    verified in amaranth.sim, synthesized, placed and routed on an LFE5U-25F to an ``ok`` row
    with the GCM rates in its details. The 8-bit cipher (about 3,500 LUT4 in all, against
    5,500 with the 32-bit one) keeps place and route short. The netlist stage is left out to
    keep the test short (tests/test_sweep_verification.py covers it)."""
    from aesdse.engine.point import run_point
    from aesdse.flow.tools import tool_versions
    point = make_point("gcm_compact", {"datapath_width": 8, "ghash": "digit_serial",
                                       "ghash_digit": 4, "gcm_wrapper": "lean"},
                       target=Target(device="LFE5U-25F", package="CABGA381", speed=8),
                       flow=FlowOptions(freq_mhz=100, nowidelut=True),
                       # The checks of SMALL: the rates are measured on 4 blocks as well.
                       verify=VerifyOptions(random_vectors=4, measure_blocks=4,
                                            backend="amaranth"))
    row = run_point(point, "test", str(tmp_path), tool_versions(), netlist_verify=False)
    assert row.status == "ok", row.reason
    assert row.cycles_per_block == 176                  # the compact cipher's, not GHASH's 33
    assert row.details["gcm"] == {"aad_bytes_per_cycle": pytest.approx(16 / 33),
                                  "payload_bytes_per_cycle": pytest.approx(16 / 176)}
    assert row.details["verification"]["checks"]["gcm-auth-fail"] > 0
    assert row.luts > 1000 and row.fmax_mhz > 20
    assert row.throughput_mbps == pytest.approx(128 * row.fmax_mhz / 176)
    # The breakdowns of the GHASH and of the cipher, by the hierarchy, one share per worst path:
    # each owns cells, their cells and path delays together are fewer than the whole (the
    # wrapper's are neither's), and no path starts in both.
    ghash, cipher = row.details["instances"]["ghash"], row.details["instances"]["cipher"]
    assert ghash["attribution"] == cipher["attribution"] == "hierarchy"
    assert ghash["total_cells"] == cipher["total_cells"]
    owned = [sum(part["cells"].values()) for part in (ghash, cipher)]
    assert min(owned) > 0 and sum(owned) < sum(ghash["total_cells"].values())
    paths = row.details["critical_paths"]
    assert len(ghash["paths"]) == len(cipher["paths"]) == len(paths) > 0
    for g, c in zip(ghash["paths"], cipher["paths"]):
        assert not (g["starts_inside"] and c["starts_inside"])
        assert g["ns"] + c["ns"] <= g["total_ns"] + 1e-9
