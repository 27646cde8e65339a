"""The layers of the code hold: each package imports only the packages below it.

Read from the import statements (lazy imports inside functions included), so a new import that
crosses a layer fails here, not in a review. The layers, bottom up:

* ``archs`` (the hardware) and ``aesdse.spec`` (the experiment schema) import nothing of aesdse;
* ``aesdse.flow`` (device-family drivers, Yosys, nextpnr) reads the schema only;
* ``aesdse.verify`` (testbench, vectors, reference model) reads the schema, the hardware and
  the device-family drivers' cell models;
* ``aesdse.store`` (the results database) reads the schema only;
* ``aesdse.report`` reads stored rows and device facts; it never runs a tool nor the engine;
* the stages at the top of ``aesdse`` (experiment, generate, fingerprint, metrics) compose those;
* ``aesdse.engine`` (scheduler, executors, point pipeline, cache) runs every stage;
* ``aesdse.explore`` (the search) drives the engine and renders with the report;
* ``aesdse.reproduce`` and ``aesdse.cli`` sit on top.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Package (or top-level module) -> the aesdse/archs packages and modules it may import. A name
#: matches itself and everything below it.
ALLOWED = {
    "archs": {"archs"},
    "aesdse.spec": {"aesdse.spec"},
    "aesdse.flow": {"aesdse.flow", "aesdse.spec"},
    # Netlist-level verification (aesdse.verify.netlist) runs Yosys the way the flow does: the
    # tool runner only (YOSYS override, tool identity, process-tree kill on timeout), with the
    # cell models a device family's driver declares.
    "aesdse.verify": {"aesdse.verify", "aesdse.spec", "archs", "aesdse.flow.tools",
                      "aesdse.flow.families"},
    "aesdse.store": {"aesdse.store", "aesdse.spec"},
    # Reports read rows and device facts: no tool runner, no engine but the Fmax search's own
    # summary of stored runs (a pure function of the runs).
    "aesdse.report": {"aesdse.report", "aesdse.store", "aesdse.spec", "aesdse.flow.families",
                      "aesdse.flow.critical_path", "aesdse.engine.fmax_search"},
    # A design point's unset checks get the defaults of the backend that will play them, which
    # only aesdse.verify knows (whether Verilator and a compiler are found).
    "aesdse.experiment": {"aesdse.experiment", "aesdse.spec", "aesdse.flow", "aesdse.fingerprint",
                          "aesdse", "archs", "aesdse.verify"},
    "aesdse.fingerprint": {"aesdse.fingerprint", "aesdse.flow.tools", "aesdse.store", "archs"},
    # The manifest states the key sizes and directions the verify stage checks a core in
    # (aesdse.verify.blocks.core_directions), not a second reading of the signature.
    "aesdse.generate": {"aesdse.generate", "aesdse.experiment", "aesdse.spec", "aesdse.flow",
                        "archs", "aesdse.verify.blocks"},
    "aesdse.metrics": {"aesdse.metrics", "aesdse.flow", "aesdse.spec"},
    "aesdse.engine": {"aesdse.engine", "aesdse.spec", "aesdse.flow", "aesdse.verify",
                      "aesdse.store", "aesdse.experiment", "aesdse.generate",
                      "aesdse.fingerprint", "aesdse.metrics", "aesdse", "archs"},
    # The exploration runs the engine's executors and renders with the report's table.
    "aesdse.explore": {"aesdse.explore", "aesdse.engine", "aesdse.experiment", "aesdse.spec",
                       "aesdse.store", "aesdse.flow", "aesdse.report", "aesdse", "archs"},
    "aesdse.reproduce": {"aesdse"} | {"archs"},
    "aesdse.cli": {"aesdse", "archs"},
    "aesdse.__main__": {"aesdse.cli"},
    "aesdse": {"aesdse"},  # aesdse/__init__.py: the version only
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of the aesdse and archs modules that ``path`` imports."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
    return {n for n in found if n.split(".")[0] in ("aesdse", "archs")}


def _layer(name: str) -> str:
    """The most specific key of :data:`ALLOWED` that ``name`` falls under."""
    candidates = [k for k in ALLOWED if name == k or name.startswith(k + ".")]
    return max(candidates, key=len)


SOURCES = sorted(p for d in ("aesdse", "archs") for p in (ROOT / d).rglob("*.py"))


def violations() -> list[str]:
    out = []
    for path in SOURCES:
        name = _module_name(path)
        allowed = ALLOWED[_layer(name)]
        for imported in sorted(_imports(path)):
            if imported == "aesdse" and "aesdse" not in allowed and _layer(name) != "archs":
                # `from aesdse import __version__` (the package's own __init__) is fine anywhere
                # in aesdse; archs may not even do that.
                continue
            if not any(imported == a or imported.startswith(a + ".") for a in allowed):
                out.append(f"{path.relative_to(ROOT)}: imports {imported}")
    return out


def test_every_module_has_a_layer():
    assert all(_layer(_module_name(p)) for p in SOURCES)


def test_layers_hold():
    assert violations() == []


@pytest.mark.parametrize("source, imported, layer", [
    ("aesdse/spec/x.py", "aesdse.store.database", "aesdse.spec"),
    ("archs/x.py", "aesdse.verify.vectors", "archs"),
    ("aesdse/report/x.py", "aesdse.flow.tools", "aesdse.report"),
    ("aesdse/flow/x.py", "aesdse.experiment", "aesdse.flow"),
])
def test_the_check_sees_a_crossing(source, imported, layer):
    # The rule table refuses what the issue names as violations: a check that could not fail
    # would prove nothing.
    name = source.removesuffix(".py").replace("/", ".")
    assert _layer(name) == layer
    assert not any(imported == a or imported.startswith(a + ".") for a in ALLOWED[layer])


def private_imports() -> list[str]:
    """``from M import _name`` of an aesdse or archs module: a private name used elsewhere should
    be public and documented, or live where it is used."""
    out = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                out += [f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name}"
                        for alias in node.names
                        if alias.name.startswith("_") and not alias.name.startswith("__")]
    return out


def test_no_private_name_is_imported_across_modules():
    assert private_imports() == []


def import_graph() -> dict:
    """Module -> the aesdse and archs modules it imports (lazy imports included), each import
    resolved to the module that defines it (``from archs.prims import gf`` is archs.prims.gf,
    ``from aesdse.verify.cxxrtl import X`` is aesdse.verify.cxxrtl)."""
    modules = {_module_name(p): p for p in SOURCES}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def cycles(graph: dict) -> list:
    """The import cycles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm, iterative), each sorted."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_cycle_check_sees_a_cycle():
    # The verify cycle of issue 46 (backends -> cxxrtl -> script -> blocks -> vectors ->
    # backends), and a module alone or a chain is none.
    graph = {"backends": {"cxxrtl"}, "cxxrtl": {"script"}, "script": {"blocks", "vectors"},
             "blocks": {"vectors"}, "vectors": {"backends"}, "spec": set(), "a": {"spec"}}
    assert cycles(graph) == [["backends", "blocks", "cxxrtl", "script", "vectors"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
