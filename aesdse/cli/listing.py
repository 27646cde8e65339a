"""``aesdse list``: what aesdse knows (the architecture families and their parameters)."""

import json

import click

from .common import show

__all__ = ["list_group"]


@click.group("list")
def list_group():
    """List what aesdse knows.

    \b
    Example:
      aesdse list archs
      aesdse list archs --json
    """


@list_group.command("archs")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_archs(as_json):
    """Architecture families, each parameter with its allowed values and default.

    \b
    Example:
      aesdse list archs
    """
    import archs
    if as_json:
        click.echo(json.dumps({
            name: {"doc": f.doc, "kind": f.kind, "key_sizes": list(f.key_sizes),
                   "directions": list(f.directions), "modes": list(f.modes),
                   "params": {p.name: {"choices": list(p.choices), "default": p.default,
                                       "doc": p.doc} for p in f.params}}
            for name, f in sorted(archs.FAMILIES.items())}, indent=2))
        return
    for name, f in sorted(archs.FAMILIES.items()):
        click.echo(f"{name}: {f.doc}")
        for p in f.params:
            choices = ", ".join(show(c) for c in p.choices)
            click.echo(f"  {p.name:<16} {{{choices}}} default {show(p.default)}: {p.doc}")
