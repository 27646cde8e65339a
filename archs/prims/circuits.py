"""Published logic circuits of the AES S-box, as straight-line programs.

A straight-line program is a list of gates, one per line, ``name = expression``, each name
assigned once and read only after it is assigned. The text is kept as close to the paper's as
possible, so adding a circuit is adding its program text:

* the notation of Boyar and Peralta: ``a + b`` is XOR, ``a # b`` XNOR, ``a x b`` AND;
* anything else is a Python expression over names and the constants 0 and 1 with ``^``, ``&``,
  ``|``, ``~`` (on one bit) and ``a if s else b`` (a multiplexer); ``~(a ^ b)`` is an XNOR,
  ``~(a & b)`` a NAND, ``~(a if s else b)`` an inverting multiplexer.

:class:`Program` parses and checks the text once; :meth:`Program.evaluate` runs it on any bit
values that have ``^``, ``&`` and ``|`` (ints for the pure model, Amaranth values for the
hardware), so one text is both the reference model and the netlist. :class:`SBoxCircuit` names
the programs of one publication and the bit order it uses: the papers number the bits of a byte
from the most significant one (``U0`` is bit 7) unless said otherwise below, and every circuit is
checked exhaustively against :data:`archs.prims.gf.SBOX` / ``INV_SBOX`` in
``tests/test_prims_sbox.py``.

Circuits
--------
:data:`BOYAR_PERALTA_113`
    J. Boyar, R. Peralta, "A new combinational logic minimization technique with applications
    to cryptology", SEA 2010, LNCS 6049 (and J. Cryptology 26(2), 2013): the 113-gate forward
    S-box, 32 AND and 81 XOR/XNOR, as the Yale Circuit Minimization Team's program
    ``SLP_AES_113.txt``. Forward only.
:data:`BOYAR_PERALTA_DEPTH16`
    J. Boyar, R. Peralta, "A depth-16 circuit for the AES S-box", IFIP SEC 2012 (IACR ePrint
    2011/332, Figures 5-9): a top linear layer per direction (Fig. 5 forward, Fig. 6 inverse),
    one shared nonlinear middle (Fig. 7, its input ``D`` is ``U7`` forward and ``Y5`` inverse)
    and a bottom linear layer per direction (Figs. 8 and 9). 128 gates forward, 127 inverse;
    the combined circuit muxes the middle's inputs and the outputs between the two directions
    (section 5 of the paper shares the middle the same way).
:data:`MAXIMOV_EKDAHL_BIDIR`
    A. Maximov, P. Ekdahl, "New circuit minimization techniques for smaller and faster AES
    SBoxes", TCHES 2019(4), section 6 / appendix: the fast bidirectional S-box (input ``ZF``: 1
    for SubBytes, 0 for InvSubBytes) with XOR/XNOR, NAND/NOR, MUX/NMUX gates, transcribed from
    the modular Verilog of Boulder-Computer-Architecture-Lab/aes-sboxes
    (``sboxes/verilog/merged/maximov``: top layer ``ctop``, ``mulx``, ``inv``, ``mullc``,
    ``mulld``, ``xor8_4``). Bit ``Uk`` is bit k of the byte there.
:data:`REYHANI_MASOLEH_COMBINED`
    A. Reyhani-Masoleh, M. Taha, D. Ashmawy, "New area record for the AES combined S-box/inverse
    S-box", ARITH 2018: input transform with the direction muxed in, GF((2^2)^2) exponentiation,
    subfield inverter, output multipliers, output transform (input ``E``: 1 for SubBytes),
    transcribed from the same repository (``sboxes/verilog/merged/sbox_new_area``). Bit ``Gk``
    is bit k of the byte.
:data:`REYHANI_MASOLEH_NEW_AREA`
    A. Reyhani-Masoleh, M. Taha, D. Ashmawy, "Smashing the implementation records of AES
    S-box", TCHES 2018(2): the 'new area' forward S-box, 110 gates (input matrix, GF(2^4)
    multiplier and square-scaler, GF(2^4) inverse, multipliers, output matrix; NAND/NOR/XOR/
    XNOR), transcribed from the gate-level Verilog in BianMark/AES-128
    (``AES_128_TowerFieldSbox/.../aes_sbox.v``, the paper's appendix code). Bit ``bk`` is bit k
    of the byte. Forward only.
"""

import ast
from collections import Counter
from dataclasses import dataclass

__all__ = [
    "Program", "SBoxCircuit", "BOYAR_PERALTA_113", "BOYAR_PERALTA_DEPTH16",
    "MAXIMOV_EKDAHL_BIDIR", "REYHANI_MASOLEH_COMBINED", "REYHANI_MASOLEH_NEW_AREA", "CIRCUITS",
]

# The papers' infix notation -> Python operators (a line "a + b", "a # b" or "a x b").
_PAPER_OPS = {"+": "{} ^ {}", "#": "~({} ^ {})", "x": "{} & {}"}


def _python_expression(rhs: str) -> str:
    words = rhs.split()
    if len(words) == 3 and words[1] in _PAPER_OPS:
        return _PAPER_OPS[words[1]].format(words[0], words[2])
    return rhs


