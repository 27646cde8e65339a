"""The verify stage: a design point is correct before it is measured.

* :mod:`.verify`: checks a core on scripts played by one backend (Verilator by default, else
  amaranth.sim, or CXXRTL), measures latency and cycles per block from the playbacks;
* :mod:`.blocks`: what is checked: the blocks a core is sent, with the expected results;
* :mod:`.script`: the testbench as data, one script per point, and its amaranth.sim player;
* :mod:`.testbench`: stream testbench helpers for ``amaranth.sim``;
* :mod:`.cxxrtl`, :mod:`.verilator`: the compiled backends (models cached on disk) playing the
  same scripts; :mod:`.netlist`: netlist-level models;
* :mod:`.vectors`: FIPS-197, SP 800-38A/C and CAVP vectors, random vectors from ``cryptography``;
* :mod:`.reference`: the pure-Python AES model built from the hardware primitives' models.
"""

from .amaranth_memo import install as _install_amaranth_memo

# Every design aesdse builds, simulates or converts passes through this package (aesdse.generate
# reads aesdse.verify.blocks): what Amaranth repeats is done once from here on.
_install_amaranth_memo()
