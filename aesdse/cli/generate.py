"""``aesdse generate``: the Verilog and manifest of one design point."""

from pathlib import Path

import click

from .common import LazyChoice

__all__ = ["generate_cmd"]


def _family_names():
    import archs
    return sorted(archs.FAMILIES)


def _parse_params(values):
    """``NAME=VALUE`` options -> a dict; each value is read as a YAML scalar, as in an
    experiment file (``true`` is a boolean, ``8`` an integer, ``8.0`` a float), and
    :func:`~aesdse.experiment.make_point` checks it as the experiment loader does."""
    from ..spec import yamlcheck
    params = {}
    for item in values:
        if "=" not in item:
            raise click.BadParameter(f"{item!r} must be NAME=VALUE", param_hint="--param")
        name, text = item.split("=", 1)
        try:
            value = yamlcheck.load(text, max_depth=2)
        except yamlcheck.YamlError as e:
            raise click.BadParameter(f"{item!r}: {e.message}", param_hint="--param") from None
        params[name] = value
    return params


@click.command("generate")
@click.argument("arch", type=LazyChoice(_family_names))
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Architecture parameter (repeatable); see `aesdse list archs`.")
@click.option("--preset", metavar="NAME",
              help="Start from the family's preset NAME (see `aesdse list archs`); --param "
                   "overrides it.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              default=Path("out"), show_default=True, help="Output directory.")
@click.option("--target", type=click.Choice(["generic", "ecp5"]), default="generic",
              show_default=True,
              help="Netlist flavour: portable, or with ECP5 primitives (e.g. DP16KD).")
def generate_cmd(arch, params, preset, output, target):
    """Write the Verilog and JSON manifest of one design point of ARCH.

    The top module is named after the design point; output is deterministic. The manifest
    lists the architecture, its parameters, every port with its width (and a payload's
    fields), the key sizes, directions and modes this core takes (not its family's) and the
    byte-order convention.

    \b
    Example:
      aesdse generate iterative --param sbox=lut -o out/
      aesdse generate unrolled --preset record_iterative_logic --param lean_control=false
    """
    from ..experiment import ExperimentError, make_point
    from ..flow.tools import ToolNotFound
    from ..generate import GenerateError, generate, write_verilog
    try:
        point = make_point(arch, _parse_params(params), preset=preset)
        design = generate(point, target=target)
        verilog = write_verilog(design, output)
    except (ExperimentError, GenerateError, ToolNotFound) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"{verilog}\n{verilog.with_suffix('.json')}")
