"""What the verify stage checks: the blocks a cipher core is sent, with the results the reference
expects, before they become a script (:func:`aesdse.verify.script.verification_script`).

Every check of :mod:`aesdse.verify.verify` is a list of :class:`Block`:

* :func:`cipher_vectors` and :func:`plain_blocks`: the FIPS-197 and SP 800-38A F.1 vectors and
  random vectors from the ``cryptography`` oracle, in each direction the core supports;
* :func:`mode_blocks`: SP 800-38A F.1/F.2/F.5 messages and random multi-block messages for a
  core that chains blocks itself (``mode``, ``first``, ``iv`` block fields);
* :func:`ccm_blocks_of` and :func:`ccm_message`: CCM messages (SP 800-38C) with their
  ``ccm_phase``/``pad_bytes`` fields and the ``auth_fail`` result;
* :func:`gcm_checking_blocks` and :func:`gcm_message`: GCM messages (SP 800-38D) for a GCM core
  (:mod:`archs.gcm`), with their ``phase``/``bytes``/``first``/``last`` fields and the
  ``auth_fail`` result: a GCM core gets these only, not single blocks;
* :func:`interleave_streams`: the blocks spread over a two-stream core's streams;
* :func:`wide_transfers`: the blocks gathered N to a transfer for a wide port.

:func:`key_items` puts a key transfer before every change of key (per stream); the result, a list
of ``("key", (BlockVector, stream))`` and ``("block", Block)`` items, is what a script is made
from. Each block names its source (for messages) and a source category (for
:attr:`aesdse.verify.verify.Verification.checks`).
"""

import random
from dataclasses import dataclass, replace
from functools import lru_cache

from ..spec.schema import VerifyOptions
from . import reference
from .backends import resolved_options
from .gcm_vectors import MCGREW_VIEGA, cavp_gcm, gcm_blocks, oracle_gcm
from .vectors import (CCM_TAG_BYTES, BlockVector, ccm_blocks, cipher_block_vectors, mode_messages,
                      oracle_ccm, oracle_mode, source_category, vector_directions)

__all__ = ["Block", "BlockError", "source_category", "cipher_vectors", "plain_blocks",
           "mode_blocks", "ccm_message", "ccm_blocks_of", "has_ccm", "key_items",
           "interleave_streams", "join_blocks", "wide_transfers", "checking_blocks",
           "core_streams", "core_directions", "has_gcm", "gcm_message", "gcm_cavp_vectors",
           "gcm_checking_blocks", "GCM_CAVP_SAMPLE"]


class BlockError(Exception):
    """The host-side reference disagrees with the ``cryptography`` oracle (a bug of aesdse,
    not of the core)."""


@dataclass(frozen=True)
class Block:
    """One block (or, on a wide port, one transfer) to send: its input payload and the output
    the reference expects."""
    data: int
    expected: int
    decrypt: bool
    source: str
    key: BlockVector
    #: Further payload fields (name, value) of cores that chain blocks (``mode``, ``first``,
    #: ``iv``); empty for a plain block.
    fields: tuple = ()
    #: Result fields besides ``data`` (name, expected value), e.g. CCM's ``auth_fail``.
    result_fields: tuple = ()
    #: The stream the block goes to, in a core that interleaves several (a ``stream`` block
    #: field, :mod:`archs.multimode` with two streams); 0 otherwise.
    stream: int = 0
    #: Category of ``Verification.checks`` (:func:`source_category`, ``modes``, ``ccm``), per
    #: block of the transfer (a wide transfer joins several).
    categories: tuple = ()


def _block(data, expected, decrypt, source, key, *, category=None, **more) -> Block:
    return Block(data, expected, decrypt, source, key,
                 categories=(category or source_category(source),), **more)


def cipher_vectors(options: VerifyOptions, key_sizes, directions) -> list[BlockVector]:
    """The single blocks of the check (:func:`aesdse.verify.vectors.cipher_block_vectors`):
    FIPS-197 and SP 800-38A F.1 vectors of the key sizes, then ``options.random_vectors`` random
    vectors per key size (sharing a key in runs of four, so that back-to-back blocks under one
    key are exercised too), then the CAVP files and the Monte Carlo test as the options ask."""
    return cipher_block_vectors(options, key_sizes, directions)


