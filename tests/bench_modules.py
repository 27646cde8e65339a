"""The scripts of ``bench/`` loaded as modules for their tests (they are not a package)."""

import contextlib
import importlib.util
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent / "bench"


@contextlib.contextmanager
def bench_module(name: str):
    """``bench/<name>.py`` as the module ``bench_<name>``, registered while the block runs."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
