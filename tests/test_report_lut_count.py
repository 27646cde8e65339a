"""Every row's LUT count with its LUT size (``lut_count``, ``lut_inputs``) in ``aesdse report
--format json``: a LUT6 fabric's count (Xilinx Virtex-5 and later, kept in its details) beside
the LUT4 fabrics', never in the LUT4 column or its ratio."""

import json
from dataclasses import replace

from conftest import _ok

from aesdse.flow.families import lut_count_of
from aesdse.report.table import render

PARAMS = {"datapath_width": 8, "sbox": "composite", "shared_memory": True}


def _xilinx(key: str, target: str, *, luts, lut_count: int):
    """A Xilinx estimate as the sweep stores it: no Fmax or throughput, the LUTs of every size
    counted in ``details["xilinx"]["lut_count"]``, and in ``luts`` only on a LUT4 fabric."""
    return replace(_ok(key, "compact", PARAMS, luts=1, ffs=300, fmax=1.0, cpb=176), target=target,
                   luts=luts, slices=150, fmax_mhz=None, fmax_raw_mhz=None, throughput_mbps=None,
                   mbps_per_lut=None, mbps_per_slice=None, config_key=None,
                   details={"xilinx": {"lut_count": lut_count, "lut_sizes": f"LUT6 {lut_count}",
                                       "depth_luts": 7, "bram_kbits": 0}})


def _rows():
    ecp5 = _ok("e", "compact", PARAMS, luts=600, ffs=420, fmax=80.0, cpb=176)
    virtex5 = _xilinx("v", "xc5v", luts=None, lut_count=1234)
    spartan3 = _xilinx("s", "xc3s", luts=512, lut_count=512)
    asic = replace(ecp5, key="a", target="asic", config_key=None, luts=None, slices=None,
                   fmax_mhz=None, fmax_raw_mhz=None, throughput_mbps=None, mbps_per_lut=None,
                   mbps_per_slice=None, details={"asic": {"area_ge": 6913.4}})
    return [ecp5, virtex5, spartan3, asic]


def test_lut_count_of_gives_each_fabric_its_own_lut_size():
    ecp5, virtex5, spartan3, asic = _rows()
    assert lut_count_of(ecp5) == (600, 4)
    assert lut_count_of(virtex5) == (1234, 6)
    assert lut_count_of(spartan3) == (512, 4)
    assert lut_count_of(asic) is None
    # A LUT6 row's `luts` column is never read as its count, nor a LUT4 count as LUT6.
    assert lut_count_of(replace(virtex5, luts=99)) == (1234, 6)
    assert lut_count_of(replace(virtex5, details={})) is None


def test_report_json_gives_every_row_a_lut_count_with_its_size():
    objects = {o["target"]: o for o in json.loads(render(_rows(), "json"))}
    virtex5, ecp5 = objects["xc5v"], objects["LFE5U-85F-8CABGA381"]
    assert (virtex5["lut_count"], virtex5["lut_inputs"]) == (1234, 6)
    # The LUT6 count is not in the LUT4 column nor in the LUT4 ratio.
    assert virtex5["luts"] is None and virtex5["mbps_per_lut"] is None
    assert (ecp5["lut_count"], ecp5["lut_inputs"], ecp5["luts"]) == (600, 4, 600)
    assert (objects["xc3s"]["lut_count"], objects["xc3s"]["lut_inputs"]) == (512, 4)
    assert (objects["asic"]["lut_count"], objects["asic"]["lut_inputs"]) == (None, None)
