"""Chapter 10 exercises: the .idx header and a sequence's byte pointer (the cases are files written
by `packing.megatron` and read back by it), and which of Megatron's samples read a document
(`gpt_samples.samples_of_document`)."""

from __future__ import annotations

import random
import struct
import tempfile
from pathlib import Path

import numpy as np

from tutorial_lib.exercises import Case, Exercise, register
from tutorial_lib.packing import gpt_samples, megatron


def _header_cases() -> list[Case]:
    """Whole .idx files of small datasets of every dtype, then bare headers with large random
    counts."""
    rng = random.Random(10)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (code, dtype) in enumerate(megatron.DTYPES.items()):
            prefix = Path(tmp) / f"d{n}"
            documents = [[1] * rng.randint(0, 4) for _ in range(rng.randint(0, 3))]
            megatron.write_dataset(prefix, documents, dtype)
            cases.append(megatron.idx_path(prefix).read_bytes())
        for n in range(12):
            path = Path(tmp) / f"h{n}.idx"
            path.write_bytes(struct.pack("<9sQBQQ", megatron.MAGIC, megatron.VERSION,
                                         rng.choice(list(megatron.DTYPES)),
                                         rng.randint(0, 2**40), rng.randint(1, 2**40)))
            cases.append(path.read_bytes())
        for n, raw in enumerate(list(cases)):
            (Path(tmp) / f"c{n}.idx").write_bytes(raw)
        headers = [megatron.read_header(Path(tmp) / f"c{n}.idx") for n in range(len(cases))]
    return [Case((raw,), (h.version, megatron.dtype_code(h.dtype), h.sequence_count,
                          h.document_count)) for raw, h in zip(cases, headers)]


def _offset_cases() -> list[Case]:
    """Lengths of a few sequences, a dtype's itemsize and an index; the pointer the builder writes
    for it."""
    rng = random.Random(10)
    itemsizes = {1: np.uint8, 2: np.uint16, 4: np.int32, 8: np.int64}
    inputs = [([5, 3], 2, 1), ([5, 3], 4, 1), ([7], 2, 0), ([0, 0, 4], 2, 2), ([1, 2, 3], 8, 2)]
    inputs += [([rng.randint(0, 50) for _ in range(k)], rng.choice(list(itemsizes)),
                rng.randrange(k)) for k in (rng.randint(1, 12) for _ in range(15))]
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (lengths, itemsize, i) in enumerate(inputs):
            ds = megatron.write_dataset(Path(tmp) / f"d{n}", [[0] * k for k in lengths],
                                        itemsizes[itemsize])
            cases.append(Case((lengths, itemsize, i), int(ds.sequence_pointers[i])))
            del ds  # close the mapping before the directory goes
    return cases


def _document_cases() -> list[Case]:
    """Document lengths in stream order, seq_len and a document; the samples whose seq_len + 1
    tokens reach it."""
    rng = random.Random(10)
    inputs = [([3, 2], 2, 1), ([2, 2, 2], 2, 1), ([4, 4], 4, 1), ([1, 1, 1, 1], 3, 3), ([5], 2, 0),
              ([2, 5, 1], 2, 2)]
    inputs += [([rng.randint(1, 9) for _ in range(n)], rng.randint(1, 8), rng.randrange(n))
               for n in (rng.randint(1, 10) for _ in range(20))]
    cases = []
    for lengths, seq_len, k in inputs:
        if sum(lengths) < 2:
            continue
        index = gpt_samples.build_sample_index(np.array(lengths), np.arange(len(lengths)), seq_len)
        reading = gpt_samples.samples_of_document(index, k).tolist()
        cases.append(Case((lengths, seq_len, k), reading))
    return cases


register(Exercise(
    key="10.parse_header",
    title="练习 1：亲手解析 .idx 的文件头",
    concept="文件头是 5 个紧挨着的字段，全部小端（little-endian）、之间没有对齐填充："
            "9 字节魔数，8 字节版本号，1 字节 dtype 代码，8 字节序列数，8 字节文档索引数。",
    recipe="用 struct.unpack_from('<9sQBQQ', raw)（'<' 表示小端且不对齐），丢掉魔数，"
           "返回 (version, dtype_code, sequence_count, document_count)。",
    make_cases=_header_cases,
))

register(Exercise(
    key="10.sequence_offset",
    title="练习 2：第 i 个序列从 .bin 的第几个字节开始",
    concept=".bin 里的序列一个接一个、中间没有分隔；"
            ".idx 的 sequence_pointers 记的是字节偏移，不是 token 偏移。",
    recipe="把前 i 个序列的长度加起来（sum(lengths[:i])），再乘以每个 token 的字节数 itemsize。",
    make_cases=_offset_cases,
))

register(Exercise(
    key="10.samples_with_document",
    title="练习 3：哪些样本读到了第 k 篇文档",
    concept="Megatron 把文档首尾相接成一条 token 流，"
            "样本 j 读的是流里第 j·seq_len 到 j·seq_len + seq_len 个 token"
            "（共 seq_len + 1 个，最后一个只当目标用，也是下一个样本的第一个输入）。",
    recipe="第 k 篇文档占流里的 [start, end)，start = sum(lengths[:k])，end = start + lengths[k]；"
           "样本数 n = (sum(lengths) - 1) // seq_len；"
           "返回满足 j·seq_len < end 且 j·seq_len + seq_len >= start 的所有 j。",
    make_cases=_document_cases,
))
