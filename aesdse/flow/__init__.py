"""The open FPGA flow: finding the tools (:mod:`.tools`), Yosys (:mod:`.yosys`) and nextpnr
(:mod:`.nextpnr`), one driver per device family (:mod:`.families`).

Importing the package builds the family registry, which registers each driver's tools with
:mod:`.tools`: a tool is known wherever the flow is imported.
"""

from . import families  # registers the drivers' tools in tools.TOOLS
