"""The exploration's own state, next to the results database: one JSON line per event.

The rows of the evaluated points are in the database like any sweep's; what the database does
not hold is kept here: the candidates synthesis pruned (with their figures and why), the
points this exploration placed and routed (so a resumed run continues the same budget), the
suggestions that needed a repair. Each line is written and flushed (``fsync``) as it happens,
so ``kill -9`` loses at most the line being written; a torn last line is skipped on reading.

On start the study is rebuilt from the stored rows and this journal (:mod:`aesdse.explore.search`),
so the study and the database cannot disagree.
"""

import json
import os
from pathlib import Path

__all__ = ["Journal", "journal_path"]


def journal_path(db_path, name: str) -> Path:
    """``<database>.<experiment>.explore.jsonl`` beside the database."""
    db_path = Path(db_path)
    return db_path.with_name(f"{db_path.name}.{name}.explore.jsonl")


class Journal:
    """Append-only event log of one exploration (module documentation); ``path`` None keeps
    the events in memory only (the benchmark's replays)."""

    def __init__(self, path=None):
        self.path = Path(path) if path is not None else None
        self.events: list = []
        if self.path is not None and self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the line a kill cut short
                if isinstance(event, dict) and "event" in event:
                    self.events.append(event)

    def add(self, event: str, **fields) -> None:
        record = {"event": event, **fields}
        self.events.append(record)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def of(self, event: str) -> list:
        return [e for e in self.events if e["event"] == event]
