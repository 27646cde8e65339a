"""bench/records.py: the issue-15 records table picks the right row per class from a database."""

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from aesdse.store.database import Store

from conftest import _failed, _ok, fixture_rows

BENCH = Path(__file__).parent.parent / "bench" / "records.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_records", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def _nowidelut(row):
    return replace(row, flow=dict(row.flow, nowidelut=True), config_key=None)


def _rows():
    pipe = {"round_units": 10, "schedule": "split", "sbox": "composite", "sbox_stages": 6,
            "bram_rounds": 0, "key_schedule": "on_the_fly", "key_bits": 128}
    sbox = {"sbox": "tower", "sbox_stages": 0, "direction": "encrypt"}
    return fixture_rows() + [
        # Fully pipelined: three seeds, median Fmax 250 MHz -> 32 Gbit/s, short of 40 Gbit/s.
        _ok("p1", "unrolled", pipe, luts=20000, ffs=30000, fmax=240.0, cpb=1, seed=1),
        _ok("p2", "unrolled", pipe, luts=20000, ffs=30000, fmax=250.0, cpb=1, seed=2),
        _ok("p3", "unrolled", pipe, luts=20000, ffs=30000, fmax=260.0, cpb=1, seed=3),
        # A faster pipelined core on another device does not count for the ECP5 records.
        replace(_ok("p-other", "unrolled", pipe, luts=20000, ffs=30000, fmax=400.0, cpb=1,
                    seed=4), target="LIFCL-40-9BG400C", config_key=None),
        # S-boxes: the smaller one lacks -nowidelut, so it is the record but misses the target.
        _ok("s1", "sbox", sbox, luts=54, ffs=16, fmax=300.0, cpb=1),
        _ok("s2", "sbox", dict(sbox, sbox="composite"), luts=73, ffs=16, fmax=300.0, cpb=1),
        _ok("s3", "sbox", dict(sbox, sbox="bram"), luts=2, ffs=16, fmax=300.0, cpb=1, brams=1),
        _failed("s4", "sbox", dict(sbox, sbox="lut"), "failed-verification", "wrong"),
        # Shared enc/dec S-boxes are a class of their own.
        _nowidelut(_ok("s5", "sbox", dict(sbox, sbox="rm_combined", direction="shared"),
                       luts=75, ffs=17, fmax=150.0, cpb=1)),
    ]


def test_records_pick_the_best_member_of_each_class(bench):
    recs = {r.cls.name: r for r in bench.records(_rows())}
    pipe = recs["fully pipelined, one pipeline"]
    assert pipe.row.fmax_mhz == 250.0 and pipe.seeds == 3
    assert pipe.row.throughput_mbps == pytest.approx(32_000) and not pipe.met
    assert pipe.verdict == "no: needs 1.25x the throughput"
    assert recs["one chip, several pipelines"].row is None
    # Iterative class: the fixture's iterative (4,500 LUT4) and unrolled round_units=2
    # (2,500 LUT4, 2,560 Mbit/s, 5 cycles) cores; the one within budget wins and meets the target.
    it = recs["iterative (one round per clock or better)"]
    assert it.row.arch == "unrolled" and it.row.luts == 2500 and it.met
    compact = recs["compact 8-bit, with key schedule"]
    assert compact.row.luts == 600 and compact.seeds == 3 and not compact.met
    assert compact.verdict == "no: 350 LUT4 over 250"
    sb = recs["S-box alone (encryption)"]
    assert sb.row.luts == 54 and not sb.met  # no -nowidelut in its flow
    nowide = replace(sb.row, flow=dict(sb.row.flow, nowidelut=True))
    assert sb.cls.met(nowide, [])
    shared = recs["S-box alone (enc/dec combined)"]
    assert shared.row.luts == 75 and shared.met


