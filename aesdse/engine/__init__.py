"""The engine: runs every stage of every design point of an experiment.

* :mod:`.sweep`: the scheduler (which points to run, resume, claims) and the recorder (rows into
  the store);
* :mod:`.executors`: where points run (this process, a process pool, Dask);
* :mod:`.point`: one point's pipeline, generate -> verify -> synthesize -> place and route ->
  metrics -> row;
* :mod:`.cache`: the content-addressed stage cache;
* :mod:`.fmax_search`: the search of a point's Fmax over nextpnr targets and seeds;
* :mod:`.progress`: the progress lines of a sweep;
* :mod:`.upgrade`: stored rows carried over a generator change that left their netlist
  unchanged (``aesdse db upgrade``).
"""
