"""Work Amaranth 0.5 repeats when it builds a large design, done once.

Three costs grow with the design's sharing and size, not with what it does:

* **Shapes.** ``Operator.shape()`` and ``Concat.shape()`` compute a value's shape from its
  operands' shapes on every call, without keeping the answer, and the simulator, the netlist
  builder and the RTLIL back end ask for the shape of a value at every use. A value that several
  expressions share (a tower-field S-box's subterms, the XOR network of a merged linear layer)
  is asked once per path that reaches it: in one 14-round unrolled core with tower S-boxes, 3.1
  million ``shape()`` calls for 0.55 million operators, 32 of the 55 s it took to build its
  simulator (the class of amaranth-lang/amaranth#1659). Amaranth values are immutable (an
  operator's operands and their shapes are fixed when it is made), so the first answer is kept
  on the value.
* **Memory contents.** ``MemoryData.Init`` checks every element through the general
  initial-value path (``Const.cast``, width and sign warnings): 3.3 ms for a 256-byte S-box
  table, and the unrolled architecture tests make 7,838 of them. An ``int`` that already fits
  an unsigned shape is its own value; every other element takes Amaranth's path.
* **Shared subexpressions in the simulator.** Building a :class:`~amaranth.sim.Simulator`
  checks, collects and lowers the design's values (clock and reset signals resolved) with walks
  that visit a value once per path that reaches it, and the lowering makes a new copy at each
  path, so a value that ten expressions share becomes ten values. The simulator's Python code
  generator then writes a shared value out in full at each use: a tower S-box's subterms are
  compiled and computed once per path. While a simulator is built, the walks visit a value
  once (per fragment or domain map), the lowering keeps one copy per value, and the code
  generator gives a value used more than once a local variable, defined where it is first
  needed and used wherever that definition has run (the same block of the generated function,
  or one nested in it). Only values read in the current cycle (``curr``) are shared: they do
  not change while a process runs. Amaranth's right-hand side check at every ``+=`` of a module
  asks a value once (it is immutable: once passed, it passes). Measured on a 10-round unrolled
  core with 6-stage tower S-boxes (paired runs, 2 cores): its simulator built in 3.8-5.0 s
  instead of 11.2-12.2 s, 200 cycles in 0.5-0.8 s instead of 2.3-2.7 s; with composite S-boxes
  the same build time and 200 cycles in 1.0 s instead of 1.4 s; tests/test_archs_unrolled.py
  301 test-seconds instead of 376.

Nothing else changes: the same shapes, the same memory contents and warnings, the same RTLIL
byte for byte (the walks and the lowering share only while a simulator is built) and the same
simulation (tests/test_verify_amaranth_memo.py). This module is part of no generator fingerprint
(:mod:`aesdse.fingerprint`): it cannot change a design.
"""

import contextlib
import contextvars
import importlib
import itertools

from amaranth.hdl import Cat, Const, Shape
from amaranth.lib.memory import MemoryData
from amaranth.sim import Simulator

__all__ = ["install", "installed", "MEMOIZED"]

_KEY = "_aesdse_shape"

#: The classes whose shapes are kept: Amaranth's operator and concatenation, found by the values
#: they make (their module, ``amaranth.hdl._ast``, is private).
MEMOIZED = (type(Const(0, 1) + Const(0, 1)), type(Cat(Const(0, 1), Const(0, 1))))

#: The module namespace in which ``MemoryData.Init`` looks up its element check.
_MEMORY_NAMESPACE = MemoryData.Init.__setitem__.__globals__
_INIT_CHECK = "_get_init_value"


def _memoized(shape):
    def memoized_shape(self):
        try:
            return self.__dict__[_KEY]
        except KeyError:
            found = self.__dict__[_KEY] = shape(self)
            return found
    memoized_shape.__wrapped__ = shape
    memoized_shape.__doc__ = shape.__doc__
    return memoized_shape


def _fast_init_value(check):
    def init_value(init, shape, what="signal"):
        # An unsigned shape given as a width or a Shape; type() is int excludes bool and enums.
        if type(init) is int and init >= 0:
            if type(shape) is int and not init >> shape:
                return init
            if type(shape) is Shape and not shape.signed and not init >> shape.width:
                return init
        return check(init, shape, what)
    init_value.__wrapped__ = check
    return init_value


# --- shared subexpressions while a simulator is built ---------------------------------------
#
# Amaranth's private modules, patched by name: the simulator's code generator and the domain
# lowering. A version without the names patched here is left as it is (install() checks).

def _private(name):
    try:
        return importlib.import_module(name)
    except ImportError:   # another Amaranth version
        return None