def test_an_iterative_core_over_budget_misses_the_target(bench):
    rows = [r for r in _rows() if r.arch != "unrolled"]
    it = {r.cls.name: r for r in bench.records(rows)}["iterative (one round per clock or better)"]
    assert it.row.arch == "iterative" and not it.met


def test_main_prints_the_table_and_saves_the_figure(bench, tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        for row in _rows():
            store.put(row)
    figure = tmp_path / "pareto.png"
    assert bench.main(["--db", str(db), "--figure", str(figure)]) == 0
    out = capsys.readouterr().out
    lines = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines()
             if line.startswith("| ")}
    assert "32.0 Gbit/s at 250.0 MHz" in lines["fully pipelined, one pipeline"]
    assert lines["fully pipelined, one pipeline"].endswith("| no: needs 1.25x the throughput |")
    assert "no design point yet" in lines["one chip, several pipelines"]
    assert figure.read_bytes().startswith(b"\x89PNG")


def test_main_without_a_database_says_so(bench, tmp_path, capsys):
    assert bench.main(["--db", str(tmp_path / "none.sqlite")]) == 2
    assert "run a sweep first" in capsys.readouterr().err


def test_pareto_point_labels_can_be_left_out():
    from aesdse.report.plot import pareto_figure
    rows = [r for r in _rows() if r.arch != "sbox" and r.target.startswith("LFE5U")]
    labelled = pareto_figure(rows, "slice-eq").axes[0]
    bare = pareto_figure(rows, "slice-eq", point_labels=False).axes[0]
    # Several families vary parameters: each point gets a label, and a note names them.
    assert any(t.get_text() == "32/composite" for t in labelled.texts)
    assert any(t.get_text().startswith("labels: ") for t in labelled.texts)
    assert len(bare.texts) == 0


def test_parallel_pipelines_are_several_pipelines_not_one(bench):
    pipe = {"round_units": 10, "schedule": "split", "sbox": "composite", "sbox_stages": 6,
            "bram_rounds": 0, "key_schedule": "on_the_fly", "key_bits": 128}
    three = _ok("w3", "unrolled", dict(pipe, parallel_lanes=3), luts=60000, ffs=70000,
                fmax=140.0, cpb=1 / 3)
    recs = {r.cls.name: r for r in bench.records(_rows() + [three])}
    several = recs["one chip, several pipelines"]
    assert several.row.throughput_mbps == pytest.approx(128 * 140 * 3) and not several.met
    assert several.verdict == "no: needs 1.40x the throughput"
    assert recs["fully pipelined, one pipeline"].row.fmax_mhz == 250.0


def test_block_ram_iterative_core_has_its_own_row(bench):
    # A T-box core with block RAM can hold the iterative record (the issue suggests T-boxes in
    # block RAM), but the no-block-RAM row still shows the best logic-only core; a core with
    # lanes belongs to "several pipelines", not to either iterative row.
    tbox = _ok("t1", "tbox", {"bram_pumping": 1, "datapath_width": 128, "interleaved_blocks": 3},
               luts=2329, ffs=1209, fmax=207.0, cpb=10, brams=16)
    laned = _ok("l2", "iterative", {"sbox": "lut", "sbox_stages": 0, "lanes": 2},
                luts=2900, ffs=1000, fmax=200.0, cpb=5)
    recs = {r.cls.name: r for r in bench.records(_rows() + [tbox, laned])}
    it = recs["iterative (one round per clock or better)"]
    assert it.row.key == "t1" and it.met and "16 BRAM" in it.cls.measure(it.row)
    logic = recs["iterative, no block RAM"]
    assert logic.row.key != "t1" and not logic.row.brams
    assert recs["one chip, several pipelines"].row.key == "l2"


