"""Explicit YAML type tags whose value the tag does not take (``!!int abc``): an error at the
value's line naming the tag and the value, in an experiment file and in ``generate --param``,
never a traceback."""

import random

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.experiment import ExperimentError, load_experiment, parse_experiment

GOOD = """\
name: tags
architectures:
  - arch: iterative
    params:
      sbox: [lut]
      sbox_stages: [0]
flow:
  freq_mhz: [100]
  seeds: 1
"""

#: (tag and value, what the message names)
BAD = [
    ("!!bool maybe", "!!bool 'maybe'"),
    ("!!int abc", "!!int 'abc'"),
    ("!!float x", "!!float 'x'"),
    ("!!timestamp 2001-13-45", "!!timestamp '2001-13-45'"),
    ("!!binary ***", "!!binary ***"),
]


@pytest.mark.parametrize("tagged, named", BAD, ids=[t for t, _ in BAD])
def test_a_bad_tagged_value_in_an_experiment_names_file_line_tag_and_value(
        tagged, named, tmp_path):
    path = tmp_path / "tags.yaml"
    path.write_text(GOOD.replace("seeds: 1", f"seeds: {tagged}"))
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    message = str(info.value)
    assert message.startswith(f"{path}:9: "), message
    assert named in message, message


@pytest.mark.parametrize("tagged, named", BAD, ids=[t for t, _ in BAD])
def test_a_bad_tagged_parameter_value_is_a_usage_error(tagged, named, tmp_path):
    result = CliRunner().invoke(main, ["generate", "iterative", "--param",
                                       f"sbox_stages={tagged}", "-o", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert f"Error: Invalid value for --param: 'sbox_stages={tagged}': " in result.output
    assert named in result.output.split(f"{tagged}': ", 1)[1]


#: Tags of the safe loader (and two it has no constructor for), and values, some of which
#: each tag takes.
FUZZ_TAGS = ["!!bool", "!!int", "!!float", "!!timestamp", "!!binary", "!!null", "!!str",
             "!!set", "!!omap", "!!pairs", "!!seq", "!!map", "!!merge", "!!python/none",
             "!<tag:yaml.org,2002:int>", "!local"]
FUZZ_VALUES = ["maybe", "abc", "x", "2001-13-45", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
               "***", "'***'", "aGVsbG8=", "1", "-0x1f", "0b101", "0o17", "1_000", "1e400",
               ".nan", "-.inf", "true", "~", "''", "[1, 2]", "{a: 1}", "{a, b}", "[a: 1]",
               "[{a: 1}, {b: 2}]", "lut", "100"]


def _mutants(count: int, seed: int = 45):
    """``count`` copies of :data:`GOOD` with one or two of its values replaced by a random tag
    and value (in a list or not), or by a tag the value already has (``!!int 100``), which
    loads."""
    rng = random.Random(seed)
    lines = GOOD.splitlines()
    slots = [n for n, line in enumerate(lines) if ": " in line]
    for _ in range(count):
        mutant = list(lines)
        for n in rng.sample(slots, rng.randint(1, 2)):
            key, value = mutant[n].split(": ", 1)
            if rng.random() < 0.3:
                tag = {"100": "!!int", "1": "!!int", "lut": "!!str", "0": "!!int"}.get(
                    value.strip("[]"), "!!str")
                value = value.strip("[]")
            else:
                tag, value = rng.choice(FUZZ_TAGS), rng.choice(FUZZ_VALUES)
            tagged = f"{tag} {value}"
            mutant[n] = f"{key}: {f'[{tagged}]' if rng.random() < 0.5 else tagged}"
        yield "\n".join(mutant) + "\n"


def test_random_tags_and_values_load_or_are_experiment_errors():
    outcomes = {"loaded": 0, "refused": 0}
    for text in _mutants(400):
        try:
            parse_experiment(text, "fuzz.yaml")
            outcomes["loaded"] += 1
        except ExperimentError as error:
            assert str(error).startswith("fuzz.yaml:"), (text, str(error))
            outcomes["refused"] += 1
    # Both outcomes occur: the mutations are not all refused by the same first check.
    assert outcomes["loaded"] and outcomes["refused"] > outcomes["loaded"], outcomes