def plain_blocks(vectors, directions, rng) -> list[Block]:
    """Every vector in each supported direction (a vector whose source gives one direction: that
    one, :func:`aesdse.verify.vectors.vector_directions`). With both directions, the direction
    of each block is drawn at random, so that switches between consecutive blocks under one key
    and runs of one direction both occur; every such vector is still checked both ways."""
    blocks = []
    for v in vectors:
        pair, ways = [], vector_directions(v, directions)
        if "encrypt" in ways:
            pair.append(_block(v.plaintext, v.ciphertext, False, v.source, v))
        if "decrypt" in ways:
            pair.append(_block(v.ciphertext, v.plaintext, True, f"{v.source} (decrypt)", v))
        if len(pair) == 2 and rng.random() < 0.5:
            pair.reverse()
        blocks += pair
    return blocks


def mode_blocks(dut, options: VerifyOptions, key_sizes, directions, rng) -> list[Block]:
    """Multi-block messages for a core that chains blocks itself.

    Such a core states the modes it supports in a ``modes`` attribute (names as in
    :class:`archs.Family`) and takes them in a ``mode`` block field whose enum has members of the
    same names in upper case, plus ``first`` (the block starts a message) and ``iv``. Checked:
    SP 800-38A F.1/F.2/F.5 for every supported key size and direction (and, as the options ask,
    the CAVP and Monte Carlo messages of :func:`aesdse.verify.vectors.mode_messages`), then
    random messages of 1..5 blocks in random modes, key sizes and directions from the
    ``cryptography`` oracle.
    """
    modes = tuple(m for m in dut.signature.modes if m in ("ecb", "cbc", "ctr"))
    if not modes or not hasattr(dut.i.payload, "mode"):
        return []
    mode_enum = dut.i.payload.mode.shape()

    def message(mode, key, key_bits, iv, data, decrypt, source):
        expected = oracle_mode(mode, key, key_bits, iv, data, decrypt=decrypt)
        vec = BlockVector(key, key_bits, data[0], expected[0], source)
        # CAVP files and the Monte Carlo test count under their own names, the rest as modes.
        category = source_category(source)
        if not category.startswith(("cavp", "aesavs")):
            category = "modes"
        return [_block(d, e, decrypt, f"{source} block {n + 1}", vec, category=category,
                       fields=(("mode", mode_enum[mode.upper()]), ("first", int(n == 0)),
                               ("iv", iv or 0)))
                for n, (d, e) in enumerate(zip(data, expected))]

    blocks = []
    for v, decrypt in mode_messages(options, key_sizes, modes, directions):
        data = v.ciphertexts if decrypt else v.plaintexts
        blocks += message(v.mode, v.key, v.key_bits, v.iv, list(data), decrypt,
                          f"{v.source} ({'decrypt' if decrypt else 'encrypt'})")
    for n in range(max(1, options.random_vectors // 4)):
        mode, key_bits = rng.choice(modes), rng.choice(tuple(key_sizes))
        decrypt = rng.choice(directions) == "decrypt"
        data = [rng.getrandbits(128) for _ in range(rng.randint(1, 5))]
        blocks += message(mode, rng.getrandbits(key_bits), key_bits,
                          None if mode == "ecb" else rng.getrandbits(128), data, decrypt,
                          f"random {mode} message #{n} (seed {options.seed})")
    return blocks


def has_ccm(dut) -> bool:
    """The core takes CCM messages (``"ccm"`` among its modes, a ``ccm_phase`` block field)."""
    return "ccm" in dut.signature.modes and hasattr(dut.i.payload, "ccm_phase")


def ccm_blocks_of(dut, options: VerifyOptions, key_sizes, directions, rng) -> list[Block]:
    """CCM messages (SP 800-38C) for a core with ``"ccm"`` among its ``modes`` and the block
    protocol of :mod:`archs.multimode` (``ccm_phase``, ``pad_bytes``; result ``auth_fail``).

    ``max(2, random_vectors // 2)`` random messages, the key sizes in turn, sealed and opened in
    turn (as the directions allow), with random nonce (7..13 bytes), associated data (0..20),
    payload (1..24) and tag lengths, and one more opened with a wrong tag. The per-block
    results come from the formatter of :mod:`aesdse.verify.vectors`, whose outcome must equal
    AESCCM's. The simulation is slow (a payload block is two passes), so the messages are short.
    """
    if not has_ccm(dut):
        return []
    key_sizes = tuple(key_sizes)
    can_open = "decrypt" in directions
    count = max(2, options.random_vectors // 2)
    blocks = []
    for n in range(count + can_open):
        key_bits = key_sizes[n % len(key_sizes)]
        key = rng.getrandbits(key_bits)
        nonce = rng.randbytes(rng.randint(7, 13))
        adata, payload = rng.randbytes(rng.randint(0, 20)), rng.randbytes(rng.randint(1, 24))
        tag_bytes = rng.choice(CCM_TAG_BYTES)
        sealed = oracle_ccm(key, key_bits, nonce, adata, payload, tag_bytes)
        wrong_tag = n == count
        decrypt = can_open and (wrong_tag or n % 2 == 1)
        if decrypt:
            tag = sealed[len(payload):]
            if wrong_tag:
                tag = bytes([tag[0] ^ 1 << rng.randrange(8)]) + tag[1:]
            want = None if wrong_tag else payload
            message, outcome = ccm_blocks(key, key_bits, nonce, adata, sealed[:len(payload)],
                                          tag_bytes, decrypt=True, tag=tag)
        else:
            want = sealed
            message, outcome = ccm_blocks(key, key_bits, nonce, adata, payload, tag_bytes)
        if outcome != want:
            raise BlockError(f"the CCM formatter disagrees with AESCCM on message #{n}")
        source = (f"random CCM message #{n} ({'opened' if decrypt else 'sealed'}"
                  f"{', wrong tag' if wrong_tag else ''}, seed {options.seed})")
        blocks += ccm_message(dut, message, decrypt, source,
                              BlockVector(key, key_bits, 0, 0, source))
    return blocks


def ccm_message(dut, message, decrypt, source, vec) -> list[Block]:
    """The blocks of one CCM message (:func:`aesdse.verify.vectors.ccm_blocks`) as block
    transfers."""
    mode_enum = dut.i.payload.mode.shape()
    phase_enum = dut.i.payload.ccm_phase.shape()
    return [_block(b.data, b.expected, decrypt, f"{source} {b.phase} block {i + 1}", vec,
                   category="ccm",
                   fields=(("mode", mode_enum["CCM"]), ("first", int(i == 0)), ("iv", 0),
                           ("ccm_phase", phase_enum[b.phase.upper()]),
                           ("pad_bytes", 16 - b.last_bytes)),
                   result_fields=(("auth_fail", int(b.auth_fail)),))
            for i, b in enumerate(message)]


def has_gcm(dut) -> bool:
    """The core is an AES-GCM core (``"gcm"`` among its modes, a ``phase`` block field:
    :class:`archs.gcm.GCMCore`)."""
    return "gcm" in dut.signature.modes and hasattr(dut.i.payload, "phase")


def gcm_message(dut, key, key_bits, iv, aad, data, tag_bytes=16, *, decrypt=False, tag=None,
                source, category) -> tuple[list[Block], bytes | None]:
    """The blocks of one GCM message (:func:`aesdse.verify.gcm_vectors.gcm_blocks`: IV, AAD,
    payload and tag blocks with the results they must give, ``auth_fail`` included) as block
    transfers of the protocol of :mod:`archs.gcm`, and the formatter's outcome (ciphertext and
    tag, the plaintext, or None for a wrong tag)."""
    message, outcome = gcm_blocks(key, key_bits, iv, aad, data, tag_bytes, decrypt=decrypt,
                                  tag=tag)
    phase_enum = dut.i.payload.phase.shape()
    vec = BlockVector(key, key_bits, 0, 0, source)
    return [_block(b.data, b.expected, decrypt, f"{source} {b.phase} block {n + 1}", vec,
                   category=category,
                   fields=(("phase", phase_enum[b.phase.upper()]), ("bytes", b.bytes),
                           ("first", int(b.first)), ("last", int(b.last))),
                   result_fields=(("auth_fail", int(b.auth_fail)),))
            for n, b in enumerate(message)], outcome


#: Entries of each NIST GCM file a sample check sends (``cavp: sample``), drawn by the seed, on
#: top of one entry per IV length other than 96 bits (:func:`gcm_cavp_vectors`).
GCM_CAVP_SAMPLE = 3


@lru_cache(maxsize=None)
def _gcm_file(path: str) -> tuple:
    return tuple(cavp_gcm(path))


def gcm_cavp_vectors(options: VerifyOptions, key_sizes, directions, rng) -> list[tuple]:
    """``(vector, decrypt, file name)`` of the NIST GCM entries (``cryptography-vectors``,
    ``gcmEncryptExtIV<bits>.rsp`` and ``gcmDecrypt<bits>.rsp``) the check sends, for the key
    sizes and directions the core supports.

    ``options.cavp == "all"``: every entry (FAIL entries included). ``"sample"``: per file,
    :data:`GCM_CAVP_SAMPLE` entries drawn by the seed and the first entry of each IV length
    other than 96 bits (8 and 1024 bits; in a decrypt file a FAIL entry), among the entries
    with at most 64 bytes of AAD and of payload (four blocks each). Every entry of the six files
    is checked in Python against ``cryptography`` by tests/test_archs_gcm.py."""
    chosen = []
    for key_bits in key_sizes:
        for kind, decrypt in (("EncryptExtIV", False), ("Decrypt", True)):
            if ("decrypt" if decrypt else "encrypt") not in directions:
                continue
            name = f"gcm{kind}{key_bits}.rsp"
            entries = _gcm_file(f"ciphers/AES/GCM/{name}")
            if options.cavp != "all":
                small = [v for v in entries if len(v.ciphertext) <= 64 and len(v.aad) <= 64]
                extra = {}
                for v in small:
                    if len(v.iv) != 12 and (not decrypt or v.plaintext is None):
                        extra.setdefault(len(v.iv), v)
                entries = rng.sample(small, GCM_CAVP_SAMPLE) + list(extra.values())
            chosen += [(v, decrypt, name) for v in entries]
    return chosen


def _gcm_random(dut, options, key_sizes, directions, rng) -> list[Block]:
    """``max(2, random_vectors // 4)`` random messages (the key sizes in turn; the first with
    empty AAD and payload, then empty AAD, then an empty payload; IVs of 96 bits and others;
    every tag length), sealed and opened in turn, then one opened with a wrong tag that must
    raise ``auth_fail``; each checked against ``cryptography``."""
    can_open = "decrypt" in directions
    count = max(2, options.random_vectors // 4)
    blocks = []
    for n in range(count + can_open):
        key_bits = key_sizes[n % len(key_sizes)]
        key = rng.getrandbits(key_bits)
        aad_len, data_len = ((0, 0), (0, 17), (13, 0))[n] if n < 3 else (rng.randrange(48),
                                                                           rng.randrange(64))
        iv, aad, data = (rng.randbytes(rng.choice((12, 12, 8, 16, 20, 60))),
                         rng.randbytes(aad_len), rng.randbytes(data_len))
        tag_bytes = rng.choice((16, 16, 12, 8, 4, 15))
        sealed = oracle_gcm(key, key_bits, iv, aad, data, tag_bytes)
        wrong_tag = n == count
        decrypt = can_open and (wrong_tag or n % 2 == 1)
        tag = sealed[len(data):]
        if wrong_tag:
            tag = bytes([tag[0] ^ 1 << rng.randrange(8)]) + tag[1:]
        source = (f"random GCM message #{n} ({'opened' if decrypt else 'sealed'}"
                  f"{', wrong tag' if wrong_tag else ''}, seed {options.seed})")
        message, outcome = gcm_message(
            dut, key, key_bits, iv, aad, sealed[:len(data)] if decrypt else data, tag_bytes,
            decrypt=decrypt, tag=tag if decrypt else None, source=source,
            category="gcm-auth-fail" if wrong_tag else "gcm-random")
        want = (None if wrong_tag else data) if decrypt else sealed
        if outcome != want or (decrypt and outcome != oracle_gcm(
                key, key_bits, iv, aad, sealed[:len(data)], tag_bytes, decrypt=True, tag=tag)):
            raise BlockError(f"the GCM formatter disagrees with cryptography on {source}")
        blocks += message
    return blocks


def gcm_checking_blocks(dut, options: VerifyOptions, key_sizes, directions,
                        rng) -> list[Block]:
    """Every block a GCM core is checked with (sources in ``Verification.checks``): the
    McGrew-Viega test cases 1-6 sealed and opened (``gcm-mcgrew-viega``, AES-128), the NIST
    entries of :func:`gcm_cavp_vectors` (``gcm-cavp <file>``), random messages
    (``gcm-random``) and one wrong tag (``gcm-auth-fail``) of :func:`_gcm_random`. The
    formatter's outcome of every message must be the known answer (else :class:`BlockError`)."""
    key_sizes, blocks = tuple(key_sizes), []
    can_open = "decrypt" in directions
    cases = []
    if 128 in key_sizes:
        cases += [(v, False, "mcgrew-viega") for v in MCGREW_VIEGA]
        cases += [(v, True, "mcgrew-viega") for v in MCGREW_VIEGA if can_open]
    cases += gcm_cavp_vectors(options, key_sizes, directions, rng)
    for v, decrypt, name in cases:
        category = "gcm-mcgrew-viega" if name == "mcgrew-viega" else f"gcm-cavp {name}"
        message, outcome = gcm_message(
            dut, v.key, v.key_bits, v.iv, v.aad, v.ciphertext if decrypt else v.plaintext,
            len(v.tag), decrypt=decrypt, tag=v.tag if decrypt else None,
            source=f"{v.source} ({'opened' if decrypt else 'sealed'})", category=category)
        if outcome != (v.plaintext if decrypt else v.ciphertext + v.tag):
            raise BlockError(f"the GCM formatter disagrees with {v.source}")
        blocks += message
    return blocks + _gcm_random(dut, options, key_sizes, directions, rng)


def key_items(blocks) -> list:
    """``blocks`` as script items, with a key transfer before every change of key (of the
    block's stream), so blocks go back to back under one key."""
    items, last_key = [], {}
    for b in blocks:
        if (b.key.key, b.key.key_bits) != last_key.get(b.stream):
            items.append(("key", (b.key, b.stream)))
            last_key[b.stream] = (b.key.key, b.key.key_bits)
        items.append(("block", b))
    return items


def interleave_streams(blocks, streams, rng) -> list[Block]:
    """``blocks`` spread over ``streams`` interleaved streams: each message (a block without a
    ``first`` field, or one with ``first`` set and the blocks that continue it) goes whole to a
    random stream, then the streams' blocks are merged in a random order that keeps each
    stream's own order, so that blocks of both streams are in flight together, with their
    modes, key sizes and directions mixed."""
    queues = [[] for _ in range(streams)]
    target = 0
    for b in blocks:
        if dict(b.fields).get("first", 1):
            target = rng.randrange(streams)
        queues[target].append(replace(b, stream=target))
    merged = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        merged.append(queue.pop(0))
    return merged


def join_blocks(blocks) -> Block:
    """One wide transfer of ``blocks`` (one key, no further fields): block 0 in the top bits."""
    joined_data = joined_expected = 0
    for b in blocks:
        joined_data = joined_data << 128 | b.data
        joined_expected = joined_expected << 128 | b.expected
    return Block(joined_data, joined_expected, False, " | ".join(b.source for b in blocks),
                 blocks[0].key, categories=sum((b.categories for b in blocks), ()))


def wide_transfers(blocks, per_transfer: int, rng) -> list[Block]:
    """``blocks`` gathered ``per_transfer`` to a transfer: consecutive blocks under one key
    share one; a transfer a key change leaves short is filled with random blocks under its key
    (:mod:`aesdse.verify.verify`)."""
    def fill(group):
        vec = group[0].key
        while len(group) < per_transfer:
            data = rng.getrandbits(128)
            group.append(_block(data, reference.encrypt_int(vec.key, data, vec.key_bits), False,
                                "random filler", vec))
        return join_blocks(group)

    transfers, group = [], []
    for b in blocks:
        if group and (len(group) == per_transfer
                      or (b.key.key, b.key.key_bits) != (group[0].key.key, group[0].key.key_bits)):
            transfers.append(fill(group))
            group = []
        group.append(b)
    if group:
        transfers.append(fill(group))
    return transfers


def checking_blocks(dut, options: VerifyOptions, key_sizes, directions) -> list[Block]:
    """Every block (every transfer, on a wide port) the checking run of a cipher core sends, in
    order (the module documentation): ``key_sizes`` and ``directions`` as narrowed by the core
    (:func:`core_directions`)."""
    options = resolved_options(options)   # checks left unset: the defaults of the backend
    rng = random.Random(options.seed)
    if has_gcm(dut):
        return gcm_checking_blocks(dut, options, key_sizes, directions, rng)
    blocks = plain_blocks(cipher_vectors(options, key_sizes, directions), directions, rng)
    blocks += mode_blocks(dut, options, key_sizes, directions, rng)
    blocks += ccm_blocks_of(dut, options, key_sizes, directions, rng)
    streams = core_streams(dut)
    if streams > 1:
        blocks = interleave_streams(blocks, streams, rng)
    per_transfer = dut.signature.blocks_per_transfer
    if per_transfer > 1:
        blocks = wide_transfers(blocks, per_transfer, rng)
    return blocks


def core_streams(dut) -> int:
    """Streams a core interleaves: 2 with a ``stream`` block field, else 1."""
    return 2 if hasattr(dut.i.payload, "stream") else 1


def core_directions(dut, key_sizes, directions) -> tuple:
    """``(key_sizes, directions)`` the core takes: its signature's key sizes (a family may have
    a key-size parameter) and, for a core without a ``decrypt`` block field, encryption only."""
    key_sizes = tuple(dut.signature.key_sizes or key_sizes)
    if not hasattr(dut.i.payload, "decrypt"):
        directions = tuple(d for d in directions if d == "encrypt") or ("encrypt",)
    return key_sizes, tuple(directions)
