"""Storage of results: the SQLite database (:mod:`.database`), the records it holds
(:mod:`.rows`), its versioned schema (:mod:`.migrations`) and the provenance of its rows
(:mod:`.provenance`: is a stored row still what the current checkout would measure?)."""
