"""The verify stage: a design point is correct before it is measured.

* :mod:`.verify`: drives a core with standard and random vectors, measures latency and cycles
  per block;
* :mod:`.testbench`: stream testbench helpers for ``amaranth.sim``;
* :mod:`.script`: the testbench as data, one script per point, and its amaranth.sim player;
* :mod:`.cxxrtl`: the compiled backend (CXXRTL models, cached on disk) playing the same scripts;
* :mod:`.vectors`: FIPS-197, SP 800-38A/C and CAVP vectors, random vectors from ``cryptography``;
* :mod:`.reference`: the pure-Python AES model built from the hardware primitives' models.
"""