def test_main_reads_reference_files(bench, tmp_path, capsys, monkeypatch):
    """--reference reads exported rows (aesdse db export); without --db and without the default
    database a fresh clone reads the checkout's results/reference/."""
    from aesdse.store.exchange import export_rows
    ref = tmp_path / "reference"
    with Store(tmp_path / "r.sqlite") as store:
        for row in _rows():
            store.put(row)
        export_rows(store, ref / "records.jsonl", store.rows())
    assert bench.main(["--reference", str(ref)]) == 0
    out, err = capsys.readouterr()
    assert "32.0 Gbit/s at 250.0 MHz" in out and f"rows from reference {ref}" in err
    monkeypatch.chdir(tmp_path / "reference")  # no results/aesdse.sqlite here
    monkeypatch.setattr(bench, "REFERENCE_DIR", ref)
    assert bench.main([]) == 0
    out, err = capsys.readouterr()
    assert "32.0 Gbit/s at 250.0 MHz" in out and f"rows from reference {ref}" in err
    monkeypatch.setattr(bench, "REFERENCE_DIR", tmp_path / "nothing")
    assert bench.main([]) == 2
    assert "give --reference results/reference" in capsys.readouterr().err


def test_issue_22_classes_and_their_gaps(bench):
    """The classes of issue 22: the T-box target is relative to the best single-pumped core, the
    iterative no-BRAM target is per LUT4, the compact target allows one DP16KD at 150 LUT4."""
    single = _ok("t-single", "tbox", {"bram_pumping": 1, "datapath_width": 128,
                                      "interleaved_blocks": 1},
                 luts=1800, ffs=900, fmax=140.0, cpb=16, brams=16)      # 1,120 Mbit/s, 70/DP16KD
    double8 = _ok("t-d8", "tbox", {"bram_pumping": 2, "datapath_width": 128},
                  luts=2000, ffs=900, fmax=50.0, cpb=10, brams=8)       # 640 Mbit/s, 80/DP16KD
    double4 = _ok("t-d4", "tbox", {"bram_pumping": 2, "datapath_width": 128,
                                   "tbox_entry": "compressed"},
                  luts=2200, ffs=900, fmax=70.0, cpb=10, brams=4)       # 896 Mbit/s, 224/DP16KD
    lean = _ok("u1", "unrolled", {"round_units": 1, "sbox": "composite", "sbox_stages": 6},
               luts=1900, ffs=2000, fmax=200.0, cpb=10)                 # 2,560 Mbit/s, 1.35/LUT4
    mm = _ok("mm", "multimode", {"sbox": "lut"}, luts=5000, ffs=1500, fmax=100.0, cpb=11)
    ram = _ok("c-ram", "compact", {"datapath_width": 8, "sbox": "bram"}, luts=140, ffs=300,
              fmax=90.0, cpb=200, brams=1)
    recs = {r.cls.name: r for r in bench.records(_rows() + [single, double8])}
    tbox = recs["T-box double-pumped, 128-bit, enc+dec"]
    assert tbox.row.key == "t-d8" and not tbox.met
    assert tbox.verdict == ("no: 8 DP16KD, 4 wanted; 80 Mbit/s per DP16KD against 1.6 x 70: "
                            "needs 1.40x the Mbit/s per DP16KD")
    recs = {r.cls.name: r for r in bench.records(_rows() + [single, double8, double4, lean, mm,
                                                           ram])}
    assert recs["T-box double-pumped, 128-bit, enc+dec"].row.key == "t-d4"
    assert recs["T-box double-pumped, 128-bit, enc+dec"].met
    logic = recs["iterative, no block RAM"]
    assert logic.row.key == "u1" and logic.met and "1.35 Mbit/s per LUT4" in logic.cls.measure(
        logic.row)
    multimode = recs["multimode, CCM included, 128-bit key, one stream"]
    assert multimode.row.key == "mm" and multimode.verdict == "no: needs 1.20x the clock"
    compact = recs["compact 8-bit, with key schedule"]
    assert compact.row.key == "c-ram" and compact.met


