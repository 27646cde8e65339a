"""Rough edges found by trying aesdse as a new user: each input that was accepted or crashed is
now a clear error (or a named, skipped row), and the help of every command teaches by example."""

import sqlite3

import click
import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.experiment import ExperimentError, parse_experiment
from aesdse.spec.schema import LIMITS

GOOD = """\
name: edges
architectures:
  - arch: iterative
flow:
  seeds: 1
"""


@pytest.mark.parametrize("char", ["\x85", "\u2028", "\u2029"])
def test_a_line_break_editors_do_not_see_is_an_error_at_the_editors_line(char):
    # YAML counts U+0085/U+2028/U+2029 as line breaks; an editor does not. Left in, every later
    # error line would be off by one against the editor's count.
    text = GOOD.replace("name: edges", f'name: "ed{char}ges"')
    with pytest.raises(ExperimentError, match=r"^x\.yaml:1: character U\+"):
        parse_experiment(text + "description: [\n", "x.yaml")


def test_an_escaped_line_separator_is_fine():
    exp = parse_experiment(GOOD.replace("name: edges", 'name: edges\ndescription: "a\\u2028b"'),
                           "x.yaml")
    assert exp.description == "a\u2028b"


def test_an_empty_seed_list_is_an_error_not_an_empty_sweep():
    with pytest.raises(ExperimentError, match=r"^x\.yaml:5: seeds: empty list"):
        parse_experiment(GOOD.replace("seeds: 1", "seeds: []"), "x.yaml")


@pytest.mark.parametrize("name", ["x" * (LIMITS["name_chars"] + 1), "tab\there", "bell\x07"])
def test_experiment_names_are_short_and_printable(name):
    text = GOOD.replace("name: edges", f"name: {name!r}".replace("'", '"').replace("\t", "\\t")
                        .replace("\x07", "\\a"))
    with pytest.raises(ExperimentError, match=r"^x\.yaml:1: name: .* must be at most 100 "
                                              r"printable characters"):
        parse_experiment(text, "x.yaml")


def test_a_name_at_the_limit_is_fine():
    name = "n" * LIMITS["name_chars"]
    assert parse_experiment(GOOD.replace("edges", name), "x.yaml").name == name


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_bram_rate_must_be_a_finite_number_in_range(fixture_db, value):
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db),
                                       "--bram-slices-per-kbit", value])
    assert result.exit_code == 2
    assert "--bram-slices-per-kbit" in result.output


def test_a_row_with_a_corrupted_json_column_is_named_and_skipped(fixture_db):
    with sqlite3.connect(fixture_db) as db:
        db.execute("UPDATE points SET details = '{not json' WHERE key = 'k-c8-2'")
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db)])
    assert result.exit_code == 0, result.output
    assert "row k-c8-2 of" in result.stderr and "details is not valid JSON" in result.stderr
    assert "Traceback" not in result.output
    # The other rows are still reported.
    assert "compact" in result.stdout
    listed = CliRunner().invoke(main, ["db", "list", "--all", "--db", str(fixture_db)])
    assert listed.exit_code == 0 and "row k-c8-2 of" in listed.stderr


def _commands(group: click.Group, path=()):
    for name, command in sorted(group.commands.items()):
        yield path + (name,)
        if isinstance(command, click.Group):
            yield from _commands(command, path + (name,))


@pytest.mark.parametrize("command", list(_commands(main)), ids=" ".join)
def test_every_command_and_group_has_help_with_an_example(command):
    result = CliRunner().invoke(main, list(command) + ["--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output


def test_progress_lines_name_the_target(rows):
    from dataclasses import replace

    from aesdse.engine.progress import label_of
    one = rows[0]
    other = replace(one, target="iCE40UP5K-sg48")
    assert "on LFE5U-85F-8CABGA381 @100MHz seed=1" in label_of(one)
    assert label_of(one) != label_of(other) and "on iCE40UP5K-sg48" in label_of(other)


def test_the_docs_show_the_error_the_tool_prints():
    # docs/experiments.md: the example experiment with `sbox: lutt` gives exactly the error shown.
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parent.parent / "docs" / "experiments.md").read_text()
    block = re.search(r"^# Experiments.*?```yaml\n(.*?)```", page, re.S | re.M).group(1)
    shown = re.search(r"^Error: (experiments/x\.yaml:\d+: sbox: 'lutt' .*)$", page, re.M)
    assert shown, "docs/experiments.md no longer shows the sbox: 'lutt' error"
    with pytest.raises(ExperimentError) as error:
        parse_experiment(block.replace("sbox: lut", "sbox: lutt", 1), "experiments/x.yaml")
    assert str(error.value) == shown.group(1)
