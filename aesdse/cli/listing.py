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
    """Architecture families: each parameter with its allowed values and default (under its
    group, where the family groups them), then the family's presets.

    In an experiment, a group is written as a mapping (`keys: {key_schedule: precomputed}`)
    or its parameters by their own names; a preset is an entry's starting point
    (`preset: record_pipelined`) that its params override.

    \b
    Example:
      aesdse list archs
      aesdse list archs --json
    """
    import archs
    if as_json:
        click.echo(json.dumps({
            name: {"doc": f.doc, "kind": f.kind, "key_sizes": list(f.key_sizes),
                   "directions": list(f.directions), "modes": list(f.modes),
                   "params": {p.name: {"choices": list(p.choices), "default": p.default,
                                       "doc": p.doc, "group": f.group_of(p.name)}
                              for p in f.params},
                   "groups": {g: list(members) for g, members in f.groups.items()},
                   "presets": {n: {"doc": pr.doc, "params": pr.params}
                               for n, pr in sorted(f.presets.items())}}
            for name, f in sorted(archs.FAMILIES.items())}, indent=2))
        return
    for name, f in sorted(archs.FAMILIES.items()):
        click.echo(f"{name}: {f.doc}")
        ungrouped = [p for p in f.params if f.group_of(p.name) is None]
        for group, members in [(None, ungrouped)] + [
                (g, [f.param(m) for m in names]) for g, names in f.groups.items()]:
            indent = "  "
            if group is not None:
                click.echo(f"  {group}:")
                indent = "    "
            for p in members:
                choices = ", ".join(show(c) for c in p.choices)
                click.echo(f"{indent}{p.name:<22} {{{choices}}} default {show(p.default)}: "
                           f"{p.doc}")
        for preset, pr in sorted(f.presets.items()):
            values = ", ".join(f"{k}={show(v)}" for k, v in sorted(pr.params.items()))
            click.echo(f"  preset {preset}: {pr.doc}\n    {values}")
