# amaranth: UnusedElaboratable=no
"""ECP5 primitives: the DP16KD initialisation layout and the DP16KD ROM builder."""

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module, Signal

from archs.prims import gf
from archs.prims.ecp5 import dp16kd_initvals, dp16kd_rom


def _decode_initvals(params):
    # nextpnr-ecp5 bitstream.cc: 16 groups of 18 data bits + 2 padding bits per INITVAL, two
    # 9-bit words per group.
    words = [0] * 2048
    for n in range(64):
        value = params[f"INITVAL_{n:02X}"].value
        for j in range(16):
            group = (value >> (20 * j)) & 0xFFFFF
            assert group >> 18 == 0
            words[32 * n + 2 * j] = group & 0x1FF
            words[32 * n + 2 * j + 1] = (group >> 9) & 0x1FF
    return words


def test_dp16kd_initvals():
    words = _decode_initvals(dp16kd_initvals(gf.SBOX))
    assert words[:256] == list(gf.SBOX)
    assert words[256:] == [0] * (2048 - 256)


def test_dp16kd_initvals_x18():
    # 1024 x 18 mode: one 18-bit word in each 20-bit group (Yosys brams_map_16kd.v init_slice).
    table = [(x * 0x9E37) & 0x3FFFF for x in range(1024)]
    params = dp16kd_initvals(table, width=18)
    for n in (0, 1, 0x3F):
        value = params[f"INITVAL_{n:02X}"].value
        assert [(value >> (20 * j)) & 0x3FFFF for j in range(16)] == table[16 * n:16 * n + 16]
        assert all((value >> (20 * j + 18)) & 3 == 0 for j in range(16))
    with pytest.raises(ValueError, match=r"^DP16KD initialisation width must be 9 or 18, not 36$"):
        dp16kd_initvals(table, width=36)



def _rom_text(**kwargs):
    m = Module()
    m.submodules.bram = dp16kd_rom(**kwargs)
    ports = [v for pair in kwargs["ports"] for v in pair]
    return rtlil.convert(m, name="top", ports=ports)


def test_dp16kd_rom_one_port_x9():
    """One port (the S-box ROM): port A in x9 mode with its output register, the address on
    ADA10..ADA3, port B without clock or clock enable."""
    addr, data = Signal(8, name="addr"), Signal(9, name="data")
    text = _rom_text(table=gf.SBOX, width=9, ports=[(addr, data)])
    assert text.count("cell \\DP16KD") == 1
    assert 'parameter \\REGMODE_A "OUTREG"' in text and 'parameter \\REGMODE_B "NOREG"' in text
    assert "parameter \\DATA_WIDTH_A 9" in text
    assert "connect \\ADA3 \\addr [0]" in text and "connect \\ADA10 \\addr [7]" in text
    assert "connect \\ADA2 1'0" in text and "connect \\ADA11 1'0" in text
    assert "connect \\CLKB 1'0" in text and "connect \\CEB 1'0" in text
    assert "connect \\CEA 1'1" in text and "connect \\OCEA 1'1" in text
    assert "DOB0" not in text


def test_dp16kd_rom_two_ports_x18():
    """Two ports (the T-box tables): both x18 with output registers, the address on AD13..AD4."""
    ports = [(Signal(10, name=f"addr{p}"), Signal(16, name=f"data{p}")) for p in range(2)]
    text = _rom_text(table=[x & 0xFFFF for x in range(1024)], width=18, ports=ports)
    assert 'parameter \\REGMODE_A "OUTREG"' in text and 'parameter \\REGMODE_B "OUTREG"' in text
    assert "parameter \\DATA_WIDTH_B 18" in text
    assert "connect \\ADB4 \\addr1 [0]" in text and "connect \\ADB13 \\addr1 [9]" in text
    assert "connect \\ADB3 1'0" in text
    assert "connect \\CEB 1'1" in text and "DOB15" in text and "DOB16" not in text


@pytest.mark.parametrize("kwargs,message", [
    ({"width": 36, "ports": [(Signal(8), Signal(9))]}, r"^DP16KD width must be 9 or 18, not 36$"),
    ({"width": 9, "ports": []}, r"^A DP16KD has one or two read ports, not 0$"),
])
def test_dp16kd_rom_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dp16kd_rom(gf.SBOX, **kwargs)
