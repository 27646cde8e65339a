"""The names a report can be asked for: the kinds of table and figure and their formats.

Only names, no rendering: the command line builds its choices from here without importing the
renderers (and matplotlib, the device tables, the statistics) before a command needs them. The
renderers import these names from here, so each is declared once.
"""

__all__ = ["FORMATS", "FMAX_STATS", "GROUP_BY", "CRITICAL_PATH_FORMATS", "GCM_FORMATS",
           "PLOT_KINDS", "PLOT_AREAS", "PLOT_METRICS"]

#: Formats of the metrics table (:func:`aesdse.report.table.render`); the command line adds
#: ``html``, the self-contained report (:mod:`aesdse.report.html`).
FORMATS = ("markdown", "csv", "latex", "json")

#: How rows that differ only by seed become one line.
FMAX_STATS = ("median", "best", "min", "all")

#: How ``render`` can split a table.
GROUP_BY = ("family",)

#: Output formats of the critical-path report (:mod:`aesdse.report.critical_path`).
CRITICAL_PATH_FORMATS = ("markdown", "json")

#: Output formats of the GCM table (:mod:`aesdse.report.gcm`).
GCM_FORMATS = ("markdown", "csv", "latex", "json")

#: Figures :func:`aesdse.report.plot.plot` draws.
PLOT_KINDS = ("pareto", "sweep", "bars", "families", "gcm")

#: Area measures of a figure: name -> axis label.
PLOT_AREAS = {
    "luts": "Area (LUT4)",
    "slices": "Area (logic slices; ECP5 slice = 2 LUT4 + 2 FF)",
    "slice-eq": "Area (slice-equivalents, block RAM included)",
}

#: Metrics a sweep figure can plot: Row attribute -> axis label.
PLOT_METRICS = {
    "luts": "LUT4", "ffs": "FF", "brams": "BRAM (18 Kb)", "slices": "Slices",
    "fmax_mhz": "Fmax (MHz)", "latency_cycles": "Latency (cycles)",
    "cycles_per_block": "Cycles/block", "throughput_mbps": "Throughput (Mbit/s)",
    "mbps_per_lut": "Mbit/s per LUT4", "mbps_per_slice": "Mbit/s per slice",
}
