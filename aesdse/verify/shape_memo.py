"""Amaranth's ``shape()`` of an operator or a concatenation, computed once per value.

Amaranth 0.5 computes ``Operator.shape()`` and ``Concat.shape()`` from the operands' shapes on
every call, without keeping the answer, and its simulator, netlist builder and RTLIL back end
ask for the shape of a value at every use. A value that several expressions share (a tower-field
S-box's subterms, the XOR network of a merged linear layer) is asked once per path that reaches
it, so the work grows with the number of paths, not of values: in one 14-round unrolled core
with tower S-boxes, 3.1 million ``shape()`` calls for 0.55 million operators, 32 of the 55 s it
took to build its simulator (the class of amaranth-lang/amaranth#1659).

Amaranth values are immutable: an operator's operands and every operand's shape are fixed when
it is made, so its shape is too. :func:`install` keeps the first answer on the value. Nothing
else changes: the same shapes, the same RTLIL byte for byte, the same simulation
(tests/test_verify_shape_memo.py). This module is not part of any generator fingerprint
(:mod:`aesdse.fingerprint`), since it cannot change a design.
"""

from amaranth.hdl import Cat, Const

__all__ = ["install", "installed", "MEMOIZED"]

_KEY = "_aesdse_shape"

#: The classes whose shapes are kept: Amaranth's operator and concatenation, found by the values
#: they make (their module, ``amaranth.hdl._ast``, is private).
MEMOIZED = (type(Const(0, 1) + Const(0, 1)), type(Cat(Const(0, 1), Const(0, 1))))


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


def installed() -> bool:
    """Whether :func:`install` has run in this process."""
    return all(hasattr(cls.shape, "__wrapped__") for cls in MEMOIZED)


def install() -> None:
    """Keep the shape of every operator and concatenation made from now on (idempotent). A
    version of Amaranth whose values have no instance dictionary is left as it is."""
    for cls in MEMOIZED:
        if hasattr(cls.shape, "__wrapped__") or "__slots__" in vars(cls):
            continue
        cls.shape = _memoized(cls.shape)