def test_issue_24_gcm_classes(bench):
    """The GCM classes: the pipelined one by throughput against 30 Gbit/s; the compact one
    prefers a core within 3,000 LUT4 and names both gaps; plain AES rows stay out of both."""
    gcm_pipe = {"ghash": "karatsuba", "ghash_stages": 4, "ghash_aggregation": 8}
    fast = _ok("g-pipe", "gcm_unrolled", gcm_pipe, luts=30000, ffs=40000, fmax=200.0, cpb=1)
    small = _ok("g-small", "gcm_iterative", {"ghash": "digit_serial", "ghash_digit": 8},
                luts=2900, ffs=1500, fmax=100.0, cpb=16)                  # 800 Mbit/s
    big = _ok("g-big", "gcm_iterative", {"ghash": "digit_serial", "ghash_digit": 16},
              luts=3800, ffs=1600, fmax=100.0, cpb=8)                     # 1,600 Mbit/s
    parallel = _ok("g-par", "gcm_iterative", {"ghash": "parallel"}, luts=2000, ffs=1000,
                   fmax=100.0, cpb=4)
    # Faster, but two cycles a block (a 64-bit digit): not in the one-block-per-cycle class.
    two_cycle = _ok("g-two", "gcm_unrolled", {"ghash": "digit_serial", "ghash_digit": 64},
                    luts=30000, ffs=40000, fmax=500.0, cpb=2)     # 32 Gbit/s
    recs = {r.cls.name: r for r in bench.records(_rows() + [fast, two_cycle, small, big,
                                                            parallel])}
    pipe = recs["GCM fully pipelined (encrypt + tag, one block per cycle)"]
    assert pipe.row.key == "g-pipe" and not pipe.met
    assert pipe.verdict == "no: needs 1.17x the throughput"
    compact = recs["GCM compact (iterative or compact AES, digit-serial GHASH)"]
    assert compact.row.key == "g-small" and not compact.met
    assert compact.verdict == "no: needs 1.25x the throughput"
    recs = {r.cls.name: r for r in bench.records(_rows() + [big])}
    compact = recs["GCM compact (iterative or compact AES, digit-serial GHASH)"]
    assert compact.row.key == "g-big" and compact.verdict == "no: 800 LUT4 over 3,000"
    assert recs["fully pipelined, one pipeline"].row.key != "g-pipe"


def _gcm_row(key, *, fmax, aad_cycles, payload_cycles, start, end, ghash_levels, levels=13):
    # One configuration per row (rows differing only by seed would be aggregated).
    params = {"datapath_width": 32, "ghash": "digit_serial", "ghash_digit": 4, "tag": key}
    row = _ok(key, "gcm_compact", params, luts=7000, ffs=2000, fmax=fmax, cpb=payload_cycles)
    path = {"clock": "clk", "start_cell": start, "end_cell": end, "logic_levels": levels,
            "total_ns": 1000 / fmax}
    share = {"clock": "clk", "levels": ghash_levels, "total_levels": levels,
             "ns": 0.5 * ghash_levels, "total_ns": 1000 / fmax}
    return replace(row, details={
        "gcm": {"aad_bytes_per_cycle": 16 / aad_cycles,
                "payload_bytes_per_cycle": 16 / payload_cycles},
        "critical_paths": [path], "instances": {"ghash": {"paths": [share]}}})


