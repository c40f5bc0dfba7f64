"""The bytes of Megatron-LM's indexed dataset, as megatron-core lays them out
(`megatron/core/datasets/indexed_dataset.py`); `megatron` reads and writes the pair.

- `<prefix>.bin`: every sequence's token ids, one after another, in one dtype; nothing else.
- `<prefix>.idx`, little-endian:

  | bytes | field |
  |---|---|
  | 9 | magic `b"MMIDIDX\\x00\\x00"` |
  | 8 | `<Q` version, always 1 |
  | 1 | `<B` dtype code (`DTYPES`) |
  | 8 | `<Q` S, the number of sequences |
  | 8 | `<Q` D, the number of document indices (documents + 1) |
  | 4·S | int32 length of each sequence, in tokens |
  | 8·S | int64 byte offset of each sequence in `.bin` |
  | 8·D | int64 document indices: document k is sequences `[d[k], d[k+1])`; `d[0] == 0` |
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_int_rows
from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_choice, check_int

MAGIC = b"MMIDIDX\x00\x00"
VERSION = 1
DTYPES: dict[int, np.dtype] = {code: np.dtype(name) for code, name in {
    1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float64", 7: "float32",
    8: "uint16"}.items()}
HEADER = struct.Struct("<9sQBQQ")  # magic, version, dtype code, sequences, document indices


def dtype_code(dtype: object) -> int:
    """The `.idx` code of `dtype` (a numpy dtype, a type such as `np.uint16`, or its name)."""
    try:
        name = repr(dtype) if dtype is None else str(np.dtype(dtype))  # np.dtype(None): float64
    except TypeError:
        name = repr(dtype)
    codes = {str(d): code for code, d in DTYPES.items()}
    return codes[check_choice(name, "dtype", codes)]


def optimal_dtype(vocab_size: int) -> np.dtype:
    """Megatron's rule: uint16 (2 bytes a token) when every id is below 65,500, else int32."""
    small = check_int(vocab_size, "vocab_size", low=1) < 65500
    return np.dtype(np.uint16) if small else np.dtype(np.int32)


def bin_path(prefix: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(check_path(prefix, 'prefix'))}.bin")


def idx_path(prefix: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(check_path(prefix, 'prefix'))}.idx")


def byte_offsets(lengths: object, itemsize: int) -> np.ndarray:
    """n + 1 int64 byte offsets: the n `.idx` pointers, then the size of `.bin`."""
    lengths = check_int_rows(lengths, "lengths", low=0, ndim=(1,))
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets * check_int(itemsize, "itemsize", low=1)


class Header(NamedTuple):
    """The fixed fields at the start of an `.idx` file; `size` is where the arrays begin (34)."""
    version: int
    dtype: np.dtype
    sequence_count: int
    document_count: int
    size: int = HEADER.size


def read_header(path: str | os.PathLike) -> Header:
    """Read and check the header of the `.idx` file at `path`."""
    path = check_regular_file(path, "path")
    with open(path, "rb") as f:
        raw = f.read(HEADER.size)
    if len(raw) < len(MAGIC) or raw[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path} is not a Megatron .idx file: it starts with "
                         f"{raw[:len(MAGIC)]!r}, not {MAGIC!r}")
    if len(raw) < HEADER.size:
        raise ValueError(f"{path} is truncated: {len(raw)} bytes, a header needs {HEADER.size}")
    _, version, code, sequences, documents = HEADER.unpack(raw)
    if version != VERSION:
        raise ValueError(f"{path} has version {version}; this reader knows version {VERSION} only")
    if code not in DTYPES:
        raise ValueError(f"{path} has dtype code {code}; known codes are "
                         + ", ".join(f"{c} {d}" for c, d in DTYPES.items()))
    return Header(version, DTYPES[code], sequences, documents)