_PYRTL = _private("amaranth.sim._pyrtl")
_XFRM = _private("amaranth.hdl._xfrm")
#: The compound values (everything but constants and signals), by their class names.
_COMPOUND = ("Operator", "Slice", "Part", "Concat", "SwitchValue")
_building_simulator = contextvars.ContextVar("aesdse_building_simulator", default=False)
_IR = _private("amaranth.hdl._ir")
_SIM_PATCHES = (
    (_XFRM, "DomainCollector", "on_value"),
    (_IR, "Design", "_collect_used_signals_value"),
    (_XFRM, "DomainLowerer", "on_value"),
    (_PYRTL, "_PythonEmitter", "indent"),
    (_PYRTL, "_StatementCompiler", "__call__"),
    (_PYRTL, "_ValueCompiler", "on_value"),
)
#: The attribute a simulator patch keeps the function it wraps in (``__wrapped__`` is taken:
#: contextlib sets it on the emitter's ``indent``).
ORIGINAL = "_aesdse_original"


def _compound_classes():
    ast = importlib.import_module("amaranth.hdl._ast")
    return tuple(getattr(ast, name) for name in _COMPOUND)


def _domains_collected_once(on_value):
    """DomainCollector.on_value visiting each compound value once per set of local domains (a
    fragment's) while a simulator is built: it only collects the domains used."""
    compound = _compound_classes()

    def collected_once(self, value):
        if not _building_simulator.get() or type(value) not in compound:
            return on_value(self, value)
        seen = self.__dict__.setdefault("_aesdse_seen", {})
        found = seen.get(id(value))
        if found is not None and found[0] is value and found[1] is self._local_domains:
            return None
        seen[id(value)] = (value, self._local_domains)
        return on_value(self, value)
    setattr(collected_once, ORIGINAL, on_value)
    return collected_once


def _signals_collected_once(collect):
    """Design._collect_used_signals_value visiting each compound value once per fragment while
    a simulator is built: marking a signal used twice in a fragment is marking it once."""
    compound = _compound_classes()

    def collected_once(self, fragment, value):
        if not _building_simulator.get() or type(value) not in compound:
            return collect(self, fragment, value)
        seen = self.__dict__.setdefault("_aesdse_seen", {})
        key = (id(fragment), id(value))
        if key in seen:
            return None
        seen[key] = (fragment, value)
        return collect(self, fragment, value)
    setattr(collected_once, ORIGINAL, collect)
    return collected_once


def _checked_once(check):
    """Amaranth's right-hand side check (``hdl._dsl._check_rhs``, run at every ``+=`` of a
    module) asking each compound value once: values are immutable, so one that passed, passes."""
    compound = _compound_classes()

    def checked_once(value):
        if type(value) not in compound:
            return check(value)
        if value.__dict__.get(_CHECKED):
            return None
        check(value)
        value.__dict__[_CHECKED] = True
        return None
    setattr(checked_once, ORIGINAL, check)
    return checked_once


_CHECKED = "_aesdse_rhs_checked"
_DSL = _private("amaranth.hdl._dsl")
_RHS_CHECK = "_check_rhs"


def _shared_lowering(on_value):
    """DomainLowerer.on_value keeping one lowered copy of each compound value per domain map
    while a simulator is built (the domain map changes per fragment)."""
    compound = _compound_classes()

    def lowered_once(self, value):
        if not _building_simulator.get() or type(value) not in compound:
            return on_value(self, value)
        memo = self.__dict__.setdefault("_aesdse_lowered", {})
        key = (id(self.domains), id(value))
        found = memo.get(key)
        if found is not None and found[0] is value:
            return found[1]
        new_value = on_value(self, value)
        memo[key] = (value, new_value, self.domains)   # the keys' objects kept alive
        return new_value
    setattr(lowered_once, ORIGINAL, on_value)
    return lowered_once


def _scoped_indent(indent):
    """_PythonEmitter.indent also naming the block it opens: a variable defined in a block is
    visible in the blocks nested in it, not after it."""
    blocks = itertools.count()

    @contextlib.contextmanager
    def scoped(self):
        outer = self.__dict__.get("_aesdse_scope", ())
        self._aesdse_scope = outer + (next(blocks),)
        try:
            with indent(self):
                yield
        finally:
            self._aesdse_scope = outer
    setattr(scoped, ORIGINAL, indent)
    return scoped


