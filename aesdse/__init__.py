"""aesdse: design-space exploration for AES hardware.

The data flow, one module per stage: :mod:`~aesdse.experiment` (YAML -> design points) ->
:mod:`~aesdse.generate` (Amaranth -> RTLIL/Verilog + manifest) -> :mod:`~aesdse.verify.verify`
(simulation against the reference; measured latency and cycles per block) ->
:mod:`~aesdse.flow.yosys` (synthesis) -> :mod:`~aesdse.flow.nextpnr` (place and route) ->
:mod:`~aesdse.metrics` (derived numbers) -> :mod:`~aesdse.store.database` (SQLite) ->
:mod:`~aesdse.report` (tables and plots). :mod:`~aesdse.engine.sweep` runs the stages for an experiment.
"""

__version__ = "0.1.0"