def test_issue_24_balanced_gcm_class(bench):
    """GHASH never limits throughput: fewer GHASH cycles per block than the payload's, and a
    worst path from the cipher to the cipher with no GHASH cell. A faster row that fails
    either condition is not the record; the gap names the measured reason."""
    name = "GCM whose GHASH never limits throughput"
    balanced = _gcm_row("b-ok", fmax=72.0, aad_cycles=33, payload_cycles=44, ghash_levels=0,
                        start="cipher.rnd_TRELLIS_FF_Q", end="cipher.state1.0.1$DPRAM_COMB1")
    serial = _gcm_row("b-serial", fmax=90.0, aad_cycles=129, payload_cycles=129,
                      ghash_levels=0, start="cipher.rnd_TRELLIS_FF_Q", end="cipher.k_FF")
    on_path = _gcm_row("b-path", fmax=95.0, aad_cycles=17, payload_cycles=44, ghash_levels=3,
                       start="ghash.multiplier.b_FF", end="cipher.k_FF")
    wrapper = _gcm_row("b-wrap", fmax=99.0, aad_cycles=17, payload_cycles=44, ghash_levels=0,
                       start="side.consume_TRELLIS_FF_Q_1", end="len_a_TRELLIS_FF_Q_58")
    recs = {r.cls.name: r for r in bench.records(_rows() + [balanced, serial, on_path,
                                                            wrapper])}
    assert recs[name].row.key == "b-ok" and recs[name].met
    assert "GHASH 33 / payload 44 cycles per block" in recs[name].cls.measure(recs[name].row)
    assert "worst path cipher -> cipher, 13 levels, 0 in GHASH" in recs[name].cls.measure(
        recs[name].row)
    verdicts = {key: {r.cls.name: r for r in bench.records(_rows() + [row])}[name].verdict
                for key, row in [("serial", serial), ("path", on_path), ("wrap", wrapper)]}
    assert verdicts["serial"] == ("no: GHASH sets the cycles: 129.0 cycles per AAD block, "
                                  "129.0 per payload block")
    assert verdicts["path"] == "no: GHASH on the worst path: 3 of 13 levels, 1.50 of 10.53 ns"
    assert verdicts["wrap"] == ("no: worst path not the cipher's: side.consume_TRELLIS_FF_Q_1 -> "
                                "len_a_TRELLIS_FF_Q_58")
    # A row without the breakdown (measured before it existed) is not taken for balanced.
    bare = replace(balanced, key="b-bare", details={"gcm": balanced.details["gcm"]})
    rec = {r.cls.name: r for r in bench.records(_rows() + [bare])}[name]
    assert rec.verdict == "no: no critical-path breakdown stored"


def test_a_records_row_names_the_flow_choices_it_needs(bench):
    # A record measured with a floorplan (or another placer or router) says so beside the
    # synthesis switches, so that a reader can measure it again.
    pipe = {"round_units": 10, "sbox": "composite", "parallel_lanes": 3}
    row = _ok("f1", "unrolled", pipe, luts=36000, ffs=48000, fmax=217.0, cpb=1 / 3, seed=1)
    assert bench._describe(row).endswith("sbox=composite")
    row = replace(row, flow=dict(row.flow, nowidelut=True, floorplan="lane_rows"))
    assert bench._describe(row).endswith("sbox=composite (nowidelut, floorplan=lane_rows)")


def _pipelined(fmaxes, prefix="q"):
    """A fully pipelined record (one block per cycle) over one seed per Fmax in ``fmaxes``."""
    pipe = {"round_units": 10, "schedule": "split", "sbox": "composite", "sbox_stages": 6,
            "bram_rounds": 0, "key_schedule": "on_the_fly", "key_bits": 128}
    return [_ok(f"{prefix}{seed}", "unrolled", pipe, luts=20000, ffs=30000, fmax=fmax, cpb=1,
                seed=seed) for seed, fmax in enumerate(fmaxes, 1)]


def _pipe_record(bench, fmaxes):
    rows = [r for r in _rows() if r.arch != "unrolled"] + _pipelined(fmaxes)
    return {r.cls.name: r for r in bench.records(rows)}["fully pipelined, one pipeline"]


# 40 Gbit/s at 128 bits per cycle.
TARGET_MHZ = 40_000 / 128


def test_a_met_target_on_fewer_than_five_seeds_is_not_a_plain_yes(bench):
    rec = _pipe_record(bench, [TARGET_MHZ + 1, TARGET_MHZ + 5, TARGET_MHZ + 9])
    assert rec.met and rec.fmax_decides
    assert rec.verdict == "yes (3 seeds; >= 5 needed to decide)"


