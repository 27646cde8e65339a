# amaranth: UnusedElaboratable=no
"""Resources counted from generated designs, beside 000 Table I."""

from aesdse.report.published import load_papers
from aesdse.report.resources import resources_markdown
from aesdse.store.database import Row
from archs.compact import Compact


def _row(key, params, resources):
    return Row(key=key, experiment="e", arch="compact", params=params, target="t", flow={},
               seed=1, freq_mhz=100.0, status="ok", luts=1, ffs=1, fmax_mhz=1.0,
               throughput_mbps=1.0, manifest={"resources": resources})


def _counted(width, shared):
    core = Compact(datapath_width=width, sbox="lut", shared_memory=shared)
    from amaranth.hdl import Fragment
    Fragment.get(core, None)  # resources are counted from the elaborated design
    return core.resources


def test_counted_from_the_design_and_beside_table_i():
    rows = [_row(f"k{w}", {"datapath_width": w, "sbox": "lut", "shared_memory": False,
                           "sbox_stages": 0, "mode": "ecb"}, _counted(w, False))
            for w in (8, 32, 64)]
    text = resources_markdown(rows, load_papers(), title="compact")
    lines = text.splitlines()
    assert lines[0] == "## compact: resources counted from the generated designs"
    assert lines[2].startswith("| arch | datapath_width | S-boxes (datapath) |")
    by_width = {line.split(" | ")[1]: line for line in lines[4:7]}
    # 000 Table I: 1 / 4 / 8 S-boxes, 1 / 1 / 2 MixColumns, AddRoundKey 8 / 32 / 64 bits.
    assert " | 1 / 1 | " in by_width["8"] and " | 8 / 8 | " in by_width["8"]
    assert " | 4 / 4 | " in by_width["32"] and " | 32 / 32 | " in by_width["32"]
    assert " | 8 / 8 | " in by_width["64"] and " | 2 / 2 | " in by_width["64"]
    assert "000 Table I" in by_width["64"]


def test_rows_without_counts():
    row = _row("k", {"datapath_width": 8}, None)
    assert resources_markdown([row]) == "(no stored design point counts its resources)\n"
