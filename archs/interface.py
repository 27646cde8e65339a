"""The outer interface every AES core in :mod:`archs` shares.

One signature for all families means one testbench (:mod:`aesdse.verify.verify`) and one flow serve them
all. A core has three :mod:`amaranth.lib.stream` interfaces:

``key`` (in)
    Payload ``{"key": unsigned(max_key_bits)}`` (plus ``"key_bits"`` selecting 128/192/256 when a
    core supports more than one size, and per-architecture fields such as the ``stream`` of
    :mod:`archs.multimode` with two streams). A transfer loads the key used for every following
    block (of its stream).
    Keys are left-aligned: a 128-bit key in a 256-bit port occupies bits 255..128.
``i`` (in)
    Payload ``{"data": unsigned(128)}`` plus per-architecture fields (direction, mode, ...), each
    documented by the core with its default. One transfer is one 128-bit block.
``o`` (out)
    Payload ``{"data": unsigned(128)}`` plus per-architecture result fields (e.g. the
    ``auth_fail`` flag of a CCM decryption, :mod:`archs.multimode`): one transfer per processed
    block, in input order (in a core with a ``stream`` field: in input order within each stream).

Byte-stream cores
-----------------
With ``port_width=8`` the three streams carry one byte per transfer instead: a key is 16 key
transfers, a block 16 block transfers and a result 16 result transfers, byte 0 of the FIPS-197
hex string (state byte 0) first. That is the interface of the published 8-bit cores (seed 000
Fig. 6); it has no 128-bit multiplexer or shift register to pay for. Such a core states
``port_width = 8``; the verify stage drives it through :class:`archs.bytestream.ByteStreamAdapter`
(the common 128-bit interface in front of it), while the measured netlist is the core alone.

Facts the tool reads
--------------------
Besides its members, a core's signature (:class:`CoreSignature`; :class:`AESSignature` for a
cipher) states facts the verify and metrics stages need, each with a default, the way
:class:`amaranth.lib.stream.Signature` states ``always_valid``:

``blocks_in_flight`` (default 1)
    Independent blocks the core works on at once; the cycles-per-block measurement streams enough
    blocks to fill every slot.
``blocks_per_transfer`` (default 1)
    N > 1 for a core with a wide port (:class:`archs.lanes.ParallelLanes`): its block and
    result payloads are ``{"data": unsigned(128 * N)}``, N blocks per transfer, block 0 in the
    top 128 bits; the verify stage gathers its vectors N to a transfer and counts cycles per
    block as cycles per transfer over N.
``clock_multipliers`` (default ``{}``)
    Clock domains besides ``sync``, each with its frequency as an integer multiple of the
    ``sync`` clock, e.g. ``{"bram": 2}`` for block RAM run at twice the system clock. The
    simulation drives them edge-aligned with ``sync``; the usable system clock is the lowest of
    ``Fmax(domain) / multiple`` over all domains.
``measure_key_bits`` (default: the key of the first vector)
    Key size of the back-to-back stream that measures cycles per block, for a core that takes
    several key sizes at run time and whose speed depends on it (:mod:`archs.multimode`).
``modes`` (default none)
    Chaining modes the core applies itself (``"ecb"``, ``"cbc"``, ``"ctr"``, ``"ccm"``), selected
    by a ``mode`` block field; the verify stage then also sends multi-block messages (CCM: the
    block protocol of :mod:`archs.multimode`).
``port_width`` (default 128)
    8 for a byte-stream core (see above).

A core may also have a ``resources`` attribute (default None): architectural resources it
counted in itself (S-boxes, MixColumns units, ...), for ``aesdse report --resources``; some
cores count them from their elaborated design, so they are not a fact of the signature.

Byte order
----------
A 128-bit value is the FIPS-197 hex string read as one big-endian number: byte 0 of the state
(``in[0]`` of FIPS-197 section 3.4) is bits 127..120, so ``00112233445566778899aabbccddeeff`` is
``128'h00112233...`` in Verilog. :func:`value_bytes` and :func:`bytes_value` convert between the
128-bit signal and the byte list used inside cores.
"""

import copy

from amaranth.hdl import Cat, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["BYTE_ORDER", "CoreSignature", "AESSignature", "value_bytes", "bytes_value",
           "column_words"]

#: Human-readable statement of the byte-order convention, copied into every manifest.
BYTE_ORDER = ("big-endian: FIPS-197 hex string read as one number; state byte 0 is bits 127..120; "
              "keys left-aligned in the key port")


