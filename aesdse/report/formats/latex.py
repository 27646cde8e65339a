"""LaTeX: one booktabs ``table`` float per table, its footnotes under the tabular.

A float holds its table's columns and blocks that are marked ``in_latex``
(:mod:`aesdse.report.model`): footnotes, failed points (``Failed: ...``) and numbered items
(``[n] ...``, as the table's notes cite them). A report of several tables starts with its heading
and notes as comment lines. Text is escaped (:func:`latex_escape`); a comma in a cell (a thousands
separator) is braced, ``{,}``.
"""

from ..model import Failure, Items, Notes, Report, Table

__all__ = ["render", "latex_escape"]

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#",
                  "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    text = "".join(_LATEX_SPECIAL.get(c, c) for c in text)
    return text.replace("±", r"$\pm$")


def render(report: Report) -> str:
    """``report`` as LaTeX floats."""
    comments = [report.heading] if report.heading else []
    comments += [line for b in report.blocks if isinstance(b, Notes) for line in b.lines]
    head = "".join(f"% {line}\n" for line in comments if line)
    return head + "\n".join(_float(t) for t in report.tables)


def _footnotes(blocks) -> list[str]:
    lines = []
    for block in blocks:
        if isinstance(block, Notes) and block.in_latex:
            lines += block.lines
        elif isinstance(block, Items) and block.in_latex:
            for n, item in enumerate(block.items, 1):
                if isinstance(item, Failure):
                    lines.append(f"Failed: {item.label}: {item.status}: {item.reason}")
                else:
                    lines.append(f"[{n}] {item}" if block.numbered else str(item))
    return [latex_escape(line) for line in lines]


def _float(table: Table) -> str:
    shown = [i for i, c in enumerate(table.columns) if c.in_latex]
    spec = "".join("l" if (table.columns[i].latex_align or table.columns[i].align) == "left"
                   else "r" for i in shown)
    out = [r"\begin{table}", r"\centering"]
    if table.caption:
        out.append(r"\caption{" + latex_escape(table.caption) + "}")
    out += [r"\begin{tabular}{" + spec + "}", r"\toprule",
            " & ".join(latex_escape(table.columns[i].header) for i in shown) + r" \\",
            r"\midrule"]
    out += [" & ".join(latex_escape(cells[i]).replace(",", "{,}") for i in shown) + r" \\"
            for cells in (table.body if table.latex_body is None else table.latex_body)]
    out += [r"\bottomrule", r"\end{tabular}"]
    lines = _footnotes(table.after)
    if lines:
        out += [r"\par\smallskip\footnotesize"] + [line + r"\\" for line in lines[:-1]] \
            + [lines[-1]]
    out += [r"\end{table}"]
    return "\n".join(out) + "\n"
