"""Generate stage: design point -> netlist text (RTLIL, and Verilog on request) + manifest.

The RTLIL goes straight to Yosys (``read_rtlil``); Amaranth needs no Yosys to write it. Source
locations are left out so the output, and its digest, depend only on the design, not on where
aesdse is installed.
"""

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from amaranth.back import rtlil
import enum
import re

from amaranth.hdl import ClockDomain, Fragment, Value
from amaranth.lib import data, wiring

import archs
from .flow.harness import HarnessStub, MeasurementHarness
from archs.interface import BYTE_ORDER
from archs.prims.gf import INV_SBOX
from archs.prims.sbox import DEVICE_FAMILIES as ARCH_DEVICE_FAMILIES

from .flow.families import FAMILIES as DEVICE_FAMILIES

from .experiment import DesignPoint
from .flow.yosys import write_verilog as yosys_write_verilog
from .verify.blocks import core_directions

__all__ = ["Design", "build_component", "generate", "write_verilog",
           "GenerateError", "HARNESS_FOLD_WIDTH"]

#: Output pins of the measurement harness's XOR fold (:mod:`aesdse.flow.harness`).
HARNESS_FOLD_WIDTH = 8


class GenerateError(Exception):
    """The architecture refused its parameters or failed to elaborate."""


@dataclass(frozen=True)
class Design:
    """The generated netlist of a design point.

    Attributes
    ----------
    top : str
        Top module name.
    rtlil : str
        RTLIL text for Yosys.
    digest : str
        SHA-256 of ``rtlil`` (identifies the netlist for caching and provenance).
    manifest : dict
        Architecture, parameters, ports (with their payload fields, and the clocks), and what
        the built core takes (:func:`supported`: key sizes, directions, modes, facts of its
        signature), and the byte order.
    harness_rtlil : str or None
        For a design inside the measurement harness: the harness alone (around a
        :class:`aesdse.flow.harness.HarnessStub` of the core's signature, top module named
        ``harness``), to be measured on the same device and subtracted.
    """
    top: str
    rtlil: str
    digest: str
    manifest: dict
    harness_rtlil: str | None = None


def _needs_harness(target: str) -> bool:
    return target in DEVICE_FAMILIES and not DEVICE_FAMILIES[target].out_of_context


def build_component(point: DesignPoint, target: str = "generic") -> wiring.Component:
    """Construct the point's component for the device family ``target`` (the
    ``device_family`` of :class:`archs.Family`; a device family with no primitives of its own in
    :mod:`archs`, such as ``ice40`` or ``asic``, builds the generic netlist)."""
    fam = archs.family(point.arch)
    try:
        return fam.build(device_family=target if target in ARCH_DEVICE_FAMILIES else "generic",
                         **point.params_dict)
    except (ValueError, TypeError) as e:
        raise GenerateError(f"{point.label}: {e}") from e


def _ports(component) -> list[dict]:
    """The ports of ``component``'s signature, each with its direction and width and, for a
    stream payload, its fields (the bits each one occupies; an enumeration's values)."""
    ports = []
    for path, member, value in component.signature.flatten(component):
        port = {"name": "__".join(str(p) for p in path),
                "direction": "input" if member.flow == wiring.In else "output",
                "width": Value.cast(value).shape().width}
        if isinstance(member.shape, data.Layout):
            port["fields"] = [_field(name, field) for name, field in member.shape]
        ports.append(port)
    return ports


def _field(name: str, field: data.Field) -> dict:
    described = {"name": name, "offset": field.offset, "width": field.width}
    if isinstance(field.shape, type) and issubclass(field.shape, enum.Enum):
        described["values"] = {member.name.lower(): member.value for member in field.shape}
    return described


#: A port of a module in RTLIL: ``wire width 128 input 0 \key__payload``.
_RTLIL_PORT = re.compile(r"^\s*wire (?:width (\d+) )?(?:(?:signed|offset \d+|upto) )*"
                         r"(input|output|inout) (\d+)\s+\\(\S+)$")


