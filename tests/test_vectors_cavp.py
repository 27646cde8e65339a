# amaranth: UnusedElaboratable=no
"""The AESAVS Monte Carlo test, the CAVP KAT/MMT files and the vector sources of a verify run
(aesdse.verify.vectors), the verify options that ask for them, and one short simulation."""

import dataclasses

import pytest

from aesdse.experiment import ExperimentError, parse_experiment
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.script import block_script
from aesdse.verify.vectors import (AESAVS_MCT_SEEDS, FIPS197, SP800_38A_ECB, SP800_38A_MODES,
                                   BlockVector, aesavs_monte_carlo, cavp_block_vectors,
                                   cavp_entries, cipher_block_vectors, count_by_category,
                                   mode_messages, monte_carlo_block_vectors, oracle_mode,
                                   rfc3686_ctr, source_category, vector_directions)
from aesdse.verify.verify import verify_component

# The results of COUNT = 99 (the last outer iteration) in the NIST CAVP sample response files of
# the AESAVS (aesmct.zip): CIPHERTEXT of [ENCRYPT], PLAINTEXT of [DECRYPT]. Each depends on all
# 100,000 blocks before it, so a match checks every outer iteration and key update.
MCT_COUNT_99 = {
    ("ecb", 128, "encrypt"): "fb2649694783b551eacd9d5db6126d47",
    ("ecb", 128, "decrypt"): "d1d2bfdc58ffcad2341b095bce55221e",
    ("ecb", 192, "encrypt"): "5d1196da8f184975e240949a25104554",
    ("ecb", 192, "decrypt"): "b63ef1b79507a62eba3dafcec54a6328",
    ("ecb", 256, "encrypt"): "c5d2cb3d5b7ff0e23e308967ee074825",
    ("ecb", 256, "decrypt"): "e3d3868f578caf34e36445bf14cefc68",
    ("cbc", 128, "encrypt"): "7bed7671c8913aa1330f193761523e67",
    ("cbc", 128, "decrypt"): "4769317b0562c45949c18b3855f8bf4a",
    ("cbc", 192, "encrypt"): "e6457bfc3433e80299c52b2be418f582",
    ("cbc", 192, "decrypt"): "836424eadf8155aaf9a9a51391a1cf7e",
    ("cbc", 256, "encrypt"): "bade1667b42f537f0cb3f5573a949aaa",
    ("cbc", 256, "decrypt"): "9be831799a79b0955241f308f0d5b2e1",
}

# ECBMCT128.rsp [ENCRYPT], some of the first outer iterations: (COUNT, KEY, PLAINTEXT); and the
# CIPHERTEXT of COUNT = 0 and 1 (each the PLAINTEXT of the next COUNT).
ECBMCT128_ENCRYPT = (
    (0, "139a35422f1d61de3c91787fe0507afd", "b9145a768b7dc489a096b546f43b231f"),
    (1, "c459caeebf2c42586c01666a9334b97b", "d7c3ffac9031238650901e157364c386"),
    (2, "786ffd349283cd971069dd42527719df", "bc3637da2daf8fcf7c68bb28c143a0a4"),
    (3, "e4e755efeb0c85480aad4e28a8e28773", "9c88a8db798f48df1ac4936afa959eac"),
    (5, "2573ded4a95abd8ab3250cecebc5bb29", "79ee212734f14d1bf5a59d46e8c2fa34"),
    (7, "e98ef4285586a1b458427105b4712e42", "c52263efa6379209d17e87ac250615cb"),
)
#: CBCMCT128.rsp [ENCRYPT] COUNT = 0: CIPHERTEXT (the last block of the first 1,000).
CBCMCT128_ENCRYPT_COUNT_0 = "b127a5b4c4692d87483db0c3b0d11e64"


def _hex(value: int) -> str:
    return f"{value:032x}"