def _gate_kinds(node) -> Counter:
    """Gates of one expression: an inverter on top of a gate makes it its inverting form."""
    kinds = Counter()
    if isinstance(node, ast.UnaryOp):
        inner = node.operand
        if isinstance(inner, ast.BinOp):
            kinds[{ast.BitXor: "XNOR", ast.BitAnd: "NAND", ast.BitOr: "NOR"}[type(inner.op)]] += 1
            return kinds + _gate_kinds(inner.left) + _gate_kinds(inner.right)
        if isinstance(inner, ast.IfExp):
            kinds["NMUX"] += 1
            return kinds + sum((_gate_kinds(n) for n in (inner.test, inner.body, inner.orelse)),
                               Counter())
        kinds["NOT"] += 1
        return kinds + _gate_kinds(inner)
    if isinstance(node, ast.BinOp):
        kinds[{ast.BitXor: "XOR", ast.BitAnd: "AND", ast.BitOr: "OR"}[type(node.op)]] += 1
        return kinds + _gate_kinds(node.left) + _gate_kinds(node.right)
    if isinstance(node, ast.IfExp):
        kinds["MUX"] += 1
        return kinds + sum((_gate_kinds(n) for n in (node.test, node.body, node.orelse)),
                           Counter())
    return kinds


def _depth(node, depths) -> int:
    if isinstance(node, ast.Name):
        return depths[node.id]
    if isinstance(node, ast.Constant):
        return 0
    if isinstance(node, ast.UnaryOp):
        inner = node.operand
        # An inverted gate is one gate (XNOR, NAND, NOR, NMUX); a lone inverter counts.
        if isinstance(inner, (ast.BinOp, ast.IfExp)):
            return _depth(inner, depths)
        return 1 + _depth(inner, depths)
    if isinstance(node, ast.BinOp):
        return 1 + max(_depth(node.left, depths), _depth(node.right, depths))
    return 1 + max(_depth(n, depths) for n in (node.test, node.body, node.orelse))


_ALLOWED = (ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.BitXor, ast.BitAnd,
            ast.BitOr, ast.UnaryOp, ast.Invert, ast.IfExp)


class Program:
    """A straight-line program over bits, parsed from its text.

    Parameters
    ----------
    text : str
        One gate per line, ``name = expression`` (module notes); blank lines and ``//``
        comments are ignored.
    inputs : tuple of str
        The names the program reads without assigning them, in the order the caller gives them.
    outputs : tuple of str
        The names whose values :meth:`evaluate` returns, in order.

    Attributes
    ----------
    gates : tuple of (str, ast.expr)
        The parsed lines.
    fanout : Counter
        How often each name is read (by gates and as an output).

    Raises
    ------
    ValueError
        If a line does not parse, uses an operator outside the notation, reads a name before it
        is assigned, assigns a name twice, or an output is never assigned.
    """

    def __init__(self, text: str, *, inputs, outputs):
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        defined = set(self.inputs)
        gates = []
        self.fanout = Counter()
        for number, line in enumerate(text.splitlines(), 1):
            line = line.split("//")[0].strip()
            if not line:
                continue
            target, sep, rhs = line.partition("=")
            target = target.strip()
            try:
                if not sep or not target.isidentifier():
                    raise SyntaxError(line)
                tree = ast.parse(_python_expression(rhs.strip()), mode="eval")
            except SyntaxError:
                raise ValueError(f"Line {number} is not 'name = expression': {line!r}") from None
            for node in ast.walk(tree):
                if not isinstance(node, _ALLOWED) or (
                        isinstance(node, ast.Constant) and node.value not in (0, 1)):
                    raise ValueError(f"Line {number} uses {type(node).__name__}, which is not a "
                                     f"gate: {line!r}")
                if isinstance(node, ast.Name):
                    if node.id not in defined:
                        raise ValueError(f"Line {number} reads {node.id!r} before it is "
                                         f"assigned: {line!r}")
                    self.fanout[node.id] += 1
            if target in defined:
                raise ValueError(f"Line {number} assigns {target!r} again: {line!r}")
            defined.add(target)
            gates.append((target, tree.body))
        for name in self.outputs:
            if name not in defined:
                raise ValueError(f"Output {name!r} is never assigned")
            self.fanout[name] += 1
        self.gates = tuple(gates)

    def gate_count(self) -> Counter:
        """Gates by kind (``XOR``, ``XNOR``, ``AND``, ``NAND``, ``OR``, ``NOR``, ``NOT``,
        ``MUX``, ``NMUX``); a line that copies a name is no gate."""
        return sum((_gate_kinds(expr) for _, expr in self.gates), Counter())

    def depth(self) -> int:
        """Gates on the longest input-to-output path (an inverting gate counts once)."""
        depths = self.depths()
        return max(depths[name] for name in self.outputs)

    def depths(self) -> dict:
        """Name -> gates on the longest path from the inputs to it (inputs 0; :meth:`depth`)."""
        depths = dict.fromkeys(self.inputs, 0)
        for target, expr in self.gates:
            depths[target] = _depth(expr, depths)
        return depths

    def stage_cuts(self, stages: int) -> tuple:
        """The gate depths after which ``stages`` pipeline registers go, the last one after the
        outputs (the output register): ``round(depth * j / stages)``, so each stage has about
        the same number of gates on its longest path. Raises ``ValueError`` when the program is
        too shallow for that many stages."""
        total = self.depth()
        cuts = tuple(round(total * j / stages) for j in range(1, stages + 1))
        if stages > total or len(set(cuts)) != stages:
            raise ValueError(f"A program of depth {total} has no {stages} pipeline stages")
        return cuts

    def evaluate(self, inputs, *, mux=None, node=None, cuts=(), delay=None) -> list:
        """Run the program.

        Parameters
        ----------
        inputs : sequence
            One bit per name of :attr:`inputs` (ints 0/1, or 1-bit Amaranth values).
        mux : callable
            ``mux(select, if_one, if_zero)``; by default Python's conditional (for ints).
        node : callable
            ``node(name, value)`` is called on each assigned value that is read more than once
            and returns what later gates read (the hardware returns a named wire there); by
            default the value itself.
        cuts : tuple of int
            Pipeline cuts (:meth:`stage_cuts`): a gate of depth ``d`` is in stage
            ``#{c in cuts: c < d}`` (the inputs in stage 0), the outputs in stage ``len(cuts)``.
        delay : callable
            With ``cuts``: ``delay(name, value, from_stage, to_stage)`` returns ``value``
            delayed by ``to_stage - from_stage`` registers (the hardware's registers; the same
            name and stages must give the same registers). Called for every read across a cut.

        Returns the values of :attr:`outputs`, in order.
        """
        mux = mux or (lambda s, a, b: a if s else b)
        env = dict(zip(self.inputs, inputs, strict=True))
        depths = self.depths() if cuts else {}

        def stage(name):
            return sum(c < depths[name] for c in cuts)

        def read(name, consumer_stage):
            if not cuts or stage(name) == consumer_stage:
                return env[name]
            return delay(name, env[name], stage(name), consumer_stage)

        def run(e, at):
            if isinstance(e, ast.Name):
                return read(e.id, at)
            if isinstance(e, ast.Constant):
                return e.value
            if isinstance(e, ast.UnaryOp):
                return run(e.operand, at) ^ 1      # one-bit NOT
            if isinstance(e, ast.IfExp):
                return mux(run(e.test, at), run(e.body, at), run(e.orelse, at))
            left, right = run(e.left, at), run(e.right, at)
            if isinstance(e.op, ast.BitXor):
                return left ^ right
            if isinstance(e.op, ast.BitAnd):
                return left & right
            return left | right

        for target, expr in self.gates:
            value = run(expr, stage(target) if cuts else 0)
            env[target] = node(target, value) if node and self.fanout[target] > 1 else value
        return [read(name, len(cuts)) for name in self.outputs]


