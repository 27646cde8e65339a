"""Named parameter groups and presets of the architecture families.

A family with many parameters is easier to read, and to write an experiment for, in groups:
``keys: {key_schedule: precomputed, round_key_chain: true}`` says what the two switches are
about. A group is only a way of writing parameters: an experiment's groups are flattened to the
parameter names before anything else sees them (:mod:`aesdse.experiment`), so a design point,
its configuration key and its stored row are those of the flat names, which stay accepted.

A preset is a named design point of a family, the starting point of an experiment entry
(``preset: record_pipelined``) whose ``params`` override it. The records presets are the best
verified points of the records classes (docs/records.md): a records experiment is a preset and
at most two overrides.

Neither is part of a family's generator fingerprint (:mod:`aesdse.fingerprint`): they name
designs, they do not build them.
"""

from dataclasses import dataclass

__all__ = ["Preset", "GROUPS", "PRESETS"]


@dataclass(frozen=True)
class Preset:
    """A named design point of a family.

    Attributes
    ----------
    doc : str
        One line for ``aesdse list archs``: what the point is and where it comes from.
    params : dict
        Parameter name -> value; the others are at their defaults.
    """
    doc: str
    params: dict


# The unrolled core's 26 parameters (archs.unrolled), by the part of the core they shape.
_UNROLLED_GROUPS = {
    "rounds": ("round_units", "schedule"),
    "sboxes": ("sbox", "sbox_stages", "sbox_output_copies"),
    "bram": ("bram_rounds", "bram_read_ports", "bram_fabric_registers"),
    "keys": ("key_schedule", "key_bits", "key_lead", "round_key_chain", "key_into_feedback"),
    "control": ("lean_control", "registered_hand_out", "registered_accept",
                "registered_key_flags", "local_flag_copies", "registered_exit",
                "banked_buffer"),
    "linear_layer": ("merged_linear_layer", "initial_add_round_key"),
    "parallel": ("lanes", "parallel_lanes", "lane_hand_out", "lane_keys"),
}

#: The GHASH multiplier of the GCM families (archs.gcm).
_MULTIPLIER = ("ghash", "ghash_digit", "ghash_stages", "ghash_karatsuba_levels",
               "ghash_aggregation")

#: Family -> group name -> the parameters it holds. A group's name is never a parameter's.
GROUPS = {
    "unrolled": _UNROLLED_GROUPS,
    "gcm_unrolled": {
        "sboxes": ("sbox", "sbox_stages", "sbox_output_copies"),
        "keys": ("key_schedule", "key_bits", "key_lead"),
        "control": ("lean_control", "banked_buffer"),
        "multiplier": _MULTIPLIER,
    },
    "gcm_iterative": {"sboxes": ("sbox", "sbox_stages"), "multiplier": _MULTIPLIER},
    "gcm_compact": {"sboxes": ("sbox", "sbox_stages"), "multiplier": _MULTIPLIER},
    "compact": {"sboxes": ("sbox", "sbox_stages", "key_sbox"),
                "parallel": ("lanes", "parallel_lanes", "lane_hand_out")},
    "iterative": {"sboxes": ("sbox", "sbox_stages"),
                  "parallel": ("lanes", "parallel_lanes", "lane_hand_out")},
}