@pytest.mark.parametrize("case", sorted(MCT_COUNT_99))
def test_monte_carlo_matches_count_99_of_the_nist_files(case):
    mode, key_bits, direction = case
    rounds = aesavs_monte_carlo(mode, key_bits, direction)
    assert len(rounds) == 100
    last = rounds[-1]
    result = last.plaintexts if direction == "decrypt" else last.ciphertexts
    assert _hex(result[-1]) == MCT_COUNT_99[case]
    assert last.source == f"AESAVS {mode.upper()}MCT{key_bits} {direction.upper()} COUNT=99"
    # Every outer iteration is one message of 1,000 blocks in encryption form under its own key.
    for v in (rounds[0], rounds[57], last):
        assert len(v.plaintexts) == len(v.ciphertexts) == 1000 and v.direction == direction
        assert oracle_mode(mode, v.key, key_bits, v.iv, list(v.plaintexts)) == list(v.ciphertexts)


def test_monte_carlo_first_outer_iterations_match_the_nist_file():
    rounds = aesavs_monte_carlo("ecb", 128, "encrypt")
    for count, key, plaintext in ECBMCT128_ENCRYPT:
        assert (f"{rounds[count].key:032x}", _hex(rounds[count].plaintexts[0])) == (key, plaintext)
    assert _hex(rounds[0].ciphertexts[-1]) == ECBMCT128_ENCRYPT[1][2]
    assert _hex(rounds[1].ciphertexts[-1]) == ECBMCT128_ENCRYPT[2][2]
    # ECB: each block's input is the previous block's output.
    assert rounds[0].plaintexts[1:] == rounds[0].ciphertexts[:-1]
    cbc = aesavs_monte_carlo("cbc", 128, "encrypt")
    assert _hex(cbc[0].ciphertexts[-1]) == CBCMCT128_ENCRYPT_COUNT_0
    # CBC: the second input is the IV, then the output two blocks back; the next iteration
    # starts from the output before the last, under the last as IV.
    first = cbc[0]
    assert first.plaintexts[1] == first.iv and first.plaintexts[2:] == first.ciphertexts[:-2]
    assert (cbc[1].iv, cbc[1].plaintexts[0]) == (first.ciphertexts[-1], first.ciphertexts[-2])
    # A shorter test is the start of the full one.
    assert aesavs_monte_carlo("cbc", 128, "encrypt", outer=2) == cbc[:2]


def test_monte_carlo_key_update_takes_the_last_key_bits_of_the_last_two_outputs():
    for key_bits in (128, 192, 256):
        for direction in ("encrypt", "decrypt"):
            a, b = aesavs_monte_carlo("ecb", key_bits, direction, outer=2)
            out = a.plaintexts if direction == "decrypt" else a.ciphertexts
            tail = (out[-2] << 128 | out[-1]) & ((1 << key_bits) - 1)
            assert b.key == a.key ^ tail
    with pytest.raises(ValueError, match="No AESAVS Monte Carlo test"):
        aesavs_monte_carlo("ctr", 128, "encrypt")


def test_monte_carlo_block_vectors_chain_with_the_key_changing_every_1000_blocks():
    blocks = monte_carlo_block_vectors(192, "decrypt", outer=2)
    assert len(blocks) == 2000
    assert all(isinstance(v, BlockVector) and v.direction == "decrypt" for v in blocks)
    assert len({v.key for v in blocks[:1000]}) == len({v.key for v in blocks[1000:]}) == 1
    assert blocks[0].key != blocks[1000].key
    assert blocks[0].key == int(AESAVS_MCT_SEEDS["ecb", 192, "decrypt"][0], 16)
    # Decryption chain: the recovered plaintext of a block is the next ciphertext.
    assert all(blocks[j].plaintext == blocks[j + 1].ciphertext for j in range(999))
    assert blocks[999].source == "AESAVS ECBMCT192 DECRYPT COUNT=0 block 999"


# (file kind, entries per key size 128/192/256 once the [ENCRYPT]/[DECRYPT] duplicates of the
# KAT files are merged, blocks per key size).
CAVP_COUNTS = {
    "GFSbox": ((7, 6, 5), (7, 6, 5)),
    "KeySbox": ((21, 24, 16), (21, 24, 16)),
    "VarKey": ((128, 192, 256), (128, 192, 256)),
    "VarTxt": ((128, 128, 128), (128, 128, 128)),
    "MMT": ((20, 20, 20), (110, 110, 110)),     # 10 + 10 messages of 1..10 blocks
}