@dataclass(frozen=True)
class SBoxCircuit:
    """The programs of one published S-box circuit.

    Attributes
    ----------
    name : str
        Short name (the ``sbox`` kind that builds it).
    citation : str
        Where the program is from.
    forward, inverse : Program or None
        Dedicated SubBytes / InvSubBytes programs; inputs and outputs are listed bit 0 first.
    combined : Program or None
        A program with a direction input after the 8 data inputs.
    decrypt_level : int
        Value of the combined program's direction input that selects InvSubBytes.
    """

    name: str
    citation: str
    forward: Program | None = None
    inverse: Program | None = None
    combined: Program | None = None
    decrypt_level: int = 1


def _msb_first(prefix):
    """Names ``prefix0`` .. ``prefix7`` where ``prefix0`` is the most significant bit, listed
    bit 0 first (the order :class:`Program` takes)."""
    return tuple(f"{prefix}{7 - k}" for k in range(8))


def _lsb_first(prefix):
    return tuple(f"{prefix}{k}" for k in range(8))


# --- Boyar-Peralta, 113 gates (SEA 2010; SLP_AES_113.txt) -------------------------------------

_BP113 = """
// Top linear transform (23 XOR)
y14 = U3 + U5
y13 = U0 + U6
y9 = U0 + U3
y8 = U0 + U5
t0 = U1 + U2
y1 = t0 + U7
y4 = y1 + U3
y12 = y13 + y14
y2 = y1 + U0
y5 = y1 + U6
y3 = y5 + y8
t1 = U4 + y12
y15 = t1 + U5
y20 = t1 + U1
y6 = y15 + U7
y10 = y15 + t0
y11 = y20 + y9
y7 = U7 + y11
y17 = y10 + y11
y19 = y10 + y8
y16 = t0 + y11
y21 = y13 + y16
y18 = U0 + y16
// Nonlinear middle: inversion in GF(2^4) and the multiplications around it (32 AND)
t2 = y12 x y15
t3 = y3 x y6
t4 = t3 + t2
t5 = y4 x U7
t6 = t5 + t2
t7 = y13 x y16
t8 = y5 x y1
t9 = t8 + t7
t10 = y2 x y7
t11 = t10 + t7
t12 = y9 x y11
t13 = y14 x y17
t14 = t13 + t12
t15 = y8 x y10
t16 = t15 + t12
t17 = t4 + y20
t18 = t6 + t16
t19 = t9 + t14
t20 = t11 + t16
t21 = t17 + t14
t22 = t18 + y19
t23 = t19 + y21
t24 = t20 + y18
t25 = t21 + t22
t26 = t21 x t23
t27 = t24 + t26
t28 = t25 x t27
t29 = t28 + t22
t30 = t23 + t24
t31 = t22 + t26
t32 = t31 x t30
t33 = t32 + t24
t34 = t23 + t33
t35 = t27 + t33
t36 = t24 x t35
t37 = t36 + t34
t38 = t27 + t36
t39 = t29 x t38
t40 = t25 + t39
t41 = t40 + t37
t42 = t29 + t33
t43 = t29 + t40
t44 = t33 + t37
t45 = t42 + t41
z0 = t44 x y15
z1 = t37 x y6
z2 = t33 x U7
z3 = t43 x y16
z4 = t40 x y1
z5 = t29 x y7
z6 = t42 x y11
z7 = t45 x y17
z8 = t41 x y10
z9 = t44 x y12
z10 = t37 x y3
z11 = t33 x y4
z12 = t43 x y13
z13 = t40 x y5
z14 = t29 x y2
z15 = t42 x y9
z16 = t45 x y14
z17 = t41 x y8
// Bottom linear transform, the affine map included (30 XOR/XNOR)
tc1 = z15 + z16
tc2 = z10 + tc1
tc3 = z9 + tc2
tc4 = z0 + z2
tc5 = z1 + z0
tc6 = z3 + z4
tc7 = z12 + tc4
tc8 = z7 + tc6
tc9 = z8 + tc7
tc10 = tc8 + tc9
tc11 = tc6 + tc5
tc12 = z3 + z5
tc13 = z13 + tc1
tc14 = tc4 + tc12
S3 = tc3 + tc11
tc16 = z6 + tc8
tc17 = z14 + tc10
tc18 = tc13 + tc14
S7 = z12 # tc18
tc20 = z15 + tc16
tc21 = tc2 + z11
S0 = tc3 + tc16
S6 = tc10 # tc18
S4 = tc14 + S3
S1 = S3 # tc16
tc26 = tc17 + tc20
S2 = tc26 # z17
S5 = tc21 + tc17
"""

