# amaranth: UnusedElaboratable=no
"""The verify stage: the common testbench catches broken cores and measures real cycle counts."""

from amaranth.hdl import Module
from amaranth.lib import wiring

from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs.interface import AESSignature
from archs.iterative import Iterative

FAST = VerifyOptions(random_vectors=8)


def test_iterative_passes_with_stalls_and_measures_cycles():
    result = verify_component(Iterative, "cipher", VerifyOptions(random_vectors=32,
                                                                 stall_probability=0.4))
    assert result.ok, result.reason
    assert result.vectors_checked >= 32 + 8
    # One load cycle overlapped with the last round: 10 round steps per block, 11 to get out.
    assert result.cycles_per_block == 10
    assert result.latency_cycles == 11


def test_wrong_round_count_is_caught():
    class NineRounds(Iterative):
        rounds = 9
    result = verify_component(NineRounds, "cipher", FAST)
    assert not result.ok
    assert result.reason.startswith("mismatch on FIPS-197 C.1 (block 0)")
    assert result.cycles_per_block is None and result.latency_cycles is None


def test_hanging_core_is_caught():
    class Silent(wiring.Component):
        def __init__(self):
            super().__init__(AESSignature())

        def elaborate(self, platform):
            m = Module()
            m.d.comb += [self.key.ready.eq(1), self.i.ready.eq(1)]
            m.d.sync += self.o.valid.eq(0)
            return m
    result = verify_component(Silent, "cipher", VerifyOptions(random_vectors=0, max_cycles=500))
    assert not result.ok
    assert result.reason.startswith("hang: 0 of ")



def test_decrypt_direction_is_checked():
    # A core that takes a `decrypt` field but always encrypts fails on a decryption block.
    class IgnoresDirection(wiring.Component):
        def __init__(self):
            super().__init__(AESSignature(block_fields={"decrypt": 1}))

        def elaborate(self, platform):
            m = Module()
            m.submodules.core = core = Iterative()
            wiring.connect(m, wiring.flipped(self.key), core.key)
            wiring.connect(m, core.o, wiring.flipped(self.o))
            m.d.comb += [core.i.valid.eq(self.i.valid), self.i.ready.eq(core.i.ready),
                         core.i.payload.data.eq(self.i.payload.data)]
            return m
    result = verify_component(IgnoresDirection, "cipher", FAST,
                              directions=("encrypt", "decrypt"))
    assert not result.ok
    assert "(decrypt)" in result.reason


def test_encrypt_only_core_is_not_sent_decryptions():
    # The family may list both directions; a build without a `decrypt` field is checked one way.
    result = verify_component(Iterative, "cipher", FAST, directions=("encrypt", "decrypt"))
    assert result.ok, result.reason
    assert result.details == {}


def test_wide_transfers_gather_blocks_under_one_key_and_fill_short_ones():
    import random

    from aesdse.verify import reference
    from aesdse.verify.blocks import Block, wide_transfers
    from aesdse.verify.vectors import BlockVector

    def block(key, data):
        vec = BlockVector(key, 128, data, reference.encrypt_int(key, data, 128), f"k{key}")
        return Block(data, vec.ciphertext, False, f"k{key} d{data}", vec)

    blocks = [block(1, 10), block(1, 11), block(1, 12), block(2, 20), block(2, 21)]
    transfers = wide_transfers(blocks, 2, random.Random(0))
    # k1: (10, 11), (12, filler); k2: (20, 21). Block 0 of a transfer is in the top bits.
    assert len(transfers) == 3
    assert [t.data >> 128 for t in transfers] == [10, 12, 20]
    assert transfers[0].data & (1 << 128) - 1 == 11
    assert transfers[1].source == "k1 d12 | random filler"
    filler = transfers[1].data & (1 << 128) - 1
    assert transfers[1].expected == (reference.encrypt_int(1, 12, 128) << 128
                                     | reference.encrypt_int(1, filler, 128))
    assert [t.key.key for t in transfers] == [1, 1, 2]
