"""The names a report can be asked for: the kinds of table and figure and their formats.

Only names, no rendering: the command line builds its choices from here without importing the
renderers (and matplotlib, the device tables, the statistics) before a command needs them. The
renderers import these names from here, so each is declared once.
"""

__all__ = ["FORMATS", "FILE_FORMATS", "TEXT_FORMATS", "KINDS", "FMAX_STATS", "GROUP_BY",
           "CRITICAL_PATH_FORMATS", "GCM_FORMATS", "PLOT_KINDS", "PLOT_AREAS", "PLOT_METRICS"]

#: The output formats of a report, each one renderer: ``aesdse/report/formats/<name>.py``
#: (:mod:`aesdse.report.formats`) turns any report (:class:`aesdse.report.model.Report`) into
#: that format.
FORMATS = ("markdown", "csv", "latex", "json", "html")

#: Formats that are a file to open, not text to read in a terminal: ``aesdse report`` writes
#: them with ``-o FILE`` only.
FILE_FORMATS = ("html",)

#: The formats printed as text.
TEXT_FORMATS = tuple(f for f in FORMATS if f not in FILE_FORMATS)

#: Output formats of the critical-path report (:mod:`aesdse.report.critical_path`): a path has
#: more fields than a paper's table has room for.
CRITICAL_PATH_FORMATS = ("markdown", "json")

#: Output formats of the GCM table (:mod:`aesdse.report.gcm`).
GCM_FORMATS = TEXT_FORMATS

#: The kinds of report: name -> the formats it is printed in. Each kind is a function that
#: builds a :class:`aesdse.report.model.Report` from stored rows: ``metrics``
#: (:func:`aesdse.report.metrics.metrics_report`), ``front``
#: (:func:`aesdse.report.front.front_table`), ``compare``
#: (:func:`aesdse.report.compare.compare_report`), ``gcm``
#: (:func:`aesdse.report.gcm.gcm_report`), ``critical-path``
#: (:func:`aesdse.report.critical_path.critical_path_report`), ``resources``
#: (:func:`aesdse.report.resources.resources_report`) and ``rows``
#: (:func:`aesdse.report.history.history_report`: every stored row of one configuration).
KINDS = {"metrics": FORMATS, "front": FORMATS, "compare": TEXT_FORMATS, "gcm": GCM_FORMATS,
         "critical-path": CRITICAL_PATH_FORMATS, "resources": ("markdown",),
         "rows": ("markdown", "json")}

#: How rows that differ only by seed become one line.
FMAX_STATS = ("median", "best", "min", "all")

#: How ``render`` can split a table.
GROUP_BY = ("family",)


#: Figures :func:`aesdse.report.plot.plot` draws.
PLOT_KINDS = ("pareto", "sweep", "bars", "families", "gcm", "explore")

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
