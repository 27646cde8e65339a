"""The cells of an architecture that a floorplan may fix to device sites (the ``floorplan`` flow
option, :mod:`aesdse.flow.floorplan`), by the names Yosys keeps for them.

A floorplan reads the block RAMs of a synthesized netlist by name: which round unit and lane a
block RAM belongs to, and whether it is a key-expansion step's. Those names are the hardware's
(:mod:`archs.lanes` names the lanes ``lane<n>``, :mod:`archs.unrolled` the S-boxes of round unit
``u`` ``u<u>_sbox<k>`` and ``u<u>_ksbox<k>``), so the architecture declares them, here. No
family module imports this file: it names the designs' cells and does not build them, so it is
not part of any generator fingerprint (:mod:`aesdse.fingerprint`), like :mod:`archs.presets`.
"""

from dataclasses import dataclass

__all__ = ["FloorplanCells", "FLOORPLAN_CELLS"]


@dataclass(frozen=True)
class FloorplanCells:
    """The block RAMs of one architecture that a floorplan places.

    Attributes
    ----------
    pattern : str
        A regular expression that the name of each of its block-RAM cells matches (from the
        start), with the groups ``lane`` (the lane's number; may be absent: one lane), ``unit``
        (the round unit), ``key`` (non-empty for a key-expansion step's block RAM) and ``box``
        (the S-box within the unit).
    shape : str
        What a matching name is, in words, for the message of a name that does not match.
    rows_param : str
        The parameter that counts the block-RAM rounds; each takes a row of block RAMs.
    """
    pattern: str
    shape: str
    rows_param: str


#: Architecture family -> its floorplannable cells; a family not named here has none.
FLOORPLAN_CELLS = {
    "unrolled": FloorplanCells(
        r"^(?:lane(?P<lane>\d+)\.)?u(?P<unit>\d+)_(?P<key>k?)sbox(?P<box>\d+)\.",
        "a round unit's S-box (lane<n>.u<unit>_sbox<k> or _ksbox<k>, archs.unrolled)",
        "bram_rounds"),
}
