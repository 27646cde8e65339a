"""Structure of the code: every function and method of ``aesdse`` and ``archs`` reads top to
bottom in one screen.

A longer function is split into named steps (functions or methods with docstrings that say what
each step does). :mod:`tests.test_archs_structure` names the hardware's ``elaborate`` methods
one by one; this test holds every function of both packages, nested ones included, to the same
length.
"""

import ast
from pathlib import Path

import pytest

#: Longest function allowed, in source lines (signature, docstring and comments included;
#: decorators not).
MAX_LINES = 80

ROOT = Path(__file__).resolve().parent.parent


def functions(directories=("aesdse", "archs")):
    """``(path, qualified name, lines)`` of every function and method under ``directories``."""
    for path in sorted(p for d in directories for p in (ROOT / d).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        yield from _walk(tree, path.relative_to(ROOT).as_posix(), "")


def _walk(node, path, prefix):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{child.name}"
            yield path, name, child.end_lineno - child.lineno + 1
            yield from _walk(child, path, name + ".")
        elif isinstance(child, ast.ClassDef):
            yield from _walk(child, path, f"{prefix}{child.name}.")
        else:
            yield from _walk(child, path, prefix)


FUNCTIONS = list(functions())


def test_functions_found():
    names = {(path, name) for path, name, _ in FUNCTIONS}
    assert {("aesdse/engine/sweep.py", "sweep"), ("aesdse/engine/point.py", "run_point"),
            ("archs/compact/__init__.py", "Compact.elaborate"),
            ("aesdse/engine/pnr_stage.py", "search_point_fmax.run_batch")} <= names


def test_the_check_sees_a_long_function():
    # A check that could not fail would prove nothing: a function of MAX_LINES + 1 lines is
    # found with its length.
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_LINES))
    tree = ast.parse("class A:\n    def long(self):\n" + body)
    (found,) = [f for f in _walk(tree, "x.py", "") if f[1] == "A.long"]
    assert found[2] == MAX_LINES + 1


@pytest.mark.parametrize("path, name, lines", FUNCTIONS,
                         ids=[f"{p}::{n}" for p, n, _ in FUNCTIONS])
def test_function_is_short(path, name, lines):
    assert lines <= MAX_LINES, (f"{path}::{name} has {lines} lines, over {MAX_LINES}: split it "
                                f"into named steps")