def _use_counts(stmts, compound) -> dict:
    """How many expressions use each compound value read by ``stmts`` (by ``id``), each value
    walked once."""
    counts = {}
    keep = []
    values = []

    def walk_statement(stmt):
        kind = type(stmt).__name__
        if kind == "Assign":
            values.append(stmt.rhs)
            lhs_reads(stmt.lhs)
        elif kind == "Switch":
            values.append(stmt.test)
            for _patterns, body, *_ in stmt.cases:
                walk_statement(body)
        elif kind == "Property":
            values.append(stmt.test)
        elif kind == "Print":
            pass
        else:   # a list of statements
            for sub in stmt:
                walk_statement(sub)

    def lhs_reads(lhs):
        kind = type(lhs).__name__
        if kind == "Part":
            values.append(lhs.offset)
            lhs_reads(lhs.value)
        elif kind == "Slice":
            lhs_reads(lhs.value)
        elif kind == "Concat":
            for part in lhs.parts:
                lhs_reads(part)
        elif kind == "SwitchValue":
            values.append(lhs.test)
            for _patterns, elem in lhs.cases:
                lhs_reads(elem)

    walk_statement(stmts)
    while values:
        value = values.pop()
        if type(value) not in compound:
            continue
        seen = counts.get(id(value), 0)
        counts[id(value)] = seen + 1
        if seen:
            continue
        keep.append(value)
        kind = type(value).__name__
        if kind == "Operator":
            values.extend(value.operands)
        elif kind == "Slice":
            values.append(value.value)
        elif kind == "Part":
            values += [value.value, value.offset]
        elif kind == "Concat":
            values.extend(value.parts)
        else:   # SwitchValue
            values.append(value.test)
            values.extend(elem for _patterns, elem in value.cases)
    counts[None] = keep
    return counts


def _counting_call(call):
    """_StatementCompiler.__call__ counting, on its first (whole-domain) call, the uses of each
    value its right-hand sides read."""
    compound = _compound_classes()

    def counted(self, stmt):
        if _building_simulator.get() and "_aesdse_counts" not in self.rhs.__dict__:
            self.rhs._aesdse_counts = _use_counts(stmt, compound)
        return call(self, stmt)
    setattr(counted, ORIGINAL, call)
    return counted


def _hoisted_value(on_value):
    """_ValueCompiler.on_value giving a value with two or more uses a local variable, in the
    right-hand side compilers that counted them (reading ``curr``)."""

    def hoisted(self, value):
        counts = self.__dict__.get("_aesdse_counts")
        if (counts is None or getattr(self, "mode", None) != "curr"
                or counts.get(id(value), 0) < 2):
            return on_value(self, value)
        memo = self.__dict__.setdefault("_aesdse_hoisted", {})
        scope = self.emitter.__dict__.get("_aesdse_scope", ())
        found = memo.get(id(value))
        if found is not None and scope[:len(found[1])] == found[1]:
            return found[0]
        name = self.emitter.def_var("shared", on_value(self, value))
        memo[id(value)] = (name, scope)
        return name
    setattr(hoisted, ORIGINAL, on_value)
    return hoisted


def _building(init):
    def init_sharing(self, *args, **kwargs):
        token = _building_simulator.set(True)
        try:
            init(self, *args, **kwargs)
        finally:
            _building_simulator.reset(token)
    setattr(init_sharing, ORIGINAL, init)
    return init_sharing


def _sim_patch_targets():
    """(class, attribute, wrapper) of each simulator patch, or () where this Amaranth lacks
    one of them."""
    wrappers = (_domains_collected_once, _signals_collected_once, _shared_lowering,
                _scoped_indent, _counting_call, _hoisted_value)
    out = []
    for (module, cls_name, attr), wrap in zip(_SIM_PATCHES, wrappers):
        cls = getattr(module, cls_name, None) if module is not None else None
        if cls is None or not callable(getattr(cls, attr, None)):
            return ()
        out.append((cls, attr, wrap))
    out.append((Simulator, "__init__", _building))
    return tuple(out)


def _sim_installed() -> bool:
    targets = _sim_patch_targets()
    return bool(targets) and all(hasattr(getattr(cls, attr), ORIGINAL)
                                 for cls, attr, _ in targets)


def _rhs_check_installed() -> bool:
    return _DSL is None or hasattr(getattr(_DSL, _RHS_CHECK, None), ORIGINAL)


def installed() -> bool:
    """Whether :func:`install` has run in this process."""
    return (all(hasattr(cls.shape, "__wrapped__") for cls in MEMOIZED)
            and hasattr(_MEMORY_NAMESPACE.get(_INIT_CHECK), "__wrapped__")
            and _sim_installed() and _rhs_check_installed())


def install() -> None:
    """Keep the shape of every operator and concatenation made from now on, and take memory
    elements that fit as they are (idempotent). A version of Amaranth whose values have no
    instance dictionary, or whose memories check elements elsewhere, is left as it is."""
    for cls in MEMOIZED:
        if hasattr(cls.shape, "__wrapped__") or "__slots__" in vars(cls):
            continue
        cls.shape = _memoized(cls.shape)
    check = _MEMORY_NAMESPACE.get(_INIT_CHECK)
    if callable(check) and not hasattr(check, "__wrapped__"):
        _MEMORY_NAMESPACE[_INIT_CHECK] = _fast_init_value(check)
    rhs_check = getattr(_DSL, _RHS_CHECK, None) if _DSL is not None else None
    if callable(rhs_check) and not hasattr(rhs_check, ORIGINAL):
        setattr(_DSL, _RHS_CHECK, _checked_once(rhs_check))
    for cls, attr, wrap in _sim_patch_targets():
        current = getattr(cls, attr)
        if not hasattr(current, ORIGINAL):
            setattr(cls, attr, wrap(current))
