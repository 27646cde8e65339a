"""Floorplans: block RAMs fixed to sites before place and route (the ``floorplan`` flow option).

nextpnr places block RAMs with the rest of the design, and with most of a device's block RAMs
in use it puts them where there is room, not beside the logic they feed: three fully pipelined
lanes with block-RAM rounds on an ECP5-85F (156 of 208 DP16KD) placed the register a DP16KD
feeds 40-60 rows and columns away from it, a net of 4.3-5.8 ns that limited every placer seed
(experiments/one_chip.yaml). A floorplan fixes each DP16KD to a site (nextpnr's ``BEL``
attribute on the cell in the netlist); the placer then puts the logic near its block RAMs.

``lane_rows`` is the floorplan of :class:`archs.lanes.ParallelLanes` around the unrolled core
(:mod:`archs.unrolled`), read from the cell names Yosys keeps, which the architecture declares
(:data:`archs.floorplans.FLOORPLAN_CELLS`: ``lane<n>.u<unit>_sbox<k>.bram``,
``..._ksbox<k>.bram`` for a key-expansion step):

* each lane gets a band of block-RAM columns, the same in every row (lane 0 on the left);
* the block-RAM round of unit ``r`` takes row ``r`` of its band, with the key-expansion step
  beside it: block ``r`` of the pipeline sits in row ``r``, so the next round's logic lies between
  its row and the next;
* the key-expansion steps of the logic rounds (whose key S-boxes are in block RAM too, seed 002
  section 4) fill the rows' free sites, in unit order, a step's blocks in one row;
* inside its row a group's blocks are side by side, centred in the band.

A core without lanes is one lane with the whole width. An experiment naming a floorplan for a
point it cannot place is an error when it is read (:func:`floorplan_problem`). The block-RAM
sites are the device-family driver's
(:attr:`aesdse.flow.families.base.FamilyDriver.block_ram_sites`: the ECP5 driver has the
LFE5U-85F's, the one device measured).
"""

from __future__ import annotations

import re
from collections import defaultdict

from ..spec.flow_options import OPTIONS
from .families import FAMILIES, driver_of

__all__ = ["FLOORPLANS", "FloorplanError", "floorplan_devices", "block_ram_sites",
           "lane_rows", "apply_floorplan", "floorplan_problem"]

#: Values of the ``floorplan`` flow option; the first is the default (nextpnr places everything).
FLOORPLANS = OPTIONS["floorplan"].choices

class FloorplanError(ValueError):
    """A netlist the floorplan cannot place: the point fails with this reason."""


def floorplan_devices() -> tuple:
    """The devices with a block-RAM site table (the only ones a floorplan can be used on)."""
    return tuple(device for driver in FAMILIES.values() for device in driver.block_ram_sites)


def block_ram_sites(device: str) -> list[list[str]]:
    """The block-RAM sites of ``device`` as rows (top first) of sites (left to right)."""
    driver = driver_of(device)
    if device not in driver.block_ram_sites:
        raise FloorplanError(f"no block-RAM site table for {device}; floorplans exist for "
                             f"{', '.join(floorplan_devices())}")
    return driver.block_ram_site_rows(device)


def floorplan_problem(floorplan: str, arch: str, params: dict, declared: dict) -> str | None:
    """Why ``floorplan`` cannot place a point of ``arch`` with ``params`` (on a device with a
    site table), or ``None``: checked when an experiment is read, so that a point the floorplan
    would refuse at place and route is an error at its line instead. ``lane_rows`` places the
    block-RAM rounds of the architectures that declare their floorplannable cells
    (``declared``: :data:`archs.floorplans.FLOORPLAN_CELLS`), one device row each."""
    if floorplan == "none":
        return None
    rows = min(len(driver.block_ram_sites[device][0]) for driver in FAMILIES.values()
               for device in driver.block_ram_sites)
    rows_param = (declared.get(arch) or next(iter(declared.values()))).rows_param
    rounds = params.get(rows_param, 0)
    if arch not in declared or not 1 <= rounds <= rows:
        return (f"floorplan {floorplan} places the block-RAM rounds of arch "
                f"{', '.join(declared)}, 1 to {rows} (a block-RAM row each); not arch {arch} "
                f"with {rows_param} {rounds}")
    return None


