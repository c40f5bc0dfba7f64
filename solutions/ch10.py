"""Chapter 10: reference solutions, and the typical wrong answer each checker must reject."""

import struct


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


WRONG_ANSWERS = {
    "parse_header": _four_byte_version,
    "sequence_offset": _token_offset,
    "samples_with_document": _without_the_extra_token,
}
