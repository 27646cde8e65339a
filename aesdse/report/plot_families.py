"""Figures across device families and of GCM cores (``aesdse plot --kind families`` and
``--kind gcm``).

``families``
    One core across device families: one bar per design and target in three panels, area in
    each family's own unit (ECP5 slices, iCE40 logic cells, asic gate equivalents; log scale,
    every bar annotated with its unit, so the panel is labelled a cross-family comparison), Fmax
    and throughput. An asic estimate has no Fmax or throughput: its bars are absent and
    annotated so.
``gcm``
    The GHASH accumulator's area (its synthesized LUT4 cells, multiplier included:
    :func:`aesdse.report.gcm.ghash_area_share`) against the GCM core's throughput, one marker
    per multiplier kind (``ghash``) and one colour per GCM family.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from ..flow.families import FAMILIES as DEVICE_FAMILIES
from ..store.database import Row
from .cells import area_of_row, family_of_row, param_value, show_value
from .lines import aggregate, varying_params
from .plot_style import (COLORS, MARKERS, STYLE, PlotError, has_column, mpl, new_figure,
                         plain_log, plot_lines, spans_decade)

__all__ = ["family_bars", "families_figure", "gcm_figure"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure


_AREA_WORDS = {"Slices": ("slice", "slices"), "Logic cells": ("logic cell", "logic cells"),
               "CLS": ("CLS", "CLS"), "CPE": ("CPE", "CPEs"), "GE": ("GE", "GE")}


def family_bars(rows: list[Row]) -> list[dict]:
    """The bars of :func:`families_figure`: one dict per design and target (seeds aggregated by
    median Fmax), in family order (ECP5, iCE40, asic) then table order, with ``label``,
    ``family``, ``area`` (in the family's own unit), ``area_unit`` (``Slices``, ``Logic cells``,
    ``GE``), ``area_text`` (e.g. ``"2,000 slices"``), ``fmax_mhz`` and ``throughput_mbps``
    (None for an asic estimate)."""
    entries = plot_lines(rows)
    order = list(DEVICE_FAMILIES)
    archs = {e.row.arch for e in entries}
    names = [n for n in varying_params([e.row for e in entries], with_seed=False)
             if n != "arch"]
    bars = []
    for e in entries:
        r = e.row
        family = family_of_row(r)
        area, unit = area_of_row(r)
        words = _AREA_WORDS.get(unit, (unit or "", unit or ""))
        design = (r.arch + " " if len(archs) > 1 else "") + ", ".join(
            f"{n.removeprefix('flow.')}={show_value(param_value(r, n))}" for n in names if has_column(r, n))
        info = DEVICE_FAMILIES.get(family)
        target = r.target if family != "asic" else "asic estimate"
        bars.append({
            "label": "\n".join(textwrap.wrap(design.strip(), 34) + [target]),
            "family": family, "family_title": info.title if info else "unknown",
            "area": area, "area_unit": unit,
            "area_text": "-" if area is None else
            f"{area:,.0f} {words[0] if round(area) == 1 else words[1]}",
            "fmax_mhz": r.fmax_mhz, "throughput_mbps": r.throughput_mbps})
    bars.sort(key=lambda b: order.index(b["family"]) if b["family"] in order else len(order))
    return bars


def families_figure(rows: list[Row], title: str | None = None) -> Figure:
    """One core across device families; see the module docstring (kind ``families``)."""
    from matplotlib.patches import Patch
    bars = family_bars(rows)
    colors = {f: COLORS[i % len(COLORS)]
              for i, f in enumerate(dict.fromkeys(b["family_title"] for b in bars))}
    cross = len(colors) > 1
    panels = (("area", "Area (each family's own unit, log)"),
              ("fmax_mhz", "Fmax (MHz)"), ("throughput_mbps", "Throughput (Mbit/s)"))
    with mpl().rc_context(STYLE):
        lines = sum(b["label"].count("\n") + 1 for b in bars)
        fig = new_figure(0.9 + len(panels) * (0.3 + 0.11 * lines + 0.05 * len(bars)))
        axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
        positions = list(range(len(bars)))
        for ax, (key, xlabel) in zip(axes, panels):
            values = [b[key] for b in bars]
            ax.barh(positions, [v or 0 for v in values], height=0.7,
                    color=[colors[b["family_title"]] for b in bars])
            ax.set_yticks(positions, [b["label"] for b in bars])
            ax.invert_yaxis()
            ax.grid(axis="y", visible=False)
            drawn = [v for v in values if v]
            top = max(drawn, default=1.0)
            if key == "area":
                ax.set_xscale("log")
                plain_log(ax.xaxis)
                ax.set_xlim(min(drawn, default=1.0) / 2, top * 8)
            else:
                ax.set_xlim(0, top * 1.45)
            for i, (b, v) in enumerate(zip(bars, values)):
                if key == "area":
                    text = " " + b["area_text"]
                elif v is None:
                    text = " none: asic estimate" if b["family"] == "asic" else " -"
                else:
                    text = f" {v:,.1f}" if key == "fmax_mhz" else f" {v:,.0f}"
                x = v if v else ax.get_xlim()[0]
                ax.text(x, i, text, va="center", fontsize=5.5)
            ax.set_xlabel(xlabel)
        handles = [Patch(color=colors[f], label=f) for f in colors]
        axes[1].legend(handles=handles, loc="lower right", handlelength=1.0)
        heading = [title] if title else []
        if cross:
            heading.append("Cross-family comparison: area units differ")
        if heading:
            axes[0].set_title("\n".join(heading))
        fig.tight_layout(pad=0.3)
    return fig


def gcm_figure(rows: list[Row], title: str | None = None) -> Figure:
    """The GHASH accumulator's LUT4 against the GCM core's throughput; see the module
    docstring.

    Raises
    ------
    PlotError
        When no verified GCM row has the GHASH area recorded.
    """
    from .gcm import ghash_area_share, is_gcm_row
    entries, _ = aggregate([r for r in rows if is_gcm_row(r)])
    points = [(ghash_area_share(e.row)[0], e.row) for e in entries]
    points = [(area["luts"], row.throughput_mbps / 1000, row) for area, row in points
              if area and area["luts"] and row.throughput_mbps]
    if not points:
        raise PlotError("No verified GCM point has the GHASH area (details[\"instances\"]) and "
                        "a throughput: re-run the GCM points with aesdse sweep --force")
    kinds = sorted({str(r.params.get("ghash")) for _, _, r in points})
    colors = {a: COLORS[i % len(COLORS)]
              for i, a in enumerate(sorted({r.arch for _, _, r in points}))}
    with mpl().rc_context(STYLE):
        fig = new_figure(2.6)
        ax = fig.add_subplot()
        for i, kind in enumerate(kinds):
            for arch, color in colors.items():
                mine = [(x, y) for x, y, r in points
                        if str(r.params.get("ghash")) == kind and r.arch == arch]
                if mine:
                    ax.scatter([x for x, _ in mine], [y for _, y in mine], color=color,
                               marker=MARKERS[i % len(MARKERS)], s=16, zorder=3,
                               linewidths=0, label=f"{arch}, {kind}")
        ax.set_xscale("log")
        plain_log(ax.xaxis)
        if spans_decade([y for _, y, _ in points]):
            ax.set_yscale("log")
            plain_log(ax.yaxis)
        ax.set_xlabel("GHASH accumulator area (LUT4 cells after synthesis)")
        ax.set_ylabel("Throughput (Gbit/s)")
        left_out = len(entries) - len(points)
        if left_out:
            ax.text(0.99, 0.01, f"{left_out} GCM point{'s' * (left_out != 1)} without the "
                    f"GHASH area left out", transform=ax.transAxes, ha="right", va="bottom",
                    fontsize=5.5, color="#555555")
        if title:
            ax.set_title(title)
        ax.legend(loc="best", handletextpad=0.3, borderaxespad=0.3)
        fig.tight_layout(pad=0.3)
    return fig
