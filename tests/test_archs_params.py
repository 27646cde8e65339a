# amaranth: UnusedElaboratable=no
"""Parameters declared once (archs.params) and the facts of a core's signature (archs.interface)."""

from dataclasses import dataclass

import pytest

import archs
from archs.buffered import Buffered
from archs.compact import Compact
from archs.interface import AESSignature, CoreSignature
from archs.iterative import Iterative
from archs.lanes import LANE_HAND_OUT_PARAM, LANE_KEYS_PARAM, Lanes, ParallelLanes
from archs.multimode import Multimode
from archs.params import SBOX_PARAM, SBOX_STAGES_PARAM, Param, PartOptions, bind, switch
from archs.sbox_standalone import StandaloneSBox
from archs.tbox import TBox
from archs.unrolled import Unrolled

CORES = {"iterative": Iterative, "compact": Compact, "sbox": StandaloneSBox,
         "unrolled": Unrolled, "tbox": TBox, "multimode": Multimode}


@pytest.mark.parametrize("name", sorted(CORES))
def test_the_registry_lists_the_declarations_of_the_core_and_its_wrappers(name):
    declared = {p.name: p for p in CORES[name].PARAMS}
    declared.update({p.name: p for p in (Lanes.PARAM, ParallelLanes.PARAM, LANE_KEYS_PARAM,
                                         LANE_HAND_OUT_PARAM,
                                         Buffered.PARAM)})
    fam = archs.family(name)
    assert all(declared[p.name] is p for p in fam.params)
    assert {p.name for p in CORES[name].PARAMS} <= {p.name for p in fam.params}
    assert fam.module == CORES[name].__module__


def test_shared_parameters_are_one_declaration():
    for name in ("iterative", "compact", "sbox", "unrolled"):
        fam = archs.family(name)
        assert fam.param("sbox") is SBOX_PARAM
        stages = fam.param("sbox_stages")
        assert (stages.choices, stages.default) == (SBOX_STAGES_PARAM.choices, 0)


def test_bind_fills_defaults_and_checks_each_value():
    params = (Param("width", (8, 32), 32, "", error="Width must be 8 or 32"),
              Param("flag", (False, True), False, "", error="Flag must be False or True"),
              Param("mode", ("a",), "a", "", error="Mode must be 'a' or 'b'", values=("a", "b")))
    assert vars(bind(params, {"width": 8}, "Core")) == {"width": 8, "flag": False, "mode": "a"}
    assert bind(params, {"mode": "b"}, "Core").mode == "b"   # accepted beyond the choices
    with pytest.raises(ValueError, match=r"^Width must be 8 or 32, not 16$"):
        bind(params, {"width": 16}, "Core")
    with pytest.raises(ValueError, match=r"^Flag must be False or True, not 1$"):
        bind(params, {"flag": 1}, "Core")                    # 1 is not True
    with pytest.raises(TypeError, match=r"^Core\(\) got an unexpected keyword argument 'x'$"):
        bind(params, {"x": 1}, "Core")


def test_a_switch_is_off_by_default_and_left_out_of_a_point_there():
    lean = switch("lean_control", "doc")
    assert lean == Param("lean_control", (False, True), False, "doc", omitted_at_default=True,
                         error="Lean control must be false or true")
    with pytest.raises(ValueError, match=r"^Lean control must be false or true, not 1$"):
        lean.check(1)
    worded = switch("registered_hand_out", "doc", error="Registered hand-out must be false or true")
    assert worded.error == "Registered hand-out must be false or true"
    assert not switch("flag", "doc", omitted_at_default=False).omitted_at_default


def test_part_options_pick_their_fields_out_of_the_bound_parameters():
    @dataclass(frozen=True)
    class Part(PartOptions):
        rounds: int
        width: int
        flag: bool
    params = (Param("width", (8, 32), 32, ""), switch("flag", ""), Param("other", (1,), 1, ""))
    values = bind(params, {"width": 8}, "Core")
    assert Part.of(values, rounds=10) == Part(rounds=10, width=8, flag=False)


def test_constructors_take_only_their_parameters():
    with pytest.raises(TypeError, match="unexpected keyword argument 'datapath_width'"):
        Iterative(datapath_width=8)
    with pytest.raises(ValueError, match=r"^Device family must be one of 'generic', 'ecp5', "
                                         r"not 'ice40'$"):
        Iterative(device_family="ice40")


def test_families_state_their_facts_in_the_signature():
    unrolled = Unrolled(round_units=2)
    assert unrolled.signature.blocks_in_flight == unrolled.blocks_in_flight == 2
    tbox = TBox(bram_pumping=2)
    assert tbox.signature.clock_multipliers == {"bram": 2}
    multimode = Multimode(key_bits=256, streams=2)
    assert multimode.signature.modes == ("ecb", "cbc", "ctr", "ccm")
    assert (multimode.signature.measure_key_bits, multimode.signature.blocks_in_flight) == (256, 2)
    assert Compact(datapath_width=8, port_width=8).signature.port_width == 8
    plain = Iterative().signature
    assert (plain.blocks_in_flight, plain.blocks_per_transfer, plain.clock_multipliers,
            plain.measure_key_bits, plain.modes, plain.key_sizes) == (1, 1, {}, None, (), (128,))
    assert isinstance(StandaloneSBox().signature, CoreSignature)


def test_wrappers_derive_their_facts_from_the_core_signature():
    # Built here, not through FAMILIES: this file's first line silences the warning for cores
    # that are never elaborated, in the frames of this file only.
    lanes = Lanes([Unrolled(round_units=2), Unrolled(round_units=2)])
    assert lanes.signature.blocks_in_flight == 4
    assert lanes.lanes[0].signature.blocks_in_flight == 2     # the core's own is unchanged
    wide = ParallelLanes([Iterative(), Iterative(), Iterative()])
    assert (wide.signature.blocks_per_transfer, wide.signature.blocks_in_flight) == (3, 3)
    assert wide.signature.key_sizes == (128,)
    assert Buffered(Multimode(), 2).signature.modes == Multimode.modes
    with pytest.raises(TypeError, match="Not facts of a core signature: colour"):
        AESSignature().replace(colour=1)
