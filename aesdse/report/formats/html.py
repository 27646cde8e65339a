"""HTML: one self-contained page (no stylesheet, script or font loaded from anywhere).

Each table gets an ``h2`` heading (``Comparison table`` when its heading would only repeat the
page's), its lines a ``data-key`` attribute with the stored row's key
where a line is one row's configuration, and numeric cells the ``num`` class (right-aligned);
footnotes are ``p.note`` paragraphs and lists ``ul`` / ``ol``. What a kind adds only in HTML
(the metrics report's interactive Pareto plot, :mod:`aesdse.report.html`) comes as ready HTML
in the report's ``extra``: ``html_before`` (lines after the page heading) and ``html_footer``
(the last paragraph).
"""

import html

from ..model import Failure, Items, Notes, Report, Table

__all__ = ["render", "STYLE"]

#: The page's style sheet, inlined.
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 80em;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.6em 0; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; white-space: nowrap; }
th { border-bottom: 2px solid #888; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note, li { font-size: 0.85em; color: #444; max-width: 60em; }
#pareto { width: 100%; height: 560px; }
div.scroll { overflow-x: auto; }
"""

_e = html.escape


def render(report: Report) -> str:
    """``report`` as one HTML page."""
    heading = f"aesdse report: {report.title}" if report.title else "aesdse report"
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{_e(heading)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
           f"<h1>{_e(heading)}</h1>"]
    out += report.extra.get("html_before", [])
    for block in report.blocks:
        out += _block(block, report.title, nested=False)
    footer = report.extra.get("html_footer", "Made by aesdse.")
    out += [f'<p class="note">{footer}</p>', "</body>", "</html>"]
    return "\n".join(out) + "\n"


def _numeric(cell: str) -> bool:
    head = cell.split(" ")[0].rstrip("*")
    return cell == "-" or head.replace(",", "").replace(".", "", 1).lstrip("-").isdigit()


def _item(item) -> str:
    if isinstance(item, Failure):
        logs = f" (logs: <code>{_e(item.logs)}</code>)" if item.logs else ""
        status = f"<b>{_e(item.status)}</b>: " if item.status is not None else ""
        return f"<li>{_e(item.label)}: {status}{_e(item.reason)}{logs}</li>"
    return f"<li>{_e(str(item))}</li>"


def _table(table: Table, page_title: str | None, nested: bool) -> list[str]:
    # A table of the report itself always has a heading; one that only repeats the page's h1
    # (a one-table report headed by its title) is the comparison table.
    heading = table.heading if table.heading != page_title else None
    if not nested:
        heading = heading or "Comparison table"
    out = [f"<h2>{_e(heading)}</h2>"] if heading else []
    if table.body:
        out.append('<div class="scroll"><table><thead><tr>'
                   + "".join(f"<th>{_e(c.header)}</th>" for c in table.columns)
                   + "</tr></thead><tbody>")
        keys = list(table.keys) + [None] * (len(table.body) - len(table.keys))
        for key, cells in zip(keys, table.body):
            out.append((f'<tr data-key="{_e(key)}">' if key else "<tr>") + "".join(
                f'<td class="num">{_e(c)}</td>' if _numeric(c) else f"<td>{_e(c)}</td>"
                for c in cells) + "</tr>")
        out.append("</tbody></table></div>")
    elif table.empty:
        out.append(f"<p>{_e(table.empty)}</p>")
    for block in table.after:
        out += _block(block, page_title, nested=True)
    return out


def _block(block, page_title: str | None, nested: bool) -> list[str]:
    if isinstance(block, Notes):
        wrap = ("<b>", "</b>") if block.strong else ("", "")
        return [f'<p class="note">{wrap[0]}{_e(line)}{wrap[1]}</p>' for line in block.lines]
    if isinstance(block, Items):
        tag = "ol" if block.numbered else "ul"
        return ([f"<p>{_e(block.title)}</p><{tag}>"] if block.title else [f"<{tag}>"]) \
            + [_item(item) for item in block.items] + [f"</{tag}>"]
    return _table(block, page_title, nested)
