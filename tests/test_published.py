"""Tests of aesdse.report.published: the transcribed tables load and validate, the consistency check flags
exactly the inconsistent claims, and the area normalisation follows its stated conventions."""

import functools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from aesdse.report.published import (
    PUBLISHED_DIR, Architecture, PublishedDataError, PublishedRow, check_all, consistency_check,
    find_paper, load_paper, load_papers,
)

FILES = sorted(PUBLISHED_DIR.glob("*.yaml"))


@functools.cache
def _paper(key):
    """:func:`find_paper`, loaded once per key (the files do not change during the tests)."""
    return find_paper(key)


@pytest.fixture(scope="module")
def papers():
    return load_papers()


# --- the data files --------------------------------------------------------------------------

def test_one_file_per_seed_paper_and_reference_paper(papers):
    assert [p.key for p in papers if p.is_seed] == ["000", "001", "002", "003", "004"]
    assert [p.path.name for p in papers] == [
        "000_zhou_gaj.yaml", "001_kundi_aziz.yaml", "002_hodjat_verbauwhede.yaml",
        "003_lin_huang.yaml", "004_unrolled.yaml", "100_moradi.yaml", "101_good_benaissa.yaml",
        "200_lemsitzer.yaml", "201_berghella.yaml"]
    moradi, good, lemsitzer, berghella = [p for p in papers if not p.is_seed]
    assert lemsitzer.seed is None and "A throughput of 15.3 Gb/s was reached" in lemsitzer.source
    assert berghella.seed is None and "xcku035-ffva1156-3" in berghella.source
    assert moradi.seed is None and "2400 GE" in moradi.source
    assert good.seed is None and "124 slices" in good.source


def test_good_benaissa_is_the_compact_reference_on_spartan2():
    # Good & Benaissa (CHES 2005), the abstract's smallest design: 124 slices and two Spartan-II
    # block memories (RAMB4, 4 Kbit: 16 Kbit at 4 slices per Kbit), 2.2 Mbit/s; no clock given.
    row = find_paper("benaissa").table("Abstract").row("smallest")
    assert row.device_family == "spartan2" and row.config == {"arch": "compact",
                                                              "datapath_width": 8}
    assert row.values["slices"] == 124 and row.values["brams"] == 2
    assert row.throughput_bps == 2.2e6 and row.area("slice-eq") == 124 + 2 * 4 * 4


def test_asic_rows_in_gate_equivalents():
    # 003 prints thousands of gates; Moradi et al. 2011 (the smallest 8-bit ASIC AES) GE.
    ours = _paper("003").table("Table II").row("ours-128")
    assert ours.values["gates_k"] == 86.2 and ours.gate_equivalents == pytest.approx(86_200)
    assert _paper("003").table("Sec. III.B").row("lut").gate_equivalents == pytest.approx(54_000)
    moradi = find_paper("moradi").table("Abstract").row("compact-aes")
    assert moradi.gate_equivalents == 2400 and moradi.device_family == "asic"
    assert moradi.config == {"arch": "compact", "datapath_width": 8}
    assert moradi.values["datapath_bits"] == 8 and moradi.values["direction"] == "En"
    # FPGA rows have no gate count, whatever their columns.
    assert _paper("000").table("Table III").row("logic-8").gate_equivalents is None


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_file_loads_and_validates(path):
    paper = load_paper(path)
    if paper.is_seed:
        assert re.fullmatch(rf"{paper.key}_[0-9a-f]{{16}}\.txt", paper.seed)
    else:
        assert int(paper.key) >= 100 and paper.source
    assert paper.title and paper.tables
    for table in paper.tables:
        numeric = {c.key for c in table.columns if c.numeric}
        for row in table.rows:
            assert set(row.values) == {c.key for c in table.columns}
            for key, value in row.values.items():
                if key in numeric:
                    assert value is None or (isinstance(value, (int, float))
                                             and not isinstance(value, bool))
                else:
                    assert value is None or isinstance(value, str)
            if any(v is None for v in row.values.values()):
                assert row.note
            if row.this_work and row.throughput_bps is not None:
                # GCM papers (keys 2xx) are set beside the GCM families.
                gcm = {"gcm_iterative", "gcm_unrolled", "gcm_compact"} \
                    if paper.key.startswith("2") else set()
                if row.config is None:
                    # A published design aesdse has no counterpart of says so.
                    assert "No aesdse counterpart" in row.note
                    continue
                assert row.config["arch"] in {
                    "compact", "tbox", "unrolled", "multimode"} | gcm


