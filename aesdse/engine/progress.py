"""Progress display of a sweep.

On a terminal, one status line is redrawn in place (plain ANSI: carriage return and erase line)
about once a second: points done, failed, cached and running, the stage of each running point,
elapsed time and an ETA from the mean time of the points finished so far. Finished points are
printed above it as ordinary lines. Off a terminal (CI logs, pipes) only the finished-point lines
are printed, one per point, with no redrawing.
"""

import sys
import threading
import time

from ..flow.families import FAMILIES, part_of
from ..spec.schema import flow_choices

__all__ = ["Progress"]

_ERASE = "\r\x1b[2K"


def _fmt_time(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Counts and display of a running sweep.

    Parameters
    ----------
    total : int
        Design points in the sweep.
    echo : callable or None
        ``print``-like line writer; None makes the display silent (counts are still kept).
    live : bool or None
        Redraw a status line in place; default: whether stdout is a terminal.
    stream : file, optional
        Where the live line is drawn (default ``sys.stdout``).
    slots : int
        Points that can run at once (for the ETA).
    """

    def __init__(self, total: int, echo=print, *, live: bool | None = None, stream=None,
                 slots: int = 1):
        self.total, self.echo = total, echo
        self.stream = stream or sys.stdout
        if live is None:
            live = echo is not None and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.live = bool(live) and echo is not None
        self.slots = max(1, slots)
        self.start = time.perf_counter()
        self.done = self.failed = self.cached = 0
        self.running: dict = {}   # key -> (label, stage, since)
        self._ran_seconds = 0.0
        self._finished = set()
        self._lock = threading.RLock()
        self._drawn = False
        self._ticker = None

    # --- events -------------------------------------------------------------------------------

    @property
    def finished(self) -> int:
        return self.done + self.cached

    def cached_points(self, rows) -> None:
        """Points found in the database: counted, summarised in one line."""
        rows = list(rows)
        with self._lock:
            self.cached += len(rows)
            self.failed += sum(r.status != "ok" for r in rows)
        if rows and self.echo is not None:
            failed = sum(r.status != "ok" for r in rows)
            self._line(f"{len(rows)} of {self.total} points already in the database"
                       + (f" ({failed} failed)" if failed else ""))

    def stored_meanwhile(self, row) -> None:
        """A point found in the database when its turn came (another sweep finished it)."""
        with self._lock:
            self._finished.add(row.key)
            self.running.pop(row.key, None)
            self.cached += 1
            self.failed += row.status != "ok"
        if self.echo is not None:
            self._line(f"[{self.finished}/{self.total} {self.elapsed():6.1f}s] "
                       f"{'stored':<19} {label_of(row)} (finished by another sweep)")

    def stage(self, key: str, label: str, stage: str) -> None:
        """Point ``key`` entered ``stage`` (it is running)."""
        with self._lock:
            if key in self._finished:
                return  # a late event of a point already finished (events and results race)
            since = self.running.get(key, (None, None, time.perf_counter()))[2]
            self.running[key] = (label, stage, since)
        self._redraw()

    def point_done(self, row, seconds: float | None = None) -> None:
        """A point finished (``row`` is its stored row)."""
        with self._lock:
            self._finished.add(row.key)
            entry = self.running.pop(row.key, None)
            self.done += 1
            if row.status != "ok":
                self.failed += 1
            if seconds is None and entry is not None:
                seconds = time.perf_counter() - entry[2]
            self._ran_seconds += seconds or 0.0
        if self.echo is None:
            return
        detail = ""
        if row.status == "ok" and row.fmax_mhz is None:  # an estimate: no clock in MHz
            driver = FAMILIES.get(getattr(part_of(row.target or ""), "family", None))
            detail = driver.progress_detail(row) if driver else ""
        elif row.status == "ok":
            detail = (f" {row.luts} LUT4, {row.ffs} FF, {row.fmax_mhz:.1f} MHz, "
                      f"{row.cycles_per_block:g} cycles/block, {row.throughput_mbps:.0f} Mbit/s")
        elif row.reason:
            detail = " " + row.reason.splitlines()[0][:120]
        hits = getattr(row, "cache_hits", None)
        cached = f" [cache: {hits}]" if hits else ""
        self._line(f"[{self.finished}/{self.total} {self.elapsed():6.1f}s] {row.status:<19} "
                   f"{label_of(row)}{detail}{cached}")

    def warn(self, text: str) -> None:
        if self.echo is not None:
            self._line(f"warning: {text}")

    # --- numbers -------------------------------------------------------------------------------

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def eta(self) -> float | None:
        """Seconds left: pending points times the mean run time, over the parallel slots."""
        with self._lock:
            if not self.done:
                return None
            left = self.total - self.finished
            return left * (self._ran_seconds / self.done) / min(self.slots, max(left, 1))

    def status_line(self) -> str:
        with self._lock:
            eta = self.eta()
            parts = [f"{self.finished}/{self.total} done", f"{self.failed} failed",
                     f"{self.cached} cached", f"{len(self.running)} running",
                     f"elapsed {_fmt_time(self.elapsed())}",
                     f"ETA {_fmt_time(eta) if eta is not None else '?'}"]
            now = time.perf_counter()
            counts = {}
            for _, stage, _ in self.running.values():
                counts[stage] = counts.get(stage, 0) + 1
            oldest = min(self.running.values(), key=lambda r: r[2], default=None)
        line = ", ".join(parts)
        if counts:
            line += " | " + ", ".join(f"{stage} {n}" for stage, n in sorted(counts.items()))
            label, stage, since = oldest
            line += f" | longest: {label} ({stage}, {_fmt_time(now - since)})"
        return line

    # --- drawing -------------------------------------------------------------------------------

    def _width(self) -> int:
        import shutil
        return max(40, shutil.get_terminal_size((100, 20)).columns - 1)

    def _line(self, text: str) -> None:
        with self._lock:
            if self.live and self._drawn:
                self.stream.write(_ERASE)
                self.stream.flush()
                self._drawn = False
            self.echo(text)
            self._redraw()

    def _redraw(self) -> None:
        if not self.live:
            return
        with self._lock:
            self.stream.write(_ERASE + self.status_line()[:self._width()])
            self.stream.flush()
            self._drawn = True

    def __enter__(self):
        if self.live:
            self._stop = threading.Event()

            def tick():
                while not self._stop.wait(1.0):
                    self._redraw()
            # A daemon thread: it only redraws, and must never keep a killed sweep alive.
            self._ticker = threading.Thread(target=tick, name="aesdse-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc):
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        with self._lock:
            if self.live and self._drawn:
                self.stream.write(_ERASE)
                self.stream.flush()
                self._drawn = False


def label_of(row) -> str:
    """Readable name of a stored point: architecture, parameters, its target (a sweep over
    several devices prints one line per device) and the flow values that tell apart points of
    one design (frequency, seed, the synthesis switches and nextpnr choices)."""
    return (row.arch + "".join(f" {k}={v}" for k, v in sorted(row.params.items()))
            + f" on {row.target} @{row.freq_mhz:g}MHz seed={row.seed}"
            + flow_choices(row.flow or {}))