#: Boyar-Peralta's 113-gate forward S-box (module notes).
BOYAR_PERALTA_113 = SBoxCircuit(
    name="bp113",
    citation="Boyar, Peralta, SEA 2010 / J. Cryptology 2013: SLP_AES_113",
    forward=Program(_BP113, inputs=_msb_first("U"), outputs=_msb_first("S")))


# --- Boyar-Peralta, depth 16 (ePrint 2011/332, Figures 5 to 9) --------------------------------

_D16_TOP_FORWARD = """
T1 = U0 + U3
T2 = U0 + U5
T3 = U0 + U6
T4 = U3 + U5
T5 = U4 + U6
T6 = T1 + T5
T7 = U1 + U2
T8 = U7 + T6
T9 = U7 + T7
T10 = T6 + T7
T11 = U1 + U5
T12 = U2 + U5
T13 = T3 + T4
T14 = T6 + T11
T15 = T5 + T11
T16 = T5 + T12
T17 = T9 + T16
T18 = U3 + U7
T19 = T7 + T18
T20 = T1 + T19
T21 = U6 + U7
T22 = T7 + T21
T23 = T2 + T22
T24 = T2 + T10
T25 = T20 + T17
T26 = T3 + T16
T27 = T1 + T12
D = U7
"""

_D16_TOP_INVERSE = """
T23 = U0 + U3
T22 = U1 # U3
T2 = U0 # U1
T1 = U3 + U4
T24 = U4 # U7
R5 = U6 + U7
T8 = U1 # T23
T19 = T22 + R5
T9 = U7 # T1
T10 = T2 + T24
T13 = T2 + R5
T3 = T1 + R5
T25 = U2 # T1
R13 = U1 + U6
T17 = U2 # T19
T20 = T24 + R13
T4 = U4 + T8
R17 = U2 # U5
R18 = U5 # U6
R19 = U2 # U4
Y5 = U0 + R17
T6 = T22 + R17
T16 = R13 + R19
T27 = T1 + R18
T15 = T10 + T27
T14 = T10 + R18
T26 = T3 + T16
D = Y5
"""

_D16_MIDDLE = """
M1 = T13 x T6
M2 = T23 x T8
M3 = T14 + M1
M4 = T19 x D
M5 = M4 + M1
M6 = T3 x T16
M7 = T22 x T9
M8 = T26 + M6
M9 = T20 x T17
M10 = M9 + M6
M11 = T1 x T15
M12 = T4 x T27
M13 = M12 + M11
M14 = T2 x T10
M15 = M14 + M11
M16 = M3 + M2
M17 = M5 + T24
M18 = M8 + M7
M19 = M10 + M15
M20 = M16 + M13
M21 = M17 + M15
M22 = M18 + M13
M23 = M19 + T25
M24 = M22 + M23
M25 = M22 x M20
M26 = M21 + M25
M27 = M20 + M21
M28 = M23 + M25
M29 = M28 x M27
M30 = M26 x M24
M31 = M20 x M23
M32 = M27 x M31
M33 = M27 + M25
M34 = M21 x M22
M35 = M24 x M34
M36 = M24 + M25
M37 = M21 + M29
M38 = M32 + M33
M39 = M23 + M30
M40 = M35 + M36
M41 = M38 + M40
M42 = M37 + M39
M43 = M37 + M38
M44 = M39 + M40
M45 = M42 + M41
M46 = M44 x T6
M47 = M40 x T8
M48 = M39 x D
M49 = M43 x T16
M50 = M38 x T9
M51 = M37 x T17
M52 = M42 x T15
M53 = M45 x T27
M54 = M41 x T10
M55 = M44 x T13
M56 = M40 x T23
M57 = M39 x T19
M58 = M43 x T3
M59 = M38 x T22
M60 = M37 x T20
M61 = M42 x T1
M62 = M45 x T4
M63 = M41 x T2
"""

_D16_BOTTOM_FORWARD = """
L0 = M61 + M62
L1 = M50 + M56
L2 = M46 + M48
L3 = M47 + M55
L4 = M54 + M58
L5 = M49 + M61
L6 = M62 + L5
L7 = M46 + L3
L8 = M51 + M59
L9 = M52 + M53
L10 = M53 + L4
L11 = M60 + L2
L12 = M48 + M51
L13 = M50 + L0
L14 = M52 + M61
L15 = M55 + L1
L16 = M56 + L0
L17 = M57 + L1
L18 = M58 + L8
L19 = M63 + L4
L20 = L0 + L1
L21 = L1 + L7
L22 = L3 + L12
L23 = L18 + L2
L24 = L15 + L9
L25 = L6 + L10
L26 = L7 + L9
L27 = L8 + L10
L28 = L11 + L14
L29 = L11 + L17
S0 = L6 + L24
S1 = L16 # L26
S2 = L19 # L28
S3 = L6 + L21
S4 = L20 + L22
S5 = L25 + L29
S6 = L13 # L27
S7 = L6 # L23
"""