def test_tables_named_in_the_seed_readme_are_present(papers):
    wanted = {"000": ["Table I", "Table III", "Table IV", "Table V"], "001": ["Table 2"],
              "002": ["Table 1"], "003": ["Table II"], "004": ["Table 1", "Table 3"]}
    for paper in papers:
        for table_id in wanted.get(paper.key, []):
            assert paper.table(table_id).rows


def test_numbers_as_printed(papers):
    by_key = {p.key: p for p in papers}
    row = by_key["002"].table("Table 1").row("4-stages-bram")
    assert (row.number("slices"), row.number("luts"), row.number("brams"),
            row.number("clock_mhz"), row.number("latency_cycles"),
            row.number("throughput_gbps")) == (5177, 8285, 84, 168.3, 31, 21.54)
    row = by_key["004"].table("3").row("design-1")
    assert (row.number("latency_ns"), row.number("mbps_per_slice")) == (45.06, 65.42)
    row = by_key["000"].table("Table III").row("table-64")
    assert row.values["sbox"] == "table" and row.number("clock_mhz") == 117.595
    assert row.config == {"arch": "compact", "datapath_width": 64, "sbox": "lut"}
    row = by_key["003"].table("Table II").row("ours-256")
    assert row.config == {"arch": "multimode", "key_bits": 256}
    assert row.number("throughput_gbps") == 3.05 and row.architecture.cycles_per_block == 14
    with pytest.raises(TypeError, match=r"holds text"):
        row.number("modes")


def test_row_units_and_derived_quantities(papers):
    row = _paper("002").table("Table 1").row("4-stages")
    assert row.throughput_bps == pytest.approx(21.54e9)
    assert row.clock_hz == pytest.approx(168.3e6)
    assert row.implied_cycles_per_block() == pytest.approx(1.0, abs=0.001)
    # 000's data rate 2.91 bit/cycle is 128/44: the throughput column agrees within 0.4%.
    row = _paper("000").table("Table III").row("logic-32")
    assert row.units["throughput_mbps"] == "Mbit/s"
    assert row.implied_cycles_per_block() == pytest.approx(44, rel=0.01)


@pytest.mark.parametrize("name", ["000", "0", "zhou_gaj", "ZHOU", "000_zhou_gaj", "stream-cipher"])
def test_find_paper_by_any_name(name):
    assert find_paper(name).key == "000"


def test_find_paper_other_keys():
    assert find_paper("kundi_aziz").key == "001"
    assert find_paper("hodjat").key == "002"
    assert find_paper("lin_huang").key == "003"
    assert find_paper("4").key == "004"
    assert find_paper("unrolled").key == "004"


def test_find_paper_unknown():
    with pytest.raises(ValueError, match=r"^Paper must be one of 000 \(zhou_gaj\), .*not 'nope'$"):
        find_paper("nope")


def test_table_lookup_error_names_the_tables():
    with pytest.raises(KeyError, match=r"Paper 001 has no table 'Table 9'; it has Table 2"):
        find_paper("001").table("Table 9")


# --- validation ----------------------------------------------------------------------------------

