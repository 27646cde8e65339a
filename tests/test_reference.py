"""The pure-Python AES reference against the standards and the `cryptography` oracle."""

import random

import pytest

from aesdse.verify import reference
from aesdse.verify.vectors import FIPS197, SP800_38A_CTR, SP800_38A_ECB, oracle_decrypt, oracle_encrypt


@pytest.mark.parametrize("vec", FIPS197 + SP800_38A_ECB, ids=lambda v: v.source)
def test_known_answers(vec):
    assert reference.encrypt_int(vec.key, vec.plaintext, vec.key_bits) == vec.ciphertext
    assert reference.decrypt_int(vec.key, vec.ciphertext, vec.key_bits) == vec.plaintext


@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_random_against_cryptography(key_bits):
    rng = random.Random(key_bits)
    for _ in range(50):
        key, block = rng.getrandbits(key_bits), rng.getrandbits(128)
        ct = reference.encrypt_int(key, block, key_bits)
        assert ct == oracle_encrypt(key, block, key_bits)
        assert reference.decrypt_int(key, ct, key_bits) == block == oracle_decrypt(key, ct,
                                                                                    key_bits)


def test_ctr_sp800_38a_f51():
    key, counter, pts, cts = SP800_38A_CTR
    data = b"".join(p.to_bytes(16, "big") for p in pts)
    out = reference.ctr_encrypt(key.to_bytes(16, "big"), counter.to_bytes(16, "big"), data)
    assert out == b"".join(c.to_bytes(16, "big") for c in cts)


def test_ctr_against_cryptography_with_32_bit_counter_wrap():
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    rng = random.Random(7)
    key = rng.randbytes(16)
    # Low 32 bits about to wrap: a 128-bit counter carries into bit 32, a 32-bit one does not.
    iv = rng.randbytes(12) + b"\xff\xff\xff\xfe"
    data = rng.randbytes(16 * 4 + 5)
    enc = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
    assert reference.ctr_encrypt(key, iv, data) == enc.update(data) + enc.finalize()
    wrapped = reference.ctr_keystream(key, iv, 3, counter_bits=32)
    ecb = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    assert wrapped[2] == ecb.update(iv[:12] + b"\x00\x00\x00\x00")


def test_bad_key_size():
    with pytest.raises(ValueError, match=r"^Key size must be 128, 192 or 256 bits, not 64$"):
        reference.encrypt_int(0, 0, 64)
