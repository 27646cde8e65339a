"""Markdown (GitHub-flavoured): headings, pipe tables, footnote paragraphs and lists.

Blocks are separated by one blank line. A cell's ``|`` becomes ``/`` (it would end the cell),
and a footnote that starts with ``*`` (the mark of a capped Fmax) is escaped, so it is not read
as a list item.
"""

from ..model import Failure, Items, Notes, Report, Table

__all__ = ["render", "table_lines"]


def render(report: Report) -> str:
    """``report`` as Markdown."""
    chunks = [[f"## {report.heading}"]] if report.heading else []
    for block in report.blocks:
        chunks += _chunks(block)
    return "\n\n".join("\n".join(lines) for lines in chunks) + "\n"


def table_lines(table: Table) -> list[str]:
    """The pipe table of ``table``: header, alignment line and one line per table line."""
    headers = [c.header for c in table.columns]
    align = ["---:" if c.align == "right" else "---" for c in table.columns]
    return (["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
            + ["| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |"
               for cells in table.body])


def _item(item, n: int | None) -> str:
    if isinstance(item, Failure):
        text = f"{item.label}: **{item.status}**: {item.reason}" if item.status is not None \
            else f"{item.label}: {item.reason}"
        return "- " + text + (f" (logs: `{item.logs}`)" if item.logs else "")
    return f"{n}. {item}" if n is not None else f"- {item}"


def _chunks(block) -> list[list[str]]:
    """The blank-line separated chunks of one block."""
    if isinstance(block, Notes):
        if block.strong:
            return [[f"**{line}**" for line in block.lines]]
        return [[line.replace("*", "\\*", 1) if line.startswith("*") else line
                 for line in block.lines]]
    if isinstance(block, Items):
        items = [_item(item, n if block.numbered else None)
                 for n, item in enumerate(block.items, 1)]
        return ([[block.title]] if block.title else []) + [items]
    chunks = [[f"{'#' * block.level} {block.heading}"]] if block.heading else []
    if block.body:
        chunks.append(table_lines(block))
    elif block.empty:
        chunks.append([block.empty])
    for inner in block.after:
        chunks += _chunks(inner)
    return chunks
