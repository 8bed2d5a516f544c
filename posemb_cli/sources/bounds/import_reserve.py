"""What importing torch will still map into this process, estimated without importing it.

A file read before torch is imported (a config.json, an ids file) keeps its parsed
objects while the command goes on to import torch, and that import maps torch's shared
libraries whole: about 0.5 GiB for a CPU build, several GiB with CUDA. Under an
address-space limit (``ulimit -v``) the objects and the libraries must fit together, or
the import dies on a failed allocation (``MemoryError``, or a C++ ``std::bad_alloc``
that aborts the process) after the file was admitted. The estimate is the size of the
libraries torch ships in its ``lib`` folder, found through the import system's finder
(which reads no torch code), plus the Python modules torch loads.
"""

from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["TORCH_MODULES_BYTES", "torch_import_reserve"]

# The Python side of `import torch` beyond its libraries: measured 39 MiB (VmSize 626 MiB after the import, 140 MiB
# before, 447 MiB of libraries; torch 2.13, CPython 3.11), rounded up.
TORCH_MODULES_BYTES = 64 * 2**20


def torch_import_reserve() -> int:
    """Bytes of address space ``import torch`` will still take here: 0 when torch is imported already or absent."""
    if "torch" in sys.modules:
        return 0
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return 0
    if spec is None or not spec.submodule_search_locations:
        return 0
    total = 0
    for folder in spec.submodule_search_locations:
        lib = os.path.join(folder, "lib")
        try:
            names = os.listdir(lib)
        except OSError:
            continue
        for name in names:
            path = os.path.join(lib, name)
            if (".so" in name or name.endswith((".dll", ".dylib"))) and os.path.isfile(path):
                total += os.path.getsize(path)
    return total + TORCH_MODULES_BYTES if total else 0
