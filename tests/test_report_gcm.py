"""The GCM table (aesdse report --gcm), the GHASH-area plot (aesdse plot --kind gcm) and the
reference paper 200 (Lemsitzer et al.), from rows made here through the Store API (no Yosys, no
nextpnr); and the instance breakdown of aesdse.flow.critical_path on a hand-made netlist."""

import csv
import io
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

import archs
from aesdse.cli import main
from aesdse.flow.critical_path import in_instance, instance_breakdown
from aesdse.flow.instances import instance_cells
from aesdse.report.gcm import NOT_RECORDED, ghash_area_share, ghash_path_share, render_gcm
from aesdse.store.database import Store

from conftest import _failed, _ok

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF-"}

CIPHER = {"sbox": "composite"}


def _ghash(kind, digit=8, stages=0, levels=0, aggregation=1):
    return {"ghash": kind, "ghash_digit": digit, "ghash_stages": stages,
            "ghash_karatsuba_levels": levels, "ghash_aggregation": aggregation}


def _instances(ghash_luts, total_luts, ghash_ffs, total_ffs, levels, total_levels, ns,
               total_ns):
    """details["instances"] as the sweep records it (instance_breakdown)."""
    return {"ghash": {
        "instance": "ghash",
        "cells": {"LUT4": ghash_luts, "TRELLIS_FF": ghash_ffs},
        "total_cells": {"LUT4": total_luts, "TRELLIS_FF": total_ffs, "CCU2C": 0},
        "paths": [{"clock": "clk", "levels": levels, "total_levels": total_levels, "ns": ns,
                   "total_ns": total_ns},
                  {"clock": "clk -> bram_clk", "levels": 0, "total_levels": 1, "ns": 0.0,
                   "total_ns": 9.9}]}}


def gcm_rows():
    """Two GCM designs with the GHASH share recorded (one over two seeds), one without it (an
    older row), one failed."""
    parallel = {**CIPHER, **_ghash("parallel", stages=2, aggregation=4)}
    serial = {**CIPHER, **_ghash("digit_serial", digit=8)}
    karatsuba = {**CIPHER, **_ghash("karatsuba", levels=1)}
    rows = []
    for seed, fmax in ((1, 200.0), (2, 220.0)):
        rows.append(replace(
            _ok(f"u{seed}", "gcm_unrolled", parallel, luts=30000, ffs=12000, fmax=fmax, cpb=1,
                seed=seed),
            details={"gcm": {"aad_bytes_per_cycle": 16.0, "payload_bytes_per_cycle": 15.5},
                     "instances": _instances(12000, 28000, 3000, 11000, 3, 9, 1.5, 6.0)}))
    rows.append(replace(
        _ok("s", "gcm_iterative", serial, luts=2500, ffs=900, fmax=150.0, cpb=11),
        details={"gcm": {"aad_bytes_per_cycle": 1.0, "payload_bytes_per_cycle": 1.2},
                 "instances": _instances(500, 2400, 400, 900, 7, 7, 5.0, 5.0)}))
    rows.append(replace(
        _ok("k", "gcm_compact", karatsuba, luts=4000, ffs=700, fmax=90.0, cpb=176),
        details={"gcm": {"aad_bytes_per_cycle": 0.09, "payload_bytes_per_cycle": 0.09}}))
    rows.append(_failed("f", "gcm_compact", {**karatsuba, "ghash_stages": 1}, "failed-verification",
                        "tag mismatch on gcmEncryptExtIV128.rsp count 3"))
    return rows


def test_shares_from_the_recorded_breakdown():
    rows = {r.key: r for r in gcm_rows()}
    path, why = ghash_path_share(rows["u1"])
    # The worst path within one clock; the path between two clocks is not the Fmax's.
    assert why is None and path["clock"] == "clk"
    assert (path["levels"], path["total_levels"], path["percent"]) == (3, 9, 25.0)
    area, why = ghash_area_share(rows["s"])
    assert why is None
    assert (area["luts"], area["total_luts"], area["ffs"], area["total_ffs"]) == \
        (500, 2400, 400, 900)
    assert area["luts_percent"] == pytest.approx(100 * 500 / 2400)
    assert ghash_path_share(rows["k"]) == (None, NOT_RECORDED)
    assert ghash_area_share(rows["k"]) == (None, NOT_RECORDED)


