"""A device family that exists only for tests: one file, dropped on the driver path of
:mod:`aesdse.flow.families`, adds a family with one part (tests/test_families_plugin.py): its
parts and limits, its Yosys script and options, its nextpnr tool (found like any other: the
``NEXTPNR_TOY`` environment variable, else the ``yowasp-nextpnr-toy`` package), arguments and
pin file, its cell models for the netlist stage, its block-RAM sites for a floorplan, its
resource columns, area unit and table note.

It is imported as ``aesdse.flow.families.toyfpga``, so it reaches the shared base by a relative
import like every real driver.
"""

from .base import CellModels, FamilyDriver, Part, SliceConvention, SpeedLimits, port_bits

PARTS = {p.name: p for p in (
    Part("TOY-1K", "toyfpga", "--device", 1024, 1024, 4, 0, ("QFN48", "BGA64"), (3, 2)),
)}

#: A pin for ``clk`` and four for the other ports.
PINS = {("TOY-1K", "QFN48"): ("P1", "P2", "P3", "P4", "P5")}


class ToyFpga(FamilyDriver):
    """A harness-measured family with its own script, options, arguments and pin file."""
    name = "toyfpga"
    title = "ToyFPGA"
    rank = 70
    parts = PARTS
    speed_limits = {3: SpeedLimits(200.0, 150.0, "toy data sheet"),
                    2: SpeedLimits(150.0, 100.0, "toy data sheet")}
    convention = SliceConvention("toyfpga", "ToyFPGA: tile = 4 LUT4 + 4 FF", 4, 4, 4, 8,
                                 "TOY_RAM8K", "toy data sheet")
    synth_command = "synth_toy -noflatten"
    synth_options = ("dff", "abc9")
    pnr_tool = "nextpnr-toy"
    pin_constraints = True
    extra = "toyfpga"
    cell_models = CellModels(("+/toy/cells_sim.v",), ("TOY_SIM",))
    block_ram_cell = "TOY_RAM8K"
    block_ram_sites = {"TOY-1K": ((1, 2), (3, 4))}
    unit = "tile = 4 LUT4 + 4 FF; TOY_RAM8K 8 Kbit block RAM"
    area_column = ("slices", "Tiles")
    resource_names = {"luts": ("pnr", ("TOY_LUT",)), "ffs": ("pnr", ("TOY_FF",)),
                      "brams": ("pnr", ("TOY_RAM8K",)), "dsps": ("pnr", ()),
                      "carries": ("synth", ("TOY_CARRY",))}
    synth_capacity_names = {"luts": ("TOY_LUT",), "ffs": ("TOY_FF",), "brams": ("TOY_RAM8K",)}
    report_note = "ToyFPGA rows: a test family."

    def block_ram_site(self, x, y, index):
        return f"R{y}C{x}"

    def nextpnr_device(self, device, package, speed):
        return f"{device}/{package}/{speed}"

    def nextpnr_args(self, target):
        return ["--device", self.nextpnr_device(target.device, target.package, target.speed),
                "--toy-mode", "fast"]

    def port_pins(self, device, package):
        return PINS.get((device, package))

    def constraints(self, target, ports):
        pins = PINS[(target.device, target.package)]
        text = "".join(f"pin {bit} {pin}\n"
                       for bit, pin in port_bits(ports, pins, target.device, target.package))
        return ["--toy-pins", "pins.toy"], {"pins.toy": text}


DRIVERS = (ToyFpga(),)