class CoreSignature(wiring.Signature):
    """Signature of a core of :mod:`archs`: its members and the facts the tool reads about it
    (module documentation, "Facts the tool reads").

    Parameters
    ----------
    members : dict
        As for :class:`amaranth.lib.wiring.Signature`.
    key_sizes : tuple of int
        Key sizes in bits the core takes.
    blocks_in_flight, blocks_per_transfer : int
        Independent blocks the core works on at once; blocks per block or result transfer.
    clock_multipliers : dict of str to int
        Clock domains besides ``sync`` and their multiple of its frequency.
    measure_key_bits : int or None
        Key size of the cycles-per-block measurement (None: the first vector's).
    modes : tuple of str
        Chaining modes the core applies itself.
    port_width : int
        Bits per key, block and result transfer (128, or 8 for a byte-stream core).
    """

    #: The names of the facts, for :meth:`replace`.
    FACTS = ("key_sizes", "blocks_in_flight", "blocks_per_transfer", "clock_multipliers",
             "measure_key_bits", "modes", "port_width")

    def __init__(self, members, *, key_sizes=(128,), blocks_in_flight=1, blocks_per_transfer=1,
                 clock_multipliers=None, measure_key_bits=None, modes=(), port_width=128):
        self.key_sizes = tuple(key_sizes)
        self.blocks_in_flight = blocks_in_flight
        self.blocks_per_transfer = blocks_per_transfer
        self.clock_multipliers = dict(clock_multipliers or {})
        self.measure_key_bits = measure_key_bits
        self.modes = tuple(modes)
        self.port_width = port_width
        super().__init__(members)

    def replace(self, **facts):
        """A copy with the same members and the ``facts`` changed (for a wrapper such as
        :class:`archs.lanes.Lanes`, whose ports are its core's)."""
        unknown = set(facts) - set(self.FACTS)
        if unknown:
            raise TypeError(f"Not facts of a core signature: {', '.join(sorted(unknown))}")
        other = copy.copy(self)
        for name, value in facts.items():
            setattr(other, name, value)
        return other


class AESSignature(CoreSignature):
    """Signature of an AES core (see the module documentation for the protocol).

    Parameters
    ----------
    key_sizes : tuple of int
        Key sizes in bits the core supports, a non-empty subset of (128, 192, 256).
    block_fields : dict of str to shape
        Extra fields of the block input payload (for example ``{"decrypt": 1}``).
    result_fields : dict of str to shape
        Extra fields of the result payload (for example ``{"auth_fail": 1}``); none by default,
        so the result payload of every other core is ``{"data": 128}`` alone.
    key_fields : dict of str to shape
        Extra fields of the key payload (for example the ``stream`` a key is for, in a core
        that interleaves two streams); none by default.
    port_width : int
        128 (one transfer per key, block and result) or 8 (byte streams, see the module
        documentation; AES-128 only).
    **facts
        The other facts of :class:`CoreSignature`.
    """

    def __init__(self, *, key_sizes=(128,), block_fields=None, result_fields=None,
                 key_fields=None, port_width=128, **facts):
        key_sizes = tuple(key_sizes)
        if not key_sizes or any(k not in (128, 192, 256) for k in key_sizes):
            raise ValueError(f"Key sizes must be a non-empty subset of (128, 192, 256), "
                             f"not {key_sizes!r}")
        if port_width not in (8, 128) or isinstance(port_width, bool):
            raise ValueError(f"Port width must be 8 or 128, not {port_width!r}")
        if port_width == 8 and key_sizes != (128,):
            raise ValueError(f"A byte-stream core takes 128-bit keys only, not {key_sizes!r}")
        if port_width == 8:
            super().__init__({
                "key": In(stream.Signature(data.StructLayout({"key": 8}))),
                "i":   In(stream.Signature(data.StructLayout({"data": 8, **(block_fields or {})}))),
                "o":   Out(stream.Signature(data.StructLayout({"data": 8,
                                                               **(result_fields or {})}))),
            }, key_sizes=key_sizes, port_width=port_width, **facts)
            return
        key_layout = {"key": max(key_sizes)}
        if len(key_sizes) > 1:
            key_layout["key_bits"] = 9  # 128, 192 or 256 as a number: self-describing in a VCD
        key_layout.update(key_fields or {})
        block_layout = {"data": 128, **(block_fields or {})}
        super().__init__({
            "key": In(stream.Signature(data.StructLayout(key_layout))),
            "i":   In(stream.Signature(data.StructLayout(block_layout))),
            "o":   Out(stream.Signature(data.StructLayout({"data": 128,
                                                           **(result_fields or {})}))),
        }, key_sizes=key_sizes, port_width=port_width, **facts)


def value_bytes(value: Value, count: int = 16) -> list[Value]:
    """Split a big-endian value into bytes; element 0 is the most significant byte."""
    width = 8 * count
    return [value[width - 8 * (n + 1):width - 8 * n] for n in range(count)]


def bytes_value(byte_list) -> Value:
    """Join bytes (element 0 most significant) into one big-endian value."""
    return Cat(*reversed(list(byte_list)))


def column_words(value: Value) -> list[Value]:
    """Split a 128-bit state into its four 32-bit columns, column 0 first (bits 127..96)."""
    return [value[128 - 32 * (c + 1):128 - 32 * c] for c in range(4)]
