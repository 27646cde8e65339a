"""The ``aesdse`` command line: a thin layer that parses, calls one stage, and renders.

One module per command (group): :mod:`.sweep`, :mod:`.explore`, :mod:`.report` (``report`` and ``plot``),
:mod:`.reproduce`, :mod:`.generate`, :mod:`.db` and :mod:`.listing` (``list``); what they share is
in :mod:`.common`. A command imports the stages it calls inside its function, so that building
the command line (``aesdse --help``, the choices of every option) imports no architecture, tool
or renderer: ``bench/cli_startup.py`` measures it.
"""

import click

from .common import CONTEXT
from .db import db_group
from .explore import explore
from .generate import generate_cmd
from .listing import list_group
from .report import plot, report
from .reproduce import reproduce
from .sweep import sweep

__all__ = ["main"]


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="aesdse")
def main():
    """Design-space exploration for AES hardware.

    Generate AES architectures in Amaranth, verify each against FIPS-197, NIST SP 800-38A and
    random vectors from the `cryptography` package, synthesize with Yosys, place and route with
    nextpnr, and compare area, Fmax and throughput from one results database.

    \b
    Typical session:
      aesdse list archs                             what can be generated
      aesdse sweep experiments/quickstart.yaml      run every design point
      aesdse explore EXPERIMENT.yaml                search its explore: space
      aesdse report experiments/quickstart.yaml     the comparison table
    """



for command in (sweep, explore, report, plot, reproduce, generate_cmd, db_group, list_group):
    main.add_command(command)