_D16_BOTTOM_INVERSE = """
P0 = M52 + M61
P1 = M58 + M59
P2 = M54 + M62
P3 = M47 + M50
P4 = M48 + M56
P5 = M46 + M51
P6 = M49 + M60
P7 = P0 + P1
P8 = M50 + M53
P9 = M55 + M63
P10 = M57 + P4
P11 = P0 + P3
P12 = M46 + M48
P13 = M49 + M51
P14 = M49 + M62
P15 = M54 + M59
P16 = M57 + M61
P17 = M58 + P2
P18 = M63 + P5
P19 = P2 + P3
P20 = P4 + P6
P22 = P2 + P7
P23 = P7 + P8
P24 = P5 + P7
P25 = P6 + P10
P26 = P9 + P11
P27 = P10 + P18
P28 = P11 + P25
P29 = P15 + P20
W0 = P13 + P22
W1 = P26 + P29
W2 = P17 + P28
W3 = P12 + P22
W4 = P23 + P27
W5 = P19 + P24
W6 = P14 + P23
W7 = P9 + P16
"""


def _middle_inputs():
    """The names the depth-16 middle reads from the top layer (``T1`` .. ``T27`` in part, ``D``)."""
    assigned, reads = set(), []
    for line in _D16_MIDDLE.split("\n"):
        if not line.strip():
            continue
        target, _, rhs = line.partition("=")
        for word in rhs.split():
            if word not in ("+", "x") and word not in assigned and word not in reads:
                reads.append(word)
        assigned.add(target.strip())
    return reads


def _prefixed(text, prefix, keep):
    """``text`` with every name outside ``keep`` prefixed (two top layers side by side)."""
    def rename(word):
        return word if word in keep or not word[0].isalpha() or word in ("x",) else prefix + word
    return "\n".join(" ".join(rename(w) for w in line.split()) for line in text.split("\n"))


def _depth16_combined():
    # Both top layers (renamed apart), the middle's inputs muxed by the direction, the shared
    # middle, both bottom layers, and the outputs muxed.
    inputs = set(_msb_first("U"))
    muxes = "\n".join(f"{n} = r_{n} if decrypt else f_{n}" for n in _middle_inputs())
    outputs = "\n".join(f"O{k} = W{k} if decrypt else S{k}" for k in range(8))
    text = "\n".join([_prefixed(_D16_TOP_FORWARD, "f_", inputs),
                      _prefixed(_D16_TOP_INVERSE, "r_", inputs),
                      muxes, _D16_MIDDLE, _D16_BOTTOM_FORWARD, _D16_BOTTOM_INVERSE, outputs])
    return Program(text, inputs=_msb_first("U") + ("decrypt",), outputs=_msb_first("O"))


#: Boyar-Peralta's depth-16 S-box, inverse S-box and their combination (module notes).
BOYAR_PERALTA_DEPTH16 = SBoxCircuit(
    name="bp_depth16",
    citation="Boyar, Peralta, IFIP SEC 2012 (ePrint 2011/332), Figs. 5-9",
    forward=Program(_D16_TOP_FORWARD + _D16_MIDDLE + _D16_BOTTOM_FORWARD,
                    inputs=_msb_first("U"), outputs=_msb_first("S")),
    inverse=Program(_D16_TOP_INVERSE + _D16_MIDDLE + _D16_BOTTOM_INVERSE,
                    inputs=_msb_first("U"), outputs=_msb_first("W")),
    combined=_depth16_combined(),
    decrypt_level=1)


# --- Maximov-Ekdahl, fast bidirectional (TCHES 2019) ------------------------------------------

