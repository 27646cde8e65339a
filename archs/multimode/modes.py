"""The modes, CCM phases and sizes of :class:`archs.multimode.Multimode`."""

from amaranth.lib import enum

__all__ = ["SBOXES", "STREAMS", "RESULT_QUEUE_DEPTH", "COUNTER_SEGMENTS", "KEY_SIZES", "Mode",
           "CCMPhase"]


#: Inverter families the core accepts (combinational ones: one round per cycle).
SBOXES = ("lut", "composite", "tower")

#: Stream counts: 1, one round per cycle; 2, the two-stage pipeline of 003 section III.C.
STREAMS = (1, 2)

#: Entries of the pipelined round's result queue.
RESULT_QUEUE_DEPTH = 4

#: Carry-chain segments of the pipelined round's CTR incrementer (32 bits each).
COUNTER_SEGMENTS = 4

#: Key sizes a core takes at run time: ``"all"``, 128/192/256 (003's core), or 128 only.
KEY_SIZES = {"all": (128, 192, 256), 128: (128,)}


class Mode(enum.Enum, shape=2):
    """Block cipher mode of a block (003 Table I); ECB is 0 so that a payload without a mode is
    a plain block."""
    ECB = 0
    CBC = 1
    CTR = 2
    CCM = 3


class CCMPhase(enum.Enum, shape=2):
    """What a CCM block is (see "CCM" in the module documentation)."""
    HEADER = 0      # B0 (with ``first``) or associated data: CBC-MAC only
    PAYLOAD = 1     # CTR and CBC-MAC
    TAG = 2         # the tag: computed (encryption) or checked (decryption)
