"""How much memory an argument may ask for: refused before numpy tries, with the size it would take.

A slip such as max_length=10**12 or num_samples=10**15 would otherwise end in a bare MemoryError,
"Unable to allocate 7.28 TiB", a numpy dimension overflow or a kernel killed by the OS. The bound
is all the machine's RAM, not what is free now: nothing that could ever run here is refused, and
the answer does not change with what else runs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np


def _physical_memory() -> int:
    """The machine's RAM in bytes; 1 TiB where the OS does not say (os.sysconf is POSIX only)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")  # -1 if unknown
    except (AttributeError, ValueError, OSError):
        pages = size = -1
    return pages * size if min(pages, size) > 0 else 2**40


MEMORY_BYTES = _physical_memory()  # the bound, read at every call (a test may set it)


def check_bytes(need: int, what: str, hint: str = "") -> int:
    """`need` if that many bytes fit in this machine's memory, else a ValueError: "`what` (16 TB),
    more than this machine's memory (25.3 GB)`hint`"."""
    if need > MEMORY_BYTES:
        raise ValueError(f"{what} ({bytes_text(need)}), more than this machine's memory "
                         f"({bytes_text(MEMORY_BYTES)}){hint}")
    return need


def check_cells(shape: Sequence[int], dtype: object, name: str) -> tuple[int, ...]:
    """`shape` as a tuple if an array of that shape and `dtype` fits in this machine's memory.

    Called before an argument sizes an allocation; `name` says which arguments set the size:
    "max_length=1000000000000 would need a 1 x 1,000,000,000,000 array of int64 (8 TB), ...".
    """
    shape, dtype = tuple(int(n) for n in shape), np.dtype(dtype)
    check_bytes(math.prod(shape) * dtype.itemsize,
                f"{name} would need a {' x '.join(f'{n:,}' for n in shape)} array of {dtype}")
    return shape


def bytes_text(size: float) -> str:
    """16e12 -> '16 TB', in the decimal units memory and disks are sold in."""
    power = min(int(math.log10(max(size, 1))) // 3, 6)
    return f"{size / 1000**power:.3g} {('B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB')[power]}"
