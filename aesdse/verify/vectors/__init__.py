"""Test vectors: the standards' known answers and random vectors from the ``cryptography`` oracle.

Known-answer vectors are transcribed from the standards (the ``cryptography-vectors`` package does
not carry FIPS-197 Appendix C or SP 800-38A Appendix F, docs/toolchain.md). Random vectors are
computed by ``cryptography`` (pyca), an implementation independent of :mod:`aesdse.verify.reference`.

What a verify run checks (:class:`aesdse.spec.schema.VerifyOptions`) comes from here:
:func:`cipher_block_vectors` gives the single blocks every cipher core gets, and
:func:`mode_messages` the multi-block messages of a core that chains blocks itself. Besides the
sample of the standards and the random vectors they hold, on request, every NIST CAVP AESAVS
KAT and MMT file of ``cryptography-vectors`` (``cavp="all"``) and the AESAVS Monte Carlo test
(``monte_carlo``, :func:`aesavs_monte_carlo`). Every vector names its ``source``;
:func:`source_category` maps a source to a stable category for counting checks by source.

One module per source of vectors, each name importable from here:

* :mod:`.standards`: :class:`BlockVector`, :class:`ModeVector`, FIPS-197 and SP 800-38A;
* :mod:`.oracle`: AES from ``cryptography`` and the random vectors;
* :mod:`.ccm`: CCM (SP 800-38C): the formatter, its oracle, RFC 3610;
* :mod:`.cavp`: the NIST CAVP response files and RFC 3686 of ``cryptography-vectors``;
* :mod:`.monte_carlo`: the AESAVS Monte Carlo test;
* :mod:`.selection`: what a verify run checks, and the categories of sources.
"""

from .cavp import CAVP_KINDS, cavp_block_vectors, cavp_ccm, cavp_entries, cavp_modes, rfc3686_ctr
from .ccm import (CCM_NONCE_BYTES, CCM_TAG_BYTES, RFC3610, CCMBlock, CCMFormat, CCMVector,
                  ccm_blocks, ccm_format, oracle_ccm)
from .monte_carlo import AESAVS_MCT_SEEDS, aesavs_monte_carlo, monte_carlo_block_vectors
from .oracle import ecb_cipher, oracle_decrypt, oracle_encrypt, oracle_mode, random_vectors
from .selection import cipher_block_vectors, count_by_category, mode_messages, source_category
from .standards import (FIPS197, SP800_38A_CTR, SP800_38A_ECB, SP800_38A_MODES, BlockVector,
                        ModeVector, blocks_of, vector_directions)

__all__ = ["BlockVector", "FIPS197", "SP800_38A_ECB", "SP800_38A_CTR", "ModeVector",
           "SP800_38A_MODES", "random_vectors", "oracle_encrypt", "oracle_decrypt", "oracle_mode",
           "CCM_TAG_BYTES", "CCM_NONCE_BYTES", "CCMFormat", "ccm_format", "CCMBlock",
           "ccm_blocks", "oracle_ccm", "CCMVector", "RFC3610", "cavp_ccm", "cavp_modes",
           "vector_directions", "CAVP_KINDS", "cavp_entries", "cavp_block_vectors",
           "rfc3686_ctr", "AESAVS_MCT_SEEDS", "aesavs_monte_carlo", "monte_carlo_block_vectors",
           "cipher_block_vectors", "mode_messages", "source_category", "count_by_category",
           "blocks_of", "ecb_cipher"]