def test_markdown_table():
    text = render_gcm(gcm_rows(), title="gcm")
    lines = text.splitlines()
    assert lines[0] == "## gcm: GCM"
    header = lines[2]
    # ghash_digit is 8 everywhere: not a varying parameter.
    assert header.startswith("| Arch | ghash | ghash_aggregation | "
                             "ghash_karatsuba_levels | ghash_stages | Target | LUT4 | FF | "
                             "BRAM | Fmax (MHz) | Gbit/s | AAD B/cycle | Payload B/cycle | "
                             "GHASH path | GHASH LUT4 | GHASH FF |")
    body = [line for line in lines if line.startswith("| gcm_")]
    assert len(body) == 3
    unrolled = next(line for line in body if line.startswith("| gcm_unrolled"))
    # Median of 200 and 220 MHz: 210 MHz x 128 bit / 1 cycle = 26.88 Gbit/s.
    assert "| 210.0 | 26.9 | 16.0 | 15.5 | 3/9 lvl, 1.50/6.00 ns (25%) | 12,000 (43%) | " \
           "3,000 (27%) |" in unrolled
    iterative = next(line for line in body if line.startswith("| gcm_iterative"))
    assert "| 7/7 lvl, 5.00/5.00 ns (100%) | 500 (21%) | 400 (44%) |" in iterative
    compact = next(line for line in body if line.startswith("| gcm_compact"))
    assert compact.endswith("| 0.09 | 0.09 | n/a | n/a | n/a |")
    assert f"n/a: {NOT_RECORDED} (gcm_compact (" in text
    assert "GHASH path: logic levels and delay of the worst path" in text
    assert "- gcm_compact (" in text and "**failed-verification**: tag mismatch" in text


def test_csv_json_latex():
    table = list(csv.DictReader(io.StringIO(render_gcm(gcm_rows(), "csv"))))
    assert [r["arch"] for r in table] == ["gcm_compact", "gcm_iterative", "gcm_unrolled",
                                          "gcm_compact"]
    unrolled = table[2]
    assert float(unrolled["gbps"]) == pytest.approx(26.88)
    assert float(unrolled["path_percent"]) == 25.0 and unrolled["ghash_luts"] == "12000"
    assert unrolled["seeds"] == "2" and unrolled["note"] == ""
    assert table[0]["path_percent"] == "" and NOT_RECORDED in table[0]["note"]
    assert table[3]["status"] == "failed-verification"
    objects = json.loads(render_gcm(gcm_rows(), "json"))
    assert objects[1]["ghash_area"]["luts"] == 500
    assert objects[0]["ghash_path"] is None and objects[0]["notes"] == [NOT_RECORDED]
    latex = render_gcm(gcm_rows(), "latex", title="gcm")
    assert r"\caption{gcm: GCM}" in latex and r"\toprule" in latex
    assert r"3/9 lvl{,} 1.50/6.00 ns (25\%)" in latex
    with pytest.raises(ValueError, match="not 'html'"):
        render_gcm(gcm_rows(), "html")


def test_other_rows_are_left_out_with_a_note():
    other = _ok("c", "compact", {"datapath_width": 8}, luts=600, ffs=400, fmax=80.0, cpb=176)
    text = render_gcm(gcm_rows() + [other])
    assert "Not GCM rows, left out: compact." in text
    assert "| compact |" not in text


# --- the command ---------------------------------------------------------------------------------

def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def gcm_db(tmp_path):
    db = tmp_path / "gcm.sqlite"
    with Store(db) as store:
        for row in gcm_rows():
            store.put(row)
    return db


def test_cli_report_picks_the_gcm_table_for_gcm_rows(gcm_db):
    result = invoke("report", "--db", gcm_db)
    assert result.exit_code == 0, result.output
    assert "| GHASH path | GHASH LUT4 | GHASH FF |" in result.output
    explicit = invoke("report", "--db", gcm_db, "--gcm", "--format", "csv")
    assert explicit.exit_code == 0 and explicit.output.startswith("arch,ghash,")
    # Another report asked for: the metrics table's own options win.
    plain = invoke("report", "--db", gcm_db, "--critical-path")
    assert plain.exit_code == 0 and "GHASH path" not in plain.output


def test_cli_report_gcm_refuses_other_reports(gcm_db):
    result = invoke("report", "--db", gcm_db, "--gcm", "--critical-path")
    assert result.exit_code == 2 and "--gcm is a report of its own" in result.output


