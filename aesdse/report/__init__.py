"""Reports: comparison tables (:mod:`.table`) and plots (:mod:`.plot`) from the results database."""