@pytest.mark.parametrize("mode", ["ecb", "cbc"])
def test_cavp_entries_every_file_parsed_and_right(mode):
    for n, key_bits in enumerate((128, 192, 256)):
        entries = cavp_entries(mode, key_bits)
        for kind, (count, blocks) in CAVP_COUNTS.items():
            mine = [v for v in entries if f" {mode.upper()}{kind}{key_bits}.rsp " in v.source]
            assert len(mine) == count[n], (kind, key_bits)
            assert sum(len(v.plaintexts) for v in mine) == blocks[n], (kind, key_bits)
            if kind == "MMT":
                assert [v.direction for v in mine] == ["encrypt"] * 10 + ["decrypt"] * 10
            else:
                # A KAT entry is listed under [ENCRYPT] and again under [DECRYPT]: once here.
                assert {v.direction for v in mine} == {None}
                assert not any("CRYPT" in v.source for v in mine)
        for v in entries:
            assert v.key_bits == key_bits and v.mode == mode
            assert oracle_mode(mode, v.key, key_bits, v.iv, list(v.plaintexts)) \
                == list(v.ciphertexts), v.source


def test_cavp_block_vectors_one_per_block():
    vectors = cavp_block_vectors(256)
    assert len(vectors) == 5 + 16 + 256 + 128 + 110
    mmt = [v for v in vectors if "ECBMMT256" in v.source]
    assert mmt[0].source == "CAVP ECBMMT256.rsp ENCRYPT COUNT=0"      # one block
    assert [v.source for v in mmt[1:3]] == ["CAVP ECBMMT256.rsp ENCRYPT COUNT=1 block 1",
                                            "CAVP ECBMMT256.rsp ENCRYPT COUNT=1 block 2"]
    assert {v.direction for v in mmt} == {"encrypt", "decrypt"}
    assert vectors[0].source == "CAVP ECBGFSbox256.rsp COUNT=0"


def test_rfc3686_ctr_padded_to_whole_blocks():
    for key_bits in (128, 192, 256):
        vectors = rfc3686_ctr(key_bits)
        assert [len(v.plaintexts) for v in vectors] == [1, 2, 3]     # 16, 32 and 36 bytes
        for v in vectors:
            assert v.mode == "ctr" and v.key_bits == key_bits
            assert oracle_mode("ctr", v.key, key_bits, v.iv, list(v.plaintexts)) \
                == list(v.ciphertexts)
        assert vectors[2].plaintexts[-1] & 0xffff_ffff_ffff_ffff_ffff_ffff == 0


def test_vector_directions():
    v = FIPS197[0]
    assert vector_directions(v, ("encrypt", "decrypt")) == ("encrypt", "decrypt")
    d = dataclasses.replace(v, direction="decrypt")
    assert vector_directions(d, ("encrypt", "decrypt")) == ("decrypt",)
    # An encrypt-only core checks a decryption entry as the encryption it also states.
    assert vector_directions(d, ("encrypt",)) == ("encrypt",)


def test_cipher_block_vectors_sample_is_the_standards_and_random_vectors():
    vectors = cipher_block_vectors(VerifyOptions(random_vectors=8), (128, 256))
    standard = [v for v in FIPS197 + SP800_38A_ECB if v.key_bits in (128, 256)]
    assert vectors[:len(standard)] == standard and len(vectors) == len(standard) + 16
    randoms = vectors[len(standard):]
    # Runs of four under one key, per key size.
    assert [v.key_bits for v in randoms] == [128] * 8 + [256] * 8
    assert len({v.key for v in randoms[:4]}) == 1 and randoms[0].key != randoms[4].key
    assert all(v.direction is None for v in vectors)
    assert count_by_category(v.source for v in vectors) == {"fips197": 3, "random": 16,
                                                           "sp800_38a": 4}


def test_cipher_block_vectors_all_and_monte_carlo():
    options = VerifyOptions(random_vectors=4, cavp="all", monte_carlo=True, monte_carlo_outer=2)
    vectors = cipher_block_vectors(options, (128,), ("encrypt",))
    counts = count_by_category(v.source for v in vectors)
    assert counts["aesavs-mct ECBMCT128"] == 2000       # encryption only: no decryption chain
    assert counts["cavp ECBVarKey128"] == 128 and counts["cavp ECBMMT128"] == 110
    assert len(vectors) == 2 + 4 + 4 + 284 + 110 + 2000
    both = cipher_block_vectors(options, (128, 192), ("encrypt", "decrypt"))
    counts = count_by_category(v.source for v in both)
    assert counts["aesavs-mct ECBMCT192"] == 4000 and counts["cavp ECBKeySbox192"] == 24