# --- the instance breakdown ----------------------------------------------------------------------

def test_in_instance_reads_hierarchical_names():
    assert in_instance("ghash.z_TRELLIS_FF_Q_7", "ghash")
    assert in_instance("dut.ghash.multiplier.b_LUT4_Z", "ghash")
    assert not in_instance("ghash_enable_LUT4_Z", "ghash")
    assert not in_instance("cipher.state_TRELLIS_FF_Q", "ghash")
    assert not in_instance("ghash", "ghash")


def _cell(kind, src=None, **connections):
    """A netlist cell: ``connections`` port -> (direction, bits)."""
    return {"type": kind, "attributes": {"src": src} if src else {},
            "port_directions": {port: d for port, (d, _) in connections.items()},
            "connections": {port: bits for port, (_, bits) in connections.items()}}


def _wire(bits, src, hdlname=None):
    return {"bits": bits, "attributes": {"src": src, **({"hdlname": hdlname} if hdlname else {})}}


def test_instance_breakdown_counts_cells_and_path_delay():
    # The cipher's register (bit 2) feeds the GHASH's port x; the GHASH's LUT reads x and its
    # register z (bit 3) and drives its port o (bit 4), which the top-level LUT y reads (and
    # drives the output y, bit 6); a second top-level LUT recomputes the cipher's register.
    # Cells are named as synth_ecp5 names them, after the net they drive: the cipher's register
    # after the GHASH's port x, which a rule on names counts as the GHASH's. Ownership comes from
    # the hierarchy: hdlname on the GHASH's wires, src on the registers.
    ff = "/cells_map_trellis.v:83"
    netlist = {"modules": {"top": {
        "attributes": {"top": "00000000000000000000000000000001"},
        "ports": {"y": {"direction": "output", "bits": [6]}},
        "cells": {
            "ghash.z_TRELLIS_FF_Q": _cell("TRELLIS_FF", "ghash.py:5|" + ff,
                                          DI=("input", [5]), Q=("output", [3])),
            "ghash.z_TRELLIS_FF_Q_DI_LUT4_Z": _cell("LUT4", "/cells_map_trellis.v:108",
                                                    A=("input", [2]), B=("input", [3]),
                                                    Z=("output", [4])),
            "ghash.x_TRELLIS_FF_Q": _cell("TRELLIS_FF", "gcm.py:10|" + ff,
                                           DI=("input", [7]), Q=("output", [2])),
            "y_LUT4_Z": _cell("LUT4", None, A=("input", [4]), Z=("output", [6])),
            "y_LUT4_Z_1": _cell("LUT4", None, A=("input", [2]), Z=("output", [7])),
            "ghash": {"type": "$scopeinfo", "attributes": {"module": "top.ghash"},
                      "port_directions": {}, "connections": {}}},
        "netnames": {"ghash.z": _wire([3], "ghash.py:5", "ghash z"),
                     "ghash.x": _wire([2], "ghash.py:2", "ghash x"),
                     "ghash.o": _wire([4], "ghash.py:3", "ghash o"),
                     "cipher_s": _wire([2], "gcm.py:10"), "y": _wire([6], "gcm.py:1"),
                     "ghash.z_TRELLIS_FF_Q_DI": _wire([5], "/cells_map_trellis.v:83"),
                     # A wire that keeps its hierarchy but no src (Yosys writes such for
                     # Amaranth's signature members): it names bit 3 inside and no line.
                     "ghash.$signature": {"bits": [3], "attributes": {"hdlname": "ghash $sig"}},
                     "$top_sig": {"bits": [6], "attributes": {"hdlname": "$top_sig"}}}}}}

    def seg(kind, delay, frm, to, net=None):
        return {"type": kind, "delay": delay, "from": {"cell": frm, "port": "Q"},
                "to": {"cell": to, "port": "A"}, **({"net": net} if net else {})}
    report = {"critical_paths": [{"from": "posedge clk", "to": "posedge clk", "path": [
        seg("clk-to-q", 0.4, "ghash.x_TRELLIS_FF_Q", "ghash.x_TRELLIS_FF_Q"),
        seg("routing", 1.0, "ghash.x_TRELLIS_FF_Q", "ghash.z_TRELLIS_FF_Q_DI_LUT4_Z", "n1"),
        seg("logic", 0.2, "ghash.z_TRELLIS_FF_Q_DI_LUT4_Z", "ghash.z_TRELLIS_FF_Q_DI_LUT4_Z"),
        seg("routing", 0.3, "ghash.z_TRELLIS_FF_Q_DI_LUT4_Z", "y_LUT4_Z", "n2"),
        seg("logic", 0.2, "y_LUT4_Z", "y_LUT4_Z"),
        seg("setup", 0.1, "y_LUT4_Z", "ghash.z_TRELLIS_FF_Q")]}]}
    found = instance_breakdown(netlist, report, "ghash")
    assert found["cells"] == {"LUT4": 1, "TRELLIS_FF": 1}
    assert found["total_cells"] == {"LUT4": 3, "TRELLIS_FF": 2}
    [path] = found["paths"]
    # The route into the GHASH LUT, the LUT and the setup of the GHASH register: 1.3 ns.
    assert (path["levels"], path["total_levels"]) == (1, 2)
    assert path["ns"] == pytest.approx(1.3) and path["total_ns"] == pytest.approx(2.2)
    # It starts at the cipher's register (named after the GHASH's port) and ends in the GHASH.
    assert (path["starts_inside"], path["ends_inside"]) == (False, True)
    assert instance_breakdown(netlist, report, "nothere") is None


