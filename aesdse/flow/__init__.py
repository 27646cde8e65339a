"""The open FPGA flow: finding the tools (:mod:`.tools`), Yosys (:mod:`.yosys`) and nextpnr
(:mod:`.nextpnr`)."""