def test_mode_messages_sample_is_sp800_38a_in_every_direction():
    messages = mode_messages(VerifyOptions(), (128, 192), ("ecb", "cbc"), ("encrypt", "decrypt"))
    expected = [(v, decrypt) for v in SP800_38A_MODES
                if v.mode in ("ecb", "cbc") and v.key_bits in (128, 192)
                for decrypt in (False, True)]
    assert messages == expected and len(messages) == 8


def test_mode_messages_all_and_monte_carlo():
    options = VerifyOptions(cavp="all", monte_carlo=True, monte_carlo_outer=3)
    messages = mode_messages(options, (256,), ("ecb", "cbc", "ctr"), ("encrypt", "decrypt"))
    counts = count_by_category(v.source for v, _ in messages)
    assert counts["aesavs-mct CBCMCT256"] == 6      # three outer iterations, each direction
    assert counts["rfc3686"] == 6 and counts["sp800_38a"] == 6
    # KAT entries both ways, MMT entries their own way.
    assert counts["cavp CBCVarKey256"] == 512 and counts["cavp CBCMMT256"] == 20
    mct = [(v, decrypt) for v, decrypt in messages if v.source.startswith("AESAVS")]
    assert all(len(v.plaintexts) == 1000 and decrypt == (v.direction == "decrypt")
               for v, decrypt in mct)
    # No CBC mode: no CBC files, no CBC Monte Carlo test (CBC is not a plain block relation).
    ecb_only = mode_messages(options, (256,), ("ecb",), ("encrypt",))
    assert set(count_by_category(v.source for v, _ in ecb_only)) == {"sp800_38a"}


@pytest.mark.parametrize("source, category", [
    ("FIPS-197 C.1", "fips197"), ("FIPS-197 B (decrypt)", "fips197"),
    ("SP 800-38A F.1.1 block 1", "sp800_38a"), ("SP 800-38A F.2.1 CBC-AES128 (decrypt) block 2",
                                                "sp800_38a"),
    ("random #3 (seed 1)", "random"), ("random cbc message #0 (seed 1) block 1", "random-modes"),
    ("random CCM message #1 (opened, seed 1) header block 1", "random-ccm"),
    ("random filler", "random-filler"), ("RFC 3610 packet vector #1", "rfc3610"),
    ("RFC 3686 aes-128-ctr.txt COUNT=0 (encrypt) block 1", "rfc3686"),
    ("CAVP ECBGFSbox128.rsp COUNT=0 (decrypt)", "cavp ECBGFSbox128"),
    ("CAVP CBCMMT256.rsp DECRYPT COUNT=9 (decrypt) block 3", "cavp CBCMMT256"),
    ("CAVP DVPT128.rsp Alen=0 Plen=0", "cavp DVPT128"),
    ("AESAVS ECBMCT192 ENCRYPT COUNT=4 block 17", "aesavs-mct ECBMCT192"),
    ("back-to-back stream", "measure"), ("something else", "other"),
])
def test_source_category(source, category):
    assert source_category(source) == category


def test_verify_options_checks_and_cycle_budget():
    with pytest.raises(ValueError, match="cavp must be one of sample, all"):
        VerifyOptions(cavp="every")
    with pytest.raises(ValueError, match="monte_carlo_outer must be 1 to 100"):
        VerifyOptions(monte_carlo_outer=0)
    options = VerifyOptions()
    # Left unset, the checks take the defaults of the backend that plays them (issue 26):
    # amaranth.sim keeps the light set, a compiled backend gets the strong one.
    assert (options.monte_carlo, options.cavp, options.random_vectors) == (None, None, None)
    weak = options.resolved(compiled=False)
    assert (weak.monte_carlo, weak.cavp, weak.random_vectors) == (False, "sample", 32)
    strong = options.resolved(compiled=True)
    assert (strong.monte_carlo, strong.cavp, strong.random_vectors) == (True, "all", 1000)
    explicit = VerifyOptions(random_vectors=4, monte_carlo=False).resolved(compiled=True)
    assert (explicit.monte_carlo, explicit.cavp, explicit.random_vectors) == (False, "all", 4)
    # Short runs keep the fixed budget; long ones get max_cycles_per_block per block.
    assert options.cycle_budget(80) == 200_000
    assert options.cycle_budget(2000) == 2_000_000
    assert VerifyOptions(max_cycles=500).cycle_budget(0) == 500


