"""Work Amaranth 0.5 repeats when it builds a large design, done once.

Two costs grow with the design's sharing and size, not with what it does:

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

Nothing else changes: the same shapes, the same memory contents and warnings, the same RTLIL
byte for byte and the same simulation (tests/test_verify_amaranth_memo.py). This module is part
of no generator fingerprint (:mod:`aesdse.fingerprint`): it cannot change a design.
"""

from amaranth.hdl import Cat, Const, Shape
from amaranth.lib.memory import MemoryData

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


def installed() -> bool:
    """Whether :func:`install` has run in this process."""
    return (all(hasattr(cls.shape, "__wrapped__") for cls in MEMOIZED)
            and hasattr(_MEMORY_NAMESPACE.get(_INIT_CHECK), "__wrapped__"))


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
