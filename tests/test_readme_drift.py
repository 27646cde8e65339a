"""README.md and docs/*.md: every table of measured numbers is generated from results/reference/
(bench/readme.py), and a hand edit of a generated number is caught."""

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from aesdse.experiment import load_experiment
from aesdse.store.database import Row, Store

from conftest import fixture_rows

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def readme_tool():
    spec = importlib.util.spec_from_file_location("bench_readme", ROOT / "bench" / "readme.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.fixture
def reference(readme_tool):
    store = readme_tool.open_reference_store()
    yield store
    store.close()


def quickstart_row(luts=4000, fmax=105.5) -> Row:
    """A verified row of the quick start's one design point (what a sweep would store)."""
    point = load_experiment(ROOT / "experiments" / "quickstart.yaml").points[0]
    throughput = 128 * fmax / 10
    return Row(key="k-quickstart", experiment="quickstart", arch=point.arch,
               params=point.params_dict, target=point.target.label, flow=point.flow.as_dict(),
               seed=point.flow.seed, freq_mhz=point.flow.freq_mhz, status="ok", luts=luts,
               ffs=526, brams=0, slices=luts // 2, fmax_mhz=fmax, fmax_raw_mhz=fmax,
               latency_cycles=11, cycles_per_block=10, throughput_mbps=throughput,
               mbps_per_lut=throughput / luts, mbps_per_slice=throughput / (luts // 2))


def test_the_documents_match_the_reference_results(readme_tool, reference):
    documents = readme_tool.documents()
    assert ROOT / "README.md" in documents
    drifts = readme_tool.check(documents, reference)
    assert not drifts, ("generated blocks differ from results/reference/; run `python "
                        "bench/readme.py --write`:\n" + "\n".join(d.diff for d in drifts))


def test_the_readme_has_the_generated_records_table():
    readme = (ROOT / "README.md").read_text()
    assert "<!-- aesdse:table records (python bench/records.py) -->" in readme
    assert "<!-- aesdse:end records -->" in readme


def test_an_edited_number_in_a_copy_of_the_readme_is_caught(readme_tool, reference, tmp_path):
    copy = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", copy)
    text = copy.read_text()
    block = next(m for m in readme_tool.BLOCK.finditer(text) if re.search(r"\d", m["body"]))
    digit = block.start("body") + re.search(r"\d", block["body"]).start()
    edited = text[:digit] + str((int(text[digit]) + 1) % 10) + text[digit + 1:]
    copy.write_text(edited)
    drifts = readme_tool.check([copy], reference)
    assert [d.path for d in drifts] == [copy]
    assert readme_tool.main([str(copy)]) == 1
    assert readme_tool.main(["--write", str(copy)]) == 0
    assert copy.read_text() == text


def test_tables_come_from_the_rows_and_an_edited_number_is_caught(readme_tool, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# Results\n\n<!-- aesdse:table report/quickstart -->\n<!-- aesdse:end "
                   "report/quickstart -->\n\nprose\n\n<!-- aesdse:table records (old) -->\nhand "
                   "typed 999\n<!-- aesdse:end records -->\n")
    with Store(":memory:") as store:
        for row in fixture_rows() + [quickstart_row()]:
            store.put(row)
        assert readme_tool.check([doc], store, write=True)
        text = doc.read_text()
        assert "<!-- aesdse:table report/quickstart (aesdse report experiments/quickstart.yaml)" \
            " -->" in text
        assert "| 4,000 |" in text and "105.5" in text and "prose" in text
        assert "hand typed 999" not in text and "2,560 Mbit/s at 100.0 MHz" in text
        assert not readme_tool.check([doc], store)
        doc.write_text(text.replace("| 4,000 |", "| 4,001 |"))
        (drift,) = readme_tool.check([doc], store)
        assert "-| LFE5U-85F-8CABGA381 | 4,001 |" in drift.diff
        assert "+| LFE5U-85F-8CABGA381 | 4,000 |" in drift.diff


def test_a_table_without_rows_is_an_honest_placeholder(readme_tool):
    with Store(":memory:") as store:
        text = readme_tool.render_block("compare/002", store)
        assert text.startswith("*Not yet in `results/reference/`")
        assert "aesdse sweep experiments/pipelined.yaml" in text and "aesdse db export" in text
        store.put(quickstart_row())
        assert "| 4,000 |" in readme_tool.render_block("report/quickstart", store)


def test_an_unknown_block_name_is_an_error(readme_tool):
    with Store(":memory:") as store, pytest.raises(ValueError, match="unknown generated block"):
        readme_tool.regenerate("<!-- aesdse:table nonsense -->\n<!-- aesdse:end nonsense -->",
                               store)


def test_exported_rows_are_read_back_for_the_documents(readme_tool, tmp_path):
    exchange = pytest.importorskip("aesdse.store.exchange")
    (tmp_path / "ref").mkdir()
    with Store(tmp_path / "db.sqlite") as store:
        store.put(quickstart_row(luts=3998))
        exchange.export_rows(store, tmp_path / "ref" / "quickstart.jsonl", store.rows())
    reference = readme_tool.open_reference_store(tmp_path / "ref")
    try:
        assert "| 3,998 |" in readme_tool.render_block("report/quickstart", reference)
    finally:
        reference.close()
