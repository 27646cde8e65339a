"""The content-addressing rule of the stage cache: one key function per stage.

A stage's key is the digest (:func:`aesdse.engine.cache.stage_key`) of everything that decides
its outputs: :func:`design_key` (what is built and how it is checked), :func:`synth_key` (the
netlist text, the device family, the synthesis options and the Yosys that runs them) and
:func:`pnr_key` (one place-and-route run; the Fmax search's runs use it too, so a search and a
plain run at the same target and seed share their result). So a new seed or target frequency
runs only nextpnr, and a flow option never re-simulates.
"""

from dataclasses import asdict

from ..experiment import DesignPoint
from ..fingerprint import generator_fingerprint
from ..flow.families import driver_of, family_info
from ..flow.nextpnr import nextpnr_args
from ..flow.tools import find_tool
from ..flow.yosys import SynthOptions
from ..spec.flow_options import (pnr_args, pnr_key_options, stage_options,
                                 synth_key_options)
from .cache import stage_key

__all__ = ["design_key", "synth_key", "pnr_key", "synth_options", "pnr_flow_args"]


def design_key(point: DesignPoint) -> str:
    """The design stage (RTLIL, manifest, verification): what is built and how it is checked.
    The top module name is in it too: the RTLIL and the file names hold it, and a name that
    had to be shortened (:data:`aesdse.experiment.TOP_NAME_LIMIT`) must not find the
    unshortened one's stage."""
    return stage_key("design", {
        "arch": point.arch, "params": point.params_dict, "family": point.device_family,
        "verify": asdict(point.verify), "generator": generator_fingerprint(point.arch),
        "top": point.top_name})


def synth_options(point: DesignPoint) -> SynthOptions:
    """The point's synthesis options."""
    return SynthOptions(**{o.name: getattr(point.flow, o.name) for o in stage_options("synth")})


def synth_key(point: DesignPoint, rtlil_digest: str, top: str) -> str:
    """The synthesis stage: the netlist text, the top module, the device family, the synthesis
    options and the Yosys that runs them."""
    return stage_key("synth", {
        "rtlil": rtlil_digest, "top": top, "family": point.device_family,
        "command": family_info(point.device_family).synth_command,
        # An option that came after cached stages existed is left out at its default.
        "options": synth_key_options(point.flow), "yosys": find_tool("yosys").version})


def pnr_flow_args(point: DesignPoint) -> list:
    """nextpnr's arguments of the point's place-and-route options (none at nextpnr's
    defaults); ``--freq`` and ``--seed`` are given per run."""
    return pnr_args({o.name: getattr(point.flow, o.name) for o in stage_options("pnr")
                     if not o.always_passed})


def pnr_key(point: DesignPoint, netlist_digest: str, freq_mhz: float, seed: int) -> str:
    """One place-and-route run: the netlist, the device, the target frequency, the placer seed,
    aesdse's own nextpnr arguments and pin tables, and the nextpnr that runs them (a changed
    router option or clock pin must not reuse a result made without it)."""
    target = point.target
    driver = driver_of(target.device)
    return stage_key("pnr", {
        "netlist": netlist_digest, "device": target.device, "package": target.package,
        "speed": target.speed, "freq_mhz": freq_mhz, "seed": seed,
        # The flow's placer and router add arguments only away from nextpnr's defaults.
        "args": nextpnr_args(target) + pnr_flow_args(point),
        "pins": [driver.clock_pin(target.device, target.package),
                 driver.port_pins(target.device, target.package)],
        "nextpnr": find_tool(driver.pnr_tool).version,
        # A floorplan changes the netlist nextpnr reads; without one the key is as before.
        **pnr_key_options(point.flow)})
