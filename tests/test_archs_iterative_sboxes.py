# amaranth: UnusedElaboratable=no
"""The iterative core with every S-box family: correct, and one round step per 1 + latency."""

import pytest

from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs import FAMILIES
from archs.prims.sbox import SBOX_KINDS, sbox_latency

CASES = [("lut", 0), ("bram", 0), ("composite", 0), ("composite", 2), ("composite", 6),
         ("composite", 7),
         ("tower", 0), ("tower", 3), ("bp113", 0), ("bp_depth16", 0), ("me_bidir", 0),
         ("rm_combined", 0), ("rm_new_area", 0)]


def test_cases_cover_every_family():
    assert {family for family, _ in CASES} == set(SBOX_KINDS)


def test_iterative_params_allow_every_family_and_stage():
    family = FAMILIES["iterative"]
    assert family.param("sbox").choices == tuple(SBOX_KINDS)
    assert family.param("sbox_stages").choices == (0, 1, 2, 3, 4, 5, 6, 7)


@pytest.mark.parametrize("sbox,stages", CASES)
def test_iterative_with_sbox(sbox, stages):
    family = FAMILIES["iterative"]
    result = verify_component(lambda: family.build(sbox=sbox, sbox_stages=stages), "cipher",
                              VerifyOptions(random_vectors=4, measure_blocks=6))
    assert result.ok, result.reason
    assert result.cycles_per_block == 10 * (1 + sbox_latency(sbox, stages=stages))
