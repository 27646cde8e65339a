"""Lattice ECP5 primitives instantiated by hand, where inference does not give what a core needs.

In the spirit of Amaranth's vendor modules (``amaranth.vendor``): the device primitive behind a
small builder, so that an architecture states what it wants (a ROM with the output register on)
and not the primitive's 150 port and parameter names.

:func:`dp16kd_rom`
    A DP16KD block RAM (Lattice FPGA-DS-02012, "sysMEM Memory"; FPGA-TN-02204, "ECP5 and ECP5-5G
    Memory Usage Guide") used as a ROM read on one or two ports, with the output register on
    (``REGMODE="OUTREG"``), which Yosys never enables when it infers a block RAM: data two cycles
    after the address. The block-RAM S-box (:class:`archs.prims.sbox.BramSBox`) and the T-box
    tables with output register (:class:`archs.prims.tbox.TBoxBank`) are built with it.
:func:`dp16kd_initvals`
    The ``INITVAL_00`` .. ``INITVAL_3F`` parameters holding a table.
"""

from amaranth.hdl import ClockSignal, Const, Instance

__all__ = ["DP16KD_DEPTHS", "dp16kd_initvals", "dp16kd_rom"]

#: Data width of a DP16KD port in true-dual-port mode -> words (16 Kbit plus parity).
DP16KD_DEPTHS = {9: 2048, 18: 1024}

#: First address pin of a word address per data width: in x9 mode AD2..AD0 and in x18 mode
#: AD3..AD0 are not word address bits (byte enables for writes in x18 mode).
_ADDRESS_SHIFT = {9: 3, 18: 4}


def dp16kd_initvals(table, width=9) -> dict:
    """``INITVAL_00`` .. ``INITVAL_3F`` of a DP16KD holding ``table`` in 2048 x 9 mode
    (``width=9``) or 1024 x 18 mode (``width=18``).

    Each parameter is 320 bits: 16 groups of 20 bits, each two 9-bit words (or one 18-bit word)
    and the rest padding, so parameter ``n`` holds words ``32n .. 32n + 31`` (``16n .. 16n + 15``
    at width 18; the layout nextpnr-ecp5 reads in ``bitstream.cc`` and Yosys's
    ``brams_map_16kd.v`` writes). Returns a dict of parameter name to 320-bit :class:`Const`.

    Raises
    ------
    ValueError
        If ``width`` is not 9 or 18.
    """
    if width not in DP16KD_DEPTHS:
        raise ValueError(f"DP16KD initialisation width must be 9 or 18, not {width!r}")
    per_group = 18 // width
    depth = DP16KD_DEPTHS[width]
    words = list(table) + [0] * (depth - len(table))
    params = {}
    for n in range(64):
        value = 0
        for j in range(16):
            group = 0
            for k in range(per_group):
                group |= words[16 * per_group * n + per_group * j + k] << (width * k)
            value |= group << (20 * j)
        params[f"INITVAL_{n:02X}"] = Const(value, 320)
    return params


def dp16kd_rom(table, *, width, ports, domain="sync"):
    """A DP16KD as a ROM holding ``table``, read on one or two ports with the output register
    on: the data of an address presented in cycle ``k`` is there in cycle ``k + 2``.

    Parameters
    ----------
    table : sequence of int
        At most :data:`DP16KD_DEPTHS` ``[width]`` words of ``width`` bits.
    width : int
        Port data width: 9 (2048 x 9) or 18 (1024 x 18).
    ports : sequence of (Value, Value)
        One or two ``(address, data)`` pairs, for ports A and B: the word address (at most
        11 or 10 bits, zero-extended) and the value the read data drives (at most ``width``
        bits; the upper read bits are left open). Without a second pair port B is idle (no
        clock, no clock enable).
    domain : str
        Clock domain of the read ports.

    Returns
    -------
    Instance
        The DP16KD, to be added as a submodule.

    Raises
    ------
    ValueError
        For a width other than 9 or 18, or not one or two ports.
    """
    if width not in DP16KD_DEPTHS:
        raise ValueError(f"DP16KD width must be 9 or 18, not {width!r}")
    if len(ports) not in (1, 2):
        raise ValueError(f"A DP16KD has one or two read ports, not {len(ports)!r}")
    used = {"A": True, "B": len(ports) == 2}
    shift = _ADDRESS_SHIFT[width]
    params = {}
    for p in "AB":
        params[f"p_DATA_WIDTH_{p}"] = width
    for p in "AB":
        params[f"p_REGMODE_{p}"] = "OUTREG" if used[p] else "NOREG"
    params.update(p_CSDECODE_A="0b000", p_CSDECODE_B="0b000",
                  p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL",
                  p_CLKAMUX="CLKA", p_CLKBMUX="CLKB",
                  p_GSR="DISABLED", p_INIT_DATA="STATIC")
    # The connection order (clocks and enables, address, write data, read data, chip selects)
    # is the order of the cell's connections in the netlist.
    for p in "AB":
        on = Const(int(used[p]), 1)
        params.update({f"i_CLK{p}": ClockSignal(domain) if used[p] else Const(0, 1),
                       f"i_CE{p}": on, f"i_OCE{p}": on, f"i_WE{p}": Const(0, 1),
                       f"i_RST{p}": Const(0, 1)})
    params.update({f"p_{k}": v for k, v in dp16kd_initvals(table, width=width).items()})
    pairs = dict(zip("AB", ports))
    for p in "AB":
        addr = pairs[p][0] if used[p] else Const(0, 0)
        params.update({f"i_AD{p}{k}": (addr[k - shift] if shift <= k < shift + len(addr)
                                       else Const(0, 1)) for k in range(14)})
    for p in "AB":
        params.update({f"i_DI{p}{k}": Const(0, 1) for k in range(18)})
    for p in "AB":
        if used[p]:
            params.update({f"o_DO{p}{k}": pairs[p][1][k] for k in range(len(pairs[p][1]))})
    for p in "AB":
        params.update({f"i_CS{p}{k}": Const(0, 1) for k in range(3)})
    return Instance("DP16KD", **params)
