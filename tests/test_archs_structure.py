"""Structure of the hardware code: every ``elaborate`` reads top to bottom in one screen.

A long ``elaborate`` is split into named sub-builders (``_build_...`` methods with docstrings,
as :class:`archs.compact.Compact` and :class:`archs.prims.keyexpander.KeyExpander` do); this
test keeps it that way.
"""

import ast
from pathlib import Path

import pytest

import archs

#: Longest ``elaborate`` allowed, in source lines (docstring and comments included).
MAX_LINES = 80

ARCHS_DIR = Path(archs.__file__).parent


def elaborate_methods():
    for path in sorted(ARCHS_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for cls in ast.walk(tree):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name == "elaborate":
                    name = path.relative_to(ARCHS_DIR).as_posix()
                    yield name, cls.name, node.end_lineno - node.lineno + 1


METHODS = list(elaborate_methods())


def test_elaborate_methods_found():
    names = {(path, cls) for path, cls, _ in METHODS}
    assert {("compact/__init__.py", "Compact"), ("prims/keyexpander/__init__.py", "KeyExpander"),
            ("prims/mixcolumns.py", "MixColumn"), ("estream.py", "EStreamAdapter"),
            ("iterative.py", "Iterative"), ("unrolled/__init__.py", "Unrolled"),
            ("tbox.py", "TBox")} <= names


@pytest.mark.parametrize("path, cls, lines", METHODS, ids=[f"{p}:{c}" for p, c, _ in METHODS])
def test_elaborate_is_short(path, cls, lines):
    assert lines <= MAX_LINES, (f"{cls}.elaborate in archs/{path} has {lines} lines, over "
                                f"{MAX_LINES}: split it into named sub-builders")