GOOD = """\
name: grid
architectures:
  - arch: iterative
    params:
      sbox: [lut]
"""


def test_yaml_verify_keys():
    exp = parse_experiment(GOOD + "verify: {monte_carlo: true, cavp: all}\n", "grid.yaml")
    # A point holds its checks resolved for the backend (unset ones: its defaults).
    from aesdse.verify.backends import resolved_options
    assert exp.points[0].verify == resolved_options(VerifyOptions(monte_carlo=True, cavp="all"))
    assert exp.points[0].verify.random_vectors == 32     # amaranth.sim in the test run
    assert parse_experiment(GOOD, "grid.yaml").points[0].verify == \
        resolved_options(VerifyOptions())


@pytest.mark.parametrize("text, message", [
    ("verify: {monte_carlo: 1}\n", "grid.yaml:6: monte_carlo: 1 is not one of: false, true"),
    ("verify: {monte_carlo: yes please}\n",
     "grid.yaml:6: monte_carlo: 'yes please' is not one of: false, true"),
    ("verify: {cavp: every}\n", "grid.yaml:6: cavp: 'every' is not one of: sample, all"),
    ("verify: {cavp: true}\n", "grid.yaml:6: cavp: True is not one of: sample, all"),
    ("verify:\n  montecarlo: true\n", "grid.yaml:7: unknown key 'montecarlo' in verify; allowed "
                                      "keys: random_vectors, seed, monte_carlo, cavp"),
])
def test_yaml_verify_errors_name_the_allowed_values(text, message):
    with pytest.raises(ExperimentError) as info:
        parse_experiment(GOOD + text, "grid.yaml")
    assert str(info.value).startswith(message), str(info.value)


def test_block_script_carries_the_monte_carlo_test():
    # The script of a plain core takes the same vectors (no simulation here).
    from archs.iterative import Iterative
    options = VerifyOptions(random_vectors=0, monte_carlo=True, monte_carlo_outer=1)
    script = block_script(Iterative(), options)
    notes = script.outputs[0].notes
    assert sum(n.startswith("AESAVS ECBMCT128 ENCRYPT COUNT=0") for n in notes) == 1000
    assert len(notes) == 6 + 1000 and script.max_cycles == options.cycle_budget(1006)


def test_verify_component_with_every_cavp_file():
    # A real simulation of every ECB KAT and MMT block of a 128-bit, encrypt-only core (the
    # [DECRYPT] entries of the MMT file checked as the encryptions they also state).
    from archs.iterative import Iterative
    result = verify_component(Iterative, "cipher", VerifyOptions(random_vectors=0, cavp="all"))
    assert result.ok, result.reason
    assert result.vectors_checked == 6 + 284 + 110 + VerifyOptions().measure_blocks


def test_verify_component_sends_the_cavp_files():
    # Wrong only on an all-zero block, which no sample vector has and KeySbox/VarKey have.
    from amaranth.hdl import Module, Signal
    from amaranth.lib import wiring

    from archs.interface import AESSignature
    from archs.iterative import Iterative

    class WrongOnZeroBlock(wiring.Component):
        def __init__(self):
            super().__init__(AESSignature())

        def elaborate(self, platform):
            m = Module()
            m.submodules.core = core = Iterative()
            wiring.connect(m, wiring.flipped(self.key), core.key)
            wiring.connect(m, wiring.flipped(self.i), core.i)
            zero = Signal()
            with m.If(self.i.valid & self.i.ready):
                m.d.sync += zero.eq(self.i.payload.data == 0)
            m.d.comb += [self.o.valid.eq(core.o.valid), core.o.ready.eq(self.o.ready),
                         self.o.payload.data.eq(core.o.payload.data ^ zero)]
            return m

    result = verify_component(WrongOnZeroBlock, "cipher",
                              VerifyOptions(random_vectors=0, cavp="all"))
    assert not result.ok
    assert result.reason.startswith("mismatch on CAVP ECBKeySbox128.rsp COUNT=0"), result.reason
