"""Reports from the results database: kinds of table (:data:`aesdse.report.kinds.KINDS`), each
built once as a :class:`aesdse.report.model.Report` and printed by one renderer per format
(:mod:`aesdse.report.formats`), and figures (:mod:`.plot`)."""