# --- the plot ------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_cli_plot_gcm_draws_ghash_area_against_throughput(gcm_db, tmp_path, suffix):
    out = tmp_path / f"ghash.{suffix}"
    result = invoke("plot", "--db", gcm_db, "--kind", "gcm", "-o", out)
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data.startswith(MAGIC[suffix]) and len(data) > 1000
    if suffix == "svg":
        text = data.decode()
        # One legend entry per family and multiplier kind of the points with the GHASH area;
        # the row without it is counted as left out.
        assert "gcm_unrolled, parallel" in text and "gcm_iterative, digit_serial" in text
        assert "karatsuba" not in text
        assert "1 GCM point without the GHASH area left out" in text


def test_cli_plot_gcm_without_breakdown_is_an_error(tmp_path):
    db = tmp_path / "old.sqlite"
    with Store(db) as store:
        store.put(next(r for r in gcm_rows() if r.key == "k"))
    result = invoke("plot", "--db", db, "--kind", "gcm", "-o", tmp_path / "x.png")
    assert result.exit_code == 1
    assert "No verified GCM point has the GHASH area" in result.output


# --- the published reference 200 and its reproduction -------------------------------------------

def test_lemsitzer_has_only_the_abstracts_numbers():
    from aesdse.report.published import consistency_check, find_paper
    paper = find_paper("lemsitzer")
    assert paper.key == "200" and not paper.is_seed
    assert paper.title == "Multi-gigabit GCM-AES Architecture Optimized for FPGAs"
    [row] = list(paper.rows())
    assert row.values["throughput_gbps"] == 15.3
    assert row.values["slices"] is None and row.values["brams"] is None
    assert row.device_family == "virtex4" and row.config == {"arch": "gcm_unrolled"}
    # Every number of the file is in the quoted abstract.
    for text in ("128-, 64-, 32- and 16-bit", "1, 2, 4\n", "Virtex4-FX100", "15.3 Gb/s"):
        assert text.replace("\n", "") in paper.source
    assert consistency_check(row) == []


def _fake_gcm_unrolled(monkeypatch):
    """A ``gcm_unrolled`` family with the GHASH parameters, so an experiment of it loads whether
    or not the real family exists yet (nothing is built: no sweep runs)."""
    monkeypatch.setitem(archs.FAMILIES, "gcm_unrolled", archs.Family(
        name="gcm_unrolled", build=lambda device_family="generic", **params: None,
        kind="cipher", doc="fixture stand-in", params=(
            archs.Param("sbox", ("lut", "composite"), "composite", ""),
            archs.Param("ghash", ("bit_serial", "digit_serial", "parallel", "karatsuba"),
                        "parallel", ""),
            archs.Param("ghash_digit", (2, 4, 8), 8, ""),
            archs.Param("ghash_stages", (0, 1, 2), 0, ""),
            archs.Param("ghash_karatsuba_levels", (0, 1), 0, ""),
            archs.Param("ghash_aggregation", (1, 2, 4), 1, ""))))


