"""Generator fingerprints: which source code produced a design point's result.

A stored design point has two identities (:mod:`aesdse.store.database`):

*configuration* (:meth:`aesdse.experiment.DesignPoint.config_key`)
    What was measured: architecture, parameters, target, flow options, seed. Reports select rows
    by it, so results stay visible after the code or the tools change.
*provenance* (this module)
    What measured it: the source code that generated and verified the design, the HDL's version,
    the tool versions and the aesdse version. It is part of the point's key: a point whose
    provenance changed is *stale*; a sweep runs it again (and keeps the old row for comparison).

Generator fingerprints
----------------------
:func:`generator_fingerprint` digests the sources a family actually uses: its own module and,
transitively, every module of the ``archs`` package it imports (found by reading the import
statements, lazy ones inside functions included), plus the modules that define how any design is
generated and verified (:data:`GENERATOR_MODULES`, a package among them with every module in it,
and the ``archs`` modules they import, such as the primitives the reference model is built from),
the family's registry entry and Amaranth's version. Editing a module of ``archs/compact/``
therefore changes the fingerprint of ``compact`` only, while editing a primitive changes every
family that imports it.
"""

import ast
import hashlib
import json
import os
from functools import lru_cache
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

from .flow.tools import tool_versions
from .store.provenance import Checkout

__all__ = ["GENERATOR_MODULES", "generator_modules", "generator_fingerprint", "generator_sources",
           "read_source", "current_checkout", "design_identity"]

#: Modules of aesdse that decide how every design is generated and verified; a package stands
#: for every module in it (:func:`generator_modules`: the vector sources of
#: :mod:`aesdse.verify.vectors`).
GENERATOR_MODULES = ("aesdse.generate", "aesdse.verify.verify", "aesdse.verify.blocks",
                     "aesdse.verify.script", "aesdse.verify.testbench", "aesdse.verify.reference",
                     "aesdse.verify.vectors", "aesdse.verify.gcm_vectors",
                     "aesdse.verify.sbox_stream")


def read_source(path: Path) -> bytes:
    """The bytes of one source file (a seam for tests that simulate an edit)."""
    return path.read_bytes()


def _module_path(name: str) -> Path | None:
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _memo_dir() -> Path:
    """Where :func:`_imports` keeps what it read: ``$XDG_CACHE_HOME/aesdse/imports`` (default
    ``~/.cache``). Entries are named by the digest of a module's name and source, so an edit
    never finds an old entry; a directory that cannot be written only costs the parse."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "aesdse" / "imports"


def _imports(name: str, path: Path) -> set[str]:
    """Names of the ``archs`` modules that module ``name`` imports (absolute, resolved).

    Parsing every source of a family is most of the time a cached re-run of a sweep takes, so
    the answer is kept by the digest of the module's name and source (:func:`_memo_dir`)."""
    source = read_source(path)
    memo = _memo_dir() / (hashlib.sha256(name.encode() + b"\0" + source).hexdigest() + ".json")
    try:
        found = json.loads(memo.read_text())
        if isinstance(found, list) and all(isinstance(n, str) for n in found):
            return set(found)
    except (OSError, ValueError):
        pass
    found = _parse_imports(name, path, source)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        part = memo.with_suffix(f".{os.getpid()}.tmp")
        part.write_text(json.dumps(sorted(found)))
        os.replace(part, memo)
    except OSError:
        pass
    return found


def _parse_imports(name: str, path: Path, source: bytes) -> set[str]:
    """:func:`_imports`, read from the ``source`` of module ``name`` at ``path``."""
    tree = ast.parse(source)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            found.add(base)
            # `from .prims import gf` imports the module archs.prims.gf
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {n for n in found if n == "archs" or n.startswith("archs.")}


@lru_cache(maxsize=None)
def generator_modules() -> tuple[str, ...]:
    """:data:`GENERATOR_MODULES` with each package among them followed by every module inside it,
    so that a module added to such a package is in every fingerprint without being listed."""
    out = []
    for name in GENERATOR_MODULES:
        out.append(name)
        path = _module_path(name)
        if path is not None and path.name == "__init__.py":
            for p in sorted(path.parent.rglob("*.py")):
                parts = p.relative_to(path.parent).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                if parts:
                    out.append(".".join((name,) + parts))
    return tuple(out)


def generator_sources(module: str | None, wrappers=()) -> list[Path]:
    """The source files whose content decides the designs of the family in ``module`` (e.g.
    ``"archs.compact"``) with the ``wrappers`` modules the registry may put around it, sorted;
    ``None``: every module of ``archs`` (families that do not name their module)."""
    generating = generator_modules()
    roots = list(generating) + list(wrappers)
    if module is None:
        archs_dir = _module_path("archs").parent
        roots += [f"archs.{'.'.join(p.relative_to(archs_dir).with_suffix('').parts)}"
                  for p in archs_dir.rglob("*.py") if p.name != "__init__.py"]
    else:
        roots.append(module)
    seen: dict[str, Path] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name == "archs":
            continue  # the registry (archs/__init__.py) enters as the family's own entry
        path = _module_path(name)
        if path is None:
            continue  # a package without code of its own, or an optional module not present
        seen[name] = path
        if name.startswith("archs.") or name in generating:
            todo += _imports(name, path)
    return sorted(set(seen.values()))


def _family_entry(name: str) -> dict:
    import archs
    fam = archs.family(name)
    return {"name": fam.name, "kind": fam.kind, "block_bits": fam.block_bits,
            "key_sizes": list(fam.key_sizes), "directions": list(fam.directions),
            "modes": list(fam.modes),
            "params": [[p.name, [repr(c) for c in p.choices], repr(p.default)]
                       for p in fam.params]}


@lru_cache(maxsize=None)
def generator_fingerprint(arch: str) -> str:
    """Digest of everything that generates and verifies designs of family ``arch``."""
    import archs
    fam = archs.family(arch)
    h = hashlib.sha256()
    try:  # the HDL's version changes the netlist as much as the architecture's code does
        h.update(metadata.version("amaranth").encode() + b"\0")
    except metadata.PackageNotFoundError:
        pass
    h.update(json.dumps(_family_entry(arch), sort_keys=True).encode() + b"\0")
    for path in generator_sources(getattr(fam, "module", None), getattr(fam, "wrappers", ())):
        # Names relative to the package root: the fingerprint does not depend on where aesdse
        # is installed.
        h.update("/".join(path.parts[-2:]).encode() + b"\0")
        h.update(read_source(path) + b"\0")
    return h.hexdigest()[:24]


def _fingerprint_or_none(arch: str) -> str | None:
    try:
        return generator_fingerprint(arch)
    except ValueError:  # a family that no longer exists
        return None


def current_checkout() -> Checkout:
    """What this checkout would record for a new row: its generator fingerprints and the
    identifiers of the installed tools (:func:`aesdse.flow.tools.tool_versions`)."""
    return Checkout(tools=tool_versions(), generator=_fingerprint_or_none)


def design_identity(arch: str, params: dict, device_family: str = "generic") -> str:
    """What decides the RTLIL of family ``arch`` built with ``params`` for ``device_family``:
    the family's generator fingerprint (its sources, the generating and verifying modules,
    Amaranth's version), the family and the parameters. The verify stage names its core by it
    to find a cached simulation model without converting the core
    (:mod:`aesdse.verify.design_index`)."""
    return json.dumps({"generator": generator_fingerprint(arch), "arch": arch,
                       "params": params, "device_family": device_family}, sort_keys=True)
