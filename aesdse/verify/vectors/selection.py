"""What a verify run checks (:class:`aesdse.spec.schema.VerifyOptions`): the single blocks of a
cipher core, the messages of a core that chains blocks itself, and the categories its checks are
counted by."""

from collections import Counter

from ..backends import resolved_options
from .cavp import cavp_block_vectors, cavp_entries, rfc3686_ctr
from .monte_carlo import aesavs_monte_carlo, monte_carlo_block_vectors
from .oracle import oracle_encrypt, random_vectors
from .standards import FIPS197, SP800_38A_ECB, SP800_38A_MODES, BlockVector, vector_directions

__all__ = ["cipher_block_vectors", "mode_messages", "source_category", "count_by_category"]


def cipher_block_vectors(options, key_sizes, directions=("encrypt", "decrypt")) -> list:
    """The single blocks a cipher core is checked on, for :class:`VerifyOptions
    <aesdse.spec.schema.VerifyOptions>` ``options``: FIPS-197 and SP 800-38A F.1 vectors of
    ``key_sizes``, then ``random_vectors`` random vectors per key size (sharing a key in runs
    of four, so that back-to-back blocks under one key occur), then with ``cavp="all"`` every
    ECB entry of :func:`cavp_entries`, then with ``monte_carlo`` the ECB Monte Carlo test of
    every key size in each of ``directions`` (the directions the core supports)."""
    options = resolved_options(options)   # checks left unset: the backend's defaults
    key_sizes = tuple(key_sizes)
    vectors = [v for v in FIPS197 + SP800_38A_ECB if v.key_bits in key_sizes]
    for n, key_bits in enumerate(key_sizes):
        randoms = random_vectors(options.random_vectors, key_bits=key_bits,
                                 seed=options.seed * 1000 + n)
        for k, v in enumerate(randoms):
            if k % 4:
                head = randoms[k - k % 4]
                v = BlockVector(head.key, key_bits, v.plaintext,
                                oracle_encrypt(head.key, v.plaintext, key_bits), v.source)
            vectors.append(v)
    if options.cavp == "all":
        for key_bits in key_sizes:
            vectors += cavp_block_vectors(key_bits)
    if options.monte_carlo:
        for key_bits in key_sizes:
            for direction in ("encrypt", "decrypt"):
                if direction in directions:
                    vectors += monte_carlo_block_vectors(key_bits, direction,
                                                         options.monte_carlo_outer)
    return vectors


def mode_messages(options, key_sizes, modes, directions) -> list[tuple]:
    """The multi-block messages a core that chains blocks itself is checked on, as
    (:class:`ModeVector`, decrypt) pairs, for the ``modes`` (of ``"ecb"``, ``"cbc"``,
    ``"ctr"``), ``key_sizes`` and ``directions`` the core supports: SP 800-38A F.1/F.2/F.5 in
    every direction, then with ``cavp="all"`` every CBC entry of :func:`cavp_entries` and the
    RFC 3686 CTR vectors (:func:`rfc3686_ctr`), then with ``monte_carlo`` the CBC Monte Carlo
    test (one message per outer iteration), each in the directions of
    :func:`vector_directions`."""
    options = resolved_options(options)   # checks left unset: the backend's defaults
    key_sizes = tuple(key_sizes)
    candidates = list(SP800_38A_MODES)
    for key_bits in key_sizes:
        if options.cavp == "all" and "cbc" in modes:
            candidates += cavp_entries("cbc", key_bits)
        if options.cavp == "all" and "ctr" in modes:
            candidates += rfc3686_ctr(key_bits)
    if options.monte_carlo and "cbc" in modes:
        for key_bits in key_sizes:
            for direction in ("encrypt", "decrypt"):
                if direction in directions:
                    candidates += aesavs_monte_carlo("cbc", key_bits, direction,
                                                     options.monte_carlo_outer)
    out = []
    for v in candidates:
        if v.mode in modes and v.key_bits in key_sizes:
            ways = vector_directions(v, directions)
            out += [(v, decrypt) for decrypt in (False, True)
                    if ("decrypt" if decrypt else "encrypt") in ways]
    return out


#: Source prefixes and their categories (:func:`source_category`), first match wins.
_CATEGORIES = (("FIPS-197", "fips197"), ("SP 800-38A", "sp800_38a"), ("random #", "random"),
               ("random CCM", "random-ccm"), ("random filler", "random-filler"),
               ("random ", "random-modes"), ("RFC 3610", "rfc3610"), ("RFC 3686", "rfc3686"),
               ("back-to-back", "measure"))


def source_category(source: str) -> str:
    """The stable category of a vector's ``source``, for counting checks by source:
    ``"fips197"``, ``"sp800_38a"``, ``"random"`` (single random blocks), ``"random-modes"``
    (random chained messages), ``"random-ccm"``, ``"random-filler"`` (the filling of a wide
    transfer), ``"rfc3610"``, ``"rfc3686"``, ``"cavp <file>"`` (e.g. ``"cavp ECBGFSbox128"``),
    ``"aesavs-mct <test>"`` (e.g. ``"aesavs-mct ECBMCT128"``), ``"measure"``; ``"other"`` for
    anything else. A suffix the verify stage appends (`` (decrypt)``, `` block 3``) does not
    change it."""
    if source.startswith("CAVP "):
        return "cavp " + source.split()[1].removesuffix(".rsp")
    if source.startswith("AESAVS "):
        return "aesavs-mct " + source.split()[1]
    return next((category for prefix, category in _CATEGORIES if source.startswith(prefix)),
                "other")


def count_by_category(sources) -> dict:
    """How many of ``sources`` fall in each :func:`source_category`, sorted by category."""
    return dict(sorted(Counter(source_category(s) for s in sources).items()))