#: Family -> preset name -> :class:`Preset`. The records presets are the records table's best
#: verified points on LFE5U-85F (docs/records.md; their flow options are the experiment's).
PRESETS = {
    "unrolled": {
        "record_pipelined": Preset(
            "the fully pipelined record: ten composite-field rounds with the merged linear "
            "layer, precomputed round keys in a chain, lean and registered control "
            "(experiments/records/5_pipelined.yaml)",
            {"round_units": 10, "sbox": "composite", "sbox_stages": 7, "bram_rounds": 0,
             "key_schedule": "precomputed", "round_key_chain": True, "lean_control": True,
             "banked_buffer": True, "registered_accept": True, "merged_linear_layer": True,
             "registered_key_flags": True, "local_flag_copies": True}),
        "record_one_chip": Preset(
            "the one-chip record: three fully pipelined lanes with their first four rounds in "
            "block RAM, a key pipeline and hand-out flag each "
            "(experiments/records/6_one_chip.yaml)",
            {"round_units": 10, "sbox": "composite", "sbox_stages": 6, "bram_rounds": 4,
             "bram_read_ports": 2, "bram_fabric_registers": 1, "key_schedule": "on_the_fly",
             "lean_control": True, "parallel_lanes": 3, "lane_keys": "per_lane",
             "lane_hand_out": "own_valid"}),
        "record_iterative_bram": Preset(
            "the iterative record with block RAM: two round units, S-boxes in block RAM, "
            "round keys on the fly (experiments/unrolled.yaml)",
            {"round_units": 2, "schedule": "split", "sbox": "bram", "sbox_stages": 0,
             "bram_rounds": 0, "key_schedule": "on_the_fly"}),
        "record_iterative_logic": Preset(
            "the iterative record without block RAM: one round unit with 7-stage tower-field "
            "S-boxes holding blocks in its loop, lean control "
            "(experiments/records/4_iterative_logic.yaml)",
            {"round_units": 1, "sbox": "tower", "sbox_stages": 7, "bram_rounds": 0,
             "key_schedule": "on_the_fly", "lean_control": True,
             "initial_add_round_key": "ring_input", "key_into_feedback": True}),
    },
    "tbox": {
        "record_tbox_pumped": Preset(
            "the double-pumped T-box record: compressed entries, three blocks interleaved "
            "(experiments/records/7_tbox_pumped.yaml)",
            {"bram_pumping": 2, "tbox_entry": "compressed", "interleaved_blocks": 3}),
    },
    "multimode": {
        "record_multimode": Preset(
            "the multi-mode record: AES-128 only, retimed affine maps, pipelined round "
            "(experiments/records/8_multimode.yaml)",
            {"sbox": "lut", "key_bits": 128, "streams": 1, "affine_retimed": True,
             "key_sizes": 128, "pipelined_round": True}),
    },
    "compact": {
        "record_compact": Preset(
            "the compact 8-bit record: one combined S-box shared with the key schedule, serial "
            "MixColumns, one state memory (experiments/records/2_compact.yaml)",
            {"datapath_width": 8, "port_width": 8, "sbox": "rm_combined", "sbox_stages": 0,
             "shared_memory": True, "mixcolumns": "serial", "key_sbox": "shared"}),
    },
    "sbox": {
        "record_sbox": Preset(
            "the smallest encryption S-box: Reyhani-Masoleh et al.'s combined circuit "
            "(experiments/records/1_sbox.yaml)",
            {"sbox": "rm_combined", "sbox_stages": 0, "direction": "encrypt"}),
    },
    "gcm_unrolled": {
        "record_gcm_pipelined": Preset(
            "the fully pipelined GCM record: key-agile composite-field rounds, a 4-way "
            "aggregated one-level Karatsuba GHASH (experiments/records/9_gcm_pipelined.yaml)",
            {"sbox": "composite", "sbox_stages": 6, "sbox_output_copies": 2, "bram_rounds": 0,
             "key_schedule": "on_the_fly", "key_lead": True, "lean_control": True,
             "ghash": "karatsuba", "ghash_digit": 8, "ghash_stages": 2,
             "ghash_karatsuba_levels": 1, "ghash_aggregation": 4}),
    },
    "gcm_iterative": {
        "record_gcm_compact": Preset(
            "the compact GCM record: block-RAM S-boxes, an 8-bit digit-serial GHASH, the lean "
            "wrapper (experiments/records/10_gcm_compact.yaml)",
            {"sbox": "bram", "sbox_stages": 0, "gcm_wrapper": "lean", "ghash": "digit_serial",
             "ghash_digit": 8, "ghash_stages": 0, "ghash_karatsuba_levels": 1,
             "ghash_aggregation": 1}),
    },
    "gcm_compact": {
        "record_gcm_balanced": Preset(
            "GCM whose GHASH never limits throughput: the 64-bit compact core with an 8-bit "
            "digit-serial GHASH (experiments/records/11_gcm_balanced.yaml)",
            {"datapath_width": 64, "sbox": "lut", "sbox_stages": 0, "shared_memory": False,
             "gcm_wrapper": "lean", "ghash": "digit_serial", "ghash_digit": 8,
             "ghash_stages": 0, "ghash_karatsuba_levels": 1, "ghash_aggregation": 1}),
    },
}