_ME_BIDIR = """
// Top layer (ctop): both directions' linear maps, selected by ZF with (N)MUX gates
A0 = ~(U5 ^ U3)
A1 = ~(U6 ^ A0)
A2 = ~(U2 ^ U0)
A3 = U7 ^ U2
A4 = ~(U4 ^ U1)
A5 = U5 ^ U1
A6 = ~(A4 if ZF else U6)
Q11 = A5 ^ A6
Q16 = U7 ^ Q11
A7 = U4 ^ A1
L24 = Q16 if ZF else A7
A8 = ~(A3 if ZF else U1)
L5 = A0 ^ A8
L11 = Q16 ^ L5
A9 = U5 if ZF else U1
A10 = ~(A2 ^ A9)
Q5 = A1 ^ A10
Q15 = U7 ^ Q5
A11 = U5 ^ U4
A12 = ~(A2 if ZF else A11)
Q13 = A6 ^ A12
Q12 = Q5 ^ Q13
A13 = A5 ^ A12
Q0 = Q5 ^ A13
Q14 = U7 ^ A13
A14 = ~(U4 ^ A3)
A15 = ~(A0 if ZF else U4)
A16 = ~(U2 ^ A15)
Q3 = A4 ^ A16
L6 = Q11 ^ Q3
A17 = U5 ^ A10
Q7 = ~(A8 ^ A17)
A18 = ~(A14 if ZF else A2)
Q1 = ~(A4 ^ A18)
Q4 = ~(A16 ^ A18)
L7 = Q12 ^ Q1
L8 = Q7 ^ L7
A19 = ~(U6 if ZF else A4)
A20 = ~(U1 ^ A19)
Q9 = ~(A16 ^ A20)
Q10 = A18 ^ A20
L9 = Q0 ^ Q9
A21 = U6 ^ A2
A22 = ~(A21 if ZF else A5)
Q2 = A20 ^ A22
Q6 = ~(A4 ^ A22)
Q8 = ~(A16 ^ A22)
A23 = ~(Q5 ^ Q9)
L10 = ~(Q1 ^ A23)
L4 = Q14 ^ L10
A24 = ~(Q2 if ZF else L4)
L12 = ~(Q16 ^ A24)
L25 = ~(U4 ^ A24)
A25 = L10 if ZF else A3
L17 = U3 ^ A25
A26 = A10 if ZF else Q4
L14 = L24 ^ A26
L23 = A25 ^ A26
A27 = A1 if ZF else U2
L30 = Q12 ^ A27
A28 = ~(L10 if ZF else L5)
L21 = ~(L14 ^ A28)
L27 = ~(L30 ^ A28)
A29 = ~(U2 ^ L4)
L29 = A28 ^ A29
L15 = A19 ^ A29
A30 = ~(A3 ^ A10)
L18 = ~(A19 if ZF else A30)
A31 = ~(A7 ^ A21)
L16 = A25 ^ A31
L26 = L18 ^ A31
A32 = U0 if ZF else A5
L13 = A7 ^ A32
A33 = ~(A15 if ZF else U7)
L19 = ~(L6 ^ A33)
A34 = ~(ZF | U1)
L20 = Q0 ^ A34
A35 = ~(A4 ^ A8)
L28 = ~(L7 ^ A35)
A36 = ~(Q6 if ZF else L11)
L31 = A30 ^ A36
A37 = L26 if ZF else A0
L22 = Q16 ^ A37
Q17 = U7
L0 = Q10
L1 = Q6
L2 = Q9
L3 = Q8
// MULX: GF(2^4) inputs to the inverter
T20 = ~(Q6 & Q12)
T21 = ~(Q3 & Q14)
T22 = ~(Q1 & Q16)
T10 = ~((Q3 | Q14) ^ ~(Q0 & Q7))
T11 = ~((Q4 | Q13) ^ ~(Q10 & Q11))
T12 = ~((Q2 | Q17) ^ ~(Q5 & Q9))
T13 = ~((Q8 | Q15) ^ ~(Q2 & Q17))
X0 = T10 ^ (T20 ^ T22)
X1 = T11 ^ (T21 ^ T20)
X2 = T12 ^ (T21 ^ T22)
X3 = T13 ^ (T21 ^ ~(Q4 & Q13))
// INV: GF(2^4) inversion
T0 = ~(X0 & X2)
T1 = ~(X1 | X3)
T2 = ~(T0 ^ T1)
Y0 = T2 if X2 else X3
Y2 = T2 if X0 else X1
T3 = X2 if X1 else 1
Y1 = X3 if T2 else T3
T4 = X0 if X3 else 1
Y3 = X1 if T2 else T4
// MULL: output multiplications (NAND), the direction folded into four of them
K0 = ~(Y0 & L0)
K1 = ~(Y1 & L1)
K2 = ~(Y2 & L2)
K3 = ~(Y3 & L3)
K4 = ~(Y0 & L4) ^ ZF
K5 = ~(Y1 & L5)
K6 = ~(Y2 & L6)
K7 = ~(Y3 & L7)
K8 = ~(Y0 & L8) ^ ZF
K9 = ~(Y1 & L9)
K10 = ~(Y2 & L10)
K11 = ~(Y3 & L11)
K12 = ~(Y0 & L12)
K13 = ~(Y1 & L13)
K14 = ~(Y2 & L14)
K15 = ~(Y3 & L15)
K16 = ~(Y0 & L16)
K17 = ~(Y1 & L17)
K18 = ~(Y2 & L18)
K19 = ~(Y3 & L19)
K20 = ~(Y0 & L20)
K21 = ~(Y1 & L21)
K22 = ~(Y2 & L22)
K23 = ~(Y3 & L23)
K24 = ~(Y0 & L24) ^ ZF
K25 = ~(Y1 & L25)
K26 = ~(Y2 & L26)
K27 = ~(Y3 & L27)
K28 = ~(Y0 & L28) ^ ZF
K29 = ~(Y1 & L29)
K30 = ~(Y2 & L30)
K31 = ~(Y3 & L31)
// 8 XOR4: the output bits
R7 = (K0 ^ K1) ^ (K2 ^ K3)
R6 = (K4 ^ K5) ^ (K6 ^ K7)
R5 = (K8 ^ K9) ^ (K10 ^ K11)
R4 = (K12 ^ K13) ^ (K14 ^ K15)
R3 = (K16 ^ K17) ^ (K18 ^ K19)
R2 = (K20 ^ K21) ^ (K22 ^ K23)
R1 = (K24 ^ K25) ^ (K26 ^ K27)
R0 = (K28 ^ K29) ^ (K30 ^ K31)
"""

#: Maximov-Ekdahl's fast bidirectional S-box (module notes).
MAXIMOV_EKDAHL_BIDIR = SBoxCircuit(
    name="me_bidir",
    citation="Maximov, Ekdahl, TCHES 2019(4): fast bidirectional SBox",
    combined=Program(_ME_BIDIR, inputs=_lsb_first("U") + ("ZF",), outputs=_lsb_first("R")),
    decrypt_level=0)


# --- Reyhani-Masoleh, Taha, Ashmawy, combined S-box (ARITH 2018) ------------------------------

