"""NIST CAVP response files of the ``cryptography-vectors`` package: the AESAVS known-answer and
multi-block message files (ECB, CBC), the CCM files and the RFC 3686 CTR vectors."""

from dataclasses import replace
from functools import lru_cache

from .ccm import CCMVector
from .oracle import oracle_mode
from .standards import BlockVector, ModeVector, blocks_of

__all__ = ["cavp_ccm", "cavp_modes", "CAVP_KINDS", "cavp_entries", "cavp_block_vectors",
           "rfc3686_ctr"]


def _rsp_entries(path: str):
    """The entries of a CAVP ``.rsp`` file of ``cryptography-vectors`` as dicts of its
    ``Name = value`` lines, each entry with the values in force where it stands.

    An entry starts at a ``Count``/``COUNT`` line. Values outside an entry (at the top of the
    file, in a ``[Name = value, ...]`` section header, or between a header and the first entry,
    such as a CCM file's ``Key`` and ``Nonce``) hold for every later entry until redefined; a
    bare ``[ENCRYPT]``/``[DECRYPT]`` header is kept as ``section``.
    """
    from cryptography_vectors import open_vector_file
    context, entry, entries = {}, None, []
    with open_vector_file(path, "r") as file:
        for line in file:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                entry = None
                for item in line.strip("[]").split(","):
                    name, _, value = item.partition("=")
                    if value:
                        context[name.strip()] = value.strip()
                    else:
                        context["section"] = name.strip()
                continue
            name, _, value = (part.strip() for part in line.partition("="))
            if name.lower() == "count":
                entry = {**context, "count": value}
                entries.append(entry)
            elif entry is None:
                context[name] = value
            else:
                entry[name] = value
    return entries


def cavp_ccm(path: str) -> list[CCMVector]:
    """The entries of a CAVP CCM file of ``cryptography-vectors``, e.g.
    ``ciphers/AES/CCM/DVPT128.rsp`` (DVPT, VADT, VNT, VPT, VTT for 128/192/256-bit keys). Hex
    fields of zero length are written ``00`` there; the ``Alen``/``Plen`` values decide."""
    out = []
    for e in _rsp_entries(path):
        alen, plen, tlen = int(e["Alen"]), int(e["Plen"]), int(e["Tlen"])
        key = e["Key"]
        passes = e.get("Result", "Pass") == "Pass"
        out.append(CCMVector(
            int(key, 16), 4 * len(key), bytes.fromhex(e["Nonce"]),
            bytes.fromhex(e["Adata"])[:alen],
            bytes.fromhex(e["Payload"])[:plen] if passes else None,
            bytes.fromhex(e["CT"])[:plen + tlen], tlen,
            f"CAVP {path.rsplit('/', 1)[-1]} Alen={alen} Plen={plen} Nlen={e['Nlen']} "
            f"Tlen={tlen} Count={e['count']}"))
    return out


def cavp_modes(path: str) -> list[ModeVector]:
    """The entries of a CAVP ECB or CBC file of ``cryptography-vectors`` (KAT: GFSbox, KeySbox,
    VarKey, VarTxt; MMT), e.g. ``ciphers/AES/CBC/CBCMMT128.rsp``, as encryptions (the
    ``[DECRYPT]`` entries are the same relation the other way round)."""
    mode = path.rsplit("/", 1)[-1][:3].lower()
    out = []
    for e in _rsp_entries(path):
        key = e["KEY"]
        out.append(ModeVector(
            mode, int(key, 16), 4 * len(key), int(e["IV"], 16) if "IV" in e else None,
            blocks_of(bytes.fromhex(e["PLAINTEXT"])), blocks_of(bytes.fromhex(e["CIPHERTEXT"])),
            f"CAVP {path.rsplit('/', 1)[-1]} {e['section']} COUNT={e['count']}"))
    return out


#: The AESAVS known-answer and multi-block message files (NIST AESAVS sections 6.2 and 6.3), as
#: ``cryptography-vectors`` holds them: ``ciphers/AES/<MODE>/<MODE><kind><key bits>.rsp``.
CAVP_KINDS = ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT")


@lru_cache(maxsize=None)
def cavp_entries(mode: str, key_bits: int) -> tuple:
    """Every entry of the ECB or CBC KAT and MMT files of one key size (:data:`CAVP_KINDS`), as
    :class:`ModeVector` with a direction: the KAT files list each entry under ``[ENCRYPT]`` and
    again under ``[DECRYPT]``; such an entry comes once, checked both ways (direction None,
    source without the section), every other one with the direction of its section."""
    out, both = [], {}
    for kind in CAVP_KINDS:
        name = f"{mode.upper()}{kind}{key_bits}.rsp"
        for v in cavp_modes(f"ciphers/AES/{mode.upper()}/{name}"):
            section = "DECRYPT" if " DECRYPT " in v.source else "ENCRYPT"
            relation = (v.key, v.iv, v.plaintexts, v.ciphertexts)
            if relation in both:
                n = both[relation]
                out[n] = replace(out[n], direction=None,
                                 source=out[n].source.replace(" ENCRYPT ", " "))
                continue
            if section == "ENCRYPT":
                both[relation] = len(out)
            out.append(replace(v, direction=section.lower()))
    return tuple(out)


def cavp_block_vectors(key_bits: int) -> list[BlockVector]:
    """The ECB entries of :func:`cavp_entries` as single blocks (an MMT message of several
    blocks gives one vector per block, ``block n`` in its source)."""
    out = []
    for v in cavp_entries("ecb", key_bits):
        for n, (pt, ct) in enumerate(zip(v.plaintexts, v.ciphertexts)):
            source = v.source if len(v.plaintexts) == 1 else f"{v.source} block {n + 1}"
            out.append(BlockVector(v.key, v.key_bits, pt, ct, source, v.direction))
    return out


@lru_cache(maxsize=None)
def rfc3686_ctr(key_bits: int) -> tuple:
    """The CTR vectors of ``cryptography-vectors`` (``ciphers/AES/CTR/aes-<bits>-ctr.txt``,
    RFC 3686 section 6) as :class:`ModeVector`. A message whose last block is partial is padded
    with zero bytes to whole blocks; its ciphertext there is the oracle's, whose first bytes
    must be the file's (CTR is a stream: the padding does not change them)."""
    name = f"aes-{key_bits}-ctr.txt"
    out = []
    for e in _rsp_entries(f"ciphers/AES/CTR/{name}"):
        plain, cipher = bytes.fromhex(e["PLAINTEXT"]), bytes.fromhex(e["CIPHERTEXT"])
        pad = bytes(-len(plain) % 16)
        key, iv = int(e["KEY"], 16), int(e["IV"], 16)
        blocks = blocks_of(plain + pad)
        expected = oracle_mode("ctr", key, key_bits, iv, blocks)
        if b"".join(b.to_bytes(16, "big") for b in expected)[:len(cipher)] != cipher:
            raise ValueError(f"{name} COUNT={e['count']}: the oracle disagrees with the file")
        out.append(ModeVector("ctr", key, key_bits, iv, tuple(blocks), tuple(expected),
                              f"RFC 3686 {name} COUNT={e['count']}"))
    return tuple(out)
