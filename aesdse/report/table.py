"""Paper-style comparison tables from stored rows: Markdown, CSV, LaTeX (booktabs) and JSON.

One row per design point: the parameters that vary across the selection lead, then area, speed
and efficiency with units in the headers. Failed points are listed below the table with their
reason; they never appear with numbers.
"""

import csv
import io
import json

from ..store import Row

__all__ = ["COLUMNS", "JSON_KEYS", "render", "FORMATS", "varying_params"]

#: (key, header, format) of the metric columns, in order.
COLUMNS = (
    ("target", "Target", "{}"),
    ("luts", "LUT4", "{:,}"),
    ("ffs", "FF", "{:,}"),
    ("brams", "BRAM", "{}"),
    ("slices", "Slices", "{:,}"),
    ("fmax_mhz", "Fmax (MHz)", "{:.1f}"),
    ("latency_cycles", "Latency (cycles)", "{}"),
    ("cycles_per_block", "Cycles/block", "{:g}"),
    ("throughput_mbps", "Throughput (Mbit/s)", "{:,.0f}"),
    ("mbps_per_lut", "Mbit/s per LUT4", "{:.3f}"),
    ("mbps_per_slice", "Mbit/s per slice", "{:.3f}"),
)

#: Keys of every JSON row (machine-readable output is stable for scripts).
JSON_KEYS = ("key", "experiment", "arch", "params", "target", "status", "reason", "luts", "ffs",
             "brams", "carries", "slices", "fmax_mhz", "fmax_raw_mhz", "fmax_capped",
             "latency_cycles", "cycles_per_block", "throughput_mbps", "mbps_per_lut",
             "mbps_per_slice", "seed", "freq_mhz", "tool_versions", "sim_seconds",
             "synth_seconds", "pnr_seconds", "artifacts")

FORMATS = ("markdown", "csv", "latex", "json")


def varying_params(rows: list[Row]) -> list[str]:
    """Names of the parameters (and the architecture, seed, target frequency) that differ
    between rows: the leading columns of a table."""
    names = []
    if len({r.arch for r in rows}) > 1:
        names.append("arch")
    for n in sorted({k for r in rows for k in r.params}):
        if len({repr(r.params.get(n)) for r in rows}) > 1:
            names.append(n)
    for n in ("seed", "freq_mhz"):
        if len({getattr(r, n) for r in rows}) > 1:
            names.append(n)
    return names


def _param(row: Row, name: str):
    if name in ("arch", "seed", "freq_mhz"):
        return getattr(row, name)
    return row.params.get(name, "")


def _cell(value, fmt):
    if value is None:
        return "-"
    return fmt.format(value)


def _table(rows, leading):
    ok = [r for r in rows if r.status == "ok"]
    headers = [n for n in leading] + [h for _, h, _ in COLUMNS]
    body = []
    for r in ok:
        cells = [str(_param(r, n)) for n in leading]
        for key, _, fmt in COLUMNS:
            text = _cell(getattr(r, key), fmt)
            if key == "fmax_mhz" and r.fmax_capped:
                text += "*"
            cells.append(text)
        body.append(cells)
    return headers, body


def _failures(rows):
    return [r for r in rows if r.status != "ok"]


def _label(row, leading):
    params = ", ".join(f"{k}={v}" for k, v in sorted(row.params.items()))
    return f"{row.arch} ({params})" if params else row.arch


def _markdown(rows, leading, title):
    headers, body = _table(rows, leading)
    out = []
    if title:
        out += [f"## {title}", ""]
    if body:
        out.append("| " + " | ".join(headers) + " |")
        out.append("|" + "|".join("---" if i < len(leading) else "---:"
                                  for i in range(len(headers))) + "|")
        out += ["| " + " | ".join(cells) + " |" for cells in body]
    else:
        out.append("(no verified points)")
    if any(r.fmax_capped for r in rows if r.status == "ok"):
        out += ["", "\\* Fmax capped at the device's data-sheet maximum: "
                + "; ".join(sorted({r.fmax_capped for r in rows if r.fmax_capped}))]
    failures = _failures(rows)
    if failures:
        out += ["", "Failed points:", ""]
        for r in failures:
            reason = (r.reason or "").splitlines()[0] if r.reason else "(no reason recorded)"
            out.append(f"- {_label(r, leading)}: **{r.status}**: {reason}"
                       + (f" (logs: `{r.artifacts}`)" if r.artifacts else ""))
    return "\n".join(out) + "\n"


def _csv(rows, leading):
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["arch"] + [n for n in leading if n != "arch"] + ["status"]
                    + [k for k, _, _ in COLUMNS] + ["reason"])
    for r in rows:
        writer.writerow([r.arch] + [_param(r, n) for n in leading if n != "arch"] + [r.status]
                        + ["" if getattr(r, k) is None else getattr(r, k) for k, _, _ in COLUMNS]
                        + [(r.reason or "").splitlines()[0] if r.reason else ""])
    return buf.getvalue()


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#",
                  "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _latex(rows, leading, title):
    headers, body = _table(rows, leading)
    spec = "l" * len(leading) + "r" * len(COLUMNS)
    out = [r"\begin{table}", r"\centering"]
    if title:
        out.append(r"\caption{" + _latex_escape(title) + "}")
    out += [r"\begin{tabular}{" + spec + "}", r"\toprule",
            " & ".join(_latex_escape(h) for h in headers) + r" \\", r"\midrule"]
    out += [" & ".join(_latex_escape(c).replace(",", "{,}") for c in cells) + r" \\"
            for cells in body]
    out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(out) + "\n"


def _json(rows):
    return json.dumps([{k: getattr(r, k) for k in JSON_KEYS} for r in rows], indent=2) + "\n"


def render(rows: list[Row], fmt: str = "markdown", title: str | None = None) -> str:
    """Render ``rows`` as a table in ``fmt`` (one of :data:`FORMATS`)."""
    leading = varying_params(rows)
    if fmt == "markdown":
        return _markdown(rows, leading, title)
    if fmt == "csv":
        return _csv(rows, leading)
    if fmt == "latex":
        return _latex(rows, leading, title)
    if fmt == "json":
        return _json(rows)
    raise ValueError(f"Format must be one of {', '.join(FORMATS)}, not {fmt!r}")