def test_cli_reproduce_200_prints_published_beside_measured(tmp_path, monkeypatch):
    from aesdse.experiment import load_experiment
    from aesdse.flow.tools import tool_versions
    _fake_gcm_unrolled(monkeypatch)
    exp_file = tmp_path / "gcm.yaml"
    exp_file.write_text("name: gcm\narchitectures:\n  - arch: gcm_unrolled\n    params:\n"
                        "      ghash: parallel\n      ghash_stages: 2\n      ghash_aggregation: 4\n")
    template = next(r for r in gcm_rows() if r.key == "u1")
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        [point] = load_experiment(exp_file).points
        store.put(replace(template, key=point.key(tool_versions()), experiment="gcm",
                          params=point.params_dict, config_key=None))
    out = tmp_path / "out"
    result = invoke("reproduce", "200", "--db", db, "--experiment", exp_file, "--no-sweep",
                    "-o", out)
    assert result.exit_code == 0, result.output
    assert "## 200 lemsitzer: measured (gcm) vs published" in result.stdout
    # 200 MHz x 128 bit / 1 cycle = 25.6 Gbit/s measured, beside the published 15.3 Gbit/s.
    assert "| 200 Abstract: Lemsitzer et al. 2007, best GCM-AES throughput on Virtex-4 | " \
           "15,000 / - | 200.0 / - | 25,600 / 15,300 (1.67x) |" in result.stdout
    assert (out / "compare.md").is_file()


@pytest.mark.flow
def test_ghash_cells_are_attributed_by_hierarchy_through_synthesis_and_routing(tmp_path):
    # The attribution of aesdse.flow.critical_path.instance_breakdown on cells that cross the
    # instance boundary: a digit-serial GHASH multiplier under the instance name ghash, fed by a
    # top-level register and read by a top-level XOR. The
    # bit-serial multiplier (digit 1) has the same registers as a wider digit's and the least
    # logic: the shortest synthesis and placement.
    from amaranth import Module, Signal
    from amaranth.back import rtlil
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out

    from archs.prims.ghash import DigitSerialMultiplier
    from aesdse.flow.nextpnr import place_and_route
    from aesdse.flow.yosys import synthesize
    from aesdse.spec.schema import Target

    class Top(wiring.Component):
        x: In(128)
        go: In(1)
        y: Out(128)

        def elaborate(self, platform):
            m = Module()
            m.submodules.ghash = mult = DigitSerialMultiplier(1)
            other = Signal(128)
            m.d.sync += other.eq(other ^ self.x)
            m.d.comb += [mult.i.payload.a.eq(self.x), mult.i.payload.b.eq(other),
                         mult.i.valid.eq(self.go), self.y.eq(mult.o.payload ^ other)]
            return m

    (tmp_path / "top.il").write_text(rtlil.convert(Top(), name="top"))
    synth = synthesize("top.il", "top", tmp_path)
    assert synth.ok, synth.reason
    pnr = place_and_route("netlist.json", tmp_path, Target(), 100.0)
    assert pnr.ok, pnr.reason
    report = json.loads((tmp_path / "report.json").read_text())
    found = instance_breakdown(tmp_path / "netlist.json", report, "ghash")
    # The 256 LUT4 of the top level (y = z ^ other, other ^ x) are the parent's; so are the 128
    # flip-flops of its register "other", though synthesis names them after the multiplier's
    # operand port (ghash.i__payload.b_TRELLIS_FF_Q*), which a rule on names counted as the
    # multiplier's. The multiplier's own registers (a, b, z, and its 7-bit count; one bit of a
    # is constant and optimized away) are all counted.
    assert found["total_cells"]["LUT4"] - found["cells"]["LUT4"] == 256
    assert found["total_cells"]["TRELLIS_FF"] - found["cells"]["TRELLIS_FF"] == 128
    netlist = json.loads((tmp_path / "netlist.json").read_text())
    [top] = [m for m in netlist["modules"].values() if m["attributes"].get("top")]
    port_named = [n for n, c in top["cells"].items()
                  if c["type"] == "TRELLIS_FF" and n.startswith("ghash.i__payload.b")]
    owned = instance_cells(top, "ghash")
    assert len(port_named) == 128 and not owned & set(port_named)
    assert sum(in_instance(n, "ghash") for n in port_named) == 128   # what names would say
    [path] = found["paths"]
    assert path["clock"] == "clk" and 0 < path["ns"] <= path["total_ns"]
