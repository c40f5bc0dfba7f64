"""Chapter 10: reference solutions, and the typical wrong answer each checker must reject."""

import struct

import numpy as np

from tutorial_lib.packing import megatron


def parse_header(raw: bytes) -> tuple[int, int, int, int]:
    _, version, dtype_code, sequences, documents = struct.unpack_from("<9sQBQQ", raw)
    return version, dtype_code, sequences, documents


def sequence_offset(lengths: list[int], itemsize: int, i: int) -> int:
    return sum(lengths[:i]) * itemsize


def samples_with_document(lengths: list[int], seq_len: int, k: int) -> list[int]:
    start = sum(lengths[:k])
    end = start + lengths[k]
    n = (sum(lengths) - 1) // seq_len
    return [j for j in range(n) if j * seq_len < end and j * seq_len + seq_len >= start]


def idx_bytes(documents: list[list[int]], dtype: np.dtype) -> bytes:
    lengths = [len(d) for d in documents]
    s = len(lengths)
    pointers, at = [], 0
    for n in lengths:
        pointers.append(at)
        at += n * dtype.itemsize
    header = struct.pack("<9sQBQQ", megatron.MAGIC, 1, megatron.dtype_code(dtype), s, s + 1)
    return (header + struct.pack(f"<{s}i", *lengths) + struct.pack(f"<{s}q", *pointers)
            + struct.pack(f"<{s + 1}q", *range(s + 1)))


def sample_index(sizes: list[int], document_index: list[int],
                 seq_len: int) -> list[tuple[int, int]]:
    # Megatron's build_sample_idx (helpers.cpp): walk the documents, seq_len + 1 tokens a sample,
    # the next sample starting on the last token of this one
    total = sum(sizes[d] for d in document_index)
    rows = [(0, 0)]
    position, offset = 0, 0
    for _ in range((total - 1) // seq_len):
        remaining = seq_len + 1
        while remaining:
            left = sizes[document_index[position]] - offset
            remaining -= left
            if remaining <= 0:
                offset += remaining + left - 1
                remaining = 0
            else:
                position += 1
                offset = 0
        rows.append((position, offset))
    return rows


def _four_byte_version(raw: bytes) -> tuple[int, int, int, int]:
    # Reads the version as a 4-byte int, as a simplified description of the format has it: every
    # later field is then read 4 bytes too early.
    _, version, dtype_code, sequences, documents = struct.unpack_from("<9sIBQQ", raw)
    return version, dtype_code, sequences, documents


def _token_offset(lengths: list[int], itemsize: int, i: int) -> int:
    # Counts tokens, not bytes: right only for a uint8 dataset.
    return sum(lengths[:i])


def _without_the_extra_token(lengths: list[int], seq_len: int, k: int) -> list[int]:
    # Forgets that a sample reads seq_len + 1 tokens: misses the sample whose last target is the
    # document's first.
    start = sum(lengths[:k])
    end = start + lengths[k]
    n = (sum(lengths) - 1) // seq_len
    return [j for j in range(n) if j * seq_len < end and j * seq_len + seq_len > start]


def _documents_without_the_leading_zero(documents: list[list[int]], dtype: np.dtype) -> bytes:
    # Writes one index per document (where it ends) and counts documents, not document indices:
    # Megatron's document_indices start with 0 and have one entry more than there are documents.
    s = len(documents)
    lengths = [len(d) for d in documents]
    pointers = [sum(lengths[:i]) * dtype.itemsize for i in range(s)]
    header = struct.pack("<9sQBQQ", megatron.MAGIC, 1, megatron.dtype_code(dtype), s, s)
    return (header + struct.pack(f"<{s}i", *lengths) + struct.pack(f"<{s}q", *pointers)
            + struct.pack(f"<{s}q", *range(1, s + 1)))


def _samples_apart(sizes: list[int], document_index: list[int],
                   seq_len: int) -> list[tuple[int, int]]:
    # Starts sample k at k * (seq_len + 1): forgets that neighbouring samples share a token.
    lengths = [sizes[d] for d in document_index]
    total = sum(lengths)
    rows = []
    for k in range((total - 1) // seq_len + 1):
        start, begin = k * (seq_len + 1), 0
        for p, n in enumerate(lengths):
            if begin <= start < begin + n:
                rows.append((p, start - begin))
                break
            begin += n
        else:
            rows.append((len(lengths) - 1, start - begin + lengths[-1]))
    return rows


WRONG_ANSWERS = {
    "parse_header": _four_byte_version,
    "sequence_offset": _token_offset,
    "samples_with_document": _without_the_extra_token,
    "idx_bytes": _documents_without_the_leading_zero,
    "sample_index": _samples_apart,
}