def rtlil_top_ports(text: str, top: str) -> list[dict]:
    """The ports of module ``top`` in the RTLIL ``text``, in port order: what the netlist of
    the design exposes, including the clock and reset ports of its clock domains, which are
    not members of the signature."""
    start = text.index(f"\nmodule \\{top}\n")
    body = text[start:text.index("\nend\n", start)]
    found = []
    for line in body.splitlines():
        match = _RTLIL_PORT.match(line)
        if match:
            width, direction, index, name = match.groups()
            found.append((int(index), {"name": name, "direction": direction,
                                       "width": int(width or 1)}))
    return [port for _, port in sorted(found, key=lambda item: item[0])]


def _clock_ports(rtlil_text: str, top, name: str) -> list[dict]:
    """The ports of module ``name``, the component ``top`` converted to ``rtlil_text``, that
    are not members of its signature: the clocks and resets of its clock domains (``clk`` and
    ``rst`` for ``sync``), which a core inside the measurement harness shares with it."""
    members = {p["name"] for p in _ports(top)}
    return [p for p in rtlil_top_ports(rtlil_text, name) if p["name"] not in members]


def supported(component, fam: "archs.Family") -> dict:
    """What the built ``component`` of family ``fam`` takes, for its manifest: the key sizes
    and directions the verify stage checks it in (:func:`aesdse.verify.blocks.core_directions`:
    a key-size parameter narrows the family's sizes; a core without a ``decrypt`` field only
    encrypts), the modes it applies (its signature's; a block cipher without a ``mode`` field
    is ECB) and the facts of its signature (:class:`archs.interface.CoreSignature`).

    The family's own lists (``archs.Family.key_sizes`` ...) say what some of its points take,
    not what this one does: a 192-bit ``gcm_unrolled`` takes one key size, not three."""
    sig = component.signature
    if fam.kind != "cipher":
        # A standalone S-box (archs.sbox_standalone): no key; SubBytes or InvSubBytes as its
        # table says (what the verify stage checks), both with a decrypt input.
        inverse = tuple(component.table) == tuple(INV_SBOX)
        both = "decrypt" in sig.members
        directions = ["encrypt", "decrypt"] if both else ["decrypt" if inverse else "encrypt"]
        return {"key_sizes": [], "directions": directions, "modes": []}
    key_sizes, directions = core_directions(component, fam.key_sizes, fam.directions)
    return {"key_sizes": list(key_sizes), "directions": list(directions),
            "modes": list(sig.modes or ("ecb",)), "blocks_in_flight": sig.blocks_in_flight,
            "blocks_per_transfer": sig.blocks_per_transfer, "port_width": sig.port_width,
            "measure_key_bits": sig.measure_key_bits}


def logic_sbox_count(component) -> int:
    """S-boxes of ``component`` built from logic (composite, tower or published circuits, alone
    or in a shared enc/dec S-box), found in its elaborated hierarchy; table S-boxes are
    ROMs (``lut`` may even become block RAM, as on iCE40) and are not counted. For the capacity
    check before synthesis (:data:`aesdse.engine.point.SBOX_LUT4_LOWER_BOUND`)."""
    from archs.prims.sbox import (
        LOGIC_SBOX_KINDS, CircuitSBox, CompositeSBox, SharedSBox, TowerSBox,
    )

    def is_logic_sbox(obj):
        return (isinstance(obj, (CompositeSBox, TowerSBox, CircuitSBox))
                or (isinstance(obj, SharedSBox) and obj.kind in LOGIC_SBOX_KINDS))

    def walk(fragment):
        if any(is_logic_sbox(o) for o in getattr(fragment, "origins", None) or ()):
            return 1
        return sum(walk(sub) for sub, *_ in fragment.subfragments)
    return walk(Fragment.get(component, None))