def test_a_missed_target_some_seed_met_says_so(bench):
    fmaxes = [TARGET_MHZ - 20, TARGET_MHZ - 2, TARGET_MHZ + 8]
    rec = _pipe_record(bench, fmaxes)
    gap = 40_000 / (128 * (TARGET_MHZ - 2))
    assert rec.verdict == (f"no: needs {gap:.2f}x the throughput (3 seeds, the target within "
                           f"their range; >= 5 needed to decide)")


def test_five_seeds_decide_and_say_within_noise(bench):
    clear = _pipe_record(bench, [TARGET_MHZ + d for d in (3, 5, 8, 10, 12, 15)])
    assert clear.verdict == "yes" and clear.spread.ci_low > TARGET_MHZ
    # The median interval of 6 seeds is min-max (ranks 1 and 6): the lowest seed misses.
    close = _pipe_record(bench, [TARGET_MHZ + d for d in (-4, 5, 8, 10, 12, 15)])
    assert close.verdict == "yes, within noise of the target"
    assert close.spread.ci_low < TARGET_MHZ < close.spread.ci_high


def test_an_area_target_does_not_wait_for_seeds(bench):
    recs = {r.cls.name: r for r in bench.records(_rows())}
    shared = recs["S-box alone (enc/dec combined)"]  # one seed, LUT4 target
    assert not shared.fmax_decides and shared.verdict == "yes"


def test_the_records_table_shows_the_spread(bench):
    rows = [r for r in _rows() if r.arch != "unrolled"] + _pipelined([300.0, 310.0, 320.0])
    text = bench.records_markdown(bench.records(rows))
    assert "| seeds | Fmax over seeds (MHz) |" in text
    assert "| 3 | 310.0 (300.0-320.0) |" in text
    assert "(a-b) is the min-max range across seeds" in text


def test_ghash_never_limits_is_decided_on_every_seed(bench):
    """Where the worst path lies is a property of each routed result: the class holds only when
    it holds on every placer seed's row, not on the median seed's alone."""
    name = "GCM whose GHASH never limits throughput"
    clean = [replace(_gcm_row("s", fmax=fmax, aad_cycles=33, payload_cycles=44, ghash_levels=0,
                              start="cipher.rnd_TRELLIS_FF_Q", end="cipher.k_FF"),
                     key=f"s{seed}", seed=seed)
             for seed, fmax in [(1, 70.0), (2, 72.0), (3, 74.0)]]
    rec = {r.cls.name: r for r in bench.records(_rows() + clean)}[name]
    assert rec.row.fmax_mhz == 72.0 and rec.met and rec.verdict.startswith(
        "yes (on each of 3 seeds)")
    # Seed 3 routes with two GHASH levels on its worst path; the median seed (2) is clean.
    dirty = replace(_gcm_row("s", fmax=74.0, aad_cycles=33, payload_cycles=44, ghash_levels=2,
                             start="ghash.multiplier.b_FF", end="cipher.k_FF"), key="s3", seed=3)
    rec = {r.cls.name: r for r in bench.records(_rows() + clean[:2] + [dirty])}[name]
    assert rec.row.fmax_mhz == 72.0 and bench._gcm_ghash_limit(rec.row) is None
    assert not rec.met
    assert rec.verdict == ("no: seed 3: GHASH on the worst path: 2 of 13 levels, 1.00 of 13.51 "
                           "ns (1 of 3 seeds fail)")