_RM_COMBINED = """
// Input transform (T, I for SubBytes, K for InvSubBytes), then A, B = NOT MUX by E
T0 = G7 ^ G2
T1 = G6 ^ G0
T2 = T1 ^ G3
Ka1 = ~(G7 ^ G4)
Ka2 = T2 ^ G1
Ka3 = G6 ^ G4
Kb1 = ~(Ka1 ^ G6)
Kb3 = Ka3 ^ T2
Kb0 = T0 ^ G5
Ib0 = ~G0
Ib2 = ~(Ka2 ^ G2)
Ib1 = ~(Kb1 ^ Ka2)
Ib3 = ~(T1 ^ G5)
Ia0 = Ib3 ^ G4
Ia2 = Ib3 ^ G7
Ia3 = Ib3 ^ G1
Ia1 = T0 ^ Ia3
Kb2 = Ia0 ^ G1
Ka0 = ~(Kb2 ^ G5)
A0 = ~(Ia0 if E else Ka0)
A1 = ~(Ia1 if E else Ka1)
A2 = ~(Ia2 if E else Ka2)
A3 = ~(Ia3 if E else Ka3)
B0 = ~(Ib0 if E else Kb0)
B1 = ~(Ib1 if E else Kb1)
B2 = ~(Ib2 if E else Kb2)
B3 = ~(Ib3 if E else Kb3)
// Exponentiation in GF((2^2)^2)
Ap = (A0 ^ A2) ^ (A1 ^ A3)
Bp = (B0 ^ B2) ^ (B1 ^ B3)
D0 = ((A0 ^ A1) & (B0 ^ B1)) ^ ((A0 ^ A2) & (B0 ^ B2)) ^ (A0 & B0) ^ ((A1 ^ A3) | (B1 ^ B3))
D1 = ((A0 ^ A1) & (B0 ^ B1)) ^ ((A0 ^ A2) | (B0 ^ B2)) ^ (A1 & B1) ^ (Ap & Bp)
D2 = (A2 | B2) ^ ((A1 ^ A3) & (B1 ^ B3)) ^ ((A2 ^ A3) & (B2 ^ B3)) ^ ((A0 ^ A2) & (B0 ^ B2))
D3 = (A3 & B3) ^ (Ap & Bp) ^ ((A2 ^ A3) | (B2 ^ B3)) ^ ((A0 ^ A2) & (B0 ^ B2))
// Subfield inversion
E0 = (D3 & (D0 ^ D1)) | (D2 & (~D0 | D3))
E1 = ((~D2 & D3) & ~(D0 ^ D1)) | (D2 & (D1 | ~D3))
E2 = (D1 & (D2 ^ D3)) | (D0 & (~D2 | D1))
E3 = (~D0 & D1 & ~(D2 ^ D3)) | (D0 & (D3 | ~D1))
// Output multipliers
W4 = ((B1 ^ B3) & (E1 ^ E3)) ^ ((B0 ^ B2) & (E0 ^ E2))
W5 = (Bp & (E1 ^ E3)) ^ ((B1 ^ B3) & (E0 ^ E2))
W0 = (B1 & E0) ^ ((B0 ^ B1) & E1) ^ W4
W1 = (B0 & E1) ^ ((B0 ^ B1) & E0) ^ W5
W2 = (B3 & E2) ^ ((B2 ^ B3) & E3) ^ W4
W3 = (B2 & E3) ^ ((B2 ^ B3) & E2) ^ W5
Z4 = ((A1 ^ A3) & (E1 ^ E3)) ^ ((A0 ^ A2) & (E0 ^ E2))
Z5 = (Ap & (E1 ^ E3)) ^ ((A1 ^ A3) & (E0 ^ E2))
Z0 = (A1 & E0) ^ ((A0 ^ A1) & E1) ^ Z4
Z1 = (A0 & E1) ^ ((A0 ^ A1) & E0) ^ Z5
Z2 = (A3 & E2) ^ ((A2 ^ A3) & E3) ^ Z4
Z3 = (A2 & E3) ^ ((A2 ^ A3) & E2) ^ Z5
// Output transform (J for SubBytes, L for InvSubBytes), then S = NOT MUX by E
J7 = ~(W3 ^ Z1)
J6 = W1 ^ Z1
J5 = W0 ^ Z2
J4 = J7 ^ W1
L7 = ~(W2 ^ Z3)
TT0 = ~(J7 ^ Z0)
TT1 = ~(J4 ^ Z3)
J1 = ~(L7 ^ W3)
J0 = ~(L7 ^ W0)
J3 = ~(J0 ^ TT1)
J2 = ~(J5 ^ TT0)
L6 = ~(J5 ^ TT1)
L5 = J2 ^ W1
L4 = ~(W0 ^ Z3)
L3 = ~(J0 ^ TT0)
L2 = ~(J1 ^ W1)
L1 = ~(W3 ^ Z3)
L0 = ~Z0
S0 = ~(J0 if E else L0)
S1 = ~(J1 if E else L1)
S2 = ~(J2 if E else L2)
S3 = ~(J3 if E else L3)
S4 = ~(J4 if E else L4)
S5 = ~(J5 if E else L5)
S6 = ~(J6 if E else L6)
S7 = ~(J7 if E else L7)
"""

#: Reyhani-Masoleh, Taha and Ashmawy's combined S-box / inverse S-box (module notes).
REYHANI_MASOLEH_COMBINED = SBoxCircuit(
    name="rm_combined",
    citation="Reyhani-Masoleh, Taha, Ashmawy, ARITH 2018: new area record, combined S-box",
    combined=Program(_RM_COMBINED, inputs=_lsb_first("G") + ("E",), outputs=_lsb_first("S")),
    decrypt_level=0)


# --- Reyhani-Masoleh, Taha, Ashmawy, 'new area' forward S-box (TCHES 2018) ---------------------

