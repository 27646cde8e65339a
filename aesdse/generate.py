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
from amaranth.hdl import Value
from amaranth.lib import wiring

import archs
from archs.interface import BYTE_ORDER

from .experiment import DesignPoint
from .flow.yosys import write_verilog as yosys_write_verilog

__all__ = ["Design", "build_component", "generate", "write_verilog", "GenerateError"]


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
        Architecture, parameters, ports, key sizes, directions, modes and byte order.
    """
    top: str
    rtlil: str
    digest: str
    manifest: dict


def build_component(point: DesignPoint, target: str = "generic") -> wiring.Component:
    """Construct the point's component (``target`` as in :class:`archs.Family`)."""
    fam = archs.family(point.arch)
    try:
        return fam.build(target=target, **point.params_dict)
    except (ValueError, TypeError) as e:
        raise GenerateError(f"{point.label}: {e}") from e


def _ports(component) -> list[dict]:
    ports = []
    for path, member, value in component.signature.flatten(component):
        ports.append({"name": "__".join(str(p) for p in path),
                      "direction": "input" if member.flow == wiring.In else "output",
                      "width": Value.cast(value).shape().width})
    return ports


def generate(point: DesignPoint, target: str | None = None) -> Design:
    """Elaborate the point for ``target`` (default: its target's device family) to RTLIL."""
    target = target or point.target.family
    fam = archs.family(point.arch)
    component = build_component(point, target)
    ports = _ports(component)
    try:
        text = rtlil.convert(component, name=point.top_name, emit_src=False)
    except Exception as e:  # elaboration errors come in every kind; the point records the text
        raise GenerateError(f"{point.label}: elaboration failed: {type(e).__name__}: {e}") from e
    manifest = {
        "arch": point.arch,
        "params": point.params_dict,
        "top": point.top_name,
        "target": target,
        "kind": fam.kind,
        "ports": ports,
        "key_sizes": list(fam.key_sizes),
        "directions": list(fam.directions),
        "modes": list(fam.modes),
        "byte_order": BYTE_ORDER,
        "resources": getattr(component, "resources", None),
        "clock_multipliers": dict(getattr(component, "clock_multipliers", None) or {}),
    }
    return Design(point.top_name, text, hashlib.sha256(text.encode()).hexdigest(), manifest)


def write_verilog(design: Design, out_dir: Path, timeout_s: float = 600) -> Path:
    """Write ``<top>.v`` (via Yosys ``write_verilog``; deterministic) and ``<top>.json``."""
    out_dir = Path(out_dir)
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
