"""Storage of results: the SQLite database (:mod:`.database`) and the provenance of its rows
(:mod:`.provenance`: is a stored row still what the current checkout would measure?)."""
