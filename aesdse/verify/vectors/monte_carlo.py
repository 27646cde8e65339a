"""The AESAVS Monte Carlo test (NIST AESAVS section 6.4) from its published seeds, with results
from the ``cryptography`` oracle."""

from functools import lru_cache

from .oracle import ecb_cipher
from .standards import BlockVector, ModeVector

__all__ = ["AESAVS_MCT_SEEDS", "aesavs_monte_carlo", "monte_carlo_block_vectors"]


#: Seeds of the AESAVS Monte Carlo test: KEY, IV (CBC) and the first input (PLAINTEXT of
#: ``[ENCRYPT]``, CIPHERTEXT of ``[DECRYPT]``) of COUNT = 0 in the NIST CAVP sample response
#: files of the AESAVS (aesmct.zip: ECBMCT128.rsp ... CBCMCT256.rsp). ``cryptography-vectors``
#: does not carry those files; tests/test_vectors_cavp.py checks the results of COUNT = 99.
AESAVS_MCT_SEEDS = {
    ("ecb", 128, "encrypt"): ("139a35422f1d61de3c91787fe0507afd", None,
                              "b9145a768b7dc489a096b546f43b231f"),
    ("ecb", 128, "decrypt"): ("0c60e7bf20ada9baa9e1ddf0d1540726", None,
                              "b08a29b11a500ea3aca42c36675b9785"),
    ("ecb", 192, "encrypt"): ("b9a63e09e1dfc42e93a90d9bad739e5967aef672eedd5da9", None,
                              "85a1f7a58167b389cddc8a9ff175ee26"),
    ("ecb", 192, "decrypt"): ("4b97585701c03fbebdfa8555024f589f1482c58a00fdd9fd", None,
                              "d0bd0e02ded155e4516be83f42d347a4"),
    ("ecb", 256, "encrypt"): ("f9e8389f5b80712e3886cc1fa2d28a3b8c9cd88a2d4a54c6aa86ce0fef944be0",
                              None, "b379777f9050e2a818f2940cbbd9aba4"),
    ("ecb", 256, "decrypt"): ("2b09ba39b834062b9e93f48373b8dd018dedf1e5ba1b8af831ebbacbc92a2643",
                              None, "89649bd0115f30bd878567610223a59d"),
    ("cbc", 128, "encrypt"): ("8809e7dd3a959ee5d8dbb13f501f2274",
                              "e5c0bb535d7d54572ad06d170a0e58ae",
                              "1fd4ee65603e6130cfc2a82ab3d56c24"),
    ("cbc", 128, "decrypt"): ("287b07c78f8e3e1be7c41b3d96c04e6e",
                              "41b461f9464fd515d25413b4241002b8",
                              "7c54923b0490a9d4de4ec1ce6790aa4d"),
    ("cbc", 192, "encrypt"): ("dea64f83cfe6a0a183ddbe865cfca059b3c615c1623d63fc",
                              "426fbc087b50b395c0fc81ef9fd6d1aa",
                              "cd0b8c8a8179ecb171b64c894a4d60fd"),
    ("cbc", 192, "decrypt"): ("a24ebd4d7a080c28caae984b5098a9ea38cf7280e2c5f122",
                              "c5aeb9b51ad5108371c59d0b90816310",
                              "eb2c4e2712591ff13b8ac7870c9c404c"),
    ("cbc", 256, "encrypt"): ("632bac4fe4db44cfcf18cfa90b43f86f378611b8d968595eb89e7ae98624564a",
                              "ff8127621be616803e3f002377730185",
                              "90ed17475f0a62bc381ba1f3ffbfff33"),
    ("cbc", 256, "decrypt"): ("31397ad8cc79c519e0f46e0f70303587e38958d70723b771552336b7771f6311",
                              "4139cb54eeac3fcf36ed72941122c40f",
                              "27a1d5c10fe45b801d15f56e654a70f0"),
}