GOOD = """\
key: "009"
name: test_paper
seed: 009_0123456789abcdef.txt
citation: {title: A title, authors: [A. Author]}
tables:
  - id: Table 1
    caption: Results
    device: Virtex-5
    device_family: virtex5
    tool: null
    columns:
      - {key: design, header: Design}
      - {key: clock_mhz, header: Freq, unit: MHz}
      - {key: throughput_gbps, header: Throughput, unit: Gbit/s}
    rows:
      - id: a
        label: A
        this_work: true
        config: {arch: unrolled}
        values: {design: A, clock_mhz: 100, throughput_gbps: 12.8}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "009_test.yaml"
    path.write_text(text)
    return path


def test_validation_accepts_minimal_file(tmp_path):
    paper = load_paper(_write(tmp_path, GOOD))
    assert paper.tables[0].rows[0].device_family == "virtex5"
    assert load_papers(tmp_path)[0].name == "test_paper"


@pytest.mark.parametrize("old, new, message", [
    ("clock_mhz: 100,", "clock_mhz: '100',",
     r"009_test.yaml:20: tables\[0\] \(Table 1\).rows\[0\] \(a\).values.clock_mhz: "
     r"must be a number or null, not '100'$"),
    ("clock_mhz: 100,", "clock_mhz: null,",
     r"rows\[0\] \(a\): has null values but no note saying why$"),
    ("clock_mhz: 100, ", "",
     r"rows\[0\] \(a\).values: missing column\(s\) clock_mhz \(use null\)$"),
    ("throughput_gbps: 12.8}", "throughput_gbps: 12.8, fmax: 1}",
     r"rows\[0\] \(a\).values: unknown column\(s\) fmax$"),
    ("    caption: Results\n", "",
     r"009_test.yaml:6: tables\[0\]: missing required field\(s\) caption$"),
    ('key: "009"', "key: 9",
     r"009_test.yaml:1: key: must be a non-empty string, not 9$"),
    ("unit: Gbit/s", "unit: Mbit/s",
     r"column 'throughput_gbps' must have unit 'Gbit/s', not 'Mbit/s'$"),
    ("device_family: virtex5", "device_family: virtex9",
     r"device_family: must be one of .*, asic or null, not 'virtex9'$"),
    ("this_work: true", "this_work: yes please",
     r"009_test.yaml:18: tables\[0\] \(Table 1\).rows\[0\] \(a\).this_work: "
     r"must be true or false, not 'yes please'$"),
    ("config: {arch: unrolled}", "config: {round_units: 2}",
     r"config: must be a mapping with a string 'arch'"),
    ("seed: 009_0123456789abcdef.txt", "seed: null",
     r"009_test.yaml:\d+: source: a reference paper \(seed: null\) must say where its numbers "
     r"come from in 'source'$"),
    ("seed: 009_0123456789abcdef.txt", "seed: null\nsource: a web page",
     r"key: keys below 100 are seed papers, which name their seed text; a reference paper "
     r"\(seed: null\) takes a key from 100, not '009'$"),
])
def test_validation_errors(tmp_path, old, new, message):
    assert old in GOOD
    with pytest.raises(PublishedDataError, match=message):
        load_paper(_write(tmp_path, GOOD.replace(old, new)))


def test_duplicate_keys_across_files(tmp_path):
    _write(tmp_path, GOOD)
    (tmp_path / "010_copy.yaml").write_text(GOOD)
    with pytest.raises(PublishedDataError, match=r"'009' is also used by 009_test.yaml"):
        load_papers(tmp_path)


# --- consistency check ---------------------------------------------------------------------------

def test_004_claim_is_flagged_with_the_arithmetic():
    row = _paper("004").table("Table 3").row("design-1")
    (flag,) = consistency_check(row)
    assert flag.startswith(
        "004 Table 3 Design 1: 34.08 Gbit/s claimed at 266.29 MHz = 128 bit x 266.29 MHz / "
        "1.00 cycle per block; the described architecture (2 round units, 5 passes, at most 2 "
        "blocks in flight) gives at most 128 bit x 266.29 MHz / 5 cycles per block = 6.82 Gbit/s "
        "(the claim is 5.00x that).")
    assert "Sec. III.A" in flag


def test_only_004_throughput_claims_are_flagged(papers):
    flagged = sorted({flag.split(":")[0] for flag in check_all(papers)})
    assert flagged == ["004 Table 1 Design 1", "004 Table 1 Design 2",
                       "004 Table 3 Design 1", "004 Table 3 Design 2"]


@pytest.mark.parametrize("key, table, row", [
    ("002", "Table 1", "4-stages"),        # 21.54 Gbit/s = 128 bit x 168.3 MHz / 1
    ("002", "Table 1", "7-stages-bram"),   # 20.11 Gbit/s = 128 bit x 157.1 MHz / 1
    ("001", "Table 2", "ours-virtex7"),    # 4480 Mbit/s = 128 bit x 350 MHz / 10
    ("003", "Table II", "ours-192"),       # 3.56 Gbit/s ~ 128 bit x 333 MHz / 12 = 3.552
    ("000", "Table III", "logic-32"),      # 181.2 Mbit/s ~ 128 bit x 62.514 MHz / 44 = 181.9
])
def test_consistent_rows_are_not_flagged(key, table, row):
    published = _paper(key).table(table).row(row)
    assert published.architecture is not None
    assert consistency_check(published) == []


def _row(throughput_gbps, cycles, minimum=False, latency=None, printed_latency=None):
    return PublishedRow(
        paper_key="999", table_id="Table 1", id="x", label="X", this_work=True,
        values={"clock_mhz": 100.0, "throughput_gbps": throughput_gbps,
                "latency_cycles": printed_latency},
        units={"clock_mhz": "MHz", "throughput_gbps": "Gbit/s", "latency_cycles": "cycles"},
        architecture=Architecture(block_bits=128, cycles_per_block=cycles, summary="s",
                                  derivation="d", cycles_per_block_is_minimum=minimum,
                                  latency_cycles=latency))


def test_check_tolerance_is_two_percent():
    # 128 bit x 100 MHz / 10 = 1.28 Gbit/s.
    assert consistency_check(_row(1.30, 10)) == []             # +1.6%
    assert consistency_check(_row(1.26, 10)) == []             # -1.6%
    assert len(consistency_check(_row(1.31, 10))) == 1         # +2.3%
    (flag,) = consistency_check(_row(1.25, 10))                # -2.3%
    assert "gives 128 bit x 100 MHz / 10 cycles per block = 1.28 Gbit/s" in flag
    assert "(the claim is 0.98x that)" in flag


def test_minimum_cycles_flags_only_claims_above_the_bound():
    assert consistency_check(_row(0.5, 10, minimum=True)) == []
    (flag,) = consistency_check(_row(2.56, 10, minimum=True))
    assert "gives at most 128 bit x 100 MHz / 10 cycles per block = 1.28 Gbit/s" in flag


def test_latency_mismatch_is_flagged():
    assert consistency_check(_row(1.28, 10, latency=41, printed_latency=41)) == []
    (flag,) = consistency_check(_row(1.28, 10, latency=41, printed_latency=40))
    assert flag.startswith("999 Table 1 X: latency 40 cycles printed; the described "
                           "architecture (s) gives 41 cycles.")


def test_rows_without_architecture_or_numbers_are_not_checked(papers):
    cited = _paper("004").table("Table 3").row("ref-13")
    assert cited.architecture is None and consistency_check(cited) == []
    assert consistency_check(replace(_row(1.28, 10), values={"clock_mhz": 100.0})) == []


@pytest.mark.parametrize("text, message", [
    (GOOD.replace("key: \"009\"", "key: \"0\x0709\""), r"^009_test.yaml:1: character #x0007 "),
    (GOOD.replace("caption: Results", "caption: [[[[" + "[" * 60 + "]]]]" + "]" * 60),
     r"^009_test.yaml:7: nesting deeper than 50 levels$"),
    (GOOD + "architectures:\n" + "".join(
        f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}" if i else "x"] * 9) + "]\n"
        for i in range(9)), r"^009_test.yaml:2\d: more than 200000 values"),
    (GOOD.replace("caption: Results", "caption: {a: " + "x" * 1000 + "}"),
     r"^009_test.yaml:7: tables\[0\] \(Table 1\).caption: must be a non-empty string, "
     r"not \{'a': 'x{50,70}\.\.\.$"),
])
def test_malformed_yaml_is_a_published_data_error_with_line(tmp_path, text, message):
    # The published tables load through the experiment files' checked loader (aesdse.spec.yamlcheck).
    with pytest.raises(PublishedDataError, match=message):
        load_paper(_write(tmp_path, text))


def test_experiment_files_are_package_data():
    # A wheel install (pip install ., not -e) has the experiments `aesdse reproduce` runs and the
    # published tables: they are package data of aesdse, found through importlib.resources, every
    # one matched by pyproject's package-data globs; experiments/ at the top of a checkout is
    # a link to the same directory, so the two cannot differ.
    import fnmatch
    import re
    from importlib import resources
    from aesdse.reproduce import EXPERIMENTS, EXPERIMENTS_DIR
    root = Path(__file__).resolve().parent.parent
    package = resources.files("aesdse") / "experiments"
    assert EXPERIMENTS_DIR == PUBLISHED_DIR.parent == Path(str(package))
    assert (root / "experiments").resolve() == EXPERIMENTS_DIR.resolve()
    assert (package / "published" / "004_unrolled.yaml").is_file()
    for key, name in EXPERIMENTS.items():
        if (EXPERIMENTS_DIR / name).exists():
            assert (package / name).read_text() == (root / "experiments" / name).read_text()
    pyproject = (root / "pyproject.toml").read_text()
    globs = re.search(r'^aesdse = \[(.*?)\]$', pyproject, re.M | re.S).group(1)
    globs = [g.strip().strip('"') for g in globs.split(",") if g.strip()]
    files = [p.relative_to(root / "aesdse").as_posix()
             for p in (root / "aesdse" / "experiments").rglob("*") if p.is_file()]
    assert len(files) >= 10
    for file in files:
        assert any(fnmatch.fnmatch(file, g) and file.count("/") == g.count("/") for g in globs), \
            f"aesdse/{file} is not package data: add it to [tool.setuptools.package-data]"


def test_berghella_gcm_table_as_printed():
    """201: the open AES-GCM core's two README tables joined by test number. Mbit/s is 8 x the
    printed MB/s; every throughput agrees with the README's bits per clock x the clock; the area
    is from LUT6 and FF (no slices printed), 8 LUT6 + 16 FF per UltraScale CLB."""
    paper = find_paper("berghella")
    table = paper.table("Implementation results")
    assert [r.id for r in table.rows] == [f"test-{n}" for n in range(1, 8)]
    for row in table.rows:
        assert row.values["throughput_mbps"] == 8 * row.values["printed_mbytes_per_s"]
        assert consistency_check(row) == []
    large = table.row("test-3")
    assert large.config == {"arch": "gcm_unrolled", "key_bits": 128}
    assert (large.values["luts"], large.values["ffs"], large.values["clock_mhz"]) == \
        (22463, 4029, 100)
    assert large.area("slice-eq") == max(-(-22463 // 8), -(-4029 // 16)) == 2808
    assert table.row("test-5").config == {"arch": "gcm_iterative"}
    assert table.row("test-4").config is None and table.row("test-7").config is None


def test_berghella_is_set_beside_the_gcm_cores():
    """`aesdse reproduce 201` compares gcm.yaml and the GCM records with the README's table:
    the one-block-per-cycle core with test 3 (128-bit key, size L), the iterative one with test
    5; the footnote says the published area comes from LUTs and FFs."""
    from aesdse.report.compare import compare, render_compare
    from aesdse.reproduce import ALSO, EXPERIMENTS, EXPERIMENTS_DIR
    from conftest import _ok
    assert EXPERIMENTS["201"] == "gcm.yaml"
    assert all((EXPERIMENTS_DIR / name).is_file() for name in ALSO["201"])
    pipelined = _ok("g-u", "gcm_unrolled", {"key_bits": 128, "ghash": "karatsuba"},
                    luts=36413, ffs=30000, fmax=79.0, cpb=1)
    iterative = _ok("g-i", "gcm_iterative", {"ghash": "digit_serial", "ghash_digit": 16},
                    luts=10676, ffs=2000, fmax=73.6, cpb=10)
    c = compare([pipelined, iterative], [find_paper("201")], all_papers=True)
    pairs = {m.entry.row.key: m.published.id for m in c.matches}
    assert pairs == {"g-u": "test-3", "g-i": "test-5"}
    text = render_compare(c, "markdown")
    assert "12,800" in text and "1,600" in text
    assert "max(ceil(LUT/8), ceil(FF/16)) where only LUTs and FFs are printed" in text
    # Reference 200 prints neither slices nor LUTs: its footnote claims no packing.
    text = render_compare(compare([pipelined], [find_paper("200")], all_papers=True), "markdown")
    assert "Published, Xilinx Virtex-4" in text and "where only LUTs" not in text