def lane_rows(names, device: str, cells) -> dict[str, str]:
    """The ``lane_rows`` floorplan of the block-RAM cells ``names`` of an architecture whose
    floorplannable cells are ``cells`` (an :class:`archs.floorplans.FloorplanCells`): cell
    name -> site."""
    rows = block_ram_sites(device)
    pattern = re.compile(cells.pattern)
    groups = defaultdict(list)  # (lane, unit, key step?) -> [(box, name)]
    for name in names:
        match = pattern.match(name)
        if match is None:
            raise FloorplanError(f"lane_rows: block RAM {name!r} is not {cells.shape}")
        lane = int(match["lane"] or 0)
        groups[lane, int(match["unit"]), bool(match["key"])].append((int(match["box"]), name))
    lanes = sorted({lane for lane, _, _ in groups})
    width = len(rows[0])
    bands = [(width * i // len(lanes), width * (i + 1) // len(lanes)) for i in range(len(lanes))]
    sites = {}
    for lane, (start, stop) in zip(lanes, bands):
        rounds = sorted(u for ln, u, key in groups if ln == lane and not key)
        if len(rounds) > len(rows):
            raise FloorplanError(f"lane_rows: lane {lane} has {len(rounds)} block-RAM rounds; "
                                 f"{device} has {len(rows)} block-RAM rows")
        # A round and its key step in the round's row; other key steps where there is room.
        content = [[] for _ in rows]
        for r, unit in enumerate(rounds):
            content[r] += [(lane, unit, False), (lane, unit, True)]
        for unit in sorted(u for ln, u, key in groups if ln == lane and key and u not in rounds):
            size = len(groups[lane, unit, True])
            free = [(stop - start) - sum(len(groups.get(g, ())) for g in row) for row in content]
            best = max(range(len(rows)), key=lambda r: (free[r], -r))
            if free[best] < size:
                break  # counted below
            content[best].append((lane, unit, True))
        placed = sum(len(groups.get(g, ())) for row in content for g in row)
        wanted = sum(len(v) for (ln, _, _), v in groups.items() if ln == lane)
        if placed < wanted:
            raise FloorplanError(f"lane_rows: lane {lane} has {wanted} block RAMs; its band "
                                 f"of {stop - start} columns in {len(rows)} rows holds "
                                 f"{placed} of them by round")
        for row, row_groups in zip(rows, content):
            cells = [name for g in row_groups for _, name in sorted(groups.get(g, ()))]
            offset = start + ((stop - start) - len(cells)) // 2
            sites.update(zip(cells, row[offset:offset + len(cells)]))
    return sites


def apply_floorplan(netlist: dict, floorplan: str, device: str, cells) -> dict[str, str]:
    """Fix the block RAMs of a Yosys JSON ``netlist`` (changed in place) to the sites of
    ``floorplan`` on ``device``, read by the names of the architecture's floorplannable
    ``cells`` (:class:`archs.floorplans.FloorplanCells`); returns cell name -> site (empty for
    ``"none"``)."""
    if floorplan not in FLOORPLANS:
        raise FloorplanError(f"floorplan must be one of {', '.join(FLOORPLANS)}, "
                             f"not {floorplan!r}")
    if floorplan == "none":
        return {}
    if cells is None:
        raise FloorplanError(f"{floorplan}: the architecture declares no floorplannable cells "
                             f"(archs.floorplans)")
    modules = netlist.get("modules", {})
    tops = [m for m, v in modules.items() if str(v.get("attributes", {}).get("top", "0"))
            .strip("0") != ""]
    if len(tops) != 1:
        raise FloorplanError(f"{floorplan}: the netlist has {len(tops)} top modules, not one")
    block_ram = driver_of(device).block_ram_cell
    netlist_cells = modules[tops[0]]["cells"]
    names = [n for n, c in netlist_cells.items() if c.get("type") == block_ram]
    if not names:
        raise FloorplanError(f"{floorplan}: the netlist has no {block_ram} to place")
    sites = lane_rows(names, device, cells)
    for name, site in sites.items():
        netlist_cells[name].setdefault("attributes", {})["BEL"] = site
    return sites