def _mct_inner(mode: str, key: int, key_bits: int, iv: int | None, first: int, decrypt: bool,
               inner: int) -> tuple[list, list]:
    """One outer iteration's inner loop (AESAVS 6.4.1 / 6.4.2): (inputs, outputs) of its
    ``inner`` blocks. ECB: each output is the next input. CBC: one chained message under
    ``iv`` whose second input is the IV and every later one the output two blocks back."""
    cipher = ecb_cipher(key, key_bits)
    ctx = cipher.decryptor() if decrypt else cipher.encryptor()

    def aes(block):
        return int.from_bytes(ctx.update(block.to_bytes(16, "big")), "big")

    inputs, outputs, block = [], [], first
    for j in range(inner):
        inputs.append(block)
        if mode == "ecb":
            out = aes(block)
        elif decrypt:       # CBC: the previous input (the IV first) xored into the output
            out = aes(block) ^ (iv if j == 0 else inputs[j - 1])
        else:               # CBC: the previous output (the IV first) xored into the input
            out = aes(block ^ (iv if j == 0 else outputs[j - 1]))
        outputs.append(out)
        block = out if mode == "ecb" else (iv if j == 0 else outputs[j - 1])
    return inputs, outputs


@lru_cache(maxsize=12)
def aesavs_monte_carlo(mode: str, key_bits: int, direction: str, outer: int = 100,
                       inner: int = 1000) -> tuple:
    """The AESAVS Monte Carlo test (NIST AESAVS section 6.4: 6.4.1 ECB, 6.4.2 CBC) from the
    seeds of :data:`AESAVS_MCT_SEEDS`, with results from ``cryptography``: one
    :class:`ModeVector` per outer iteration (COUNT = 0 .. ``outer`` - 1), of ``inner`` chained
    blocks (:func:`_mct_inner`), in encryption form and with ``direction`` set.

    Between outer iterations the key takes the xor of the last ``key_bits`` of the last two
    outputs (128: the last output; 192: the low 64 bits of the one before and the last; 256:
    both); the next first input is the last output (ECB) or the one before (CBC, whose next IV
    is the last output). AESAVS takes 100 outer iterations of 1,000 blocks; a test may take
    fewer outer ones (the first iterations are the same).
    """
    if (mode, key_bits, direction) not in AESAVS_MCT_SEEDS or inner < 2:
        raise ValueError(f"No AESAVS Monte Carlo test for {mode!r}, {key_bits!r}, "
                         f"{direction!r} with {inner} inner blocks")
    key, iv, first = (None if x is None else int(x, 16)
                      for x in AESAVS_MCT_SEEDS[mode, key_bits, direction])
    decrypt, name = direction == "decrypt", f"{mode.upper()}MCT{key_bits}"
    rounds = []
    for count in range(outer):
        inputs, outputs = _mct_inner(mode, key, key_bits, iv, first, decrypt, inner)
        plain, cipher = (outputs, inputs) if decrypt else (inputs, outputs)
        rounds.append(ModeVector(mode, key, key_bits, iv, tuple(plain), tuple(cipher),
                                 f"AESAVS {name} {direction.upper()} COUNT={count}",
                                 direction))
        key ^= (outputs[-2] << 128 | outputs[-1]) & ((1 << key_bits) - 1)
        if mode == "ecb":
            first = outputs[-1]
        else:
            iv, first = outputs[-1], outputs[-2]
    return tuple(rounds)


def monte_carlo_block_vectors(key_bits: int, direction: str,
                              outer: int = 100) -> list[BlockVector]:
    """The ECB Monte Carlo test of :func:`aesavs_monte_carlo` as single blocks, in order (the
    key changes every 1,000 blocks), ``block j`` (0-based, as AESAVS counts) in the source."""
    return [BlockVector(v.key, key_bits, pt, ct, f"{v.source} block {j}", direction)
            for v in aesavs_monte_carlo("ecb", key_bits, direction, outer)
            for j, (pt, ct) in enumerate(zip(v.plaintexts, v.ciphertexts))]
