"""The timing of :class:`archs.compact.Compact`: its schedule, derived from the pipeline rules.

Every block takes 11 round-steps (the load step and the 10 rounds of AES-128) of ``16 / bytes``
issues each; before each round-step the sequencer waits a ``gap`` (the package notes, "Schedule
and cycles per block"). :func:`schedule` computes the numbers and checks that no state byte is
read before it is written.
"""

from ..prims.keyschedule import ROUNDS
from ..prims.shiftrows import shift_rows_source

__all__ = ["AES128_ROUNDS", "KEY_LOOKUP_GAP", "schedule"]

#: Rounds of AES-128, the only key size of the core.
AES128_ROUNDS = ROUNDS[128]
#: Cycles the sequencer waits before every round-step with ``key_sbox="shared"``: the four
#: SubWord lookups of the next round key (package notes, "One S-box").
KEY_LOOKUP_GAP = 4


def schedule(datapath_width: int, latency: int, key_gap: int = 0) -> dict:
    """Timing of :class:`archs.compact.Compact` for a width and an S-box latency, from its
    pipeline rules.

    ``key_gap`` adds cycles to the wait before every round-step (:data:`KEY_LOOKUP_GAP` with
    a key schedule that shares the datapath's S-box).

    Returns a dict with ``steps`` (cycles per round-step without waiting), ``delay`` (cycles from
    issue to write-back), ``gap`` (cycles the sequencer waits before the first step of every
    round-step) and ``cycles_per_block``. Raises ``AssertionError`` if the schedule would read a
    state byte before it is written (checked for every byte of two consecutive rounds), so a
    change of the pipeline cannot silently break the memory dependencies.
    """
    nbytes = datapath_width // 8
    steps = 16 // nbytes
    delay = latency + (3 if nbytes == 1 else 0)
    # Before every round-step: the key schedule's S-box settles (KeyExpander: ``latency`` cycles
    # after the window changed), and the previous round's last column is written back.
    gap = latency + key_gap
    period = steps + gap
    for j in range(16):
        src = shift_rows_source(j)
        written = (src // nbytes) + delay          # round r writes byte src at step src // nbytes
        read = period + j // nbytes                # round r + 1 reads it for output byte j
        assert written < read, (datapath_width, latency, j)
    return {"steps": steps, "delay": delay, "gap": gap,
            "cycles_per_block": (AES128_ROUNDS + 1) * period}
