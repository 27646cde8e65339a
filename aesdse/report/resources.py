"""Architectural resources counted from the generated designs, beside a paper's resource table.

Zhou & Gaj (seed 000) Table I lists, per datapath width, the state memory, the number of S-box
(SubByte) and MixColumn units and the AddRoundKey width. aesdse does not type those numbers in:
a core that can count its own parts exposes a ``resources`` dictionary (for example
:attr:`archs.compact.Compact.resources`, counted from the elaborated design), the generate stage
copies it into the point's manifest, and this module prints it from the database, with the
published counts beside it where a published row names the same configuration.
"""

from ..store.database import Row
from .matching import matches_config
from .formats import render
from .model import Column, Notes, Records, Report, Table

__all__ = ["RESOURCE_COLUMNS", "resources_report", "resources_markdown"]

#: (manifest key, header, published column key or None) of the resource table.
RESOURCE_COLUMNS = (
    ("datapath_sbox_instances", "S-boxes (datapath)", "sbox_units"),
    ("key_sbox_instances", "S-boxes (key schedule)", None),
    ("mixcolumns_units", "MixColumns units", "mixcolumn_units"),
    ("state_memory_bits", "State memory (bit)", "memory"),
    ("buffer_bits", "Buffer (bit)", None),
    ("addroundkey_width", "AddRoundKey (bit)", "addroundkey_bits"),
)


def _resource_rows(rows: list[Row]):
    # One line per configuration: seeds, frequencies and flow options do not change the design.
    seen = {}
    for r in rows:
        resources = (r.manifest or {}).get("resources")
        if not resources:
            continue
        config = (r.arch, tuple(sorted(r.params.items())))
        seen.setdefault(config, (r, resources))
    return list(seen.values())


def _published_row(row: Row, papers):
    for paper in papers:
        for table in paper.tables:
            if not any(c.key in ("sbox_units", "mixcolumn_units") for c in table.columns):
                continue
            for prow in table.rows:
                if prow.config and matches_config(row, prow.config):
                    return paper, table, prow
    return None


def resources_report(rows: list[Row], papers=(), title: str | None = None) -> Report:
    """The counted resources of ``rows`` (those whose manifest has any) as a report, with
    ``counted / published`` cells where a published resource table has the same
    configuration; a line says so when no row counts its resources."""
    entries = _resource_rows(rows)
    heading = f"{title}: resources counted from the generated designs" if title else None
    if not entries:
        table = Table((), (), heading=heading, caption=heading,
                      empty="(no stored design point counts its resources)")
        return Report("resources", (table,), Records((), ()), [], title=title)
    names = sorted({k for r, _ in entries for k in r.params})
    varying = [n for n in names if len({repr(r.params.get(n)) for r, _ in entries}) > 1]
    headers = ["arch"] + varying + [h for _, h, _ in RESOURCE_COLUMNS] + ["published as"]
    columns = tuple(Column(h, "left" if i <= len(varying) or i == len(headers) - 1 else "right")
                    for i, h in enumerate(headers))
    sources, body = set(), []

    def order(entry):
        # Numbers in numeric order (8 before 32), everything else by its text.
        values = [entry[0].params.get(n) for n in varying]
        return entry[0].arch, [(0, v, "") if isinstance(v, (int, float)) and
                               not isinstance(v, bool) else (1, 0, repr(v)) for v in values]
    for row, res in sorted(entries, key=order):
        match = _published_row(row, papers)
        cells = [row.arch] + [str(row.params.get(n, "")).lower() for n in varying]
        for key, _, pub_key in RESOURCE_COLUMNS:
            text = "-" if res.get(key) is None else str(res[key])
            if match and pub_key:
                published = match[2].values.get(pub_key)
                if published is not None:
                    text += f" / {published}"
            cells.append(text)
        if match:
            paper, table, prow = match
            sources.add(f"{paper.key} {table.id}")
            cells.append(f"{paper.key} {table.id}, {prow.label}")
        else:
            cells.append("")
        body.append(tuple(cells))
    after = ()
    if sources:
        after = (Notes(("Cells read `counted / published` (" + ", ".join(sorted(sources))
                        + "). The published memory column is kept as printed; its unit is not "
                        "stated in the paper (see experiments/published).",)),)
    table = Table(columns, tuple(body), heading=heading, caption=heading, after=after)
    return Report("resources", (table,), Records(tuple(headers), tuple(body)),
                  [dict(zip(headers, cells)) for cells in body], title=title)


def resources_markdown(rows: list[Row], papers=(), title: str | None = None) -> str:
    """:func:`resources_report` as Markdown."""
    return render(resources_report(rows, papers, title), "markdown")