_RM_NEW_AREA = """
// Input matrix (19 XOR): g and m feed the GF(2^4) multipliers
it1 = b7 ^ b4
it2 = b3 ^ b1
it3 = b2 ^ it2
it4 = b6 ^ it3
it5 = b0 ^ it4
it6 = b5 ^ it3
it7 = it5 ^ it6
it8 = b4 ^ it7
it9 = it1 ^ it2
it10 = it1 ^ it8
it11 = b0 ^ it9
it12 = b4 ^ b2
it13 = b1 ^ it7
it14 = b7 ^ b2
it15 = it13 ^ it14
it16 = b7 ^ b1
it17 = it12 ^ it16
it18 = it6 ^ it9
it19 = it7 ^ it11
g7 = b0
g6 = it11
g5 = it5
g4 = it7
g3 = it8
g2 = it15
g1 = it10
g0 = it13
m9 = it9
m8 = it17
m7 = it4
m6 = it1
m5 = it19
m4 = it14
m3 = it18
m2 = it12
m1 = it6
m0 = it16
// Top: GF(2^4) multiplier and square-scaler (24 gates)
pt1 = ~(g6 & g2)
pt2 = ~(m9 & m8)
pt3 = ~(g7 & g3)
pt13 = pt1 ^ pt2
pt14 = pt3 ^ pt1
pt4 = ~(m7 & m6)
pt5 = ~(m7 | m6)
pt6 = ~(m3 & m2)
pt7 = ~(m3 | m2)
pt8 = ~(m5 & m4)
pt15 = pt5 ^ pt6
pt16 = pt8 ^ pt7
pt17 = pt4 ^ pt6
pt18 = pt8 ^ pt6
pt9 = ~(g4 & g0)
pt10 = ~(m1 | m0)
pt11 = ~(g5 & g1)
pt12 = ~(g4 | g0)
pt19 = pt9 ^ pt10
pt20 = pt11 ^ pt12
p3 = pt13 ^ pt15
p2 = pt14 ^ pt16
p1 = pt19 ^ pt17
p0 = pt20 ^ pt18
// Middle: GF(2^4) inverse (15 gates)
mt1 = ~(p3 & p0)
mt2 = ~(mt1 | p2)
mt3 = ~(p2 & p0)
mt4 = p1 ^ mt3
mt5 = ~(p2 | mt4)
mt6 = ~(p1 & mt4)
mt7 = ~(p3 | mt4)
mt8 = ~(mt7 | mt2)
mt9 = ~(mt5 ^ mt7)
l0 = ~(mt9 ^ p3)
l2 = ~(mt6 & mt8)
mt12 = ~(mt8 & p1)
l3 = ~(p0 ^ mt12)
mt14 = ~(mt1 & p2)
l1 = ~(mt9 & mt14)
// Bottom: GF(2^4) multipliers (23 gates)
k4 = l3 ^ l2
k3 = l3 ^ l1
k2 = l2 ^ l0
k1 = k3 ^ k2
k0 = l1 ^ l0
e17 = ~(g2 & l2)
e16 = ~(g3 & l3)
e15 = ~(m8 & k4)
e14 = ~(m2 & k1)
e13 = ~(m4 & k2)
e12 = ~(m6 & k3)
e11 = ~(g0 & l0)
e10 = ~(g1 & l1)
e9 = ~(m0 & k0)
e8 = ~(g6 & l2)
e7 = ~(g7 & l3)
e6 = ~(m9 & k4)
e5 = ~(m3 & k1)
e4 = ~(m5 & k2)
e3 = ~(m7 & k3)
e2 = ~(g4 & l0)
e1 = ~(g5 & l1)
e0 = ~(m1 & k0)
// Output matrix, the affine map included (29 gates)
E11 = e17 ^ e16
E10 = e15 ^ e16
E9 = e14 ^ e13
E8 = e12 ^ e13
E7 = e11 ^ e10
E6 = e9 ^ e10
E5 = e8 ^ e7
E4 = e6 ^ e7
E3 = e5 ^ e4
E2 = e3 ^ e4
E1 = e2 ^ e1
E0 = e0 ^ e1
ot1 = E2 ^ E0
ot2 = E10 ^ ot1
ot3 = E8 ^ ot2
ot4 = E5 ^ E1
ot5 = E5 ^ E3
ot6 = E7 ^ ot5
ot7 = E8 ^ E6
ot8 = E2 ^ ot3
ot9 = E4 ^ ot8
ot10 = ot1 ^ ot5
ot11 = ~(E9 ^ ot6)
ot12 = ~(ot4 ^ ot7)
ot13 = ot3 ^ ot6
ot14 = E11 ^ ot13
ot15 = ~(ot1 ^ ot9)
ot16 = ot10 ^ ot12
ot17 = ot4 ^ ot9
S7 = ot3
S6 = ot15
S5 = ot11
S4 = ot9
S3 = ot17
S2 = ot14
S1 = ot16
S0 = ot12
"""

#: Reyhani-Masoleh, Taha and Ashmawy's 'new area' forward S-box (module notes).
REYHANI_MASOLEH_NEW_AREA = SBoxCircuit(
    name="rm_new_area",
    citation="Reyhani-Masoleh, Taha, Ashmawy, TCHES 2018(2): 'new area' S-box",
    forward=Program(_RM_NEW_AREA, inputs=_lsb_first("b"), outputs=_lsb_first("S")))


#: Circuit name -> :class:`SBoxCircuit`.
CIRCUITS = {c.name: c for c in (BOYAR_PERALTA_113, BOYAR_PERALTA_DEPTH16, MAXIMOV_EKDAHL_BIDIR,
                                REYHANI_MASOLEH_COMBINED, REYHANI_MASOLEH_NEW_AREA)}