def convert_deterministic(top, name: str) -> str:
    """RTLIL of ``top``, the same in every process.

    Amaranth 0.5 gives the clock and reset ports of the domains a design uses but does not define
    in the order of a set of names, which follows ``PYTHONHASHSEED``: a two-clock core
    (``clock_multipliers``, e.g. tbox ``bram_pumping: 2``) got its ``clk`` and ``bram_clk`` ports
    in either order from run to run, so its digest (the stage cache key, ``db upgrade``'s test)
    changed. Such a core's domains are defined here instead, ``sync`` first and the others
    sorted, with ports named as Amaranth names them. A one-clock design converts as before."""
    multipliers = getattr(top.signature, "clock_multipliers", None) or {}
    if not multipliers:
        return rtlil.convert(top, name=name, emit_src=False)
    # Directions None: Amaranth infers them (what the design drives is an output), as it does for
    # the signature's ports in rtlil.convert.
    ports = {"__".join(map(str, path)): (Value.cast(value), None)
             for path, _, value in top.signature.flatten(top)}
    fragment = Fragment.get(top, None)
    for domain_name in ["sync"] + sorted(multipliers):
        domain = ClockDomain(domain_name)
        fragment.add_domains(domain)
        ports[domain.clk.name] = (domain.clk, None)
        ports[domain.rst.name] = (domain.rst, None)
    text, _ = rtlil.convert_fragment(fragment, ports, name, emit_src=False)
    return text


def generate(point: DesignPoint, target: str | None = None) -> Design:
    """Elaborate the point for ``target`` (default: its target's device family) to RTLIL.

    For a device family without out-of-context place and route (iCE40) the netlist is the core
    inside the measurement harness (:class:`aesdse.flow.harness.MeasurementHarness`); the manifest
    still lists the core's ports, and the harness's under ``"harness"``."""
    target = target or point.device_family
    fam = archs.family(point.arch)
    component = build_component(point, target)
    ports = _ports(component)
    harness = harness_rtlil = None
    top = component
    if _needs_harness(target):
        top = MeasurementHarness(component, fold_width=HARNESS_FOLD_WIDTH)
        harness = {"kind": "MeasurementHarness", "fold_width": HARNESS_FOLD_WIDTH,
                   "chain_bits": top.chain_bits, "folded_bits": top.folded_bits,
                   "pins": top.pins, "ports": _ports(top)}
        alone = MeasurementHarness(HarnessStub(component.signature),
                                   fold_width=HARNESS_FOLD_WIDTH)
        harness_rtlil = rtlil.convert(alone, name="harness", emit_src=False)
    try:
        text = convert_deterministic(top, point.top_name)
    except Exception as e:  # elaboration errors come in every kind; the point records the text
        raise GenerateError(f"{point.label}: elaboration failed: {type(e).__name__}: {e}") from e
    clocks = _clock_ports(text, top, point.top_name)
    manifest = {
        "arch": point.arch,
        "params": point.params_dict,
        "top": point.top_name,
        "target": target,
        "kind": fam.kind,
        "ports": ports + clocks,
        **supported(component, fam),
        "byte_order": BYTE_ORDER,
        "resources": getattr(component, "resources", None),
        "logic_sboxes": logic_sbox_count(component),
        "clock_multipliers": dict(component.signature.clock_multipliers),
    }
    if harness is not None:
        harness["ports"] += clocks
        manifest["harness"] = harness
    return Design(point.top_name, text, hashlib.sha256(text.encode()).hexdigest(), manifest,
                  harness_rtlil)


def write_verilog(design: Design, out_dir: Path, timeout_s: float = 600) -> Path:
    """Write ``<top>.v`` (via Yosys ``write_verilog``; deterministic) and ``<top>.json``."""
    out_dir = Path(out_dir)
    try:
        return _write_verilog(design, out_dir, timeout_s)
    except OSError as e:
        raise GenerateError(f"{out_dir}: cannot write ({e.strerror or e})") from None


def _write_verilog(design: Design, out_dir: Path, timeout_s: float) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as work:
        work = Path(work)
        (work / "design.il").write_text(design.rtlil)
        run = yosys_write_verilog("design.il", "design.v", work, timeout_s)
        if not run.ok:
            raise GenerateError(f"yosys write_verilog failed:\n{run.log_tail()}")
        verilog = out_dir / f"{design.top}.v"
        (work / "design.v").replace(verilog)
    (out_dir / f"{design.top}.json").write_text(json.dumps(design.manifest, indent=2) + "\n")
    return verilog
