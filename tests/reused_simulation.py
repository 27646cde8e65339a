"""One simulator of a large core for many runs of testbenches, for tests that run one core
several times (test-only: the verify stage builds its own simulator per point)."""

from aesdse.verify.testbench import testbench_simulator

__all__ = ["ReusableSimulation"]


class ReusableSimulation:
    """One simulator of ``dut`` for many runs of testbenches, as :func:`run_testbenches` runs
    them (the clocks are set up as it describes).

    Building a simulator compiles the design to Python, which for a large core (a multi-mode
    or fully pipelined one) takes tens of seconds, far more than most runs; so the simulator
    is built once, for the first run, and reset before every later one
    (:meth:`amaranth.sim.Simulator.reset`: every signal and memory back to its initial value),
    which gives each run the core in its reset state, as a fresh core would, with clock edges
    counted from 1 again. The testbenches of a run take the simulator's testbench slots in
    order (slots are added as a run needs more; a slot without a testbench in a run returns at
    once). A run that raises discards the simulator (stopped halfway, it is never resumed or
    reset): the next run builds a new one.
    """

    def __init__(self, dut, *, clock_period: float = 1e-8, clock_multipliers: dict | None = None):
        self._dut = dut
        self._clocks = {"clock_period": clock_period, "clock_multipliers": clock_multipliers}
        self._sim = None
        self._slots = 0
        self._current = ()

    def run(self, *testbenches) -> None:
        """Simulate the core from its reset state until every testbench has returned."""
        if self._sim is None:
            self._sim = testbench_simulator(self._dut, **self._clocks)
            self._slots = 0
        else:
            self._sim.reset()
        while self._slots < len(testbenches):
            self._sim.add_testbench(self._slot(self._slots))
            self._slots += 1
        self._current = testbenches
        try:
            self._sim.run()
        except BaseException:
            self._sim = None
            raise
        finally:
            self._current = ()

    def _slot(self, n: int):
        async def slot(ctx):
            if n < len(self._current):
                await self._current[n](ctx)
        return slot