def test_whether_the_worst_path_is_the_ciphers_goes_by_the_hierarchy_where_recorded(bench):
    """A cell named ``cipher.`` may be the wrapper's (synth_ecp5 names a cell after the net it
    drives, and a port net keeps the instance's name): rows that record the cipher's breakdown
    are decided by it; older rows, without it, by the names."""
    row = _gcm_row("h", fmax=72.0, aad_cycles=33, payload_cycles=44, ghash_levels=0,
                   start="cipher.i__payload_TRELLIS_FF_Q", end="cipher.k_FF")
    assert bench._gcm_ghash_limit(row) is None           # by names (no cipher breakdown)

    def with_cipher(starts_inside, ends_inside):
        instances = dict(row.details["instances"], cipher={"paths": [
            {"clock": "clk", "starts_inside": starts_inside, "ends_inside": ends_inside,
             "levels": 13, "total_levels": 13, "ns": 10.0, "total_ns": 1000 / 72.0}]})
        return replace(row, details=dict(row.details, instances=instances))

    # The start register is the wrapper's (it drives the cipher's input port).
    assert bench._gcm_ghash_limit(with_cipher(False, True)) == (
        "worst path not the cipher's: cipher.i__payload_TRELLIS_FF_Q -> cipher.k_FF")
    assert bench._gcm_ghash_limit(with_cipher(True, True)) is None
    # And a path whose cells are named by the wrapper but lie in the cipher counts as its.
    named_outside = replace(with_cipher(True, True), details=dict(
        with_cipher(True, True).details, critical_paths=[dict(
            row.details["critical_paths"][0], start_cell="s_FF", end_cell="o_FF")]))
    assert bench._gcm_ghash_limit(named_outside) is None


def test_masked_first_order_class_names_each_gap(bench):
    """Issue 49's class: the smallest first-order core at >= 1.5 bit/cycle; over 3,000 LUT4
    and without a leakage verdict it misses, and says both; a second-order core is not a
    member; a small core that passed the leakage checks at 1M traces meets it."""
    def masked(key, order, luts, cpb, leakage=None, gadget="dom_indep"):
        row = _ok(key, "masked", {"masking_order": order, "gadget": gadget,
                                  "multipliers": "field"},
                  luts=luts, ffs=luts // 2, fmax=130.0, cpb=cpb)
        details = {"randomness": {"per_cycle": 616, "per_block": 616 * cpb}}
        return replace(row, details=dict(details, **({"leakage": leakage} if leakage else {})))
    slow = masked("m-slow", 1, 5000, 120)      # 1.07 bit/cycle
    big = masked("m-big", 1, 9410, 50)         # 2.56 bit/cycle
    second = masked("m-d2", 2, 2000, 50)
    recs = {r.cls.name: r for r in bench.records(_rows() + [slow, big, second])}
    rec = recs["masked AES-128, first order"]
    assert rec.row.key == "m-big" and not rec.met
    assert rec.verdict == "no: 6,410 LUT4 over 3,000; leakage not checked (no leakage stage yet)"
    assert rec.cls.measure(rec.row) == ("9,410 LUT4, 0 BRAM, 2.56 bit/cycle (333 Mbit/s at "
                                        "130.0 MHz), 30,800 random bits/block; leakage: "
                                        "not checked")
    rec = {r.cls.name: r for r in bench.records([slow])}["masked AES-128, first order"]
    assert rec.verdict == ("no: 2,000 LUT4 over 3,000; needs 1.41x the bits per cycle; "
                           "leakage not checked (no leakage stage yet)")
    few = masked("m-few", 1, 2900, 50, {"verdict": "pass", "traces": 100_000})
    good = masked("m-good", 1, 2950, 50, {"verdict": "pass", "traces": 1_000_000}, "hpc2")
    leaky = masked("m-leaky", 1, 2800, 50, {"verdict": "fail (cycle 3)", "traces": 1_000_000})
    for rows, key, verdict in (([few], "m-few", "no: leakage checked on 100,000 traces, "
                                                ">= 1,000,000 needed"),
                               ([leaky], "m-leaky", "no: leakage: fail (cycle 3)"),
                               ([good, big], "m-good", "yes")):
        rec = {r.cls.name: r for r in bench.records(rows)}["masked AES-128, first order"]
        assert (rec.row.key, rec.verdict) == (key, verdict)
